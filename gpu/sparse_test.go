//go:build gnncuda

package gpu_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/gpu"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/ops/device"
	"github.com/gnngo/gnn/internal/testkit/devicetest"
	"github.com/gnngo/gnn/ops"
)

// fixture returns a random graph of n nodes with parallel edges and a node
// without in-edges (node n-1 receives none).
func fixture(t *testing.T, n, e int, seed uint64) *graph.Graph {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	src, dst := make([]int32, 0, e+2), make([]int32, 0, e+2)
	for range e {
		src = append(src, int32(r.IntN(n)))
		dst = append(dst, int32(r.IntN(n-1)))
	}
	src, dst = append(src, 2, 2), append(dst, 1, 1) // parallel edges
	g, err := graph.FromCOO(n, n, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGraphOps runs the graph ops GCN and GAT use, forward and backward,
// on the emulator against the CPU.
func TestGraphOps(t *testing.T) {
	devicetest.ForDevices(t, func(t *testing.T, dev *gpu.Device) {
		const n, e, h, f = 23, 80, 3, 5
		g := fixture(t, n, e, 4)
		nodes := func(shape ...int) []int { return append([]int{n}, shape...) }
		edges := func(shape ...int) []int { return append([]int{g.NumEdges()}, shape...) }
		cases := []struct {
			name   string
			shapes [][]int
			dev    []bool
			build  func(in []*gorgonia.Node) (*gorgonia.Node, error)
		}{
			{"normalized_sum", [][]int{nodes(7)}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.NormalizedSum(g, in[0], -0.5, -0.5)
			}},
			{"normalized_sum_right", [][]int{nodes(7)}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.NormalizedSum(g, in[0], 0, -1)
			}},
			{"copy_u_sum", [][]int{nodes(h, f)}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) { return ops.CopyUSum(g, in[0]) }},
			{"copy_e_sum", [][]int{edges(h, 1)}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) { return ops.CopyESum(g, in[0]) }},
			{"u_mul_e_sum_heads", [][]int{nodes(h, f), edges(h, 1)}, []bool{true, true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.UMulESum(g, in[0], in[1])
			}},
			{"u_dot_v", [][]int{nodes(h, f), nodes(h, f)}, []bool{true, true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.UDotV(g, in[0], in[1])
			}},
			{"copy_u_max", [][]int{nodes(h, f)}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.SpMM(g, ops.CopyLHS, ops.Max, in[0], nil)
			}},
			{"copy_e_min", [][]int{edges(h, 1)}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.SpMM(g, ops.CopyRHS, ops.Min, nil, in[0])
			}},
			{"u_mul_e_max_heads", [][]int{nodes(h, f), edges(h, 1)}, []bool{true, true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.SpMM(g, ops.Mul, ops.Max, in[0], in[1])
			}},
			{"u_sub_e_min_bcast", [][]int{nodes(1, f), edges(h, 1)}, []bool{true, false}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.SpMM(g, ops.Sub, ops.Min, in[0], in[1])
			}},
			{"u_div_e_max", [][]int{nodes(f), edges(f)}, []bool{true, true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.SpMM(g, ops.Div, ops.Max, in[0], in[1])
			}},
			{"edge_softmax_by_dst", [][]int{edges(h, 2)}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.EdgeSoftmax(g, in[0], ops.ByDst)
			}},
			{"edge_softmax_by_src", [][]int{edges(h)}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.EdgeSoftmax(g, in[0], ops.BySrc)
			}},
			{"scale_by_in_degree", [][]int{nodes(h, f)}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.ScaleByDegree(g, in[0], ops.InDegree, -0.5)
			}},
			{"scale_by_out_degree", [][]int{nodes(7)}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.ScaleByDegree(g, in[0], ops.OutDegree, -1)
			}},
			{"graph_conv_edge_weights", [][]int{nodes(7), edges(1)}, []bool{true, true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				// GraphConv's weighted path: scale, u_mul_e sum, scale.
				x, err := ops.ScaleByDegree(g, in[0], ops.OutDegree, -0.5)
				if err != nil {
					return nil, err
				}
				y, err := ops.UMulESum(g, x, in[1])
				if err != nil {
					return nil, err
				}
				return ops.ScaleByDegree(g, y, ops.InDegree, -0.5)
			}},
			{"copy_u_mean", [][]int{nodes(h, f)}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.SpMM(g, ops.CopyLHS, ops.Mean, in[0], nil)
			}},
			{"u_add_e_sum_bcast", [][]int{nodes(1, f), edges(h, 1)}, []bool{true, true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				// Both gradients sum over a broadcast dimension (sum_to).
				return ops.SpMM(g, ops.Add, ops.Sum, in[0], in[1])
			}},
			{"u_mul_e_sum_bcast", [][]int{nodes(h, f), edges(1, f)}, []bool{true, true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				// Not a dot broadcast: the edge gradient is a per-edge
				// product summed to (1, F).
				return ops.SpMM(g, ops.Mul, ops.Sum, in[0], in[1])
			}},
			{"u_mul_v_bcast", [][]int{nodes(h, 1, f), nodes(1, 2, f)}, []bool{true, true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.UMulV(g, in[0], in[1])
			}},
			{"gat_attention", [][]int{nodes(h, 1), nodes(h, 1)}, []bool{true, true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.GATAttention(g, in[0], in[1], 0.2)
			}},
		}
		for _, dt := range devicetest.Dtypes {
			for ci, c := range cases {
				t.Run(fmt.Sprintf("%s/%v", c.name, dt), func(t *testing.T) {
					inputs := make([]*tensor.Dense, len(c.shapes))
					for i, s := range c.shapes {
						inputs[i] = devicetest.Random(dt, uint64(100+10*ci+i), s...)
					}
					devicetest.Compare(t, dev, inputs, c.dev, c.build)
				})
			}
		}
	})
}

