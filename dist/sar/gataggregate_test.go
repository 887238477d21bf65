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
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn"
)

// gatOpCase is GATAggregate alone on a graph split across ranks, inside
// the cost sum(out ⊙ R): global projected rows z (N, H, F), attention
// vectors al and ar (1, H, F) and R (N, H, F).
type gatOpCase struct {
	g           *graph.Graph
	parts       []*partition.Part
	heads, feat int
	slope       float64
	drop        float64
	mode        sar.Mode
	z, al, ar   []float64
	r           []float64
	ew          []float64 // a weight per global edge, or nil
}

// gatStep changes element i of input in (0 z, 1 al, 2 ar) by d.
type gatStep struct {
	in, i int
	d     float64
}

// gatOpResult is what a gatOpCase run gives, all global: the output, the
// gradients of the cost with respect to z, al and ar (those of al and ar
// summed over ranks, in rank order), and the cost after each step.
type gatOpResult struct {
	out   []float64
	grads [3][]float64
	costs []float64
}

// run builds the op on every rank in dtype dt, computes the output and
// the gradients, then the cost with each step applied alone.
func (c *gatOpCase) run(dt tensor.Dtype, steps []gatStep) (*gatOpResult, error) {
	n, h, f := c.g.NumSrc(), c.heads, c.feat
	hf := h * f
	owner, local := make([]int, n), make([]int, n)
	for r, p := range c.parts {
		for i, u := range p.Nodes {
			owner[u], local[u] = r, i
		}
	}
	res := &gatOpResult{out: make([]float64, n*hf), costs: make([]float64, len(steps))}
	res.grads = [3][]float64{make([]float64, n*hf), make([]float64, hf), make([]float64, hf)}
	costs := make([][]float64, len(c.parts))
	vecs := make([][2][]float64, len(c.parts)) // each rank's al and ar gradients
	var mu sync.Mutex
	err := comm.RunInProcess(len(c.parts), func(cm comm.Comm) error {
		rank := cm.Rank()
		part := c.parts[rank]
		sg, err := sar.New(part, cm, sar.WithMode(c.mode))
		if err != nil {
			return err
		}
		eg := gorgonia.NewGraph()
		m := len(part.Nodes)
		in := [3]*gorgonia.Node{
			gradcheck.Input(eg, dt, "z", []int{m, h, f}, rowsOf(c.z, part.Nodes, hf)),
			gradcheck.Input(eg, dt, "al", []int{1, h, f}, c.al),
			gradcheck.Input(eg, dt, "ar", []int{1, h, f}, c.ar),
		}
		mode := nn.NewMode()
		mode.Next()
		var ew *gorgonia.Node
		if c.ew != nil {
			ids := sg.EdgeIDs()
			rows := make([]float64, len(ids))
			for i, e := range ids {
				rows[i] = c.ew[e]
			}
			ew = gradcheck.Input(eg, dt, "ew", []int{len(rows), 1}, rows)
		}
		out, err := sg.GATAggregate(in[0], in[1], in[2], ew, c.slope, nn.DropoutSpec{P: c.drop, Seed: 5, Mode: mode})
		if err != nil {
			return err
		}
		proj := gradcheck.Input(eg, dt, "R", []int{m, hf}, rowsOf(c.r, part.Nodes, hf))
		prod, err := gorgonia.HadamardProd(out, proj)
		if err != nil {
			return err
		}
		cost, err := gorgonia.Sum(prod)
		if err != nil {
			return err
		}
		grads, err := gorgonia.Grad(cost, in[:]...)
		if err != nil {
			return err
		}
		vm := gorgonia.NewTapeMachine(eg)
		defer vm.Close()
		if err := vm.RunAll(); err != nil {
			return err
		}
		o, gs := gradcheck.Floats(out.Value()), gradcheck.Values(grads)
		mine := make([]float64, len(steps))
		for k, st := range steps {
			node, i := in[st.in], st.i
			if st.in == 0 {
				if u := st.i / hf; owner[u] == rank {
					i = local[u]*hf + st.i%hf
				} else {
					node = nil // another rank's row
				}
			}
			var was float64
			if node != nil {
				was = gradcheck.Floats(node.Value())[i]
				gradcheck.SetElem(node, i, was+st.d)
			}
			vm.Reset()
			if err := vm.RunAll(); err != nil {
				return err
			}
			mine[k] = gradcheck.Floats(cost.Value())[0]
			if node != nil {
				gradcheck.SetElem(node, i, was)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for i, u := range part.Nodes {
			copy(res.out[int(u)*hf:], o[i*hf:(i+1)*hf])
			copy(res.grads[0][int(u)*hf:], gs[0][i*hf:(i+1)*hf])
		}
		costs[rank] = mine
		vecs[rank] = [2][]float64{gs[1], gs[2]}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for r := range c.parts { // in rank order, as the costs
		for k := range steps {
			res.costs[k] += costs[r][k]
		}
		for i, v := range vecs[r] {
			for j, x := range v {
				res.grads[1+i][j] += x
			}
		}
	}
	return res, nil
}

// newGATOpCase draws a case on an R-MAT graph of 32 nodes (some without
// in-edges) plus 2 isolated ones, split across ranks (with 3, the last one
// owns only the isolated nodes, so no edges).
func newGATOpCase(t *testing.T, ranks int, mode sar.Mode, drop float64) *gatOpCase {
	t.Helper()
	r, err := generate.RMAT(5, 120, 0.57, 0.19, 0.19, 7)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := r.COO()
	g, err := graph.FromCOO(r.NumSrc()+2, r.NumSrc()+2, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := partition.Split(g, owners(g, ranks, 4, true), ranks)
	if err != nil {
		t.Fatal(err)
	}
	const heads, feat = 2, 3
	rng := rand.New(rand.NewPCG(17, 3))
	n := g.NumSrc()
	return &gatOpCase{g: g, parts: parts, heads: heads, feat: feat, slope: 0.2, drop: drop, mode: mode,
		z: gradcheck.Draw(rng, n*heads*feat), al: gradcheck.Draw(rng, heads*feat), ar: gradcheck.Draw(rng, heads*feat),
		r: gradcheck.Draw(rng, n*heads*feat)}
}

// gatInputs names the inputs of a gatOpCase.
var gatInputs = [3]string{"z", "al", "ar"}

// TestGATAggregateGradients checks the gradients GATAggregate gives z, al
// and ar against central finite differences of the cost summed over all
// ranks (float64), on 2 and 3 ranks, both modes, with and without
// attention dropout and with and without edge weights; and that float32
// gives float64's output and gradients to 1e-3.
func TestGATAggregateGradients(t *testing.T) {
	const step, tol = 1e-6, 1e-6
	for _, ranks := range []int{2, 3} {
		for _, mode := range []sar.Mode{sar.Sequential, sar.OneShot} {
			for _, drop := range []float64{0, 0.4} {
				for _, weighted := range []bool{false, true} {
					t.Run(fmt.Sprintf("%d ranks %v drop %g weighted %v", ranks, mode, drop, weighted), func(t *testing.T) {
						c := newGATOpCase(t, ranks, mode, drop)
						if weighted {
							c.ew = randomWeights(c.g.NumEdges(), 3)
						}
						var steps []gatStep
						for in, v := range [][]float64{c.z, c.al, c.ar} {
							for i := range v {
								steps = append(steps, gatStep{in, i, step}, gatStep{in, i, -step})
							}
						}
						got, err := c.run(tensor.Float64, steps)
						if err != nil {
							t.Fatal(err)
						}
						k := 0
						for in, v := range [][]float64{c.z, c.al, c.ar} {
							zero := true
							for i := range v {
								fd := (got.costs[k] - got.costs[k+1]) / (2 * step)
								k += 2
								if a := got.grads[in][i]; !gradcheck.Within(a, fd, tol) {
									t.Errorf("d cost / d %s[%d] = %.9g, finite difference %.9g", gatInputs[in], i, a, fd)
								}
								zero = zero && got.grads[in][i] == 0
							}
							if zero {
								t.Errorf("the gradient with respect to %s is zero everywhere", gatInputs[in])
							}
						}
						if ranks != 3 || drop == 0 {
							return
						}
						single, err := c.run(tensor.Float32, nil)
						if err != nil {
							t.Fatal(err)
						}
						expect(t, "float32 output", single.out, got.out, 1e-3)
						for in := range got.grads {
							expect(t, "float32 d/d"+gatInputs[in], single.grads[in], got.grads[in], 1e-3)
						}
					})
				}
			}
		}
	}
}
