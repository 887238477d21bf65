package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gnngo/gnn/examples/internal/setup"
)

// defaults are main's flags.
func defaults() (setup.Flags, heads) {
	return setup.Flags{Epochs: 300, LR: 0.005, Hidden: 8, Dropout: 0.6, WeightDecay: 5e-4, Patience: 100, Seed: 1}, heads{8, 1}
}

var (
	epochLine = regexp.MustCompile(`(?m)^epoch +\d+ +loss `)
	testLine  = regexp.MustCompile(`(?m)^test accuracy: ([01]\.\d{4})$`)
	bestLine  = regexp.MustCompile(`(?m)^best validation accuracy [01]\.\d{4} at epoch (\d+)$`)
	times     = regexp.MustCompile(` +[0-9.]+ ms\n`)
)

func testAccuracy(t *testing.T, out string) float64 {
	t.Helper()
	m := testLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no test accuracy line in:\n%s", out)
	}
	acc, _ := strconv.ParseFloat(m[1], 64)
	return acc
}

// TestRun trains for a few epochs on the generated graph and checks the
// output format, the saved parameters and the plot, written after the
// result is printed.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	f, h := defaults()
	f.Epochs, h.hidden = 5, 2
	f.Save, f.Plot = filepath.Join(dir, "model.params"), filepath.Join(dir, "curves.png")
	var out bytes.Buffer
	if err := run(&out, &f, h); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if got := epochLine.FindAllString(s, -1); len(got) != 5 {
		t.Errorf("%d epoch lines, want 5:\n%s", len(got), s)
	}
	if !regexp.MustCompile(`\ntest accuracy: [01]\.\d{4}\nsaved the parameters of epoch \d+ to .*\nwrote .*curves.png\n$`).MatchString(s) {
		t.Errorf("output does not end with the result, then the files written:\n%s", s)
	}
	for _, p := range []string{f.Save, f.Plot} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s was not written (%v)", p, err)
		}
	}
}

// TestTrainSaveLoad trains 4 heads for 50 epochs without dropout (the
// default's 300 epochs take seconds) at GOMAXPROCS 1 and 2: the output must
// be the same but for the times, and the test accuracy above what a model
// that does not train reaches (chance is 1/7). The model saved (its best
// epoch is not the last) and loaded back gives the same test accuracy.
func TestTrainSaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gat.params")
	var outs [2]string
	for i, procs := range []int{1, 2} {
		f, h := defaults()
		f.Epochs, f.Dropout, h.hidden, f.Save = 50, 0, 4, path
		prev := runtime.GOMAXPROCS(procs)
		var out bytes.Buffer
		err := run(&out, &f, h)
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = times.ReplaceAllString(out.String(), "\n")
	}
	if outs[0] != outs[1] {
		t.Errorf("GOMAXPROCS 1 and 2 print different results:\n%s\n---\n%s", outs[0], outs[1])
	}
	trained := testAccuracy(t, outs[0])
	if trained < 0.5 {
		t.Errorf("test accuracy %.4f, want at least 0.5", trained)
	}
	if m := bestLine.FindStringSubmatch(outs[0]); m == nil || m[1] == "50" {
		t.Fatalf("the best epoch is the last or missing: the test proves nothing:\n%s", outs[0])
	}

	f, h := defaults()
	f.Epochs, f.Dropout, h.hidden, f.Load = 0, 0, 4, path
	var out bytes.Buffer
	if err := run(&out, &f, h); err != nil {
		t.Fatal(err)
	}
	if got := testAccuracy(t, out.String()); got != trained {
		t.Errorf("the loaded model's test accuracy is %.4f, training printed %.4f:\n%s", got, trained, out.String())
	}
	// The file holds 4 hidden heads: a model of 8 refuses it, naming -load.
	f, h = defaults()
	f.Epochs, f.Load = 0, path
	if err := run(&out, &f, h); err == nil || !strings.HasPrefix(err.Error(), "-load: ") {
		t.Errorf("loading into another model: error %v, want one naming -load", err)
	}
}

// TestErrors checks the flags only this example has.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		h    heads
		want string
	}{{heads{0, 1}, "-heads 0: "}, {heads{8, -1}, "-out-heads -1: "}} {
		f, _ := defaults()
		var out bytes.Buffer
		if err := run(&out, &f, c.h); err == nil || !strings.HasPrefix(err.Error(), c.want) || out.Len() != 0 {
			t.Errorf("error %v after printing %q, want %q", err, out.String(), c.want)
		}
	}
}

// TestPubMedSettings checks that PubMed switches to the paper's settings
// those flags not given on the command line.
func TestPubMedSettings(t *testing.T) {
	f, h := defaults()
	var out bytes.Buffer
	pubmedSettings(&out, &f, &h)
	if h.out != 8 || f.LR != 0.01 || f.WeightDecay != 0.001 || !strings.Contains(out.String(), "-out-heads 8 -lr 0.01 -weight-decay 0.001") {
		t.Errorf("out heads %d, lr %v, weight decay %v, said %q", h.out, f.LR, f.WeightDecay, out.String())
	}
	f, h = defaults()
	fs := flagSet(flag.NewFlagSet("gat", flag.ContinueOnError), &f, &h)
	if err := f.Parse(fs, []string{"-lr", "0.005", "-out-heads", "1"}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	pubmedSettings(&out, &f, &h)
	if h.out != 1 || f.LR != 0.005 || f.WeightDecay != 0.001 || out.String() != "pubmed: the GAT paper's settings for PubMed: -weight-decay 0.001\n" {
		t.Errorf("with -lr and -out-heads given: out heads %d, lr %v, weight decay %v, said %q", h.out, f.LR, f.WeightDecay, out.String())
	}
}
