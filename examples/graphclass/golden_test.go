package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gnngo/gnn/nn/train"
)

var update = flag.Bool("update", false, "rewrite the golden loss traces in testdata")

// tuDir returns the folder of the TU datasets: $GNN_TU_DIR, else
// shared/data/tu beside the repository (or beside the folder of a
// worktree), else "".
func tuDir() string {
	if d := os.Getenv("GNN_TU_DIR"); d != "" {
		return d
	}
	for _, d := range []string{"../../../shared/data/tu", "../../../../shared/data/tu"} {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	return ""
}

// goldenCases are the runs whose losses are committed: generated MiniGC
// graphs (always), and MUTAG when ../shared/data/tu has it.
func goldenCases() []struct {
	name string
	o    options
	tu   string
} {
	mutag := quick(0, 5)
	mutag.Hidden, mutag.Data, mutag.Name = 32, filepath.Join(tuDir(), "MUTAG"), "MUTAG"
	return []struct {
		name string
		o    options
		tu   string
	}{
		{"minigc", quick(64, 6), ""},
		{"mutag", mutag, "MUTAG"},
	}
}

// trace trains o and returns its training and validation losses, one
// line per epoch, as the bits of the float64s.
func trace(t *testing.T, o options) string {
	t.Helper()
	task, _, _, err := build(io.Discard, &o)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	_, err = train.Fit(task, train.Config{Epochs: o.Epochs, LearningRate: o.LR}, func(e train.Epoch) {
		fmt.Fprintf(&b, "epoch %d loss %016x val_loss %016x (%.6f %.6f)\n", e.Epoch, math.Float64bits(e.Loss), math.Float64bits(e.ValLoss), e.Loss, e.ValLoss)
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestGoldenTrace trains the golden cases and requires the losses to be
// bit-identical to the committed traces (testdata/golden_NAME.txt; -update
// rewrites them), with one goroutine and with several: a change that
// makes graph classification faster must not change what it computes.
func TestGoldenTrace(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.name, func(t *testing.T) {
			if c.tu != "" {
				if _, err := os.Stat(filepath.Join(c.o.Data, c.tu+"_A.txt")); err != nil {
					t.Skipf("no %s under ../shared/data/tu (set GNN_TU_DIR)", c.tu)
				}
			}
			file := filepath.Join("testdata", "golden_"+c.name+".txt")
			got := trace(t, c.o)
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			compareTrace(t, "GOMAXPROCS default", got, string(want))
			old := runtime.GOMAXPROCS(1)
			one := trace(t, c.o)
			runtime.GOMAXPROCS(old)
			compareTrace(t, "GOMAXPROCS 1", one, string(want))
		})
	}
}

func compareTrace(t *testing.T, what, got, want string) {
	t.Helper()
	g, w := bufio.NewScanner(strings.NewReader(got)), bufio.NewScanner(strings.NewReader(want))
	for line := 1; ; line++ {
		gok, wok := g.Scan(), w.Scan()
		if !gok && !wok {
			return
		}
		if gok != wok || g.Text() != w.Text() {
			t.Fatalf("%s: line %d differs from the committed trace:\ngot  %q\nwant %q", what, line, g.Text(), w.Text())
		}
	}
}
