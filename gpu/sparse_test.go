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
	forDevices(t, func(t *testing.T, dev *gpu.Device) {
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
			{"gat_attention", [][]int{nodes(h, 1), nodes(h, 1)}, []bool{true, true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.GATAttention(g, in[0], in[1], 0.2)
			}},
		}
		for _, dt := range dtypes {
			for ci, c := range cases {
				t.Run(fmt.Sprintf("%s/%v", c.name, dt), func(t *testing.T) {
					inputs := make([]*tensor.Dense, len(c.shapes))
					for i, s := range c.shapes {
						inputs[i] = random(dt, uint64(100+10*ci+i), s...)
					}
					compare(t, dev, inputs, c.dev, c.build)
				})
			}
		}
	})
}
