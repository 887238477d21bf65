// Command rgcn trains a two-layer R-GCN (Schlichtkrull et al., 2018) for
// node classification on a heterograph, full-graph: the heterograph is
// converted to homogeneous form with a relation per edge, grouped by
// relation, and each RelGraphConv layer runs as one fused SegmentMatMul
// (per relation, one dense product on the rows it touches and one fused
// sum over its edges); the first layer reads each node type's features
// where they are (RelGraphConv.ForwardRows, no stacked copy), the second
// writes only the labelled type's rows. It trains on a generated heterograph shaped like ogbn-mag
// (papers, authors, institutions, fields of study; writes, cites,
// has_topic, affiliated_with and their reverses) with a planted class per
// paper; paper features are noisy class centres, the other node types
// learn an embedding, as in DGL's ogbn-mag example. -scale multiplies the
// small default graph's node counts; -mag F generates ogbn-mag's sizes
// times F instead. -impl peredge runs the same model with a message per
// edge, for comparison. -data DIR trains instead on a heterograph in
// hetero.LoadDataset's text format with exactly one labelled node type and
// its train, val and test splits. It prints one line per epoch, then "test accuracy: 0.xxxx" (a format,
// not a promised figure),
// the test accuracy at the epoch of best validation accuracy. -save writes
// the model as a model file (package model: the inputs, layers and
// parameters, so model.Load and PredictRelational run it without this
// program); -load reads it back, or a parameter file of nn.SaveParams.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/examples/internal/setup"
	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/internal/limits"
	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/rgcn"
	"github.com/gnngo/gnn/nn/train"
)

// options are rgcn's own flags.
type options struct {
	Bases    int // 0: a full weight per relation
	Scale    int
	Features int     // 0: the default shape's
	Classes  int     // 0: the default shape's
	Mag      float64 // > 0: ogbn-mag's shape times this
	Impl     string  // "segment" or "peredge"
	MemProf  string  // heap profile file, written after training
}

func main() {
	f := setup.Flags{Epochs: 60, LR: 0.01, Hidden: 16, Dropout: 0.5, WeightDecay: 5e-4, Seed: 1}
	o := options{Scale: 1, Impl: "segment"}
	f.Register(flag.CommandLine)
	flag.IntVar(&o.Bases, "bases", o.Bases, "basis decomposition with this many bases (0: one full weight per relation)")
	flag.IntVar(&o.Scale, "scale", o.Scale, "multiply the generated graph's node counts by this")
	flag.IntVar(&o.Features, "features", o.Features, "paper feature width of the generated graph (0: 32)")
	flag.IntVar(&o.Classes, "classes", o.Classes, "number of paper classes of the generated graph (0: 6)")
	flag.Float64Var(&o.Mag, "mag", o.Mag, "generate ogbn-mag's shape (1.94M nodes, 20.5M edges plus reverses, 128 features, 349 classes) times this fraction instead of the small default (-scale 1 only)")
	flag.StringVar(&o.Impl, "impl", o.Impl, "how the layers run: segment (one SegmentMatMul per layer) or peredge (a message tensor per edge over the homogeneous graph, for comparison; full weights only)")
	flag.StringVar(&o.MemProf, "memprofile", o.MemProf, "write a heap profile to this `file` after training, with the model's values still held")
	setup.ParseAndRun("rgcn", &f, flag.CommandLine, func(w io.Writer) error { return run(w, &f, o) })
}

