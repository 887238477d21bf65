package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/gnngo/gnn/cmd/gnnbench/internal/bench"
	"github.com/gnngo/gnn/internal/plotfile"
)

// axis says how a chart places cases along x: at x(case) on a log scale
// joined by lines (sweeps doubling their variable), or, when x is nil, as
// categories named by tick, in order of appearance in each panel.
type axis struct {
	label string
	x     func(*bench.Spec) float64
	tick  func(*bench.Spec) string
}

// writePlots writes the charts of the results to dir, in the style of the
// seed's figures: epoch time (top) and peak memory (bottom) against the
// swept variable, one panel per model and one line per path, log scales.
// Points of runs that did not finish are left out; the legend says from
// where a path ran out of memory or time. It returns the files written.
func writePlots(dir string, results []bench.Result) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	suites, rows := group(results)
	var files []string
	emit := func(name, title string, rs []*caseRow, ax axis) error {
		if len(rs) == 0 {
			return nil
		}
		f := filepath.Join(dir, name)
		if err := drawChart(f, title, rs, ax); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		files = append(files, f)
		return nil
	}
	for _, suite := range suites {
		rs := rows[suite]
		switch suite {
		case "synth":
			for _, sweep := range []string{"density", "nodes", "hidden"} {
				sel := filter(rs, func(r *caseRow) bool { return r.spec.Sweep == sweep })
				ax := sweepAxis(sweep)
				for _, drop := range []bool{false, true} {
					part := filter(sel, func(r *caseRow) bool { return r.spec.Dropout == drop })
					name := "synth_" + sweep + ".png"
					if drop {
						name = "synth_" + sweep + "_dropout.png"
					}
					if err := emit(name, synthTitle(sweep, part), part, ax); err != nil {
						return files, err
					}
				}
			}
		case "planetoid":
			for _, drop := range []bool{false, true} {
				part := filter(rs, func(r *caseRow) bool { return r.spec.Dropout == drop })
				ax := axis{label: "dataset", tick: func(s *bench.Spec) string { return s.Dataset + " (" + s.Input + ")" }}
				if err := emit("planetoid_dropout_"+onOff(drop)+".png", "Planetoid, dropout "+onOff(drop), part, ax); err != nil {
					return files, err
				}
			}
		case "kernels":
			ax := axis{label: "kernel", tick: kernelName}
			if err := emit("kernels.png", fmt.Sprintf("kernels, %d nodes, %d edges", rs[0].spec.Nodes, rs[0].spec.Edges), rs, ax); err != nil {
				return files, err
			}
		case "scale":
			ax := axis{label: "edges", x: func(s *bench.Spec) float64 { return float64(s.Edges) }, tick: func(s *bench.Spec) string { return count(float64(s.Edges)) }}
			if err := emit("scale.png", "largest models", rs, ax); err != nil {
				return files, err
			}
		}
	}
	return files, nil
}

func kernelName(s *bench.Spec) string {
	d := fmt.Sprint(s.Feat)
	if s.Heads > 1 {
		d = fmt.Sprintf("%dx%d", s.Heads, s.Feat)
	}
	return s.Model + " " + s.Op + " " + d
}

func sweepAxis(sweep string) axis {
	switch sweep {
	case "density":
		return axis{label: "density", x: func(s *bench.Spec) float64 { return s.Density },
			tick: func(s *bench.Spec) string { return fmt.Sprint(s.Density) }}
	case "nodes":
		return axis{label: "nodes", x: func(s *bench.Spec) float64 { return float64(s.Nodes) },
			tick: func(s *bench.Spec) string { return count(float64(s.Nodes)) }}
	}
	return axis{label: "hidden size", x: func(s *bench.Spec) float64 { return float64(s.Hidden) },
		tick: func(s *bench.Spec) string { return fmt.Sprint(s.Hidden) }}
}

// count writes a count with K or M (powers of 1024 below a million nodes
// would mislead; these are 1000s).
func count(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.3gB", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.3gK", v/1e3)
	}
	return fmt.Sprint(v)
}

