package paramio

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

// TestRoundTrip writes two records and a checksum and reads them back, then
// checks the reader's refusals.
func TestRoundTrip(t *testing.T) {
	a := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float32{1, 2, 3, 4, 5, 6}))
	b := tensor.New(tensor.WithShape(2), tensor.WithBacking([]float64{-1, 0.5}))
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, r := range []struct {
		name string
		v    tensor.Tensor
	}{{"a", a}, {"b", b}} {
		if err := w.Record(r.name, r.v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if !Valid(data) || Valid(data[:len(data)-1]) || Valid(nil) {
		t.Fatal("Valid is wrong")
	}
	expect := map[string]tensor.Tensor{"a": a, "b": b}
	lookup := func(name string) Value {
		if v, ok := expect[name]; ok {
			return v
		}
		return nil
	}
	r := NewReader(bytes.NewReader(data))
	for _, want := range []string{"a", "b"} {
		name, vals, err := r.Record(lookup)
		if err != nil || name != want {
			t.Fatalf("record %q: %q, %v", want, name, err)
		}
		switch v := vals.(type) {
		case []float32:
			if v[5] != 6 {
				t.Errorf("a: %v", v)
			}
		case []float64:
			if v[0] != -1 || v[1] != 0.5 {
				t.Errorf("b: %v", v)
			}
		}
	}
	if err := r.Finish(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		data   []byte
		expect map[string]tensor.Tensor
		want   string
	}{
		{"unknown", data, map[string]tensor.Tensor{"b": b}, `no parameter "a"`},
		{"shape", data, map[string]tensor.Tensor{"a": tensor.New(tensor.WithShape(3, 2), tensor.Of(tensor.Float32))}, `"a" has shape [2 3] in the file but (3, 2) in the model`},
		{"dtype", data, map[string]tensor.Tensor{"a": tensor.New(tensor.WithShape(2, 3), tensor.Of(tensor.Float64))}, "dtype code 1 in the file"},
		{"truncated", data[:20], expect, io.ErrUnexpectedEOF.Error()},
	} {
		_, _, err := NewReader(bytes.NewReader(c.data)).Record(func(n string) Value {
			if v, ok := c.expect[n]; ok {
				return v
			}
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if err := NewWriter(io.Discard).Record("i", tensor.New(tensor.WithShape(1), tensor.Of(tensor.Int))); err == nil {
		t.Error("an int tensor was written")
	}
	corrupt := bytes.Clone(data)
	corrupt[3] ^= 1
	r = NewReader(bytes.NewReader(corrupt))
	for range 2 {
		if _, _, err := r.Record(lookup); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
	}
	if err := r.Finish(); err == nil {
		t.Error("a corrupt stream passed Finish")
	}
}