func run(w io.Writer, f *setup.Flags, o options) error {
	if err := f.Refuse("rgcn trains on the CPU, on dense features", "device", "dense"); err != nil {
		return err
	}
	if err := f.Check(); err != nil {
		return err
	}
	if o.Bases < 0 || o.Scale <= 0 || o.Features < 0 || o.Classes < 0 {
		return fmt.Errorf("-bases %d -scale %d -features %d -classes %d: want a positive scale and no negative count", o.Bases, o.Scale, o.Features, o.Classes)
	}
	if !(o.Mag >= 0 && o.Mag <= 1) || (o.Mag > 0 && o.Scale != 1) {
		return fmt.Errorf("-mag %v (with -scale %d): want a fraction in (0, 1], and -scale 1", o.Mag, o.Scale)
	}
	if o.Impl == "" {
		o.Impl = "segment"
	}
	if o.Impl != "segment" && o.Impl != "peredge" {
		return fmt.Errorf("-impl %q: want segment or peredge", o.Impl)
	}
	if o.Impl == "peredge" && o.Bases > 0 {
		return fmt.Errorf("-impl peredge with -bases %d: the per-edge path takes full weights only", o.Bases)
	}
	var d *hetero.Dataset
	var title string
	if f.Data != "" {
		var err error
		if d, err = hetero.LoadDataset(f.Data); err != nil {
			return fmt.Errorf("-data %s: %w", f.Data, err)
		}
		title = f.Data
	} else {
		shape := smallMag
		if o.Mag > 0 {
			shape = magFraction(o.Mag)
		}
		if o.Features > 0 {
			shape.Features = o.Features
		}
		if o.Classes > 0 {
			shape.Classes = o.Classes
		}
		if int64(shape.Classes) > int64(shape.Papers)*int64(o.Scale) {
			return fmt.Errorf("-classes %d: more classes than the %d papers of the generated graph", shape.Classes, int64(shape.Papers)*int64(o.Scale))
		}
		nodes := int64(shape.Papers+shape.Authors+shape.Institutions+shape.Fields) * int64(o.Scale)
		if err := limits.Count(fmt.Sprintf("-scale %d: nodes", o.Scale), nodes); err != nil {
			return err
		}
		edges := int64(shape.Papers*(shape.CitesPer+shape.TopicsPer)+shape.Authors*(shape.WritesPer+shape.AffiliationsPer)) * int64(o.Scale) * 2
		if err := limits.Count(fmt.Sprintf("-scale %d: edges with their reverses", o.Scale), edges); err != nil {
			return err
		}
		shape.Papers *= o.Scale
		shape.Authors *= o.Scale
		shape.Institutions *= o.Scale
		shape.Fields *= o.Scale
		if err := checkModelSize(f, map[string]int{"paper": shape.Features}, map[string]int{"paper": shape.Papers, "author": shape.Authors,
			"institution": shape.Institutions, "field_of_study": shape.Fields}, edges); err != nil {
			return fmt.Errorf("-scale %d -features %d: %w", o.Scale, shape.Features, err)
		}
		m, err := generateMag(shape, f.Seed)
		if err != nil {
			return err
		}
		d = m.dataset(shape.Features)
		title = "generated ogbn-mag shape"
	}
	return train1(w, f, o, d, title)
}

// dataset returns m in the form hetero.LoadDataset gives.
// checkModelSize refuses, naming -hidden, a model whose values cannot fit
// in memory: an embedding of -hidden values for every node of a type
// without features (cols has no entry), with its gradient and Adam's two
// moments; a hidden and an output row per node with their gradients; the
// features; 32 bytes an edge.
func checkModelSize(f *setup.Flags, cols, counts map[string]int, edges int64) error {
	var est float64
	var nodes, featureless int64
	for nt, n := range counts {
		nodes += int64(n)
		if c, ok := cols[nt]; ok {
			est += float64(n) * float64(c) * 4
		} else {
			featureless += int64(n)
			est += float64(n) * float64(f.Hidden) * 4 * 4
		}
	}
	est += float64(nodes)*float64(f.Hidden)*4*4 + float64(edges)*32
	return limits.Bytes(fmt.Sprintf("-hidden %d on %d nodes (%d without features, each with a learnt embedding) and %d edges", f.Hidden, nodes, featureless, edges), est)
}

func (m *mag) dataset(features int) *hetero.Dataset {
	return &hetero.Dataset{
		Graph:    m.Graph,
		Features: map[string]*hetero.Features{"paper": {Rows: len(m.Labels), Cols: features, Data: m.Features}},
		Labels:   map[string][]int32{"paper": m.Labels},
		Splits:   map[string][3][]int32{"paper": {m.Train, m.Val, m.Test}},
	}
}

