package main

import (
	"fmt"
	"io"
	"time"

	"github.com/gnngo/gnn/cmd/gnnbench/internal/bench"
)

// progress writes one line per run to stderr: the run when it starts, a
// dot per epoch, and the outcome:
//
//	[3/24] gcn fused synth n=32768 e=13777216 density=0.0128 feat=64 hidden=16 ...... 412.0 ms/epoch, peak 2.1 GiB, live 1.2 GiB, alloc 610 MiB/epoch, 9.8 s
type progress struct {
	w     io.Writer
	head  string
	began time.Time
}

func newProgress(w io.Writer, i, n int, desc string) *progress {
	return &progress{w: w, head: fmt.Sprintf("[%d/%d] %s", i, n, desc)}
}

// start writes the head of the line.
func (p *progress) start() {
	p.began = time.Now()
	fmt.Fprintf(p.w, "%s ", p.head)
}

// epoch marks one epoch.
func (p *progress) epoch(bench.Epoch) { fmt.Fprint(p.w, ".") }

// done ends the line with the outcome.
func (p *progress) done(r bench.Result) {
	if p.began.IsZero() {
		fmt.Fprintf(p.w, "%s: %s (%s)\n", p.head, r.Status, r.Note)
		return
	}
	took := time.Since(p.began).Seconds()
	switch r.Status {
	case bench.StatusOK:
		unit := "epoch"
		if r.IsKernel() {
			unit = "call"
		}
		fmt.Fprintf(p.w, " %s ms/%s, peak %s, live %s, alloc %s/%s, %.1f s\n", formatMS(r.EpochMS), unit, formatBytes(r.PeakRSS),
			formatBytes(r.LiveHeap), formatBytes(r.AllocPerEpoch), unit, took)
	case bench.StatusError:
		fmt.Fprintf(p.w, " error after %.1f s: %s\n", took, r.Error)
	default:
		fmt.Fprintf(p.w, " %s after %.1f s (peak %s): %s\n", r.Status, took, formatBytes(r.PeakRSS), r.Error)
	}
}

// formatBytes writes a size in binary units.
func formatBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// formatMS writes milliseconds with three significant digits or more.
func formatMS(ms float64) string {
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0f", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f", ms)
	case ms >= 1:
		return fmt.Sprintf("%.2f", ms)
	}
	return fmt.Sprintf("%.3f", ms)
}
