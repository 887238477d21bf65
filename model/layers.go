package model

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/mp"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/appnp"
	"github.com/gnngo/gnn/nn/cheb"
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/gatv2"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/gin"
	"github.com/gnngo/gnn/nn/heteroconv"
	"github.com/gnngo/gnn/nn/rgcn"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/nn/sgc"
	"github.com/gnngo/gnn/nn/tag"
)

// The layer types a LayerSpec can name.
const (
	GraphConv       = "GraphConv"       // nn/gcn
	GATConv         = "GATConv"         // nn/gat
	GATv2Conv       = "GATv2Conv"       // nn/gatv2
	SAGEConv        = "SAGEConv"        // nn/sage
	GINConv         = "GINConv"         // nn/gin, with an MLP of Linear and BatchNorm layers
	APPNPConv       = "APPNPConv"       // nn/appnp
	SGConv          = "SGConv"          // nn/sgc
	TAGConv         = "TAGConv"         // nn/tag
	ChebConv        = "ChebConv"        // nn/cheb
	RelGraphConv    = "RelGraphConv"    // nn/rgcn
	HeteroGraphConv = "HeteroGraphConv" // nn/heteroconv
	Linear          = "Linear"          // x W + b, row by row
	BatchNorm       = "BatchNorm"       // nn.BatchNorm with a learned scale and shift
)

// kind is what the package knows of a layer type.
type kind struct {
	short   string // the default name's prefix
	ownDrop bool   // the layer applies Dropout itself (feature dropout)
	ownAct  bool   // the layer applies Activation itself
	rowwise bool   // the layer maps each row alone (no graph)
	build   func(e env, ls *LayerSpec, act nn.Activation) (*built, error)
}

var kinds map[string]kind

func init() {
	kinds = map[string]kind{
		GraphConv:       {short: "gcn", ownAct: true, build: buildGraphConv},
		GATConv:         {short: "gat", ownDrop: true, ownAct: true, build: buildGATConv},
		GATv2Conv:       {short: "gatv2", ownDrop: true, ownAct: true, build: buildGATv2Conv},
		SAGEConv:        {short: "sage", ownDrop: true, ownAct: true, build: buildSAGEConv},
		GINConv:         {short: "gin", ownAct: true, build: buildGINConv},
		APPNPConv:       {short: "appnp", build: buildAPPNPConv},
		SGConv:          {short: "sgc", build: buildSGConv},
		TAGConv:         {short: "tag", ownAct: true, build: buildTAGConv},
		ChebConv:        {short: "cheb", ownAct: true, build: buildChebConv},
		RelGraphConv:    {short: "rgcn", ownAct: true, build: buildRelGraphConv},
		HeteroGraphConv: {short: "hetero", build: buildHeteroGraphConv},
		Linear:          {short: "linear", rowwise: true, build: buildLinear},
		BatchNorm:       {short: "bn", rowwise: true, build: buildBatchNorm},
	}
}

// env is where a layer is built: the expression graph, the parameters'
// dtype, the dropout mode and the values the parameters start from (nil:
// drawn from the seeds).
type env struct {
	eg     *gorgonia.ExprGraph
	dt     tensor.Dtype
	mode   *nn.Mode
	values nn.Values
}

// built is one layer added to an expression graph.
type built struct {
	layer   nn.Layer // the layer package's, for HeteroGraphConv's relations
	params  gorgonia.Nodes
	forward func(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error)
	sparse  func(g nn.Graph, x *nn.Sparse) (*gorgonia.Node, error)
	edges   func(g *graph.Graph, x, ef *gorgonia.Node) (*gorgonia.Node, error)
	rows    func(g nn.Graph, xs gorgonia.Nodes) (*gorgonia.Node, error) // features in row blocks
	hetero  func(h *hetero.Graph, x map[string]*gorgonia.Node) (map[string]*gorgonia.Node, error)
}