// TestBroadcastKernels checks the backend's GatherCols (a broadcast) and
// SumCols (its gradient) against a host loop, on float32 and float64.
func TestBroadcastKernels(t *testing.T) {
	devicetest.ForDevices(t, func(t *testing.T, dev *gpu.Device) {
		b := device.Current()
		if b == nil {
			t.Fatal("no backend registered")
		}
		// Wide rows of 6 reading a narrow row of 3: off[k] = k % 3; the
		// inverse lists narrow j's wide elements j and j+3.
		const rows, w, n = 4, 6, 3
		off := []int32{0, 1, 2, 0, 1, 2}
		ptr := []int32{0, 2, 4, 6}
		inv := []int32{0, 3, 1, 4, 2, 5}
		ints := func(v []int32) *tensor.Dense {
			d, err := dev.Place(tensor.New(tensor.WithShape(len(v)), tensor.WithBacking(v)))
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		for _, dt := range devicetest.Dtypes {
			t.Run(fmt.Sprint(dt), func(t *testing.T) {
				narrow, wide := devicetest.Random(dt, 1, rows, n), devicetest.Random(dt, 2, rows, w)
				nd, err := dev.Place(narrow)
				if err != nil {
					t.Fatal(err)
				}
				wd, err := dev.Place(wide)
				if err != nil {
					t.Fatal(err)
				}
				before := dev.Stats()
				expanded, err := b.Alloc(dt, tensor.Shape{rows, w})
				if err != nil {
					t.Fatal(err)
				}
				if err := b.GatherCols(expanded, nd, ints(off), rows, n); err != nil {
					t.Fatal(err)
				}
				summed, err := b.Alloc(dt, tensor.Shape{rows, n})
				if err != nil {
					t.Fatal(err)
				}
				if err := b.SumCols(summed, wd, ints(ptr), ints(inv), rows, w); err != nil {
					t.Fatal(err)
				}
				if dev.Stats().Sub(before).Launches < 2 {
					t.Fatal("the kernels did not run")
				}
				xn, xw := devicetest.Floats(t, narrow), devicetest.Floats(t, wide)
				wantE, wantS := make([]float64, rows*w), make([]float64, rows*n)
				for r := range rows {
					for k := range w {
						wantE[r*w+k] = xn[r*n+int(off[k])]
						wantS[r*n+int(off[k])] += xw[r*w+k]
					}
				}
				host := func(d *tensor.Dense) []float64 {
					h, err := dev.ToHost(d)
					if err != nil {
						t.Fatal(err)
					}
					return devicetest.Floats(t, h)
				}
				devicetest.Near(t, "GatherCols", host(expanded), wantE, devicetest.Tol(dt))
				devicetest.Near(t, "SumCols", host(summed), wantS, devicetest.Tol(dt))
				if err := b.SumCols(summed, wd, ints(ptr), ints(inv), rows+1, w); err == nil {
					t.Error("SumCols with too many rows: no error")
				}
			})
		}
	})
}
