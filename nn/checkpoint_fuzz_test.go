package nn

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
)

// paramBits returns the bits of every element of params, in order.
func paramBits(params gorgonia.Nodes) []uint64 {
	var bits []uint64
	for _, p := range params {
		switch d := p.Value().Data().(type) {
		case []float32:
			for _, v := range d {
				bits = append(bits, uint64(math.Float32bits(v)))
			}
		case []float64:
			for _, v := range d {
				bits = append(bits, math.Float64bits(v))
			}
		}
	}
	return bits
}

// FuzzLoadParams feeds LoadParams arbitrary files for a model of two
// parameters (float32 4x3 and float64 3). It must never panic; a file it
// refuses must leave the parameters unchanged, and a file it accepts must
// hold exactly what it loaded: saved again, the parameters load back into
// a fresh model bit-exact.
func FuzzLoadParams(f *testing.F) {
	dir := f.TempDir()
	_, src := testParams(f, 1)
	valid := filepath.Join(dir, "valid.params")
	if err := SaveParams(valid, src); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(valid)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)-4])
	f.Add(data[:20])
	f.Add([]byte{})
	f.Add([]byte("GNNPARAM"))
	bad := slices.Clone(data)
	bad[30] ^= 1
	f.Add(bad)
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "fuzz.params")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, params := testParams(t, 2)
		before := paramBits(params)
		if err := LoadParams(path, params); err != nil {
			if !slices.Equal(paramBits(params), before) {
				t.Fatalf("a refused file (%v) changed the parameters", err)
			}
			return
		}
		again := filepath.Join(dir, "again.params")
		if err := SaveParams(again, params); err != nil {
			t.Fatalf("saving loaded parameters: %v", err)
		}
		_, fresh := testParams(t, 3)
		if err := LoadParams(again, fresh); err != nil {
			t.Fatalf("loading saved parameters: %v", err)
		}
		if !slices.Equal(paramBits(fresh), paramBits(params)) {
			t.Fatal("parameters changed through SaveParams and LoadParams")
		}
		if saved, _ := os.ReadFile(again); len(saved) != len(data) || !bytes.Equal(saved[:12], data[:12]) {
			t.Fatalf("an accepted file of %d bytes saves as %d bytes", len(data), len(saved))
		}
	})
}
