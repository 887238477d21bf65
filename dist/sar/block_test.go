package sar_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dist/comm"
	"github.com/gnngo/gnn/dist/partition"
	"github.com/gnngo/gnn/dist/sar"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
)

// haloRun is what one rank's Halo gave: the global node of every block
// source, the Halo's output and the gradient of x for the cost
// sum(Halo(x) * R) with the rank's R.
type haloRun struct {
	global []int64
	out    []float64
	dx     []float64
	cost   float64
}

// runHalo builds each rank's Block on parts of g, checks its edges against
// g's, and evaluates Halo on the rows of the global features x (w wide).
func runHalo(t *testing.T, g *graph.Graph, parts []*partition.Part, dt tensor.Dtype, x []float64, w int) []haloRun {
	t.Helper()
	runs := make([]haloRun, len(parts))
	var mu sync.Mutex
	err := comm.RunInProcess(len(parts), func(c comm.Comm) error {
		r := c.Rank()
		sg, err := sar.New(parts[r], c, sar.WithMode(sar.OneShot))
		if err != nil {
			return err
		}
		b, err := sg.Block()
		if err != nil {
			return err
		}
		global, err := blockSources(g, sg, b)
		if err != nil {
			return fmt.Errorf("rank %d: %w", r, err)
		}
		eg := gorgonia.NewGraph()
		xn := gradcheck.Input(eg, dt, "x", []int{sg.NumSrc(), w}, rowsOf(x, sg.NodeIDs(), w))
		h, err := sg.Halo(xn)
		if err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(uint64(r), 7))
		rv := gradcheck.Input(eg, dt, "R", []int{b.NumSrc(), w}, gradcheck.Draw(rng, b.NumSrc()*w))
		prod, err := gorgonia.HadamardProd(h, rv)
		if err != nil {
			return err
		}
		cost, err := gorgonia.Sum(prod)
		if err != nil {
			return err
		}
		grads, err := gorgonia.Grad(cost, xn)
		if err != nil {
			return err
		}
		vm := gorgonia.NewTapeMachine(eg)
		defer vm.Close()
		if err := vm.RunAll(); err != nil {
			return err
		}
		run := haloRun{global: global, out: gradcheck.Floats(h.Value()), dx: gradcheck.Floats(grads[0].Value()), cost: gradcheck.Floats(cost.Value())[0]}
		mu.Lock()
		runs[r] = run
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// blockSources checks b, rank sg's Block, against g: the first NumDst
// sources are the rank's nodes, and every edge joins the global nodes of
// its global ID. It returns the global node of every source.
func blockSources(g *graph.Graph, sg *sar.Graph, b *graph.Graph) ([]int64, error) {
	nodes := sg.NodeIDs()
	if b.NumDst() != len(nodes) || b.NumEdges() != sg.NumEdges() {
		return nil, fmt.Errorf("block has %d destinations and %d edges, want %d and %d", b.NumDst(), b.NumEdges(), len(nodes), sg.NumEdges())
	}
	global := make([]int64, b.NumSrc())
	for i := range global {
		global[i] = -1
	}
	copy(global, nodes)
	gs, gd, err := g.FindEdges(sg.EdgeIDs())
	if err != nil {
		return nil, err
	}
	bs, bd := b.COO()
	for e := range bs {
		if nodes[bd[e]] != int64(gd[e]) {
			return nil, fmt.Errorf("block edge %d goes to node %d, global edge %d to %d", e, nodes[bd[e]], sg.EdgeIDs()[e], gd[e])
		}
		if u := global[bs[e]]; u >= 0 && u != int64(gs[e]) {
			return nil, fmt.Errorf("block source %d is node %d on one edge and %d on edge %d", bs[e], u, gs[e], e)
		}
		global[bs[e]] = int64(gs[e])
	}
	for i, u := range global {
		if u < 0 {
			return nil, fmt.Errorf("block source %d has no edge", i)
		}
	}
	return global, nil
}

// TestHalo checks Block against the whole graph and Halo against its
// definition (every block source's row is its node's row), its gradient
// against the sum over all copies of a row, and that against finite
// differences of the cost summed over the ranks, on 3 ranks (one without
// edges) and 4.
func TestHalo(t *testing.T) {
	g := rmatGraph(t)
	const w = 3
	x := gradcheck.Draw(rand.New(rand.NewPCG(1, 2)), g.NumSrc()*w)
	for _, ranks := range []int{3, 4} {
		parts, err := partition.Split(g, owners(g, ranks, 5, true), ranks)
		if err != nil {
			t.Fatal(err)
		}
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			tol := 1e-12
			if dt == tensor.Float32 {
				tol = 1e-5
			}
			runs := runHalo(t, g, parts, dt, x, w)
			want := make([]float64, len(x)) // d cost / dx, by global row
			for r, run := range runs {
				rng := rand.New(rand.NewPCG(uint64(r), 7))
				rv := gradcheck.Draw(rng, len(run.global)*w)
				for i, u := range run.global {
					expect(t, fmt.Sprintf("%d ranks %v: rank %d halo row %d", ranks, dt, r, i), run.out[i*w:(i+1)*w], x[int(u)*w:(int(u)+1)*w], tol)
					for k := range w {
						want[int(u)*w+k] += rv[i*w+k]
					}
				}
			}
			for r, run := range runs {
				expect(t, fmt.Sprintf("%d ranks %v: rank %d dx", ranks, dt, r), run.dx, rowsOf(want, parts[r].Nodes, w), tol)
			}
			if dt != tensor.Float64 {
				continue
			}
			// Finite differences of the summed cost at a few rows.
			const h = 1e-4
			for _, i := range []int{0, 5 * w, (g.NumSrc() - 1) * w, 40*w + 1} {
				xp, xm := append([]float64{}, x...), append([]float64{}, x...)
				xp[i] += h
				xm[i] -= h
				var cp, cm float64
				for _, run := range runHalo(t, g, parts, dt, xp, w) {
					cp += run.cost
				}
				for _, run := range runHalo(t, g, parts, dt, xm, w) {
					cm += run.cost
				}
				if fd := (cp - cm) / (2 * h); !gradcheck.Within(fd, want[i], 1e-6) {
					t.Errorf("%d ranks: d cost / d x[%d]: finite differences %v, Halo's gradient %v", ranks, i, fd, want[i])
				}
			}
		}
	}
}
