package interop

import (
	"fmt"
	"math"
	"strings"
)

// PyG converts the PyTorch Geometric module l.Kind found under l.Prefix in
// ts into the values of the gnn layer named l.Name, keyed by the names of
// that layer's Learnables. The package documentation's table says which
// gnn layer and options each kind maps to and what conventions differ.
// Missing tensors, tensors under the prefix that the module does not have
// (or that gnn has no counterpart for) and misshapen tensors are errors
// naming the tensor.
func PyG(ts *Tensors, l Layer) (Params, error) { return convert("PyG", pygKinds, ts, l) }

// pygKinds are the PyTorch Geometric modules PyG maps.
var pygKinds = []kind{
	{"GCNConv", pygGCN},
	{"GATConv", pygGAT},
	{"GATv2Conv", pygGATv2},
	{"SAGEConv", pygSAGE},
	{"GINConv", func(c *converter) error { return ginMLP(c, "nn") }},
	{"RGCNConv", pygRGCN},
}

// linear reads a PyTorch Linear's weight (out, in) under name and returns
// it transposed, (in, out), checking in and out where they are not 0.
func (c *converter) linear(name string, in, out int) (array, bool, error) {
	w, ok, err := c.opt(name+".weight", 2)
	if err != nil || !ok {
		return w, ok, err
	}
	if (in > 0 && w.shape[1] != in) || (out > 0 && w.shape[0] != out) {
		return w, false, c.errorf("tensor %q has shape %v, want (%s, %s) (PyTorch's Linear is (out, in))", c.full(name+".weight"), w.shape, dim(out), dim(in))
	}
	return w.transpose(), true, nil
}

func dim(n int) string {
	if n <= 0 {
		return "any"
	}
	return fmt.Sprint(n)
}

// vector reads an optional 1-D tensor of n elements.
func (c *converter) vector(name string, n int) (array, bool, error) {
	b, ok, err := c.opt(name, 1)
	if err != nil || !ok {
		return b, ok, err
	}
	if n > 0 && b.shape[0] != n {
		return b, false, c.errorf("tensor %q has shape %v, want (%d)", c.full(name), b.shape, n)
	}
	return b, true, nil
}

// pygGCN: lin.weight (out, in), or weight (in, out) before PyG 2.0; bias.
func pygGCN(c *converter) error {
	w, ok, err := c.linear("lin", 0, 0)
	if err != nil {
		return err
	}
	if !ok {
		if w, err = c.need("weight", 2); err != nil {
			return c.errorf("missing tensor %q (or %q, before PyG 2.0)", c.full("lin.weight"), c.full("weight"))
		}
	}
	c.set("weight", w)
	b, ok, err := c.vector("bias", w.shape[1])
	if err != nil {
		return err
	}
	if ok {
		c.set("bias", b)
	}
	return nil
}

// attention reads a (1, H, F) attention vector.
func (c *converter) attention(name string, h, f int) (array, bool, error) {
	a, ok, err := c.opt(name, 3)
	if err != nil || !ok {
		return a, ok, err
	}
	if a.shape[0] != 1 || (h > 0 && a.shape[1] != h) || (f > 0 && a.shape[2] != f) {
		return a, false, c.errorf("tensor %q has shape %v, want (1, %s, %s)", c.full(name), a.shape, dim(h), dim(f))
	}
	return a, true, nil
}

// headBias reads PyG's output bias of a GAT layer, (H*F) with concat or (F)
// with mean heads, and returns it as gnn's (H*F) bias, added before the
// mean of heads (the mean of x_k + b is the mean of x_k, plus b).
func (c *converter) headBias(h, f int) (array, bool, error) {
	b, ok, err := c.opt("bias", 1)
	if err != nil || !ok {
		return b, ok, err
	}
	switch b.shape[0] {
	case h * f:
		return b, true, nil
	case f:
		// concat=False: build gnn's layer WithMeanHeads(true).
		return b.tile(h), true, nil
	}
	return b, false, c.errorf("tensor %q has shape %v, want (%d) (concat) or (%d) (mean of heads)", c.full("bias"), b.shape, h*f, f)
}