// buildLayer adds the layer ls (normalised) to e's graph, with its input
// dropout and activation around it when the layer package has none.
func buildLayer(e env, ls *LayerSpec) (*built, error) {
	k, ok := kinds[ls.Type]
	if !ok {
		return nil, fmt.Errorf("unknown layer type %q", ls.Type)
	}
	act, err := activation(ls.Activation)
	if err != nil {
		return nil, err
	}
	var own nn.Activation
	if k.ownAct {
		own = act
	}
	b, err := k.build(e, ls, own)
	if err != nil {
		return nil, err
	}
	if k.rowwise {
		f := b.forward
		b.forward = func(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
			if !nn.IsNil(g) {
				var err error
				if x, err = nn.DstRows(g, x); err != nil {
					return nil, err
				}
			}
			return f(g, x)
		}
	}
	if !k.ownAct && act != nil {
		wrapActivation(b, act)
	}
	if ls.Type != RelGraphConv && ls.OutDropout > 0 {
		wrapOutDropout(b, ls.OutDropout, *ls.OutDropoutSeed, e.mode)
	}
	if !k.ownDrop && ls.Dropout > 0 {
		wrapDropout(b, ls.Dropout, *ls.DropoutSeed, e.mode)
	}
	return b, nil
}

// wrapActivation applies act to the outputs of b's forward functions.
func wrapActivation(b *built, act nn.Activation) {
	if f := b.forward; f != nil {
		b.forward = func(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
			y, err := f(g, x)
			if err != nil {
				return nil, err
			}
			return act(y)
		}
	}
	if f := b.sparse; f != nil {
		b.sparse = func(g nn.Graph, x *nn.Sparse) (*gorgonia.Node, error) {
			y, err := f(g, x)
			if err != nil {
				return nil, err
			}
			return act(y)
		}
	}
	if f := b.edges; f != nil {
		b.edges = func(g *graph.Graph, x, ef *gorgonia.Node) (*gorgonia.Node, error) {
			y, err := f(g, x, ef)
			if err != nil {
				return nil, err
			}
			return act(y)
		}
	}
	if f := b.hetero; f != nil {
		b.hetero = func(h *hetero.Graph, x map[string]*gorgonia.Node) (map[string]*gorgonia.Node, error) {
			ys, err := f(h, x)
			if err != nil {
				return nil, err
			}
			for t, y := range ys {
				if ys[t], err = act(y); err != nil {
					return nil, err
				}
			}
			return ys, nil
		}
	}
}

// wrapOutDropout applies dropout to the output of b's forward functions.
func wrapOutDropout(b *built, p float64, seed uint64, mode *nn.Mode) {
	if f := b.forward; f != nil {
		b.forward = func(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
			y, err := f(g, x)
			if err != nil {
				return nil, err
			}
			return nn.Dropout(y, p, seed, mode)
		}
	}
	if f := b.sparse; f != nil {
		b.sparse = func(g nn.Graph, x *nn.Sparse) (*gorgonia.Node, error) {
			y, err := f(g, x)
			if err != nil {
				return nil, err
			}
			return nn.Dropout(y, p, seed, mode)
		}
	}
	if f := b.edges; f != nil {
		b.edges = func(g *graph.Graph, x, ef *gorgonia.Node) (*gorgonia.Node, error) {
			y, err := f(g, x, ef)
			if err != nil {
				return nil, err
			}
			return nn.Dropout(y, p, seed, mode)
		}
	}
}

// wrapDropout applies dropout to the input of b's forward functions.
func wrapDropout(b *built, p float64, seed uint64, mode *nn.Mode) {
	if f := b.forward; f != nil {
		b.forward = func(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
			h, err := nn.Dropout(x, p, seed, mode)
			if err != nil {
				return nil, err
			}
			return f(g, h)
		}
	}
	if f := b.sparse; f != nil {
		b.sparse = func(g nn.Graph, x *nn.Sparse) (*gorgonia.Node, error) {
			h, err := x.Dropout(p, seed, mode)
			if err != nil {
				return nil, err
			}
			return f(g, h)
		}
	}
}

