package model

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/gnngo/gnn/nn"
)

// applies lists, for each LayerSpec field (by its JSON name) that only some
// types use, those types. The fields not listed apply to every type.
var applies = map[string][]string{
	"heads":                {GATConv, GATv2Conv},
	"mean_heads":           {GATConv, GATv2Conv},
	"attn_dropout":         {GATConv, GATv2Conv},
	"negative_slope":       {GATConv, GATv2Conv},
	"residual":             {GATConv, GATv2Conv},
	"edge_features":        {GATConv, GATv2Conv},
	"share_weights":        {GATv2Conv},
	"allow_zero_in_degree": {GraphConv, GATConv, GATv2Conv, SGConv},
	"norm":                 {GraphConv},
	"aggregator":           {SAGEConv, GINConv, HeteroGraphConv},
	"k":                    {APPNPConv, SGConv, TAGConv, ChebConv},
	"alpha":                {APPNPConv},
	"edge_dropout":         {APPNPConv},
	"eps":                  {GINConv, BatchNorm},
	"learn_eps":            {GINConv},
	"mlp":                  {GINConv},
	"lambda_max":           {ChebConv},
	"num_relations":        {RelGraphConv},
	"regularizer":          {RelGraphConv},
	"bases":                {RelGraphConv},
	"no_self_loop":         {RelGraphConv},
	"out_dropout":          {RelGraphConv},
	"relations":            {HeteroGraphConv},
	"dst_in":               {GATConv, SAGEConv},
	"no_bias":              {GraphConv, GATConv, GATv2Conv, SAGEConv, SGConv, TAGConv, ChebConv, RelGraphConv, Linear, BatchNorm},
	"dropout_seed":         {GraphConv, GINConv, APPNPConv, SGConv, TAGConv, ChebConv, RelGraphConv, Linear, BatchNorm},
}

// normalize checks s and fills in what New defaults: layer names, seeds
// (derived from seed), one head, the width of the width-keeping types. It
// returns the first problem, naming the layer.
func normalize(s *Spec, seed uint64) error {
	if len(s.Layers) == 0 {
		return fmt.Errorf("the spec has no layers")
	}
	s.Layers = slices.Clone(s.Layers)
	s.Head = slices.Clone(s.Head)
	s.Fanouts = slices.Clone(s.Fanouts)
	heteroModel := false
	for l := range s.Layers {
		ls := &s.Layers[l]
		if err := normalizeLayer(ls, fmt.Sprintf("%s%d", shortName(ls.Type), l+1), nn.ParamSeed(seed, uint64(l)), false); err != nil {
			return fmt.Errorf("layer %d (%s): %w", l, describe(ls), err)
		}
		heteroModel = heteroModel || ls.Type == HeteroGraphConv
	}
	if heteroModel {
		if s.InFeatures != 0 || len(s.NodeFeatures) == 0 {
			return fmt.Errorf("a HeteroGraphConv model gives its input widths per node type in node_features, not in_features")
		}
		for l := range s.Layers {
			if t := s.Layers[l].Type; t != HeteroGraphConv {
				return fmt.Errorf("layer %d (%s): a HeteroGraphConv model's layers must all be HeteroGraphConv", l, describe(&s.Layers[l]))
			}
		}
		if s.Readout != nil || len(s.Head) > 0 || s.SelfLoops || s.Classes != 0 {
			return fmt.Errorf("a HeteroGraphConv model has no readout, head, classes or self-loops")
		}
		if err := heteroWidths(s); err != nil {
			return err
		}
	} else {
		if len(s.NodeFeatures) > 0 {
			return fmt.Errorf("node_features is for HeteroGraphConv models; give in_features")
		}
		width := s.InFeatures
		if width <= 0 {
			return fmt.Errorf("in_features %d: want a positive input width", width)
		}
		for l := range s.Layers {
			ls := &s.Layers[l]
			if ls.In != width {
				return fmt.Errorf("layer %d (%s): in %d, but its input is %d wide", l, describe(ls), ls.In, width)
			}
			width = ls.OutWidth()
		}
		if s.Readout != nil {
			r := s.Readout
			if s.Task == "" {
				s.Task = "graph"
			}
			r.Gate, r.Feat = slices.Clone(r.Gate), slices.Clone(r.Feat)
			switch r.Type {
			case "sum", "mean", "max":
				if len(r.Gate)+len(r.Feat) > 0 {
					return fmt.Errorf("readout %s takes no gate or feat layers", r.Type)
				}
			case "attention":
				if len(r.Gate) == 0 {
					return fmt.Errorf("readout attention needs gate layers (node features to one score)")
				}
				if w, err := normalizeSeq(r.Gate, "readout.gate", width, nn.ParamSeed(seed, 1<<20)); err != nil {
					return fmt.Errorf("readout gate %w", err)
				} else if w != 1 {
					return fmt.Errorf("readout gate: its output is %d wide, want 1 score per node", w)
				}
				w, err := normalizeSeq(r.Feat, "readout.feat", width, nn.ParamSeed(seed, 1<<20+1))
				if err != nil {
					return fmt.Errorf("readout feat %w", err)
				}
				width = w
			default:
				return fmt.Errorf("unknown readout %q (want sum, mean, max or attention)", r.Type)
			}
			w, err := normalizeSeq(s.Head, "head", width, nn.ParamSeed(seed, 1<<20+2))
			if err != nil {
				return fmt.Errorf("head %w", err)
			}
			width = w
		} else if len(s.Head) > 0 {
			return fmt.Errorf("head layers need a readout (put node-level Linear layers in layers)")
		}
		if s.Classes < 0 || (s.Classes > 0 && s.Classes != width) {
			return fmt.Errorf("classes %d, but the output is %d wide", s.Classes, width)
		}
	}
	for i, k := range s.Fanouts {
		if k < -1 {
			return fmt.Errorf("fanout %d is %d: want -1 (all) or at least 0", i, k)
		}
	}
	if s.Fanouts != nil && len(s.Fanouts) != len(s.Layers) {
		return fmt.Errorf("%d fanouts for %d layers", len(s.Fanouts), len(s.Layers))
	}
	return nil
}

