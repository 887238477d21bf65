package interop

import (
	"fmt"
	"strings"

	"gorgonia.org/tensor"
)

// Layer says which PyTorch module to convert and what gnn calls the
// result: "PyG's GCNConv under conv1 becomes gnn's GraphConv named gcn1"
// is Layer{Kind: "GCNConv", Prefix: "conv1", Name: "gcn1"}.
type Layer struct {
	// Kind is the PyG or DGL class name: for PyG GCNConv, GATConv,
	// GATv2Conv, SAGEConv, GINConv, RGCNConv; for DGL GraphConv, GATConv,
	// GATv2Conv, SAGEConv, GINConv, RelGraphConv.
	Kind string
	// Prefix is the module's path in the state dict ("conv1",
	// "layers.0"); its tensors are "<Prefix>.<param>". Empty when the
	// module's tensors are at the top level (a state dict of the layer
	// alone).
	Prefix string
	// Name is the gnn layer's name (its WithName option); the values are
	// named "<Name>.<param>" as the gnn layer names its Learnables.
	Name string
	// Dtype is the dtype of the values, the gnn model's: tensor.Float32
	// (the default when nil) or tensor.Float64.
	Dtype tensor.Dtype
	// Aggregator is PyG SAGEConv's aggr: "mean" (the default when empty)
	// or "max" (with project=True, which is gnn's Pool aggregator). The
	// state dict does not record it. DGL's SAGEConv aggregator is read
	// from the tensors present.
	Aggregator string
	// Bases is the number of blocks of a DGL RelGraphConv with the "bdd"
	// regulariser, whose weight (R, B*in/B*out/B) does not record it.
	Bases int
	// BatchNormEps is the eps of the eval-mode BatchNorm1d layers inside
	// a GIN's MLP (default 1e-5, PyTorch's), which the state dict does
	// not record.
	BatchNormEps float64
}

// describe names the layer in errors: "PyG GCNConv conv1".
func (l Layer) describe(fw string) string {
	p := l.Prefix
	if p == "" {
		p = "(top level)"
	}
	return fmt.Sprintf("%s %s %s", fw, l.Kind, p)
}

// array is a float64 tensor under conversion.
type array struct {
	shape []int
	data  []float64
}

func (a array) dense(dt tensor.Dtype) *tensor.Dense {
	shape := append([]int{}, a.shape...)
	if dt == tensor.Float64 {
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float64{}, a.data...)))
	}
	f := make([]float32, len(a.data))
	for i, v := range a.data {
		f[i] = float32(v)
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(f))
}

// transpose returns the transpose of a 2-D array: PyTorch's Linear weight
// (out, in) becomes gnn's (in, out).
func (a array) transpose() array {
	r, c := a.shape[0], a.shape[1]
	out := make([]float64, len(a.data))
	for i := range r {
		for j := range c {
			out[j*r+i] = a.data[i*c+j]
		}
	}
	return array{[]int{c, r}, out}
}

// tile repeats a 1-D array k times (a per-feature bias over k heads).
func (a array) tile(k int) array {
	out := make([]float64, 0, k*len(a.data))
	for range k {
		out = append(out, a.data...)
	}
	return array{[]int{k * len(a.data)}, out}
}

// tileCols repeats a 2-D array's columns k times: (r, c) -> (r, k*c).
func (a array) tileCols(k int) array {
	r, c := a.shape[0], a.shape[1]
	out := make([]float64, 0, r*c*k)
	for i := range r {
		for range k {
			out = append(out, a.data[i*c:(i+1)*c]...)
		}
	}
	return array{[]int{r, k * c}, out}
}

func (a array) equal(b array) bool {
	if len(a.shape) != len(b.shape) || len(a.data) != len(b.data) {
		return false
	}
	for i := range a.shape {
		if a.shape[i] != b.shape[i] {
			return false
		}
	}
	for i := range a.data {
		if a.data[i] != b.data[i] {
			return false
		}
	}
	return true
}

// converter reads one module's tensors and builds its gnn values.
type converter struct {
	fw    string // "PyG" or "DGL"
	l     Layer
	ts    *Tensors
	read  map[string]bool // full tensor names read
	out   Params
	dtype tensor.Dtype
}