func buildGraphConv(e env, ls *LayerSpec, act nn.Activation) (*built, error) {
	norms := map[string]gcn.Norm{"": gcn.Both, "both": gcn.Both, "right": gcn.Right, "left": gcn.Left, "none": gcn.None}
	norm, ok := norms[ls.Norm]
	if !ok {
		return nil, fmt.Errorf("unknown norm %q (want both, right, left or none)", ls.Norm)
	}
	l, err := gcn.New(e.eg, ls.In, ls.Out, gcn.WithName(ls.Name), gcn.WithSeed(*ls.Seed), gcn.WithDtype(e.dt),
		gcn.WithActivation(act), gcn.WithBias(!ls.NoBias), gcn.WithNorm(norm),
		gcn.WithAllowZeroInDegree(ls.AllowZeroInDegree), gcn.WithValues(e.values))
	if err != nil {
		return nil, err
	}
	return &built{layer: l, params: l.Learnables(), forward: l.Forward, sparse: l.ForwardSparse}, nil
}

func buildGATConv(e env, ls *LayerSpec, act nn.Activation) (*built, error) {
	opts := []gat.Option{gat.WithName(ls.Name), gat.WithSeed(*ls.Seed), gat.WithDtype(e.dt), gat.WithHeads(ls.Heads),
		gat.WithMeanHeads(ls.MeanHeads), gat.WithMode(e.mode), gat.WithFeatDropout(ls.Dropout), gat.WithAttnDropout(ls.AttnDropout),
		gat.WithActivation(act), gat.WithBias(!ls.NoBias), gat.WithResidual(ls.Residual),
		gat.WithAllowZeroInDegree(ls.AllowZeroInDegree), gat.WithEdgeFeatures(ls.EdgeFeatures), gat.WithValues(e.values)}
	if ls.DstIn > 0 {
		opts = append(opts, gat.WithDstIn(ls.DstIn))
	}
	if ls.NegativeSlope != nil {
		opts = append(opts, gat.WithNegativeSlope(*ls.NegativeSlope))
	}
	l, err := gat.New(e.eg, ls.In, ls.Out, opts...)
	if err != nil {
		return nil, err
	}
	b := &built{layer: l, params: l.Learnables(), forward: l.Forward, sparse: l.ForwardSparse}
	if ls.EdgeFeatures > 0 {
		b.edges = func(g *graph.Graph, x, ef *gorgonia.Node) (*gorgonia.Node, error) {
			out, _, err := l.ForwardEdges(g, x, ef)
			return out, err
		}
	}
	return b, nil
}

func buildGATv2Conv(e env, ls *LayerSpec, act nn.Activation) (*built, error) {
	opts := []gatv2.Option{gatv2.WithName(ls.Name), gatv2.WithSeed(*ls.Seed), gatv2.WithDtype(e.dt), gatv2.WithHeads(ls.Heads),
		gatv2.WithMeanHeads(ls.MeanHeads), gatv2.WithMode(e.mode), gatv2.WithFeatDropout(ls.Dropout), gatv2.WithAttnDropout(ls.AttnDropout),
		gatv2.WithActivation(act), gatv2.WithBias(!ls.NoBias), gatv2.WithResidual(ls.Residual), gatv2.WithShareWeights(ls.ShareWeights),
		gatv2.WithAllowZeroInDegree(ls.AllowZeroInDegree), gatv2.WithEdgeFeatures(ls.EdgeFeatures), gatv2.WithValues(e.values)}
	if ls.NegativeSlope != nil {
		opts = append(opts, gatv2.WithNegativeSlope(*ls.NegativeSlope))
	}
	l, err := gatv2.New(e.eg, ls.In, ls.Out, opts...)
	if err != nil {
		return nil, err
	}
	b := &built{layer: l, params: l.Learnables(), forward: l.Forward}
	if ls.EdgeFeatures > 0 {
		b.edges = func(g *graph.Graph, x, ef *gorgonia.Node) (*gorgonia.Node, error) {
			out, _, err := l.ForwardEdges(g, x, ef)
			return out, err
		}
	}
	return b, nil
}

