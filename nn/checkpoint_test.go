package nn

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func testParams(t testing.TB, seed uint64) (*gorgonia.ExprGraph, gorgonia.Nodes) {
	t.Helper()
	eg := gorgonia.NewGraph()
	w, err := Glorot(tensor.Float32, seed, 1, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Glorot(tensor.Float64, seed+1, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	return eg, gorgonia.Nodes{Param(eg, "layer.weight", w), Param(eg, "layer.bias", b)}
}

func TestParamsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "model.params")
	_, src := testParams(t, 1)
	if err := SaveParams(path, src); err != nil {
		t.Fatal(err)
	}
	_, dst := testParams(t, 2)
	if err := LoadParams(path, dst); err != nil {
		t.Fatal(err)
	}
	for i := range src {
		a, b := src[i].Value().Data(), dst[i].Value().Data()
		switch a := a.(type) {
		case []float32:
			for j := range a {
				if a[j] != b.([]float32)[j] {
					t.Fatalf("%s[%d] = %v, saved %v", src[i].Name(), j, b.([]float32)[j], a[j])
				}
			}
		case []float64:
			for j := range a {
				if a[j] != b.([]float64)[j] {
					t.Fatalf("%s[%d] = %v, saved %v", src[i].Name(), j, b.([]float64)[j], a[j])
				}
			}
		}
	}
}

func TestParamsErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.params")
	_, src := testParams(t, 1)
	if err := SaveParams(path, src); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	written := 0
	write := func(b []byte) string {
		written++
		p := filepath.Join(dir, fmt.Sprintf("bad%d.params", written))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flipped := append([]byte{}, good...)
	flipped[len(flipped)-10] ^= 1

	eg := gorgonia.NewGraph()
	wrongShape := gorgonia.Nodes{Param(eg, "layer.weight", Zeros(tensor.Float32, 3, 4)), Param(eg, "layer.bias", Zeros(tensor.Float64, 3))}
	eg2 := gorgonia.NewGraph()
	wrongName := gorgonia.Nodes{Param(eg2, "other.weight", Zeros(tensor.Float32, 4, 3)), Param(eg2, "layer.bias", Zeros(tensor.Float64, 3))}
	eg3 := gorgonia.NewGraph()
	wrongDtype := gorgonia.Nodes{Param(eg3, "layer.weight", Zeros(tensor.Float64, 4, 3)), Param(eg3, "layer.bias", Zeros(tensor.Float64, 3))}

	cases := []struct {
		name   string
		path   string
		params gorgonia.Nodes
		want   string
	}{
		{"missing", filepath.Join(dir, "none"), src, "no such file"},
		{"not params", write([]byte("hello world, not a parameter file")), src, "not a gnn parameter file"},
		{"truncated", write(good[:len(good)-20]), src, "unexpected EOF"},
		{"corrupt", write(flipped), src, "checksum mismatch"},
		{"trailing", write(append(append([]byte{}, good...), 0)), src, "after the checksum"},
		{"wrong shape", path, wrongShape, "shape [4 3] in the file but (3, 4) in the model"},
		{"wrong layer", path, wrongName, `no parameter "layer.weight"`},
		{"wrong dtype", path, wrongDtype, "dtype code 1"},
		{"count", path, src[:1], "holds 2 parameters, the model has 1"},
	}
	for _, c := range cases {
		var before []float32
		if d, ok := c.params[0].Value().Data().([]float32); ok {
			before = append(before, d...)
		}
		err := LoadParams(c.path, c.params)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if c.params[0].Dtype() == tensor.Float32 {
			after := c.params[0].Value().Data().([]float32)
			for i := range before {
				if before[i] != after[i] {
					t.Errorf("%s: a failed load changed the model", c.name)
					break
				}
			}
		}
	}
}

func TestSaveParamsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.params")
	_, src := testParams(t, 1)
	if err := SaveParams(path, src); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	// Duplicate names are refused before anything is written.
	if err := SaveParams(path, gorgonia.Nodes{src[0], src[0]}); err == nil {
		t.Errorf("duplicate names saved")
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Errorf("a refused save changed the file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}