func filter(rs []*caseRow, keep func(*caseRow) bool) []*caseRow {
	var out []*caseRow
	for _, r := range rs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

func categories(rs []*caseRow, name func(*bench.Spec) string) []string {
	var out []string
	for _, r := range rs {
		if n := name(&r.spec); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// drawChart draws epoch time and peak memory of rs against ax, one column
// of panels per model.
func drawChart(file, title string, rs []*caseRow, ax axis) error {
	models := categories(rs, func(s *bench.Spec) string { return s.Model })
	if len(models) == 0 {
		return nil
	}
	grid := make([][]*plot.Plot, 2)
	for _, m := range models {
		sel := filter(rs, func(r *caseRow) bool { return r.spec.Model == m })
		for row, metric := range []string{"time", "memory"} {
			what := "epoch time"
			if sel[0].spec.IsKernel() {
				what = "call time"
			}
			if metric == "memory" {
				what = "peak memory"
			}
			p, err := panel(fmt.Sprintf("%s %s: %s", strings.ToUpper(m), what, title), sel, ax, metric)
			if err != nil {
				return err
			}
			grid[row] = append(grid[row], p)
		}
	}
	return plotfile.WritePNG(file, grid, vg.Length(len(models))*6*vg.Inch, 9*vg.Inch, 6*vg.Millimeter)
}

// panel plots one metric ("time": epoch ms; "memory": peak RSS in GiB,
// or MiB when all are under 1 GiB) of rs against ax, one line per path.
func panel(title string, rs []*caseRow, ax axis, metric string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = ax.label
	p.Y.Label.Text = "epoch time (ms)"
	unit, unitName := float64(1<<30), "GiB"
	if metric == "memory" {
		var peak int64
		for _, r := range rs {
			for _, res := range r.byPath {
				if res.Status == bench.StatusOK {
					peak = max(peak, res.PeakRSS)
				}
			}
		}
		if peak < 1<<30 {
			unit, unitName = 1<<20, "MiB"
		}
		p.Y.Label.Text = "peak RSS (" + unitName + ")"
	}
	if rs[0].spec.IsKernel() && metric == "time" {
		p.Y.Label.Text = "call time (ms)"
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	xOf := ax.x
	if xOf == nil {
		names := categories(rs, ax.tick)
		xOf = func(s *bench.Spec) float64 { return float64(slices.Index(names, ax.tick(s))) }
	} else {
		p.X.Scale = plot.LogScale{}
	}
	var ticks []plot.Tick
	for _, r := range rs {
		x := xOf(&r.spec)
		if !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Value == x }) {
			ticks = append(ticks, plot.Tick{Value: x, Label: ax.tick(&r.spec)})
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	if ax.x != nil {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, t := range ticks {
			lo, hi = math.Min(lo, t.Value), math.Max(hi, t.Value)
		}
		p.X.Min, p.X.Max = lo/1.3, hi*1.3
	} else {
		p.X.Min, p.X.Max = -0.5, float64(len(ticks))-0.5
	}
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for i, path := range bench.Paths {
		var xy plotter.XYs
		var stop string
		for _, r := range rs {
			res := r.byPath[path]
			if res == nil {
				continue
			}
			if res.Status != bench.StatusOK {
				if stop == "" {
					stop = fmt.Sprintf("%s from %s", strings.ToUpper(res.Status), ax.tick(&r.spec))
				}
				continue
			}
			y := res.EpochMS
			if metric == "memory" {
				y = float64(res.PeakRSS) / unit
			}
			if y > 0 {
				xy = append(xy, plotter.XY{X: xOf(&r.spec), Y: y})
				ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
			}
		}
		if len(xy) == 0 && stop == "" {
			continue
		}
		label := path
		if stop != "" {
			label += " (" + stop + ")"
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color = plotutil.Color(i)
		sc.GlyphStyle.Shape = plotutil.Shape(i)
		sc.GlyphStyle.Radius = vg.Points(3)
		if len(xy) == 0 {
			p.Legend.Add(label, sc)
			continue
		}
		p.Add(sc)
		if ax.x != nil && len(xy) > 1 {
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, err
			}
			l.LineStyle.Color = plotutil.Color(i)
			l.LineStyle.Width = vg.Points(1.5)
			p.Add(l)
			p.Legend.Add(label, l, sc)
		} else {
			p.Legend.Add(label, sc)
		}
	}
	if ymax > 0 {
		// Room for the legend above the highest point.
		p.Y.Min, p.Y.Max = ymin/2, ymax*8
	} else {
		p.Y.Min, p.Y.Max = 0.1, 1
	}
	return p, nil
}

// synthTitle describes what a synth sweep holds fixed.
func synthTitle(sweep string, rs []*caseRow) string {
	if len(rs) == 0 {
		return ""
	}
	s := rs[0].spec
	switch sweep {
	case "density":
		return fmt.Sprintf("%d nodes, hidden %d, against density", s.Nodes, s.Hidden)
	case "nodes":
		return fmt.Sprintf("density %g, hidden %d, against nodes", s.Density, s.Hidden)
	}
	return fmt.Sprintf("%d nodes, density %g, against hidden size", s.Nodes, s.Density)
}