func buildSAGEConv(e env, ls *LayerSpec, act nn.Activation) (*built, error) {
	aggs := map[string]sage.Aggregator{"": sage.Mean, "mean": sage.Mean, "gcn": sage.GCN, "pool": sage.Pool}
	agg, ok := aggs[ls.Aggregator]
	if !ok {
		return nil, fmt.Errorf("unknown SAGEConv aggregator %q (want mean, gcn or pool)", ls.Aggregator)
	}
	opts := []sage.Option{sage.WithName(ls.Name), sage.WithSeed(*ls.Seed), sage.WithDtype(e.dt), sage.WithAggregator(agg),
		sage.WithActivation(act), sage.WithBias(!ls.NoBias), sage.WithValues(e.values)}
	if ls.DstIn > 0 {
		opts = append(opts, sage.WithDstIn(ls.DstIn))
	}
	if ls.Dropout > 0 {
		opts = append(opts, sage.WithFeatDropout(ls.Dropout), sage.WithMode(e.mode))
	}
	l, err := sage.New(e.eg, ls.In, ls.Out, opts...)
	if err != nil {
		return nil, err
	}
	return &built{layer: l, params: l.Learnables(), forward: l.Forward}, nil
}

func buildGINConv(e env, ls *LayerSpec, act nn.Activation) (*built, error) {
	aggs := map[string]gin.Aggregator{"": gin.Sum, "sum": gin.Sum, "mean": gin.Mean, "max": gin.Max}
	agg, ok := aggs[ls.Aggregator]
	if !ok {
		return nil, fmt.Errorf("unknown GINConv aggregator %q (want sum, mean or max)", ls.Aggregator)
	}
	mlp, mlpParams, err := buildSeq(e, ls.MLP, "mlp ")
	if err != nil {
		return nil, err
	}
	l, err := gin.New(e.eg, ls.In, ls.Out, gin.WithName(ls.Name), gin.WithDtype(e.dt), gin.WithAggregator(agg),
		gin.WithEps(ls.Eps), gin.WithLearnEps(ls.LearnEps), gin.WithApply(mlp, mlpParams...),
		gin.WithActivation(act), gin.WithValues(e.values))
	if err != nil {
		return nil, err
	}
	return &built{layer: l, params: l.Learnables(), forward: l.Forward}, nil
}

func buildAPPNPConv(e env, ls *LayerSpec, _ nn.Activation) (*built, error) {
	opts := []appnp.Option{appnp.WithName(ls.Name), appnp.WithSeed(*ls.Seed)}
	if ls.EdgeDropout > 0 {
		opts = append(opts, appnp.WithEdgeDropout(ls.EdgeDropout), appnp.WithMode(e.mode))
	}
	l, err := appnp.New(ls.K, ls.Alpha, opts...)
	if err != nil {
		return nil, err
	}
	return &built{layer: l, forward: l.Forward}, nil
}

func buildSGConv(e env, ls *LayerSpec, _ nn.Activation) (*built, error) {
	opts := []sgc.Option{sgc.WithName(ls.Name), sgc.WithSeed(*ls.Seed), sgc.WithDtype(e.dt), sgc.WithBias(!ls.NoBias),
		sgc.WithAllowZeroInDegree(ls.AllowZeroInDegree), sgc.WithValues(e.values)}
	if ls.K > 0 {
		opts = append(opts, sgc.WithK(ls.K))
	}
	l, err := sgc.New(e.eg, ls.In, ls.Out, opts...)
	if err != nil {
		return nil, err
	}
	return &built{layer: l, params: l.Learnables(), forward: l.Forward}, nil
}

func buildTAGConv(e env, ls *LayerSpec, act nn.Activation) (*built, error) {
	opts := []tag.Option{tag.WithName(ls.Name), tag.WithSeed(*ls.Seed), tag.WithDtype(e.dt), tag.WithBias(!ls.NoBias),
		tag.WithActivation(act), tag.WithValues(e.values)}
	if ls.K > 0 {
		opts = append(opts, tag.WithK(ls.K))
	}
	l, err := tag.New(e.eg, ls.In, ls.Out, opts...)
	if err != nil {
		return nil, err
	}
	return &built{layer: l, params: l.Learnables(), forward: l.Forward}, nil
}

