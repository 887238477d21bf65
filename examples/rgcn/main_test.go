package main

import (
	"bytes"
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
		{func(f *setup.Flags, o *options) { f.Hidden = 0 }, "-hidden 0"},
	} {
		f, o := defaults(), options{Scale: 1}
		c.f(&f, &o)
		err := run(&bytes.Buffer{}, &f, o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want it to contain %q", err, c.want)
		}
	}
}
