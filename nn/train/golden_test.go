package train_test

import (
	"bufio"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/train"
)

var update = flag.Bool("update", false, "rewrite testdata/losses.golden from this run")

// goldenModels are the runs whose loss traces testdata/losses.golden holds:
// GCN and GAT with dropout and weight decay, in float32 and float64.
var goldenModels = []struct {
	name  string
	model string
	dt    tensor.Dtype
}{
	{"gcn/f32", "gcn", tensor.Float32},
	{"gcn/f64", "gcn", tensor.Float64},
	{"gat/f32", "gat", tensor.Float32},
	{"gat/f64", "gat", tensor.Float64},
}

// goldenTask builds a two-layer model of kind ("gcn" or "gat") in dtype dt
// on ds's graph g, with dropout on, as the examples do.
func goldenTask(t *testing.T, ds *dataset.Dataset, g *graph.Graph, kind string, dt tensor.Dtype) *train.Task {
	t.Helper()
	eg := gorgonia.NewGraph()
	f := ds.Features
	var back any = f.ToDense()
	if dt == tensor.Float64 {
		d := make([]float64, f.Rows*f.Cols)
		for i, v := range back.([]float32) {
			d[i] = float64(v)
		}
		back = d
	}
	x := gorgonia.NewMatrix(eg, dt, gorgonia.WithShape(f.Rows, f.Cols), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(f.Rows, f.Cols), tensor.WithBacking(back))))
	mode := nn.NewMode()
	var logits *gorgonia.Node
	var groups []train.Group
	switch kind {
	case "gcn":
		l1, err := gcn.New(eg, f.Cols, 16, gcn.WithSeed(1), gcn.WithDtype(dt), gcn.WithName("gcn1"), gcn.WithActivation(gorgonia.Rectify))
		if err != nil {
			t.Fatal(err)
		}
		l2, err := gcn.New(eg, 16, ds.NumClasses, gcn.WithSeed(2), gcn.WithDtype(dt), gcn.WithName("gcn2"))
		if err != nil {
			t.Fatal(err)
		}
		h, err := nn.Dropout(x, 0.5, 3, mode)
		if err != nil {
			t.Fatal(err)
		}
		if h, err = l1.Forward(g, h); err != nil {
			t.Fatal(err)
		}
		if h, err = nn.Dropout(h, 0.5, 4, mode); err != nil {
			t.Fatal(err)
		}
		if logits, err = l2.Forward(g, h); err != nil {
			t.Fatal(err)
		}
		groups = []train.Group{{Params: l1.Learnables(), WeightDecay: 5e-4}, {Params: l2.Learnables()}}
	case "gat":
		l1, err := gat.New(eg, f.Cols, 8, gat.WithName("gat1"), gat.WithHeads(4), gat.WithMode(mode), gat.WithDtype(dt),
			gat.WithFeatDropout(0.6), gat.WithAttnDropout(0.6), gat.WithActivation(nn.ELU), gat.WithSeed(1))
		if err != nil {
			t.Fatal(err)
		}
		l2, err := gat.New(eg, 32, ds.NumClasses, gat.WithName("gat2"), gat.WithHeads(2), gat.WithMode(mode), gat.WithDtype(dt),
			gat.WithFeatDropout(0.6), gat.WithAttnDropout(0.6), gat.WithMeanHeads(true), gat.WithSeed(11))
		if err != nil {
			t.Fatal(err)
		}
		h, err := l1.Forward(g, x)
		if err != nil {
			t.Fatal(err)
		}
		if logits, err = l2.Forward(g, h); err != nil {
			t.Fatal(err)
		}
		groups = []train.Group{{Params: append(l1.Learnables(), l2.Learnables()...), WeightDecay: 5e-4}}
	}
	loss, err := nn.CrossEntropy(logits, ds.Labels, ds.Train)
	if err != nil {
		t.Fatal(err)
	}
	return &train.Task{Logits: logits, Loss: loss, Mode: mode, Groups: groups,
		Labels: ds.Labels, Train: ds.Train, Val: ds.Val, Test: ds.Test}
}

// trace trains task for epochs and returns one line per epoch: the
// training and validation losses and the three accuracies, to the bit.
func trace(t *testing.T, task *train.Task, epochs int) []string {
	t.Helper()
	return traceConfig(t, task, train.Config{Epochs: epochs, LearningRate: 0.01})
}