func buildChebConv(e env, ls *LayerSpec, act nn.Activation) (*built, error) {
	opts := []cheb.Option{cheb.WithName(ls.Name), cheb.WithSeed(*ls.Seed), cheb.WithDtype(e.dt), cheb.WithBias(!ls.NoBias),
		cheb.WithActivation(act), cheb.WithValues(e.values)}
	if ls.LambdaMax != 0 {
		opts = append(opts, cheb.WithLambdaMax(ls.LambdaMax))
	}
	l, err := cheb.New(e.eg, ls.In, ls.Out, ls.K, opts...)
	if err != nil {
		return nil, err
	}
	return &built{layer: l, params: l.Learnables(), forward: l.Forward}, nil
}

func buildRelGraphConv(e env, ls *LayerSpec, act nn.Activation) (*built, error) {
	opts := []rgcn.Option{rgcn.WithName(ls.Name), rgcn.WithSeed(*ls.Seed), rgcn.WithDtype(e.dt), rgcn.WithBias(!ls.NoBias),
		rgcn.WithSelfLoop(!ls.NoSelfLoop), rgcn.WithActivation(act), rgcn.WithValues(e.values)}
	switch ls.Regularizer {
	case "":
	case "basis":
		opts = append(opts, rgcn.WithBasis(ls.Bases))
	case "bdd":
		opts = append(opts, rgcn.WithBlockDiagonal(ls.Bases))
	default:
		return nil, fmt.Errorf("unknown RelGraphConv regularizer %q (want basis, bdd or none)", ls.Regularizer)
	}
	if ls.OutDropout > 0 {
		opts = append(opts, rgcn.WithDropout(ls.OutDropout, e.mode))
	}
	l, err := rgcn.New(e.eg, ls.In, ls.Out, ls.NumRelations, opts...)
	if err != nil {
		return nil, err
	}
	return &built{layer: l, params: l.Learnables(), forward: l.Forward, rows: l.ForwardRows}, nil
}

func buildHeteroGraphConv(e env, ls *LayerSpec, _ nn.Activation) (*built, error) {
	aggs := map[string]mp.CrossReducer{"": mp.CrossSum, "sum": mp.CrossSum, "mean": mp.CrossMean, "max": mp.CrossMax, "min": mp.CrossMin, "stack": mp.CrossStack}
	agg, ok := aggs[ls.Aggregator]
	if !ok {
		return nil, fmt.Errorf("unknown HeteroGraphConv aggregator %q (want sum, mean, max, min or stack)", ls.Aggregator)
	}
	mods := map[hetero.EdgeType]nn.Layer{}
	var params gorgonia.Nodes
	for i := range ls.Relations {
		r := &ls.Relations[i]
		b, err := buildLayer(e, &r.Layer)
		if err != nil {
			return nil, fmt.Errorf("relation %d (%s, %s, %s): %w", i, r.Src, r.Rel, r.Dst, err)
		}
		mods[hetero.EdgeType{Src: r.Src, Rel: r.Rel, Dst: r.Dst}] = b.layer
		params = append(params, b.params...)
	}
	c, err := heteroconv.New(mods, agg)
	if err != nil {
		return nil, err
	}
	return &built{params: params, hetero: c.Forward}, nil
}

func buildLinear(e env, ls *LayerSpec, _ nn.Activation) (*built, error) {
	w, err := nn.Initial(e.values, ls.Name+".weight", e.dt, []int{ls.In, ls.Out}, func() (*tensor.Dense, error) {
		return nn.Glorot(e.dt, *ls.Seed, 1, ls.In, ls.Out)
	})
	if err != nil {
		return nil, err
	}
	wn := nn.Param(e.eg, ls.Name+".weight", w)
	b := &built{params: gorgonia.Nodes{wn}}
	var bn *gorgonia.Node
	if !ls.NoBias {
		v, _ := nn.Initial(e.values, ls.Name+".bias", e.dt, []int{ls.Out}, func() (*tensor.Dense, error) { return nn.Zeros(e.dt, ls.Out), nil })
		bn = nn.Param(e.eg, ls.Name+".bias", v)
		b.params = append(b.params, bn)
	}
	b.forward = func(_ nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
		y, err := nn.MatMul(x, wn)
		if err != nil || bn == nil {
			return y, err
		}
		return nn.AddBias(y, bn)
	}
	return b, nil
}

