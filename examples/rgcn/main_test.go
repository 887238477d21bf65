package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gnngo/gnn/examples/internal/setup"
)

func defaults() setup.Flags {
	return setup.Flags{Epochs: 60, LR: 0.01, Hidden: 16, Dropout: 0.5, WeightDecay: 5e-4, Seed: 1, Select: "acc"}
}

var testLine = regexp.MustCompile(`(?m)^test accuracy: ([01]\.\d{4})$`)

// TestAccuracyFloor trains with the defaults on the generated graph: with
// 6 planted classes chance is about 0.17; R-GCN reaches 0.80 with seed 1.
func TestAccuracyFloor(t *testing.T) {
	for _, o := range []options{{Scale: 1}, {Bases: 3, Scale: 1}} {
		f := defaults()
		var out bytes.Buffer
		if err := run(&out, &f, o); err != nil {
			t.Fatal(err)
		}
		m := testLine.FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("no test accuracy line in:\n%s", out.String())
		}
		acc, _ := strconv.ParseFloat(m[1], 64)
		if acc < 0.6 {
			t.Errorf("bases %d: test accuracy %.4f, want at least 0.6", o.Bases, acc)
		}
		if n := strings.Count(out.String(), "\nepoch "); n != 60 {
			t.Errorf("%d epoch lines, want 60", n)
		}
	}
}

func TestFlagErrors(t *testing.T) {
	for _, c := range []struct {
		f    func(*setup.Flags, *options)
		want string
	}{
		{func(f *setup.Flags, o *options) { f.Data = "x" }, "-data x"},
		{func(f *setup.Flags, o *options) { o.Bases = -1 }, "-bases -1"},
		{func(f *setup.Flags, o *options) { o.Scale = 0 }, "-scale 0"},
		{func(f *setup.Flags, o *options) { o.Classes = -2 }, "-classes -2"},
		{func(f *setup.Flags, o *options) { f.Hidden = 0 }, "-hidden 0"},
		{func(f *setup.Flags, o *options) { o.Classes = 1000000000 }, "-classes 1000000000: more classes than the 800 papers"},
		{func(f *setup.Flags, o *options) { o.Features = 1000000000 }, "-scale 1 -features 1000000000: -hidden 16 on 1400 nodes"},
		{func(f *setup.Flags, o *options) { o.Bases = 9 }, "-bases 9: more bases than the 8 relations"},
		{func(f *setup.Flags, o *options) { f.Device = "emu" }, "-device does not apply"},
		{func(f *setup.Flags, o *options) { f.Dense = true }, "-dense does not apply"},
		{func(f *setup.Flags, o *options) { o.Scale = 2000000 }, "-scale 2000000: nodes 2800000000: more than the 2147483647"},
		{func(f *setup.Flags, o *options) { f.Hidden = 100000000 }, "-hidden 100000000 on 1400 nodes (600 without features"},
	} {
		f, o := defaults(), options{Scale: 1}
		c.f(&f, &o)
		err := run(&bytes.Buffer{}, &f, o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want it to contain %q", err, c.want)
		}
	}
}

// TestTextData trains on the text-format heterograph shipped with
// graph/hetero: its labelled type is user, whose splits hold one node
// each; and refuses that graph without its labels.
func TestTextData(t *testing.T) {
	const dir = "../../graph/hetero/testdata/small"
	f, o := defaults(), options{Scale: 1}
	f.Data, f.Epochs = dir, 5
	var out bytes.Buffer
	if err := run(&out, &f, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "2 classes (user), train/val/test 1/1/1") || testLine.FindString(out.String()) == "" {
		t.Errorf("output:\n%s", out.String())
	}
	if n := strings.Count(out.String(), "\nepoch "); n != 5 {
		t.Errorf("%d epoch lines, want 5", n)
	}

	bare := t.TempDir()
	for _, name := range []string{"follows.txt", "plays.txt", "makes.txt", "user.feat", "game.feat"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bare, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	schema := "node user 3 user.feat\nnode game 2 game.feat\nnode studio 1\nedge user follows user follows.txt\nedge user plays game plays.txt\nedge studio makes game makes.txt\n"
	if err := os.WriteFile(filepath.Join(bare, "schema.txt"), []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	f.Data = bare
	if err := run(&bytes.Buffer{}, &f, o); err == nil || !strings.Contains(err.Error(), "0 node types have labels") {
		t.Errorf("graph without labels: err = %v", err)
	}
}
