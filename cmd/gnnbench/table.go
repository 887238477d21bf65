package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/gnngo/gnn/cmd/gnnbench/internal/bench"
)

// caseRow is one row of a table: a case and its result on every path.
type caseRow struct {
	spec   bench.Spec // Path empty
	byPath map[string]*bench.Result
}

// group splits results by suite and then by case, both in order of first
// appearance.
func group(results []bench.Result) (suites []string, rows map[string][]*caseRow) {
	rows = map[string][]*caseRow{}
	index := map[string]*caseRow{}
	for i := range results {
		r := &results[i]
		if !slices.Contains(suites, r.Suite) {
			suites = append(suites, r.Suite)
		}
		k := r.Spec.Key()
		row, ok := index[k]
		if !ok {
			s := r.Spec
			s.Path = ""
			row = &caseRow{spec: s, byPath: map[string]*bench.Result{}}
			index[k] = row
			rows[r.Suite] = append(rows[r.Suite], row)
		}
		row.byPath[r.Path] = r
	}
	return suites, rows
}

// column is a table column: a heading and a cell of a row.
type column struct {
	head string
	cell func(*caseRow) string
}

// caseColumns returns the columns describing the cases of a suite.
func caseColumns(suite string) []column {
	s := func(f func(*bench.Spec) string) func(*caseRow) string {
		return func(r *caseRow) string { return f(&r.spec) }
	}
	model := column{"model", s(func(p *bench.Spec) string { return p.Model })}
	nodes := column{"nodes", s(func(p *bench.Spec) string { return fmt.Sprint(p.Nodes) })}
	edges := column{"edges", s(func(p *bench.Spec) string { return fmt.Sprint(p.Edges) })}
	feat := column{"feat", s(func(p *bench.Spec) string { return fmt.Sprint(p.Feat) })}
	hidden := column{"hidden", s(hiddenCell)}
	switch suite {
	case "planetoid":
		return []column{model,
			{"dataset", s(func(p *bench.Spec) string { return p.Dataset })},
			{"input", s(func(p *bench.Spec) string { return p.Input })},
			{"dropout", s(func(p *bench.Spec) string { return onOff(p.Dropout) })},
			nodes, edges, feat, hidden}
	case "synth":
		return []column{
			{"sweep", s(func(p *bench.Spec) string { return p.Sweep })},
			model, nodes, edges,
			{"density", s(func(p *bench.Spec) string { return fmt.Sprint(p.Density) })},
			feat, hidden}
	case "kernels":
		return []column{
			{"kernel", s(func(p *bench.Spec) string { return p.Model })},
			{"op", s(func(p *bench.Spec) string { return p.Op })},
			nodes, edges,
			{"dim", s(func(p *bench.Spec) string {
				if p.Heads > 1 {
					return fmt.Sprintf("%dx%d", p.Heads, p.Feat)
				}
				return fmt.Sprint(p.Feat)
			})}}
	}
	return []column{model, nodes, edges, feat, hidden,
		{"dropout", s(func(p *bench.Spec) string { return onOff(p.Dropout) })}}
}

