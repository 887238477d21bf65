package setup

import (
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheck checks that every bad value is rejected with the flag's name,
// and output paths that cannot be written before anything runs.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	params := filepath.Join(dir, "model.params")
	if err := os.WriteFile(params, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := Flags{Epochs: 10, LR: 0.01, Hidden: 16, Dropout: 0.5, WeightDecay: 5e-4, Patience: 10}
	if err := good.Check(); err != nil {
		t.Fatalf("good flags: %v", err)
	}
	missing := filepath.Join(dir, "no", "such", "dir")
	for _, c := range []struct {
		edit func(*Flags)
		want string
	}{
		{func(f *Flags) { f.Epochs = -1 }, "-epochs -1"},
		{func(f *Flags) { f.Epochs = 0 }, "-epochs 0: want a positive number (0 only with -load"},
		{func(f *Flags) { f.LR = -0.1 }, "-lr -0.1"},
		{func(f *Flags) { f.LR = math.Inf(1) }, "-lr +Inf"},
		{func(f *Flags) { f.Hidden = 0 }, "-hidden 0"},
		{func(f *Flags) { f.Dropout = 1 }, "-dropout 1"},
		{func(f *Flags) { f.WeightDecay = -1e-4 }, "-weight-decay -0.0001: want a finite number >= 0"},
		{func(f *Flags) { f.Patience = -1 }, "-patience -1"},
		{func(f *Flags) { f.Select = "median" }, `-select "median": want acc or loss`},
		{func(f *Flags) { f.Device = "tpu" }, `-device "tpu": want cpu, gpu or emu`},
		{func(f *Flags) { f.Load = filepath.Join(dir, "absent.params") }, "-load: stat "},
		{func(f *Flags) { f.Load = dir }, "is a directory"},
		{func(f *Flags) { f.Epochs, f.Load, f.Save = 0, params, params }, "-save, -plot and -cpuprofile do not apply"},
		{func(f *Flags) { f.Save = filepath.Join(missing, "m.params") }, "-save: cannot write"},
		{func(f *Flags) { f.Plot = dir }, "-plot: " + dir + " is a directory"},
		{func(f *Flags) { f.CPUProfile = filepath.Join(params, "cpu.prof") }, "-cpuprofile: cannot write"},
	} {
		f := good
		c.edit(&f)
		if err := f.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	ok := good
	ok.Epochs, ok.Load, ok.Save = 0, params, ""
	if err := ok.Check(); err != nil {
		t.Errorf("-epochs 0 with -load: %v", err)
	}
	ok = good
	ok.Save, ok.Plot = params, filepath.Join(dir, "new.png")
	if err := ok.Check(); err != nil {
		t.Errorf("writable outputs: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".gnn-write-check-*")); len(left) != 0 {
		t.Errorf("Check left %v behind", left)
	}
}

// TestParse checks that Given tells flags given from defaults.
func TestParse(t *testing.T) {
	f := Flags{LR: 0.01}
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f.Register(fs)
	if err := f.Parse(fs, []string{"-lr", "0.01", "-seed", "3"}); err != nil {
		t.Fatal(err)
	}
	if !f.Given("lr") || !f.Given("seed") || f.Given("weight-decay") || f.Seed != 3 {
		t.Errorf("given lr %t, seed %t, weight-decay %t; seed %d", f.Given("lr"), f.Given("seed"), f.Given("weight-decay"), f.Seed)
	}
}

// TestMessage checks that errors are prefixed with the command's name once.
func TestMessage(t *testing.T) {
	for _, c := range []struct{ err, want string }{
		{"gcn: gcn1: features have shape (3, 2)", "gcn: gcn1: features have shape (3, 2)"},
		{"-lr -1: want a positive, finite learning rate", "gcn: -lr -1: want a positive, finite learning rate"},
		{"train: epoch 2: diverged", "gcn: train: epoch 2: diverged"},
		{"gcnx: odd", "gcn: gcnx: odd"},
	} {
		if got := Message("gcn", errors.New(c.err)); got != c.want {
			t.Errorf("Message(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
