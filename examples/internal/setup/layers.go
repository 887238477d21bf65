package setup

import (
	"io"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/train"
)

// TrainTwoLayers trains the two-layer node classifier of spec (float32,
// seeded seed) on g, full-graph, as examples/gcn and gat do: ds's
// features (sparse ones never densified) placed on -device, the first
// layer reading them and the second its output, the cross-entropy over
// ds's training nodes, then FinishModel. groups splits the two layers'
// parameters into weight-decay groups.
func (f *Flags) TrainTwoLayers(w io.Writer, title string, ds *dataset.Dataset, g *graph.Graph, spec model.Spec, seed uint64, groups func(p1, p2 gorgonia.Nodes) []train.Group) error {
	eg := gorgonia.NewGraph()
	in, err := Features(eg, ds, f.Dense)
	if err != nil {
		return err
	}
	if err := f.Place(in); err != nil {
		return err
	}
	m, err := model.New(spec, tensor.Float32, seed)
	if err != nil {
		return err
	}
	var h *gorgonia.Node
	var p1 gorgonia.Nodes
	if in.Sparse != nil {
		h, p1, err = m.LayerSparse(eg, 0, g, in.Sparse)
	} else {
		h, p1, err = m.Layer(eg, 0, g, in.Dense)
	}
	if err != nil {
		return err
	}
	logits, p2, err := m.Layer(eg, 1, g, h)
	if err != nil {
		return err
	}
	loss, err := nn.CrossEntropy(logits, ds.Labels, ds.Train)
	if err != nil {
		return err
	}
	return f.FinishModel(w, title, &train.Task{
		Logits: logits, Loss: loss, Mode: m.Mode(), Groups: groups(p1, p2),
		Labels: ds.Labels, Train: ds.Train, Val: ds.Val, Test: ds.Test,
	}, m)
}