// traceConfig is trace with cfg.
func traceConfig(t *testing.T, task *train.Task, cfg train.Config) []string {
	t.Helper()
	res, err := train.Fit(task, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range res.History {
		lines = append(lines, fmt.Sprintf("%d %016x %016x %016x %016x %016x", e.Epoch,
			math.Float64bits(e.Loss), math.Float64bits(e.ValLoss),
			math.Float64bits(e.TrainAcc), math.Float64bits(e.ValAcc), math.Float64bits(e.TestAcc)))
	}
	// The weights left behind, summed, catch a difference in the step
	// after the last epoch's evaluation.
	var sum float64
	for _, g := range task.Groups {
		for _, p := range g.Params {
			switch d := p.Value().Data().(type) {
			case []float32:
				for _, v := range d {
					sum += float64(v)
				}
			case []float64:
				for _, v := range d {
					sum += v
				}
			}
		}
	}
	return append(lines, fmt.Sprintf("weights %016x", math.Float64bits(sum)))
}

// TestLossTraceGolden checks that training gives the same losses,
// accuracies and weights, to the bit, as the committed trace in
// testdata/losses.golden (written by go test -run TestLossTraceGolden
// -update): changes to how the expression graph is run (machines, buffer
// reuse, solvers) must not change a result.
func TestLossTraceGolden(t *testing.T) {
	ds, g := plantedSelfLoops(t, 500, 24)
	// The kernels split work by size, never by the number of threads: the
	// trace is the same for any GOMAXPROCS.
	for _, procs := range []int{1, 3} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			got := map[string][]string{}
			for _, m := range goldenModels {
				got["planted/"+m.name] = trace(t, goldenTask(t, ds, g, m.model, m.dt), 10)
			}
			compareGolden(t, filepath.Join("testdata", "losses.golden"), got)
		})
		if *update {
			break
		}
	}
}

// TestLossTraceGoldenCora is TestLossTraceGolden on Cora (GCN and GAT in
// float32), skipped when the data is absent.
func TestLossTraceGoldenCora(t *testing.T) {
	dir := findCora()
	if dir == "" {
		t.Skip("Cora not found under ../shared/data/planetoid (set GNN_PLANETOID_DIR)")
	}
	if testing.Short() {
		t.Skip("Cora training in -short mode")
	}
	ds, err := dataset.LoadPlanetoid(dir)
	if err != nil {
		t.Fatal(err)
	}
	ds.Features.RowNormalize()
	g, err := ds.Graph.AddSelfLoops()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, m := range goldenModels {
		if m.dt == tensor.Float32 {
			got["cora/"+m.name] = trace(t, goldenTask(t, ds, g, m.model, m.dt), 5)
		}
	}
	compareGolden(t, filepath.Join("testdata", "losses_cora.golden"), got)
}

// findCora returns the Cora directory under $GNN_PLANETOID_DIR or
// shared/data/planetoid beside the repository, or "".
func findCora() string {
	roots := []string{"../../../shared/data/planetoid", "../../../../shared/data/planetoid"}
	if env := os.Getenv("GNN_PLANETOID_DIR"); env != "" {
		roots = []string{env}
	}
	for _, root := range roots {
		dir := filepath.Join(root, "cora")
		if _, err := os.Stat(filepath.Join(dir, "meta.txt")); err == nil {
			return dir
		}
	}
	return ""
}

// compareGolden compares the traces got with the file at path ("name"
// lines, each followed by its trace), or rewrites the file with -update.
func compareGolden(t *testing.T, path string, got map[string][]string) {
	t.Helper()
	if *update {
		var b strings.Builder
		for _, m := range sortedKeys(got) {
			fmt.Fprintf(&b, "run %s\n", m)
			for _, l := range got[m] {
				fmt.Fprintln(&b, l)
			}
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := readGolden(t, path)
	for _, m := range sortedKeys(got) {
		w, g := want[m], got[m]
		if len(w) != len(g) {
			t.Errorf("%s: %d lines, the golden trace has %d", m, len(g), len(w))
			continue
		}
		for i := range w {
			if w[i] != g[i] {
				t.Errorf("%s: line %d is %q, the golden trace has %q", m, i+1, g[i], w[i])
			}
		}
	}
}

// readGolden reads the traces of the golden file at path, by run name.
func readGolden(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string][]string{}
	var run string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "run "); ok {
			run = name
			continue
		}
		want[run] = append(want[run], sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return want
}

func sortedKeys(m map[string][]string) []string { return slices.Sorted(maps.Keys(m)) }