// pygGAT: lin (or lin_src, and lin_dst when it differs), att_src, att_dst,
// lin_edge and att_edge, res, bias.
func pygGAT(c *converter) error {
	as, err := c.need("att_src", 3)
	if err != nil {
		return err
	}
	if as.shape[0] != 1 {
		return c.errorf("tensor %q has shape %v, want (1, H, F)", c.full("att_src"), as.shape)
	}
	h, f := as.shape[1], as.shape[2]
	ad, ok, err := c.attention("att_dst", h, f)
	if err != nil {
		return err
	}
	if !ok {
		return c.errorf("missing tensor %q", c.full("att_dst"))
	}
	c.set("attn_l", as)
	c.set("attn_r", ad)
	w, ok, err := c.linear("lin", 0, h*f)
	if err != nil {
		return err
	}
	if !ok {
		if w, ok, err = c.linear("lin_src", 0, h*f); err != nil {
			return err
		}
		if !ok {
			return c.errorf("missing tensor %q (or %q, before PyG 2.5)", c.full("lin.weight"), c.full("lin_src.weight"))
		}
		wd, ok, err := c.linear("lin_dst", 0, h*f)
		if err != nil {
			return err
		}
		if ok && !wd.equal(w) {
			// Separate source and destination projections: gnn's
			// WithDstIn layer, run with ForwardBipartite.
			c.set("dst_weight", wd)
		}
	}
	c.set("weight", w)
	in := w.shape[0]
	we, okE, err := c.linear("lin_edge", 0, h*f)
	if err != nil {
		return err
	}
	ae, okA, err := c.attention("att_edge", h, f)
	if err != nil {
		return err
	}
	switch {
	case okE && okA:
		c.set("edge_weight", we)
		c.set("attn_e", ae)
	case okE || okA:
		return c.errorf("has only one of %q and %q; edge features need both", c.full("lin_edge.weight"), c.full("att_edge"))
	}
	if rw, ok, err := c.linear("res", in, 0); err != nil {
		return err
	} else if ok {
		switch {
		case in == h*f:
			return c.errorf("has a residual projection %q of a %d-wide input onto %d features; gnn's GATConv adds such an input unprojected, so this residual cannot be mapped", c.full("res.weight"), in, h*f)
		case rw.shape[1] == h*f:
		case rw.shape[1] == f:
			rw = rw.tileCols(h) // concat=False: the residual is added after the mean of heads
		default:
			return c.errorf("tensor %q has shape %v, want (%d or %d, %d)", c.full("res.weight"), []int{rw.shape[1], rw.shape[0]}, h*f, f, in)
		}
		c.set("res_weight", rw)
	}
	b, ok, err := c.headBias(h, f)
	if err != nil {
		return err
	}
	if ok {
		c.set("bias", b)
	}
	return nil
}

// pygGATv2: lin_l (sources) and lin_r (destinations, absent or equal when
// shared), att, lin_edge, res, bias. PyG adds its output bias after the
// aggregation; gnn's GATv2Conv (DGL's) has biases on the projections
// instead. Since the attention weights of a node sum to 1, adding b to
// every source projection adds b to the output, and subtracting b from
// every destination projection keeps the scores LeakyReLU(z_u + z_v)
// unchanged: bias_src = lin_l.bias + b, bias_dst = lin_r.bias - b. The
// result never shares weights (build gnn's layer without
// WithShareWeights) and is exact for nodes with at least one in-edge.
func pygGATv2(c *converter) error {
	a, err := c.need("att", 3)
	if err != nil {
		return err
	}
	if a.shape[0] != 1 {
		return c.errorf("tensor %q has shape %v, want (1, H, F)", c.full("att"), a.shape)
	}
	h, f := a.shape[1], a.shape[2]
	c.set("attn", a)
	wl, ok, err := c.linear("lin_l", 0, h*f)
	if err != nil {
		return err
	}
	if !ok {
		return c.errorf("missing tensor %q", c.full("lin_l.weight"))
	}
	in := wl.shape[0]
	bl, hasBias, err := c.vector("lin_l.bias", h*f)
	if err != nil {
		return err
	}
	wr, ok, err := c.linear("lin_r", in, h*f)
	if err != nil {
		return err
	}
	br := bl
	if ok {
		var okB bool
		if br, okB, err = c.vector("lin_r.bias", h*f); err != nil {
			return err
		}
		if okB != hasBias {
			return c.errorf("has a bias on only one of lin_l and lin_r")
		}
	} else {
		wr = wl // share_weights=True, saved once
	}
	out, okOut, err := c.headBias(h, f)
	if err != nil {
		return err
	}
	if okOut && !hasBias {
		bl = array{[]int{h * f}, make([]float64, h*f)}
		br = array{[]int{h * f}, make([]float64, h*f)}
		hasBias = true
	}
	if okOut {
		src := array{[]int{h * f}, make([]float64, h*f)}
		dst := array{[]int{h * f}, make([]float64, h*f)}
		for i := range src.data {
			src.data[i] = bl.data[i] + out.data[i]
			dst.data[i] = br.data[i] - out.data[i]
		}
		bl, br = src, dst
	}
	c.set("weight_src", wl)
	c.set("weight_dst", wr)
	if hasBias {
		c.set("bias_src", bl)
		c.set("bias_dst", br)
	}
	if we, ok, err := c.linear("lin_edge", 0, h*f); err != nil {
		return err
	} else if ok {
		c.set("edge_weight", we)
	}
	if rw, ok, err := c.linear("res", in, 0); err != nil {
		return err
	} else if ok {
		switch {
		case in == h*f:
			return c.errorf("has a residual projection %q of a %d-wide input onto %d features; gnn's GATv2Conv adds such an input unprojected, so this residual cannot be mapped", c.full("res.weight"), in, h*f)
		case rw.shape[1] == f && h > 1:
			rw = rw.tileCols(h)
		case rw.shape[1] != h*f:
			return c.errorf("tensor %q has %d rows, want %d or %d", c.full("res.weight"), rw.shape[1], h*f, f)
		}
		c.set("res_weight", rw)
		if hasBias {
			c.set("res_bias", array{[]int{h * f}, make([]float64, h*f)})
		}
	}
	return nil
}