// heteroWidths checks that the relation layers of a HeteroGraphConv model
// take the widths of their node types, and fills in the destination widths
// of GATConv and SAGEConv relations between two types.
func heteroWidths(s *Spec) error {
	widths := map[string]int{}
	for t, w := range s.NodeFeatures {
		if w <= 0 {
			return fmt.Errorf("node type %q: width %d, want a positive one", t, w)
		}
		widths[t] = w
	}
	for l := range s.Layers {
		ls := &s.Layers[l]
		next := map[string]int{}
		for i := range ls.Relations {
			r := &ls.Relations[i]
			rl := &r.Layer
			where := fmt.Sprintf("layer %d (%s): relation %d (%s, %s, %s)", l, describe(ls), i, r.Src, r.Rel, r.Dst)
			in, ok := widths[r.Src]
			if !ok {
				return fmt.Errorf("%s: node type %q has no features at this layer", where, r.Src)
			}
			if rl.In != in {
				return fmt.Errorf("%s: in %d, but node type %q is %d wide here", where, rl.In, r.Src, in)
			}
			if dst, ok := widths[r.Dst]; ok && r.Src != r.Dst && (rl.Type == GATConv || rl.Type == SAGEConv) {
				if rl.DstIn == 0 && dst != in {
					rl.DstIn = dst
				}
			}
			out := rl.OutWidth()
			if ls.Aggregator == "stack" {
				out = -1 // (count, R, out): no later layer takes it
			}
			if w, ok := next[r.Dst]; ok && w != out {
				return fmt.Errorf("%s: its output is %d wide, another relation into %q gives %d", where, out, r.Dst, w)
			}
			next[r.Dst] = out
		}
		widths = next
	}
	return nil
}

// normalizeSeq normalises a sequence of row-wise layers taking width
// columns, named prefix1, prefix2, ..., and returns its output width.
func normalizeSeq(specs []LayerSpec, prefix string, width int, seed uint64) (int, error) {
	for i := range specs {
		ls := &specs[i]
		if err := normalizeLayer(ls, fmt.Sprintf("%s%d", prefix, i+1), nn.ParamSeed(seed, uint64(i)), true); err != nil {
			return 0, fmt.Errorf("layer %d (%s): %w", i, describe(ls), err)
		}
		if ls.In != width {
			return 0, fmt.Errorf("layer %d (%s): in %d, but its input is %d wide", i, describe(ls), ls.In, width)
		}
		width = ls.OutWidth()
	}
	return width, nil
}

