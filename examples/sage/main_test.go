package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runArgs runs the command with args and returns its output.
func runArgs(t *testing.T, args ...string) (string, error) {
	t.Helper()
	o := options{Fanouts: "10,5", Batch: 32, Nodes: 1500, Chunk: 500, Infer: true}
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
	params := filepath.Join(t.TempDir(), "sage.params")
	if err := os.WriteFile(params, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-fanouts", "10,x"}, "-fanouts"},
		{[]string{"-fanouts", "10,-2"}, "-fanouts"},
		{[]string{"-batch", "0"}, "-batch"},
		{[]string{"-nodes", "0"}, "-nodes"},
		{[]string{"-chunk", "-1"}, "-chunk"},
		{[]string{"-classes", "-1"}, "-classes"},
		{[]string{"-features", "-1"}, "-features"},
		{[]string{"-degree", "NaN"}, "-degree"},
		{[]string{"-train-per-class", "-3"}, "-train-per-class"},
		{[]string{"-data", "x", "-train-per-class", "3"}, "-train-per-class"},
		{[]string{"-load", params, "-infer=false", "-epochs", "0"}, "-infer"},
		{[]string{"-patience", "5"}, "-patience"},
		{[]string{"-lr", "-1"}, "-lr"},
	} {
		if _, err := runArgs(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got error %v, want one naming %s", c.args, err, c.want)
		}
	}
}

// TestGeneratedShape checks that the generated graph's flags shape it (3
// classes of 40 training nodes, scaled down to 111 to fit 1500 nodes with
// the default validation and test sets: 4 batches of 32);
// -infer=false trains without evaluating.
func TestGeneratedShape(t *testing.T) {
	t.Parallel()
	out, err := runArgs(t, "-classes", "3", "-features", "8", "-degree", "6", "-train-per-class", "40", "-epochs", "1", "-infer=false")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "classes 3") && !strings.Contains(out, "3 classes") {
		t.Errorf("no 3 classes in:\n%s", out)
	}
	if !strings.Contains(out, " 4 batches ") || !strings.Contains(out, "ms per 1000 seeds") {
		t.Errorf("want one epoch of 4 batches with ms per 1000 seeds, got:\n%s", out)
	}
	if accuracies.MatchString(out) {
		t.Errorf("-infer=false printed accuracies:\n%s", out)
	}
}
