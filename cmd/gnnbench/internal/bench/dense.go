package bench

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
)

// maskedOut is the attention bias of a non-edge in the dense GAT, as
// pyGAT's zero_vec: exp(-9e15 - max) is 0 in float32.
const maskedOut = -9e15

// DenseBytes returns the size of one dense N x N float32 matrix on n
// nodes: a lower bound of the dense path's memory.
func DenseBytes(n int) int64 { return int64(n) * int64(n) * 4 }

// denseMatrix returns an N x N input node named name holding a, which must
// have N*N elements (row v, column u for the edge u -> v).
func denseMatrix(eg *gorgonia.ExprGraph, name string, n int, a []float32) *gorgonia.Node {
	v := tensor.New(tensor.WithShape(n, n), tensor.WithBacking(a))
	return gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(n, n), gorgonia.WithName(name), gorgonia.WithValue(v))
}

// denseGCN returns GCN propagation as a dense matmul: Ahat h with Ahat the
// normalised adjacency D^-1/2 (A+I) D^-1/2 as an N x N input node (row v
// holds the in-edges of v; parallel edges add up, as in the sparse sum).
func denseGCN(eg *gorgonia.ExprGraph, g *graph.Graph) (propagator, error) {
	n := g.NumSrc()
	if !g.Homogeneous() {
		return nil, fmt.Errorf("bench: dense gcn needs a homogeneous graph")
	}
	a := make([]float32, n*n)
	// Fresh pages from the OS read as zeros without being resident (and
	// all map one physical page, which caches perfectly); a dense tensor
	// is written in full, as a framework's zeros() writes it.
	clear(a)
	w := edgeNorms(g)
	src, dst := g.COO()
	for e := range src {
		a[int(dst[e])*n+int(src[e])] += w[e]
	}
	adj := denseMatrix(eg, "adjacency", n, a)
	return func(h *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Mul(adj, h) }, nil
}

// denseGAT returns GAT attention as pyGAT computes it, head by head, on
// dense N x N matrices: scores LeakyReLU(er_v + el_u) from one
// BroadcastAdd of a column and a row, plus a constant mask bias (log of the
// number of u -> v edges on edges, so that parallel edges count as in the
// sparse softmax, and -9e15 elsewhere), a SoftMax over each row, attention
// dropout, and the product with the head's features. The heads'
// outputs are concatenated and reshaped to (N, H, F).
func denseGAT(eg *gorgonia.ExprGraph, g *graph.Graph, slope, attnDrop float64, seed uint64, mode *nn.Mode) (attender, error) {
	n := g.NumSrc()
	if !g.Homogeneous() {
		return nil, fmt.Errorf("bench: dense gat needs a homogeneous graph")
	}
	m := make([]float32, n*n)
	src, dst := g.COO()
	for e := range src {
		m[int(dst[e])*n+int(src[e])]++
	}
	for i, c := range m {
		if c == 0 {
			m[i] = maskedOut
		} else {
			m[i] = float32(math.Log(float64(c)))
		}
	}
	mask := denseMatrix(eg, "attention_mask", n, m)
	return func(z, el, er *gorgonia.Node) (*gorgonia.Node, error) {
		s := z.Shape()
		heads, f := s[1], s[2]
		// Heads first, so that every head's rows are contiguous.
		zt, err := gorgonia.Transpose(z, 1, 0, 2) // (H, N, F)
		if err != nil {
			return nil, err
		}
		elt, err := headsFirst(el, n, heads) // (H, N)
		if err != nil {
			return nil, err
		}
		ert, err := headsFirst(er, n, heads)
		if err != nil {
			return nil, err
		}
		outs := make(gorgonia.Nodes, heads)
		for h := range heads {
			zh, err := gorgonia.Slice(zt, gorgonia.S(h)) // (N, F)
			if err != nil {
				return nil, err
			}
			row, err := headRow(elt, h, 1, n) // el as a row (1, N): source u
			if err != nil {
				return nil, err
			}
			col, err := headRow(ert, h, n, 1) // er as a column (N, 1): destination v
			if err != nil {
				return nil, err
			}
			sc, err := gorgonia.BroadcastAdd(col, row, []byte{1}, []byte{0}) // (N, N): er_v + el_u
			if err != nil {
				return nil, err
			}
			if sc, err = gorgonia.LeakyRelu(sc, slope); err != nil {
				return nil, err
			}
			if sc, err = gorgonia.Add(sc, mask); err != nil {
				return nil, err
			}
			a, err := gorgonia.SoftMax(sc, 1)
			if err != nil {
				return nil, err
			}
			if attnDrop > 0 {
				if a, err = nn.Dropout(a, attnDrop, seed+uint64(h), mode); err != nil {
					return nil, err
				}
			}
			if outs[h], err = gorgonia.Mul(a, zh); err != nil {
				return nil, err
			}
		}
		out := outs[0]
		if heads > 1 {
			if out, err = gorgonia.Concat(1, outs...); err != nil { // (N, H*F)
				return nil, err
			}
		}
		return gorgonia.Reshape(out, tensor.Shape{n, heads, f})
	}, nil
}

// headsFirst turns per-node head scores (N, H, 1) into (H, N).
func headsFirst(x *gorgonia.Node, n, heads int) (*gorgonia.Node, error) {
	x, err := gorgonia.Reshape(x, tensor.Shape{n, heads})
	if err != nil {
		return nil, err
	}
	return gorgonia.Transpose(x, 1, 0)
}

// headRow returns row h of x (H, N) reshaped to (rows, cols).
func headRow(x *gorgonia.Node, h, rows, cols int) (*gorgonia.Node, error) {
	r, err := gorgonia.Slice(x, gorgonia.S(h))
	if err != nil {
		return nil, err
	}
	return gorgonia.Reshape(r, tensor.Shape{rows, cols})
}