// normalizeLayer checks one layer's fields and fills in its defaults.
func normalizeLayer(ls *LayerSpec, name string, seed uint64, rowwise bool) error {
	k, ok := kinds[ls.Type]
	if !ok {
		return fmt.Errorf("unknown layer type %q", ls.Type)
	}
	if rowwise && !k.rowwise {
		return fmt.Errorf("only Linear and BatchNorm layers can go here, not %s", ls.Type)
	}
	if err := checkApplies(ls); err != nil {
		return err
	}
	if ls.Name == "" {
		ls.Name = name
	}
	if strings.ContainsAny(ls.Name, "\x00") || len(ls.Name) > 1024 {
		return fmt.Errorf("bad name %q", ls.Name)
	}
	if ls.Seed == nil {
		ls.Seed = &seed
	}
	if _, err := activation(ls.Activation); err != nil {
		return err
	}
	for _, p := range []struct {
		what string
		p    float64
	}{{"dropout", ls.Dropout}, {"attn_dropout", ls.AttnDropout}, {"edge_dropout", ls.EdgeDropout}, {"out_dropout", ls.OutDropout}} {
		if !(p.p >= 0 && p.p < 1) {
			return fmt.Errorf("%s %v: want a probability in [0, 1)", p.what, p.p)
		}
	}
	for _, v := range []float64{ls.Alpha, ls.Eps, ls.LambdaMax} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("alpha, eps and lambda_max must be finite")
		}
	}
	if ls.NegativeSlope != nil && (math.IsNaN(*ls.NegativeSlope) || math.IsInf(*ls.NegativeSlope, 0)) {
		return fmt.Errorf("negative_slope must be finite")
	}
	if ls.Dropout > 0 && !k.ownDrop && ls.DropoutSeed == nil {
		ds := nn.ParamSeed(*ls.Seed, 1<<32)
		ls.DropoutSeed = &ds
	}
	if ls.DropoutSeed != nil && ls.Dropout == 0 {
		return fmt.Errorf("dropout_seed without dropout")
	}
	switch ls.Type {
	case GATConv, GATv2Conv:
		if ls.Heads == 0 {
			ls.Heads = 1
		}
		if ls.Heads < 0 {
			return fmt.Errorf("heads %d: want at least 1", ls.Heads)
		}
	case APPNPConv, BatchNorm:
		if ls.Out == 0 {
			ls.Out = ls.In
		}
		if ls.Out != ls.In {
			return fmt.Errorf("%s keeps its width: out %d must equal in %d", ls.Type, ls.Out, ls.In)
		}
	case GINConv:
		ls.MLP = slices.Clone(ls.MLP)
		w, err := normalizeSeq(ls.MLP, ls.Name+".mlp", ls.In, nn.ParamSeed(*ls.Seed, 1<<33))
		if err != nil {
			return fmt.Errorf("mlp %w", err)
		}
		if w != ls.Out {
			return fmt.Errorf("out %d, but its MLP gives %d", ls.Out, w)
		}
	case HeteroGraphConv:
		if len(ls.Relations) == 0 {
			return fmt.Errorf("no relations")
		}
		if ls.Dropout > 0 {
			return fmt.Errorf("dropout does not apply to HeteroGraphConv (give it to the relations' layers)")
		}
		ls.Relations = slices.Clone(ls.Relations)
		seen := map[[3]string]bool{}
		for i := range ls.Relations {
			r := &ls.Relations[i]
			key := [3]string{r.Src, r.Rel, r.Dst}
			if seen[key] {
				return fmt.Errorf("relation (%s, %s, %s) given twice", r.Src, r.Rel, r.Dst)
			}
			seen[key] = true
			rl := &r.Layer
			rk, ok := kinds[rl.Type]
			switch {
			case !ok:
				return fmt.Errorf("relation %d: unknown layer type %q", i, rl.Type)
			case rl.Type == HeteroGraphConv || rk.rowwise:
				return fmt.Errorf("relation %d: a %s cannot be a relation's layer", i, rl.Type)
			case rl.Activation != "" && rl.Activation != "none" && !rk.ownAct:
				return fmt.Errorf("relation %d: a %s relation layer cannot take an activation (give it to the HeteroGraphConv)", i, rl.Type)
			case rl.Dropout > 0 && !rk.ownDrop:
				return fmt.Errorf("relation %d: a %s relation layer cannot take input dropout", i, rl.Type)
			}
			if err := normalizeLayer(rl, fmt.Sprintf("%s.%s.%s.%s", ls.Name, r.Src, r.Rel, r.Dst), nn.ParamSeed(*ls.Seed, uint64(i)), false); err != nil {
				return fmt.Errorf("relation %d (%s, %s, %s): %w", i, r.Src, r.Rel, r.Dst, err)
			}
		}
	}
	if ls.Type != HeteroGraphConv && (ls.In <= 0 || ls.Out <= 0) {
		return fmt.Errorf("in %d, out %d: want positive widths", ls.In, ls.Out)
	}
	return nil
}

// checkApplies returns an error for the first field of ls that is set but
// does not apply to its type.
func checkApplies(ls *LayerSpec) error {
	v := reflect.ValueOf(*ls)
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		types, only := applies[name]
		if !only || v.Field(i).IsZero() || slices.Contains(types, ls.Type) {
			continue
		}
		return fmt.Errorf("%s does not apply to %s", name, ls.Type)
	}
	return nil
}

// shortName returns the default name prefix of a layer type.
func shortName(typ string) string {
	if k, ok := kinds[typ]; ok {
		return k.short
	}
	return "layer"
}

// describe names a layer for messages: "gcn1, GraphConv".
func describe(ls *LayerSpec) string {
	if ls.Name == "" {
		return ls.Type
	}
	return ls.Name + ", " + ls.Type
}