func buildBatchNorm(e env, ls *LayerSpec, _ nn.Activation) (*built, error) {
	f := ls.In
	gamma, _ := nn.Initial(e.values, ls.Name+".gamma", e.dt, []int{f}, func() (*tensor.Dense, error) { return ones(e.dt, f), nil })
	g := nn.Param(e.eg, ls.Name+".gamma", gamma)
	b := &built{params: gorgonia.Nodes{g}}
	var beta *gorgonia.Node
	if !ls.NoBias {
		v, _ := nn.Initial(e.values, ls.Name+".beta", e.dt, []int{f}, func() (*tensor.Dense, error) { return nn.Zeros(e.dt, f), nil })
		beta = nn.Param(e.eg, ls.Name+".beta", v)
		b.params = append(b.params, beta)
	}
	eps := ls.Eps
	if eps == 0 {
		eps = 1e-5
	}
	b.forward = func(_ nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
		y, err := nn.BatchNorm(x, g, eps)
		if err != nil || beta == nil {
			return y, err
		}
		return nn.AddBias(y, beta)
	}
	return b, nil
}

// ones returns a tensor of n ones.
func ones(dt tensor.Dtype, n int) *tensor.Dense {
	t := nn.Zeros(dt, n)
	switch d := t.Data().(type) {
	case []float32:
		for i := range d {
			d[i] = 1
		}
	case []float64:
		for i := range d {
			d[i] = 1
		}
	}
	return t
}

// buildSeq builds a sequence of row-wise layers (a GIN MLP, a readout's
// gate or feature network, a head) and returns it as one function, nil for
// an empty sequence, with its parameters.
func buildSeq(e env, specs []LayerSpec, what string) (nn.Activation, gorgonia.Nodes, error) {
	if len(specs) == 0 {
		return nil, nil, nil
	}
	var fs []func(nn.Graph, *gorgonia.Node) (*gorgonia.Node, error)
	var params gorgonia.Nodes
	for i := range specs {
		b, err := buildLayer(e, &specs[i])
		if err != nil {
			return nil, nil, fmt.Errorf("%slayer %d (%s): %w", what, i, specs[i].Name, err)
		}
		fs = append(fs, b.forward)
		params = append(params, b.params...)
	}
	return func(x *gorgonia.Node) (*gorgonia.Node, error) {
		for _, f := range fs {
			var err error
			if x, err = f(nil, x); err != nil {
				return nil, err
			}
		}
		return x, nil
	}, params, nil
}

// input is one node type's input rows on an expression graph.
type input struct {
	param *gorgonia.Node // the embedding or projection, nil for features as they are
	rows  func(x *gorgonia.Node) (*gorgonia.Node, error)
}

// buildInputs adds the node-type inputs of the (normalised) spec s to e's
// graph.
func buildInputs(e env, s *Spec) ([]input, gorgonia.Nodes, error) {
	var ins []input
	var params gorgonia.Nodes
	for i := range s.Inputs {
		in := &s.Inputs[i]
		var name string
		var rows int
		switch {
		case in.Features == 0:
			name, rows = in.NodeType+".embed", in.Nodes
		case in.Features != s.InFeatures:
			name, rows = in.NodeType+".proj", in.Features
		default:
			ins = append(ins, input{rows: func(x *gorgonia.Node) (*gorgonia.Node, error) { return x, nil }})
			continue
		}
		v, err := nn.Initial(e.values, name, e.dt, []int{rows, s.InFeatures}, func() (*tensor.Dense, error) {
			return nn.Glorot(e.dt, *in.Seed, 1, rows, s.InFeatures)
		})
		if err != nil {
			return nil, nil, fmt.Errorf("input %d (%q): %w", i, in.NodeType, err)
		}
		p := nn.Param(e.eg, name, v)
		params = append(params, p)
		if in.Features == 0 {
			ins = append(ins, input{param: p, rows: func(*gorgonia.Node) (*gorgonia.Node, error) { return p, nil }})
		} else {
			ins = append(ins, input{param: p, rows: func(x *gorgonia.Node) (*gorgonia.Node, error) { return nn.MatMul(x, p) }})
		}
	}
	return ins, params, nil
}