// pygSAGE: lin_l (neighbours, with the bias), lin_r (root), lin (project).
func pygSAGE(c *converter) error {
	wl, ok, err := c.linear("lin_l", 0, 0)
	if err != nil {
		return err
	}
	if !ok {
		return c.errorf("missing tensor %q", c.full("lin_l.weight"))
	}
	in, out := wl.shape[0], wl.shape[1]
	c.set("fc_neigh.weight", wl)
	if b, ok, err := c.vector("lin_l.bias", out); err != nil {
		return err
	} else if ok {
		c.set("bias", b)
	}
	wr, ok, err := c.linear("lin_r", 0, out)
	if err != nil {
		return err
	}
	if ok {
		c.set("fc_self.weight", wr)
	} else {
		// root_weight=False: gnn's Mean and Pool always have a self term;
		// a zero one adds nothing.
		c.set("fc_self.weight", array{[]int{in, out}, make([]float64, in*out)})
	}
	if _, ok, err := c.vector("lin_r.bias", 0); err != nil {
		return err
	} else if ok {
		return c.errorf("has a bias on lin_r; PyG's SAGEConv has none there")
	}
	wp, project, err := c.linear("lin", in, in)
	if err != nil {
		return err
	}
	switch agg := c.l.Aggregator; {
	case agg == "max" && project:
		c.set("fc_pool.weight", wp)
		bp, ok, err := c.vector("lin.bias", in)
		if err != nil {
			return err
		}
		if !ok {
			bp = array{[]int{in}, make([]float64, in)}
		}
		c.set("fc_pool.bias", bp)
	case agg == "max":
		return c.errorf("aggr \"max\" without project=True has no gnn counterpart (gnn's Pool aggregator is the max of ReLU(x W + b), PyG's project=True)")
	case agg != "" && agg != "mean":
		return c.errorf("aggregator %q is not mapped; PyG's \"mean\" maps to gnn's Mean, \"max\" with project=True to Pool", agg)
	case project:
		return c.errorf("has a projection %q (project=True) with the mean aggregator, which gnn's SAGEConv does not have", c.full("lin.weight"))
	}
	return nil
}

// pygRGCN: weight (R, in, out), or weight (B, in, out) with comp (R, B),
// or weight (R, B, in/B, out/B) for block-diagonal; root; bias.
func pygRGCN(c *converter) error {
	w, err := c.need("weight", -1)
	if err != nil {
		return err
	}
	comp, hasComp, err := c.opt("comp", 2)
	if err != nil {
		return err
	}
	var in, out int
	switch {
	case len(w.shape) == 3 && hasComp:
		if comp.shape[1] != w.shape[0] {
			return c.errorf("tensor %q has shape %v but %q has %d bases", c.full("comp"), comp.shape, c.full("weight"), w.shape[0])
		}
		c.set("bases", w)
		c.set("coeff", comp)
		in, out = w.shape[1], w.shape[2]
	case len(w.shape) == 3:
		c.set("weight", w)
		in, out = w.shape[1], w.shape[2]
	case len(w.shape) == 4 && !hasComp:
		c.set("blocks", w)
		in, out = w.shape[1]*w.shape[2], w.shape[1]*w.shape[3]
	default:
		return c.errorf("tensor %q has shape %v; want (R, in, out), (B, in, out) with comp, or (R, B, in/B, out/B)", c.full("weight"), w.shape)
	}
	if root, ok, err := c.opt("root", 2); err != nil {
		return err
	} else if ok {
		if err := c.shape("root", root, in, out); err != nil {
			return err
		}
		c.set("loop_weight", root)
	}
	if b, ok, err := c.vector("bias", out); err != nil {
		return err
	} else if ok {
		c.set("bias", b)
	}
	return nil
}