func newConverter(fw string, ts *Tensors, l Layer) (*converter, error) {
	if ts == nil {
		return nil, fmt.Errorf("interop: %s %s: nil tensors", fw, l.Kind)
	}
	if l.Name == "" {
		return nil, fmt.Errorf("interop: %s: empty gnn layer name", l.describe(fw))
	}
	l.Prefix = strings.TrimSuffix(l.Prefix, ".")
	dt := l.Dtype
	if dt.Type == nil {
		dt = tensor.Float32
	}
	if dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("interop: %s: dtype %v, want float32 or float64", l.describe(fw), dt)
	}
	if l.Prefix != "" && ts.Len() > 0 {
		found := false
		for _, n := range ts.names {
			if strings.HasPrefix(n, l.Prefix+".") {
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("interop: %s: no tensor starts with %q (the file has %s)", l.describe(fw), l.Prefix+".", sample(ts.names))
		}
	}
	return &converter{fw: fw, l: l, ts: ts, read: map[string]bool{}, out: Params{}, dtype: dt}, nil
}

// sample lists up to 8 names for an error message.
func sample(names []string) string {
	if len(names) > 8 {
		return fmt.Sprintf("%q and %d more", names[:8], len(names)-8)
	}
	return fmt.Sprintf("%q", names)
}

func (c *converter) full(suffix string) string {
	if c.l.Prefix == "" {
		return suffix
	}
	return c.l.Prefix + "." + suffix
}

func (c *converter) errorf(format string, args ...any) error {
	return fmt.Errorf("interop: %s: %s", c.l.describe(c.fw), fmt.Sprintf(format, args...))
}

// opt returns the tensor named suffix under the prefix as an array, if it
// exists; it must be a float tensor of the given rank (any rank when rank
// is negative).
func (c *converter) opt(suffix string, rank int) (array, bool, error) {
	name := c.full(suffix)
	t := c.ts.Get(name)
	if t == nil {
		return array{}, false, nil
	}
	c.read[name] = true
	if !t.Dtype.IsFloat() {
		return array{}, false, c.errorf("tensor %q has dtype %s, want a floating-point type", name, t.Dtype)
	}
	if rank >= 0 && len(t.Shape) != rank {
		return array{}, false, c.errorf("tensor %q has shape %v, want %d dimensions", name, t.Shape, rank)
	}
	return array{append([]int{}, t.Shape...), t.Float64s()}, true, nil
}

// need is opt for a tensor that must exist.
func (c *converter) need(suffix string, rank int) (array, error) {
	a, ok, err := c.opt(suffix, rank)
	if err != nil {
		return a, err
	}
	if !ok {
		return a, c.errorf("missing tensor %q", c.full(suffix))
	}
	return a, nil
}

// shape checks that a (read from suffix) has the given shape.
func (c *converter) shape(suffix string, a array, want ...int) error {
	if len(a.shape) != len(want) {
		return c.errorf("tensor %q has shape %v, want %v", c.full(suffix), a.shape, want)
	}
	for i := range want {
		if a.shape[i] != want[i] {
			return c.errorf("tensor %q has shape %v, want %v", c.full(suffix), a.shape, want)
		}
	}
	return nil
}

// set stores a under the gnn name "<Name>.<param>".
func (c *converter) set(param string, a array) {
	c.out[c.l.Name+"."+param] = a.dense(c.dtype)
}

// finish checks that every tensor under the prefix was read, marks them
// used in the Tensors and returns the values.
func (c *converter) finish() (Params, error) {
	var extra []string
	for _, n := range c.ts.names {
		if c.read[n] || c.ts.used[n] {
			continue
		}
		if c.l.Prefix == "" || strings.HasPrefix(n, c.l.Prefix+".") {
			extra = append(extra, n)
		}
	}
	if len(extra) > 0 {
		more := ""
		if len(extra) > 1 {
			more = fmt.Sprintf(" (and %d more: %s)", len(extra)-1, sample(extra[1:]))
		}
		return nil, c.errorf("tensor %q%s is not a parameter of the module, or is one gnn's layer has no counterpart for; check Kind and Prefix", extra[0], more)
	}
	for n := range c.read {
		c.ts.markUsed(n)
	}
	return c.out, nil
}
