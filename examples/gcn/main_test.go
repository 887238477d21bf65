package main

import (
	"bytes"
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
func defaults() setup.Flags {
	return setup.Flags{Epochs: 200, LR: 0.01, Hidden: 16, Dropout: 0.5, WeightDecay: 5e-4, Seed: 1}
}

var (
	epochLine = regexp.MustCompile(`(?m)^epoch +\d+ +loss `)
	testLine  = regexp.MustCompile(`(?m)^test accuracy: ([01]\.\d{4})$`)
	bestLine  = regexp.MustCompile(`(?m)^best validation accuracy [01]\.\d{4} at epoch (\d+)$`)
	times     = regexp.MustCompile(` +[0-9.]+ ms\n`)
)

// testAccuracy returns the test accuracy out prints.
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
	f := defaults()
	f.Epochs, f.Hidden = 5, 8
	f.Save, f.Plot = filepath.Join(dir, "model.params"), filepath.Join(dir, "curves.png")
	var out bytes.Buffer
	if err := run(&out, &f); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if got := epochLine.FindAllString(s, -1); len(got) != 5 {
		t.Errorf("%d epoch lines, want 5:\n%s", len(got), s)
	}
	testAccuracy(t, s)
	if !regexp.MustCompile(`\ntest accuracy: [01]\.\d{4}\nsaved the parameters of epoch \d+ to .*\nwrote .*curves.png\n$`).MatchString(s) {
		t.Errorf("output does not end with the result, then the files written:\n%s", s)
	}
	for _, p := range []string{f.Save, f.Plot} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s was not written (%v)", p, err)
		}
	}
}

// TestDefault trains with the default flags but 100 epochs (of 200; the
// README's full run gives 0.9230) at GOMAXPROCS 1 and 2: the output must be
// the same (but for the times) and the test accuracy above what a model
// that does not train or ignores its input reaches (chance is 1/7).
func TestDefault(t *testing.T) {
	var outs [2]string
	for i, procs := range []int{1, 2} {
		prev := runtime.GOMAXPROCS(procs)
		f := defaults()
		f.Epochs = 100
		var out bytes.Buffer
		err := run(&out, &f)
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = times.ReplaceAllString(out.String(), "\n")
	}
	if outs[0] != outs[1] {
		t.Errorf("GOMAXPROCS 1 and 2 print different results:\n%s\n---\n%s", outs[0], outs[1])
	}
	if acc := testAccuracy(t, outs[0]); acc < 0.88 {
		t.Errorf("test accuracy %.4f with the default flags and 100 epochs, want at least 0.88", acc)
	}
}

// TestSaveLoad saves the model of the best epoch (not the last) and loads
// it back: evaluated, it prints the same test accuracy; trained on, it
// starts from there.
func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	f := defaults()
	f.Epochs, f.Save = 60, filepath.Join(dir, "gcn.params")
	var out bytes.Buffer
	if err := run(&out, &f); err != nil {
		t.Fatal(err)
	}
	trained := out.String()
	if m := bestLine.FindStringSubmatch(trained); m == nil || m[1] == strconv.Itoa(f.Epochs) {
		t.Fatalf("the best epoch is the last or missing: the test proves nothing:\n%s", trained)
	}

	ev := defaults()
	ev.Epochs, ev.Load = 0, f.Save
	out.Reset()
	if err := run(&out, &ev); err != nil {
		t.Fatal(err)
	}
	if got, want := testAccuracy(t, out.String()), testAccuracy(t, trained); got != want {
		t.Errorf("the loaded model's test accuracy is %.4f, training printed %.4f:\n%s", got, want, out.String())
	}
	if epochLine.MatchString(out.String()) {
		t.Errorf("-epochs 0 trained:\n%s", out.String())
	}

	more := defaults()
	more.Epochs, more.Load = 1, f.Save
	out.Reset()
	if err := run(&out, &more); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(strings.SplitN(out.String(), "\n", 3)[1], "loaded parameters from ") || len(epochLine.FindAllString(out.String(), -1)) != 1 {
		t.Errorf("training on from a file:\n%s", out.String())
	}
}

// TestErrors checks that bad flags, outputs that cannot be written and a
// diverging run fail with the flag or the epoch named, and that nothing is
// trained before an output path is found bad.
func TestErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		edit func(*setup.Flags)
		want string
	}{
		{func(f *setup.Flags) { f.WeightDecay = -1 }, "-weight-decay -1"},
		{func(f *setup.Flags) { f.Patience = -2 }, "-patience -2"},
		{func(f *setup.Flags) { f.Save = filepath.Join(dir, "missing", "m.params") }, "-save: cannot write"},
		{func(f *setup.Flags) { f.Plot = dir }, "-plot: "},
		{func(f *setup.Flags) { f.Epochs, f.LR = 20, 1e30 }, "diverged"},
		{func(f *setup.Flags) { f.Epochs, f.Load = 0, filepath.Join(dir, "absent") }, "-load: "},
	} {
		f := defaults()
		c.edit(&f)
		var out bytes.Buffer
		err := run(&out, &f)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
			continue
		}
		if c.want != "diverged" && out.Len() != 0 {
			t.Errorf("%v: printed before failing:\n%s", err, out.String())
		}
	}
}

// TestSelectLoss keeps the epoch of the lowest validation loss and says so.
func TestSelectLoss(t *testing.T) {
	f := defaults()
	f.Epochs, f.Select = 30, "loss"
	var out bytes.Buffer
	if err := run(&out, &f); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`\nlowest validation loss \d\.\d{4} at epoch \d+, validation accuracy [01]\.\d{4}\ntest accuracy: [01]\.\d{4}\n$`).MatchString(out.String()) {
		t.Errorf("output does not end with the epoch of lowest validation loss and its test accuracy:\n%s", out.String())
	}
}
