package bench

import (
	"math"
	"testing"

	"github.com/gnngo/gnn/dataset"
)

// losses trains the model of every path for a few epochs and returns the
// losses, path by path.
func losses(t *testing.T, d *Data, build func(path string) (*Task, error), epochs int) map[string][]float64 {
	t.Helper()
	out := map[string][]float64{}
	for _, path := range Paths {
		task, err := build(path)
		if err != nil {
			t.Fatalf("%s: build: %v", path, err)
		}
		tr, err := NewTrainer(task)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for range epochs {
			l, err := tr.Epoch()
			if err != nil {
				t.Fatalf("%s: epoch: %v", path, err)
			}
			out[path] = append(out[path], l)
		}
		tr.Close()
	}
	return out
}

func checkSame(t *testing.T, got map[string][]float64, tol float64) {
	t.Helper()
	ref := got[Fused]
	for _, path := range Paths[1:] {
		for i, l := range got[path] {
			if math.IsNaN(l) || math.Abs(l-ref[i]) > tol*math.Max(1, math.Abs(ref[i])) {
				t.Errorf("%s epoch %d: loss %v, fused %v", path, i, l, ref[i])
			}
		}
	}
	t.Logf("losses %v", got)
}

// sparsify turns dense synthetic features into CSR, dropping small values.
func sparsify(d *Data) {
	n := d.Graph.NumSrc()
	f := &dataset.Features{Rows: n, Cols: d.Feat, Indptr: make([]int64, n+1)}
	for r := range n {
		for c := range d.Feat {
			if v := d.Dense[r*d.Feat+c]; v > 0.5 {
				f.Indices = append(f.Indices, int32(c))
				f.Values = append(f.Values, v)
			}
		}
		f.Indptr[r+1] = int64(len(f.Values))
	}
	d.Dense, d.Sparse = nil, f
}

// The three paths compute the same model: same losses without dropout,
// epoch after epoch (the Adam steps follow the same gradients).
func TestPathsAgree(t *testing.T) {
	for _, sparse := range []bool{false, true} {
		d, err := Synth(60, 400, 12, 4, 3)
		if err != nil {
			t.Fatal(err)
		}
		if sparse {
			sparsify(d)
		}
		t.Run("gcn/"+d.Input(), func(t *testing.T) {
			checkSame(t, losses(t, d, func(p string) (*Task, error) { return BuildGCN(p, d, DefaultGCNConfig(8, false)) }, 3), 1e-4)
		})
		t.Run("gcn-wide/"+d.Input(), func(t *testing.T) {
			// hidden > input: the weight is applied after the aggregation.
			checkSame(t, losses(t, d, func(p string) (*Task, error) { return BuildGCN(p, d, DefaultGCNConfig(16, false)) }, 3), 1e-4)
		})
		t.Run("gat/"+d.Input(), func(t *testing.T) {
			checkSame(t, losses(t, d, func(p string) (*Task, error) { return BuildGAT(p, d, DefaultGATConfig(4, 3, 2, false)) }, 3), 1e-4)
		})
	}
}

// With dropout every path trains and the losses stay finite.
func TestDropoutRuns(t *testing.T) {
	d, err := Synth(50, 300, 8, 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []map[string][]float64{
		losses(t, d, func(p string) (*Task, error) { return BuildGCN(p, d, DefaultGCNConfig(8, true)) }, 2),
		losses(t, d, func(p string) (*Task, error) { return BuildGAT(p, d, DefaultGATConfig(4, 2, 1, true)) }, 2),
	} {
		for p, ls := range got {
			for _, l := range ls {
				if math.IsNaN(l) || math.IsInf(l, 0) {
					t.Errorf("%s: loss %v", p, l)
				}
			}
		}
	}
}

// GATv2 trains on the fused path, with dense and sparse features (made
// dense: the same matrix gives the same losses), and has no other path.
func TestGATv2Trains(t *testing.T) {
	d, err := Synth(60, 400, 12, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	sparsify(d)
	dense := *d
	dense.Sparse, dense.Dense = nil, make([]float32, d.Graph.NumSrc()*d.Feat)
	f := d.Sparse
	for r := range f.Rows {
		for p := f.Indptr[r]; p < f.Indptr[r+1]; p++ {
			dense.Dense[r*f.Cols+int(f.Indices[p])] = f.Values[p]
		}
	}
	train := func(d *Data) []float64 {
		task, err := BuildGATv2(Fused, d, DefaultGATConfig(2, 4, 2, true))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := NewTrainer(task)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		var ls []float64
		for range 3 {
			l, err := tr.Epoch()
			if err != nil || math.IsNaN(l) || math.IsInf(l, 0) {
				t.Fatalf("epoch: loss %v, error %v", l, err)
			}
			ls = append(ls, l)
		}
		return ls
	}
	sparse, want := train(d), train(&dense)
	for i := range want {
		if sparse[i] != want[i] {
			t.Errorf("epoch %d: loss %v with sparse features, %v with the same dense ones", i, sparse[i], want[i])
		}
	}
	for _, p := range []string{Unfused, Dense} {
		if _, err := BuildGATv2(p, d, DefaultGATConfig(2, 4, 2, false)); err == nil {
			t.Errorf("path %s: no error", p)
		}
	}
}
