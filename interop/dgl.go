package interop

// DGL converts the DGL (PyTorch backend) module l.Kind found under
// l.Prefix in ts into the values of the gnn layer named l.Name, keyed by
// the names of that layer's Learnables, as PyG does for PyTorch
// Geometric. gnn's layers follow DGL's semantics, so these conversions
// change layouts only (PyTorch's Linear (out, in) to gnn's (in, out)) and
// merge biases DGL keeps in two places.
func DGL(ts *Tensors, l Layer) (Params, error) { return convert("DGL", dglKinds, ts, l) }

// dglKinds are the DGL modules DGL maps.
var dglKinds = []kind{
	{"GraphConv", dglGraphConv},
	{"GATConv", dglGAT},
	{"GATv2Conv", dglGATv2},
	{"SAGEConv", dglSAGE},
	{"GINConv", func(c *converter) error { return ginMLP(c, "apply_func") }},
	{"RelGraphConv", dglRGCN},
}

// dglGraphConv: weight (in, out), already gnn's layout; bias.
func dglGraphConv(c *converter) error {
	w, ok, err := c.opt("weight", 2)
	if err != nil {
		return err
	}
	out := 0
	if ok {
		c.set("weight", w)
		out = w.shape[1]
	}
	if b, ok, err := c.vector("bias", out); err != nil {
		return err
	} else if ok {
		c.set("bias", b)
	}
	return nil
}

// sum adds the optional vectors present; ok is false when none is.
func sum(vs ...array) (array, bool) {
	var s array
	for _, v := range vs {
		if v.shape == nil {
			continue
		}
		if s.shape == nil {
			s = array{v.shape, append([]float64{}, v.data...)}
			continue
		}
		for i := range s.data {
			s.data[i] += v.data[i]
		}
	}
	return s, s.shape != nil
}

// dglGAT: fc (or fc_src and fc_dst), attn_l, attn_r, res_fc, bias (DGL
// before 1.0 keeps an explicit bias beside a linear residual's; from 1.0
// the linear residual carries it: both map to gnn's one bias).
func dglGAT(c *converter) error {
	al, err := c.need("attn_l", 3)
	if err != nil {
		return err
	}
	if al.shape[0] != 1 {
		return c.errorf("tensor %q has shape %v, want (1, H, F)", c.full("attn_l"), al.shape)
	}
	h, f := al.shape[1], al.shape[2]
	ar, ok, err := c.attention("attn_r", h, f)
	if err != nil {
		return err
	}
	if !ok {
		return c.errorf("missing tensor %q", c.full("attn_r"))
	}
	c.set("attn_l", al)
	c.set("attn_r", ar)
	w, ok, err := c.linear("fc", 0, h*f)
	if err != nil {
		return err
	}
	in := 0
	if ok {
		c.set("weight", w)
		in = w.shape[0]
	} else {
		ws, ok, err := c.linear("fc_src", 0, h*f)
		if err != nil {
			return err
		}
		wd, okD, err := c.linear("fc_dst", 0, h*f)
		if err != nil {
			return err
		}
		if !ok || !okD {
			return c.errorf("missing tensor %q (or %q and %q)", c.full("fc.weight"), c.full("fc_src.weight"), c.full("fc_dst.weight"))
		}
		c.set("weight", ws)
		c.set("dst_weight", wd) // gnn's WithDstIn
		in = wd.shape[0]
	}
	var resBias array
	if rw, ok, err := c.linear("res_fc", in, h*f); err != nil {
		return err
	} else if ok {
		c.set("res_weight", rw)
		if resBias, _, err = c.vector("res_fc.bias", h*f); err != nil {
			return err
		}
	}
	b, _, err := c.vector("bias", h*f)
	if err != nil {
		return err
	}
	if s, ok := sum(b, resBias); ok {
		c.set("bias", s)
	}
	return nil
}

// dglGATv2: fc_src, fc_dst (absent with share_weights), attn, res_fc.
func dglGATv2(c *converter) error {
	a, err := c.need("attn", 3)
	if err != nil {
		return err
	}
	if a.shape[0] != 1 {
		return c.errorf("tensor %q has shape %v, want (1, H, F)", c.full("attn"), a.shape)
	}
	h, f := a.shape[1], a.shape[2]
	c.set("attn", a)
	ws, ok, err := c.linear("fc_src", 0, h*f)
	if err != nil {
		return err
	}
	if !ok {
		return c.errorf("missing tensor %q", c.full("fc_src.weight"))
	}
	in := ws.shape[0]
	c.set("weight_src", ws)
	bs, hasBias, err := c.vector("fc_src.bias", h*f)
	if err != nil {
		return err
	}
	if hasBias {
		c.set("bias_src", bs)
	}
	if wd, ok, err := c.linear("fc_dst", in, h*f); err != nil {
		return err
	} else if ok {
		// Two projections; without fc_dst the layer shares weights (gnn's
		// WithShareWeights(true)).
		c.set("weight_dst", wd)
		bd, okB, err := c.vector("fc_dst.bias", h*f)
		if err != nil {
			return err
		}
		if okB != hasBias {
			return c.errorf("has a bias on only one of fc_src and fc_dst")
		}
		if okB {
			c.set("bias_dst", bd)
		}
	}
	if rw, ok, err := c.linear("res_fc", in, h*f); err != nil {
		return err
	} else if ok {
		if in == h*f {
			return c.errorf("has a residual projection %q of a %d-wide input onto %d features (DGL projects unless the input is %d wide, the per-head width); gnn's GATv2Conv adds such an input unprojected, so this residual cannot be mapped", c.full("res_fc.weight"), in, h*f, f)
		}
		c.set("res_weight", rw)
		if rb, ok, err := c.vector("res_fc.bias", h*f); err != nil {
			return err
		} else if ok {
			c.set("res_bias", rb)
		}
	}
	return nil
}