// train1 trains the model on d's one labelled node type.
func train1(w io.Writer, f *setup.Flags, o options, d *hetero.Dataset, title string) error {
	h := d.Graph
	if len(d.Labels) != 1 {
		return fmt.Errorf("%d node types have labels; rgcn classifies exactly one", len(d.Labels))
	}
	var target string
	var targetLabels []int32
	for nt, l := range d.Labels {
		target, targetLabels = nt, l
	}
	splits := d.Splits[target]
	for k, ids := range splits {
		if len(ids) == 0 {
			return fmt.Errorf("node type %q has no %s split", target, hetero.SplitNames[k])
		}
	}
	classes := 0
	for _, c := range targetLabels {
		classes = max(classes, int(c)+1)
	}
	// The input width is the labelled type's feature width (-hidden when
	// it has none); a type with features of another width goes through a
	// learnt projection, a type without features learns an embedding.
	in := f.Hidden
	if x, ok := d.Features[target]; ok {
		in = x.Cols
	}
	cols, counts := map[string]int{}, map[string]int{}
	for i, nt := range h.NodeTypes() {
		counts[nt] = h.NodeCount(i)
		if x, ok := d.Features[nt]; ok {
			cols[nt] = x.Cols
		}
	}
	if err := checkModelSize(f, cols, counts, int64(h.TotalEdges())); err != nil {
		return err
	}
	fmt.Fprintf(w, "dataset %s: %s; %d input features, %d classes (%s), train/val/test %d/%d/%d\n",
		title, h, in, classes, target, len(splits[0]), len(splits[1]), len(splits[2]))
	numRels := h.NumEdgeTypes()
	if o.Bases > numRels {
		return fmt.Errorf("-bases %d: more bases than the %d relations, which a full weight per relation (-bases 0) already covers; give at most %d", o.Bases, numRels, numRels)
	}
	m, err := model.New(Spec(h, d.Features, target, in, f.Hidden, classes, o.Bases, f.Dropout, f.Seed), tensor.Float32, f.Seed)
	if err != nil {
		return err
	}
	eg := gorgonia.NewGraph()
	feats := map[string]*gorgonia.Node{}
	for i, nt := range h.NodeTypes() {
		if x, ok := d.Features[nt]; ok {
			n := h.NodeCount(i)
			feats[nt] = gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(n, x.Cols), gorgonia.WithName(nt+".feat"),
				gorgonia.WithValue(tensor.New(tensor.WithShape(n, x.Cols), tensor.WithBacking(x.Data))))
		}
	}
	var logits *gorgonia.Node
	var params gorgonia.Nodes
	if o.Impl == "peredge" {
		logits, params, err = perEdgeModel(eg, m, h, feats, f)
	} else {
		// The first layer reads each type's rows where they are (no
		// stacked copy of the features, nor its gradient); the second
		// writes only the labelled type's rows.
		logits, params, err = m.ForwardRelational(eg, h, feats)
	}
	if err != nil {
		return err
	}
	tr, va, te := splits[0], splits[1], splits[2]
	loss, err := nn.CrossEntropy(logits, targetLabels, tr)
	if err != nil {
		return err
	}
	err = f.FinishModel(w, "R-GCN on "+title, &train.Task{
		Logits: logits, Loss: loss, Mode: m.Mode(),
		Groups: []train.Group{{Params: params, WeightDecay: f.WeightDecay}},
		Labels: targetLabels, Train: tr, Val: va, Test: te,
	}, m)
	if err == nil && o.MemProf != "" {
		err = writeHeapProfile(o.MemProf)
	}
	runtime.KeepAlive(eg)
	return err
}

