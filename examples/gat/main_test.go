package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gnngo/gnn/examples/internal/setup"
)

// TestRun trains for a few epochs on the generated graph and checks the
// output format, the saved parameters and the plot.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	f := setup.Flags{Epochs: 5, LR: 0.01, Hidden: 8, Heads: 2, Dropout: 0.5, WeightDecay: 5e-4, Seed: 1,
		Save: filepath.Join(dir, "model.params"), Plot: filepath.Join(dir, "curves.png")}
	var out bytes.Buffer
	if err := run(&out, &f, 1); err != nil {
		t.Fatal(err)
	}
	if got := regexp.MustCompile(`(?m)^epoch +\d+ +loss `).FindAllString(out.String(), -1); len(got) != 5 {
		t.Errorf("%d epoch lines, want 5:\n%s", len(got), out.String())
	}
	if !regexp.MustCompile(`\ntest accuracy: [01]\.\d{4}\n$`).MatchString(out.String()) {
		t.Errorf("output does not end with the test accuracy line:\n%s", out.String())
	}
	for _, p := range []string{f.Save, f.Plot} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s was not written (%v)", p, err)
		}
	}
}
