package interop

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
)

// findCora returns the Cora directory under $GNN_PLANETOID_DIR or
// shared/data/planetoid beside the repository, or "".
func findCora() string {
	roots := []string{"../../../shared/data/planetoid", "../../shared/data/planetoid"}
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

// TestCoraPyGGCN loads a 2-layer GCN trained with PyG's GCNConv semantics
// and names (conv1, conv2; testdata/make_fixtures.py --cora, test accuracy
// 0.820) into gnn's GraphConv layers and checks that every one of Cora's
// 2708 nodes gets the class PyTorch predicted. Cora's graph is symmetric,
// so gnn's norm Both on the graph with PyG's self-loops is PyG's
// normalisation.
func TestCoraPyGGCN(t *testing.T) {
	dir := findCora()
	if dir == "" {
		t.Skip("Cora not found under ../shared/data/planetoid (set GNN_PLANETOID_DIR)")
	}
	ds, err := dataset.LoadPlanetoid(dir)
	if err != nil {
		t.Fatal(err)
	}
	ds.Features.RowNormalize()
	g, _, err := PyGSelfLoops(ds.Graph, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	ts := readFixture(t, "cora_gcn.f32.safetensors")
	params := Params{}
	for _, l := range []Layer{
		{Kind: "GCNConv", Prefix: "conv1", Name: "gcn1"},
		{Kind: "GCNConv", Prefix: "conv2", Name: "gcn2"},
	} {
		p, err := PyG(ts, l)
		if err != nil {
			t.Fatal(err)
		}
		if err := params.Merge(p); err != nil {
			t.Fatal(err)
		}
	}
	if u := ts.Unused(); len(u) > 0 {
		t.Fatalf("tensors not converted: %v", u)
	}
	n, f := ds.Features.Rows, ds.Features.Cols
	eg := gorgonia.NewGraph()
	x := gorgonia.NodeFromAny(eg, tensor.New(tensor.WithShape(n, f), tensor.WithBacking(ds.Features.ToDense())), gorgonia.WithName("x"))
	conv1, err := gcn.New(eg, f, 16, gcn.WithName("gcn1"), gcn.WithActivation(nn.ReLU))
	if err != nil {
		t.Fatal(err)
	}
	conv2, err := gcn.New(eg, 16, ds.NumClasses, gcn.WithName("gcn2"))
	if err != nil {
		t.Fatal(err)
	}
	if err := params.Assign(append(conv1.Learnables(), conv2.Learnables()...)); err != nil {
		t.Fatal(err)
	}
	h, err := conv1.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	logits, err := conv2.Forward(g, h)
	if err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	want := readPredictions(t, "cora_gcn.pred.gz")
	if len(want) != n {
		t.Fatalf("%d predictions for %d nodes", len(want), n)
	}
	out := logits.Value().Data().([]float32)
	c := ds.NumClasses
	wrong := 0
	for v := range n {
		best := 0
		for k := 1; k < c; k++ {
			if out[v*c+k] > out[v*c+best] {
				best = k
			}
		}
		if best != int(want[v]) {
			wrong++
			if wrong <= 5 {
				t.Errorf("node %d: class %d, PyTorch %d (logits %v)", v, best, want[v], out[v*c:(v+1)*c])
			}
		}
	}
	if wrong > 0 {
		t.Fatalf("%d of %d nodes differ", wrong, n)
	}
	test := 0
	for _, v := range ds.Test {
		o := out[int(v)*c : int(v+1)*c]
		best := 0
		for k := range o {
			if o[k] > o[best] {
				best = k
			}
		}
		if int32(best) == ds.Labels[v] {
			test++
		}
	}
	t.Logf("all %d predictions equal PyTorch's; test accuracy %.3f", n, float64(test)/float64(len(ds.Test)))
}

func readPredictions(t *testing.T, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