// Spec is the model: each node type's input (its features, through a
// learnt projection when their width is not in, or a learnt embedding of
// in features for a type without features, seeded nn.ParamSeed(seed, type
// ID)), a RelGraphConv from in to hidden features over every relation with
// ReLU and dropout (seeded seed), and one from hidden to the classes
// (seeded seed+1) writing the target type's rows, DGL's norm on the edges;
// bases > 0 uses the basis decomposition.
func Spec(h *hetero.Graph, feats map[string]*hetero.Features, target string, in, hidden, classes, bases int, dropout float64, seed uint64) model.Spec {
	var inputs []model.InputSpec
	for i, nt := range h.NodeTypes() {
		s := nn.ParamSeed(seed, uint64(i))
		is := model.InputSpec{NodeType: nt, Nodes: h.NodeCount(i), Seed: &s}
		if x, ok := feats[nt]; ok {
			is.Features = x.Cols
		}
		inputs = append(inputs, is)
	}
	s1, s2 := seed, seed+1
	layers := []model.LayerSpec{
		{Type: model.RelGraphConv, Name: "rgcn1", In: in, Out: hidden, NumRelations: h.NumEdgeTypes(), Activation: "relu", OutDropout: dropout, Seed: &s1},
		{Type: model.RelGraphConv, Name: "rgcn2", In: hidden, Out: classes, NumRelations: h.NumEdgeTypes(), Seed: &s2},
	}
	if bases > 0 {
		for l := range layers {
			layers[l].Regularizer, layers[l].Bases = "basis", bases
		}
	}
	return model.Spec{Task: "node", InFeatures: in, Classes: classes, Inputs: inputs, Target: target, EdgeNorm: "right", Layers: layers}
}

// writeHeapProfile writes a heap profile (after a collection) to path.
func writeHeapProfile(path string) error {
	pf, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("-memprofile: %w", err)
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(pf); err != nil {
		pf.Close()
		return fmt.Errorf("-memprofile: %w", err)
	}
	return pf.Close()
}

// perEdgeModel runs m's parameters the per-edge way (rgcn.PerEdge) over
// the homogeneous form of h, with the first layer's ReLU and dropout, from
// the inputs stacked in one tensor, and returns the labelled type's logits
// (the rows of m's target type of the second layer's output) and the
// parameter nodes, in m's order.
func perEdgeModel(eg *gorgonia.ExprGraph, m *model.Model, h *hetero.Graph, feats map[string]*gorgonia.Node, f *setup.Flags) (logits *gorgonia.Node, params gorgonia.Nodes, err error) {
	vals := m.Params()
	param := func(name string) *gorgonia.Node {
		p := nn.Param(eg, name, vals[name])
		params = append(params, p)
		return p
	}
	spec := m.Spec()
	var parts gorgonia.Nodes
	target := 0
	for i, in := range spec.Inputs {
		if in.NodeType == spec.Target {
			target = i
		}
		x, ok := feats[in.NodeType]
		switch {
		case !ok:
			x = param(in.NodeType + ".embed")
		case in.Features != spec.InFeatures:
			if x, err = nn.MatMul(x, param(in.NodeType+".proj")); err != nil {
				return nil, nil, err
			}
		}
		parts = append(parts, x)
	}
	x := parts[0]
	if len(parts) > 1 {
		if x, err = gorgonia.Concat(0, parts...); err != nil {
			return nil, nil, err
		}
	}
	hom, err := h.ToHomogeneous()
	if err != nil {
		return nil, nil, err
	}
	norm, err := rgcn.RightNorm(hom.Graph, hom.EdgeType, h.NumEdgeTypes())
	if err != nil {
		return nil, nil, err
	}
	p1 := gorgonia.Nodes{param("rgcn1.weight"), param("rgcn1.loop_weight"), param("rgcn1.bias")}
	p2 := gorgonia.Nodes{param("rgcn2.weight"), param("rgcn2.loop_weight"), param("rgcn2.bias")}
	hid, err := rgcn.PerEdge(hom.Graph, hom.EdgeType, norm, x, p1[0], p1[1], p1[2])
	if err != nil {
		return nil, nil, err
	}
	if hid, err = nn.ReLU(hid); err != nil {
		return nil, nil, err
	}
	if f.Dropout > 0 {
		if hid, err = nn.Dropout(hid, f.Dropout, f.Seed, m.Mode()); err != nil {
			return nil, nil, err
		}
	}
	out, err := rgcn.PerEdge(hom.Graph, hom.EdgeType, norm, hid, p2[0], p2[1], p2[2])
	if err != nil {
		return nil, nil, err
	}
	off, count := hom.NodeOffsets[target], h.NodeCount(target)
	if logits, err = gorgonia.Slice(out, gorgonia.S(off, off+count)); err != nil {
		return nil, nil, err
	}
	return logits, params, nil
}