// hiddenCell is the hidden size, heads x size for GAT, with the output
// heads when more than one.
func hiddenCell(p *bench.Spec) string {
	if p.Model != bench.GAT && p.Model != bench.GATv2 {
		return fmt.Sprint(p.Hidden)
	}
	s := fmt.Sprintf("%dx%d", p.Heads, p.Hidden)
	if p.OutHeads > 1 {
		s += fmt.Sprintf(" (%d out)", p.OutHeads)
	}
	return s
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// writeTables writes a markdown table per suite, with footnotes for
// errors and partial runs.
func writeTables(w io.Writer, results []bench.Result) {
	suites, rows := group(results)
	for si, suite := range suites {
		if si > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "### %s\n\n", suite)
		var paths []string
		for _, p := range bench.Paths {
			for _, r := range rows[suite] {
				if r.byPath[p] != nil {
					paths = append(paths, p)
					break
				}
			}
		}
		unit := "ms/epoch"
		if suite == "kernels" {
			unit = "ms/call"
		}
		cols := caseColumns(suite)
		for _, p := range paths {
			cols = append(cols, column{p + " " + unit, timeCell(p)})
		}
		for _, p := range paths[min(1, len(paths)):] {
			if paths[0] == bench.Fused {
				cols = append(cols, column{p + "/fused", ratioCell(p)})
			}
		}
		for _, p := range paths {
			cols = append(cols, column{p + " RSS", rssCell(p)})
		}
		if measuredHeap(rows[suite]) {
			for _, p := range paths {
				cols = append(cols, column{p + " live", bytesCell(p, func(r *bench.Result) int64 { return r.LiveHeap })})
			}
			for _, p := range paths {
				cols = append(cols, column{p + " alloc/" + strings.TrimPrefix(unit, "ms/"), bytesCell(p, func(r *bench.Result) int64 { return r.AllocPerEpoch })})
			}
		}
		heads := make([]string, len(cols))
		rule := make([]string, len(cols))
		for i, c := range cols {
			heads[i], rule[i] = c.head, "---"
		}
		fmt.Fprintf(w, "| %s |\n|%s|\n", strings.Join(heads, " | "), strings.Join(rule, "|"))
		var notes []string
		for _, r := range rows[suite] {
			cells := make([]string, len(cols))
			for i, c := range cols {
				cells[i] = c.cell(r)
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
			for _, p := range paths {
				res := r.byPath[p]
				if res == nil || res.Skipped || (res.Status == bench.StatusOK && res.Note == "") {
					continue
				}
				msg := res.Error
				if res.Note != "" {
					msg = strings.TrimSpace(msg + "; " + res.Note)
					msg = strings.TrimPrefix(msg, "; ")
				}
				notes = append(notes, fmt.Sprintf("- %s: %s", res.Describe(), msg))
			}
		}
		var first *bench.Result
		for _, p := range paths {
			if first = rows[suite][0].byPath[p]; first != nil {
				break
			}
		}
		what := "epochs (forward, backward, Adam step)"
		if suite == "kernels" {
			what = "forward calls"
		}
		fmt.Fprintf(w, "\nTimes: median of %d timed %s after %d warm-up ones; RSS: peak resident set of the run's process; "+
			"live: Go heap in use after the last epoch and a GC; alloc: Go heap allocated per timed epoch (mean). "+
			"OOM: over the %s memory cap or out of memory (OOM*: not run, its dense matrices alone exceed the cap or a smaller case "+
			"of its series was already out of memory); timeout: over the %v time cap (~: median of the epochs done before).\n",
			first.Epochs, what, first.Warmup, formatBytes(first.MemCap), time.Duration(first.TimeCapS*float64(time.Second)))
		if len(notes) > 0 {
			fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
		}
	}
}

// timeCell is a path's epoch time, or what stopped it.
func timeCell(path string) func(*caseRow) string {
	return func(r *caseRow) string {
		res := r.byPath[path]
		if res == nil {
			return "–"
		}
		switch res.Status {
		case bench.StatusOK:
			return formatMS(res.EpochMS)
		case bench.StatusOOM:
			if res.Skipped {
				return "OOM*"
			}
			return "OOM"
		case bench.StatusTimeout:
			if res.Skipped {
				return "timeout*"
			}
			if res.EpochMS > 0 {
				return "timeout (~" + formatMS(res.EpochMS) + ")"
			}
			return "timeout"
		}
		return "error"
	}
}

// ratioCell is a path's epoch time over the fused path's.
func ratioCell(path string) func(*caseRow) string {
	return func(r *caseRow) string {
		a, f := r.byPath[path], r.byPath[bench.Fused]
		if a == nil || f == nil || f.Status != bench.StatusOK || f.EpochMS <= 0 {
			return "–"
		}
		if a.Status != bench.StatusOK {
			if a.Status == bench.StatusTimeout && a.EpochMS > 0 {
				return fmt.Sprintf("~%.1fx", a.EpochMS/f.EpochMS)
			}
			return "–"
		}
		return fmt.Sprintf("%.1fx", a.EpochMS/f.EpochMS)
	}
}

// rssCell is a path's peak resident set size.
func rssCell(path string) func(*caseRow) string {
	return func(r *caseRow) string {
		res := r.byPath[path]
		if res == nil || res.PeakRSS == 0 {
			return "–"
		}
		s := formatBytes(res.PeakRSS)
		if res.Status != bench.StatusOK {
			s = "≥ " + s
		}
		return s
	}
}

// measuredHeap reports whether any result of rows has the heap measured
// (results saved before the harness measured it have not).
func measuredHeap(rows []*caseRow) bool {
	for _, r := range rows {
		for _, res := range r.byPath {
			if res.LiveHeap > 0 || res.AllocPerEpoch > 0 {
				return true
			}
		}
	}
	return false
}

// bytesCell is a size of a path's completed run.
func bytesCell(path string, f func(*bench.Result) int64) func(*caseRow) string {
	return func(r *caseRow) string {
		res := r.byPath[path]
		if res == nil || res.Skipped {
			return "–"
		}
		if res.Status != bench.StatusOK && f(res) == 0 {
			return "–"
		}
		return formatBytes(f(res))
	}
}
