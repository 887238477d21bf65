package model_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/model"
)

// fuzzSeeds returns valid model files to start the fuzzers from.
func fuzzSeeds(f *testing.F) [][]byte {
	var out [][]byte
	for _, name := range []string{"GraphConv", "GATConv", "GINConv", "APPNP"} {
		m, err := model.New(nodeSpecs()[name], tensor.Float32, 1)
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		path := filepath.Join(f.TempDir(), name)
		if err := m.Save(path); err != nil {
			f.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		buf.Write(data)
		out = append(out, buf.Bytes())
	}
	return out
}

// checkAccepted fails unless a model Read accepted saves and reads back to
// the same spec and parameters.
func checkAccepted(t *testing.T, m *model.Model) {
	path := filepath.Join(t.TempDir(), "again")
	if err := m.Save(path); err != nil {
		t.Fatalf("an accepted model does not save: %v", err)
	}
	again, err := model.Load(path)
	if err != nil {
		t.Fatalf("an accepted model, saved, does not load: %v", err)
	}
	if !reflect.DeepEqual(again.Spec(), m.Spec()) {
		t.Fatalf("spec changed in a second round trip")
	}
	for name, v := range m.Params() {
		if !equalBits(bits(t, v), bits(t, again.Params()[name])) {
			t.Fatalf("parameter %q changed in a second round trip", name)
		}
	}
}

// FuzzRead feeds Read arbitrary files. It must never panic, and a file it
// accepts must save and load back to the same model.
func FuzzRead(f *testing.F) {
	for _, d := range fuzzSeeds(f) {
		f.Add(d)
		f.Add(d[:len(d)/2])
	}
	f.Add([]byte("GNNMODEL"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := model.Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		checkAccepted(t, m)
	})
}

// FuzzSpec feeds Read files whose spec is arbitrary but whose frame and
// checksum are right (random bytes rarely get past the checksum), with a
// GraphConv model's parameters after it. It must never panic, and what it
// accepts must round-trip.
func FuzzSpec(f *testing.F) {
	seeds := fuzzSeeds(f)
	base := seeds[0]
	for _, d := range seeds {
		reframe(d, func(_, _ *uint32, s []byte) []byte { f.Add(s); return s })
	}
	f.Add([]byte(`{"in_features":5,"layers":[{"type":"HeteroGraphConv","relations":[]}]}`))
	f.Fuzz(func(t *testing.T, spec []byte) {
		data := reframe(base, func(_, _ *uint32, _ []byte) []byte { return spec })
		m, err := model.Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		checkAccepted(t, m)
	})
}