// ginMLP converts a GIN's eps and the tensors of its MLP under sub ("nn"
// for PyG, "apply_func" for DGL). Linear weights (2-D "weight") are
// transposed to (in, out); biases are copied; an eval-mode BatchNorm1d
// (a module with running_mean and running_var) becomes the affine map
// x*weight + bias with weight = gamma/sqrt(var+eps) and bias = beta -
// mean*weight, and its num_batches_tracked is dropped. Values are named
// "<Name>.<sub>.<path>" ("gin1.nn.0.weight").
func ginMLP(c *converter, sub string) error {
	eps, err := c.need("eps", -1)
	if err != nil {
		return err
	}
	if len(eps.data) != 1 {
		return c.errorf("tensor %q has shape %v, want one number", c.full("eps"), eps.shape)
	}
	c.set("eps", array{[]int{1, 1}, eps.data})
	bnEps := c.l.BatchNormEps
	if bnEps == 0 {
		bnEps = 1e-5
	}
	if !(bnEps > 0) {
		return c.errorf("BatchNormEps %v is not positive", bnEps)
	}
	base := c.full(sub) + "."
	norms := map[string]bool{} // module paths of BatchNorm layers
	var names []string
	for _, n := range c.ts.names {
		if strings.HasPrefix(n, base) {
			names = append(names, n)
			if m, ok := strings.CutSuffix(n, ".running_mean"); ok {
				norms[m] = true
			}
		}
	}
	for _, n := range names {
		rel := n
		if c.l.Prefix != "" {
			rel = strings.TrimPrefix(n, c.l.Prefix+".")
		}
		mod, param := rel, ""
		if i := strings.LastIndexByte(rel, '.'); i >= 0 {
			mod, param = rel[:i], rel[i+1:]
		}
		if norms[c.full(mod)] {
			if err := ginNorm(c, mod, bnEps); err != nil {
				return err
			}
			continue
		}
		t := c.ts.Get(n)
		switch {
		case param == "weight" && len(t.Shape) == 2:
			w, err := c.need(rel, 2)
			if err != nil {
				return err
			}
			c.set(rel, w.transpose())
		case param == "bias" && len(t.Shape) == 1:
			b, err := c.need(rel, 1)
			if err != nil {
				return err
			}
			c.set(rel, b)
		default:
			return c.errorf("tensor %q (shape %v) is not a Linear's weight or bias or a BatchNorm1d's state; its MLP cannot be mapped", n, t.Shape)
		}
	}
	return nil
}

// ginNorm folds the eval-mode BatchNorm1d under mod into a scale and
// shift, once per module.
func ginNorm(c *converter, mod string, eps float64) error {
	if _, done := c.out[c.l.Name+"."+mod+".weight"]; done {
		return nil
	}
	mean, err := c.need(mod+".running_mean", 1)
	if err != nil {
		return err
	}
	f := mean.shape[0]
	v, ok, err := c.vector(mod+".running_var", f)
	if err != nil {
		return err
	}
	if !ok {
		return c.errorf("missing tensor %q", c.full(mod+".running_var"))
	}
	gamma, okG, err := c.vector(mod+".weight", f)
	if err != nil {
		return err
	}
	beta, okB, err := c.vector(mod+".bias", f)
	if err != nil {
		return err
	}
	if t := c.ts.Get(c.full(mod + ".num_batches_tracked")); t != nil {
		c.read[t.Name] = true
	}
	scale := array{[]int{f}, make([]float64, f)}
	shift := array{[]int{f}, make([]float64, f)}
	for i := range f {
		if v.data[i] < 0 {
			return c.errorf("tensor %q has a negative variance %v at %d", c.full(mod+".running_var"), v.data[i], i)
		}
		s := 1 / math.Sqrt(v.data[i]+eps)
		if okG {
			s *= gamma.data[i]
		}
		scale.data[i] = s
		shift.data[i] = -mean.data[i] * s
		if okB {
			shift.data[i] += beta.data[i]
		}
	}
	c.set(mod+".weight", scale)
	c.set(mod+".bias", shift)
	return nil
}