// dglSAGE: fc_neigh, fc_self (absent for "gcn"), fc_pool ("pool"), bias;
// before DGL 0.7 fc_self and fc_neigh had biases of their own, which add
// up to gnn's one bias. The aggregator follows from the tensors present;
// "lstm" is not mapped.
func dglSAGE(c *converter) error {
	if t := c.ts.Get(c.full("lstm.weight_ih_l0")); t != nil {
		return c.errorf("the lstm aggregator is not mapped: gnn's SAGEConv has mean, gcn and pool")
	}
	wn, ok, err := c.linear("fc_neigh", 0, 0)
	if err != nil {
		return err
	}
	if !ok {
		return c.errorf("missing tensor %q", c.full("fc_neigh.weight"))
	}
	in, out := wn.shape[0], wn.shape[1]
	c.set("fc_neigh.weight", wn)
	bn, _, err := c.vector("fc_neigh.bias", out)
	if err != nil {
		return err
	}
	var bs array
	if ws, ok, err := c.linear("fc_self", 0, out); err != nil {
		return err
	} else if ok {
		c.set("fc_self.weight", ws)
		if bs, _, err = c.vector("fc_self.bias", out); err != nil {
			return err
		}
	}
	if wp, ok, err := c.linear("fc_pool", in, in); err != nil {
		return err
	} else if ok {
		c.set("fc_pool.weight", wp)
		bp, ok, err := c.vector("fc_pool.bias", in)
		if err != nil {
			return err
		}
		if !ok {
			bp = array{[]int{in}, make([]float64, in)}
		}
		c.set("fc_pool.bias", bp)
	}
	b, _, err := c.vector("bias", out)
	if err != nil {
		return err
	}
	if s, ok := sum(b, bn, bs); ok {
		c.set("bias", s)
	}
	return nil
}

// dglRGCN: linear_r.W and linear_r.coeff (DGL 0.8 and later), or weight
// and w_comp (before); loop_weight; h_bias.
func dglRGCN(c *converter) error {
	if t := c.ts.Get(c.full("layer_norm_weight.weight")); t != nil {
		return c.errorf("layer_norm=True is not mapped: gnn's RelGraphConv has no layer norm")
	}
	w, ok, err := c.opt("linear_r.W", -1)
	if err != nil {
		return err
	}
	coeffName := "linear_r.coeff"
	wName := "linear_r.W"
	if !ok {
		if w, ok, err = c.opt("weight", -1); err != nil {
			return err
		}
		coeffName, wName = "w_comp", "weight"
	}
	if !ok {
		return c.errorf("missing tensor %q (or %q, before DGL 0.8)", c.full("linear_r.W"), c.full("weight"))
	}
	coeff, hasCoeff, err := c.opt(coeffName, 2)
	if err != nil {
		return err
	}
	var in, out int
	switch {
	case len(w.shape) == 3 && hasCoeff:
		if coeff.shape[1] != w.shape[0] {
			return c.errorf("tensor %q has shape %v but %q has %d bases", c.full(coeffName), coeff.shape, c.full(wName), w.shape[0])
		}
		c.set("bases", w)
		c.set("coeff", coeff)
		in, out = w.shape[1], w.shape[2]
	case len(w.shape) == 3:
		c.set("weight", w)
		in, out = w.shape[1], w.shape[2]
	case len(w.shape) == 2 && !hasCoeff:
		// Block-diagonal: (R, B*si*so), blocks of si x so.
		b := c.l.Bases
		if b <= 0 {
			return c.errorf("tensor %q (%v) is block-diagonal; set Layer.Bases to its number of blocks", c.full(wName), w.shape)
		}
		loop, ok, err := c.opt("loop_weight", 2)
		if err != nil {
			return err
		}
		if !ok {
			return c.errorf("block-diagonal weights without loop_weight: gnn cannot tell their block sizes; convert a layer with its self-loop")
		}
		in, out = loop.shape[0], loop.shape[1]
		if in%b != 0 || out%b != 0 || w.shape[1] != b*(in/b)*(out/b) {
			return c.errorf("tensor %q has shape %v, not %d blocks of (%d/%d, %d/%d)", c.full(wName), w.shape, b, in, b, out, b)
		}
		w.shape = []int{w.shape[0], b, in / b, out / b}
		c.set("blocks", w)
	default:
		return c.errorf("tensor %q has shape %v; want (R, in, out), (B, in, out) with %s, or (R, B*in/B*out/B)", c.full(wName), w.shape, coeffName)
	}
	if loop, ok, err := c.opt("loop_weight", 2); err != nil {
		return err
	} else if ok {
		if err := c.shape("loop_weight", loop, in, out); err != nil {
			return err
		}
		c.set("loop_weight", loop)
	}
	if b, ok, err := c.vector("h_bias", out); err != nil {
		return err
	} else if ok {
		c.set("bias", b)
	}
	return nil
}
