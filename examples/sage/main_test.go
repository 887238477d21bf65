package main

import (
	"bytes"
	"flag"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runArgs runs the command with args and returns its output.
func runArgs(t *testing.T, args ...string) (string, error) {
	t.Helper()
	o := options{Fanouts: "10,5", Batch: 32, Nodes: 1500, Chunk: 500}
	o.Epochs, o.LR, o.Hidden, o.Dropout, o.WeightDecay, o.Seed = 8, 0.01, 32, 0.5, 5e-4, 1
	fs := flag.NewFlagSet("sage", flag.ContinueOnError)
	o.register(fs)
	if err := o.Parse(fs, args); err != nil {
		return "", err
	}
	var out bytes.Buffer
	err := run(&out, &o)
	return out.String(), err
}

var accuracies = regexp.MustCompile(`(?m)^(train|val|test) accuracy: [0-9.]+$`)

var testAcc = regexp.MustCompile(`(?m)^test accuracy: ([0-9.]+)$`)

// TestTrainSaveLoad trains on a small generated graph, prints a line per
// epoch with batches/s, and checks that the saved parameters, loaded and
// evaluated without training, give the same accuracies.
func TestTrainSaveLoad(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sage.params")
	out, err := runArgs(t, "-save", path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "batches/s") != 8 {
		t.Fatalf("want 8 epoch lines with batches/s, got:\n%s", out)
	}
	m := testAcc.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no test accuracy in:\n%s", out)
	}
	if m[1] < "0.4" { // seven classes: chance is about 0.14
		t.Fatalf("test accuracy %s after training, want well above chance", m[1])
	}
	again, err := runArgs(t, "-load", path, "-epochs", "0")
	if err != nil {
		t.Fatal(err)
	}
	if a, b := accuracies.FindAllString(out, -1), accuracies.FindAllString(again, -1); len(a) != 3 || strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("trained model: %q, loaded model: %q", a, b)
	}
}

// TestFlagErrors checks that bad flags are refused, naming the flag.
func TestFlagErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-fanouts", "10,x"}, "-fanouts"},
		{[]string{"-fanouts", "10,-2"}, "-fanouts"},
		{[]string{"-batch", "0"}, "-batch"},
		{[]string{"-nodes", "0"}, "-nodes"},
		{[]string{"-chunk", "-1"}, "-chunk"},
		{[]string{"-patience", "5"}, "-patience"},
		{[]string{"-lr", "-1"}, "-lr"},
	} {
		if _, err := runArgs(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got error %v, want one naming %s", c.args, err, c.want)
		}
	}
}
