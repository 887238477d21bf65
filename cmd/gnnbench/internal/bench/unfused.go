package bench

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/mp"
	"github.com/gnngo/gnn/nn"
)

// unfusedGCN returns GCN propagation with package mp's user-defined
// functions: the edge function gathers the source rows onto the edges and
// multiplies each by its edge's normaliser (an E x 1 constant), the reduce
// function sums every degree bucket's mailbox (nodes, degree, F) over the
// degree axis. It is PyG's gather-scatter GCNConv and DGL v0.2's GCN with
// lambdas.
func unfusedGCN(eg *gorgonia.ExprGraph, g *graph.Graph) (propagator, error) {
	w := edgeNorms(g)
	v := tensor.New(tensor.WithShape(len(w), 1), tensor.WithBacking(w))
	norm := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(len(w), 1), gorgonia.WithName("edge_norm"), gorgonia.WithValue(v))
	msg := mp.EdgeFunc(func(e *mp.EdgeBatch) (mp.Fields, error) {
		h, err := e.Src("h")
		if err != nil {
			return nil, err
		}
		c, err := e.Data("norm")
		if err != nil {
			return nil, err
		}
		m, err := gorgonia.BroadcastHadamardProd(h, c, nil, []byte{1})
		return mp.Fields{"m": m}, err
	})
	red := mp.NodeFunc(func(n *mp.NodeBatch) (mp.Fields, error) {
		mb, err := n.Mailbox("m")
		if err != nil {
			return nil, err
		}
		s, err := gorgonia.Sum(mb, 1)
		return mp.Fields{"h": s}, err
	})
	return func(h *gorgonia.Node) (*gorgonia.Node, error) {
		f, err := mp.NewFrame(g)
		if err != nil {
			return nil, err
		}
		if err := f.NodeData().Set("h", h); err != nil {
			return nil, err
		}
		if err := f.EdgeData().Set("norm", norm); err != nil {
			return nil, err
		}
		if err := f.UpdateAll(msg, red, nil); err != nil {
			return nil, err
		}
		return f.NodeData().Get("h")
	}, nil
}

// unfusedGAT returns GAT attention and aggregation with package mp's
// user-defined functions, as DGL v0.2's GAT tutorial wrote it: the edge
// function sends the source's projected features z (E, H, F) and the
// logit LeakyReLU(el_u + er_v) (E, H, 1); the reduce function takes the
// softmax of the logits over the mailbox's degree axis, applies attention
// dropout and sums the attention-weighted mailbox of z.
func unfusedGAT(g *graph.Graph, slope, attnDrop float64, seed uint64, mode *nn.Mode) attender {
	msg := mp.EdgeFunc(func(e *mp.EdgeBatch) (mp.Fields, error) {
		z, err := e.Src("z")
		if err != nil {
			return nil, err
		}
		el, err := e.Src("el")
		if err != nil {
			return nil, err
		}
		er, err := e.Dst("er")
		if err != nil {
			return nil, err
		}
		s, err := gorgonia.Add(el, er)
		if err != nil {
			return nil, err
		}
		if s, err = gorgonia.LeakyRelu(s, slope); err != nil {
			return nil, err
		}
		return mp.Fields{"z": z, "e": s}, nil
	})
	red := mp.NodeFunc(func(n *mp.NodeBatch) (mp.Fields, error) {
		me, err := n.Mailbox("e") // (nodes, d, H, 1)
		if err != nil {
			return nil, err
		}
		a, err := gorgonia.SoftMax(me, 1)
		if err != nil {
			return nil, err
		}
		if attnDrop > 0 {
			if a, err = nn.Dropout(a, attnDrop, seed+uint64(n.Degree()), mode); err != nil {
				return nil, err
			}
		}
		mz, err := n.Mailbox("z") // (nodes, d, H, F)
		if err != nil {
			return nil, err
		}
		m, err := gorgonia.BroadcastHadamardProd(mz, a, nil, []byte{3})
		if err != nil {
			return nil, err
		}
		s, err := gorgonia.Sum(m, 1)
		return mp.Fields{"h": s}, err
	})
	return func(z, el, er *gorgonia.Node) (*gorgonia.Node, error) {
		f, err := mp.NewFrame(g)
		if err != nil {
			return nil, err
		}
		for name, x := range map[string]*gorgonia.Node{"z": z, "el": el, "er": er} {
			if err := f.NodeData().Set(name, x); err != nil {
				return nil, err
			}
		}
		if err := f.UpdateAll(msg, red, nil); err != nil {
			return nil, fmt.Errorf("bench: unfused gat: %w", err)
		}
		return f.NodeData().Get("h")
	}
}
