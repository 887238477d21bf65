package opkit

import (
	"fmt"
	"hash"
	"hash/fnv"
	"io"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/ops/device"
)

// Spec is what one gnn op says about itself. New turns a Spec into the
// gorgonia.Op the expression graph holds, which writes the methods
// Gorgonia asks of an op once for every op.
//
// A Spec holds only static configuration (graph, shapes, constants): the
// same op may appear in many nodes and run many times. Values pass from op
// to op as graph inputs; an op that has to hand more than its output to
// the ops after it (the extra gradients of a backward computed in one
// sweep) does so through a Handover, the one supported way.
//
// A Spec computes its output with Do (a Doer) or, when it can write into a
// given tensor, with DoInto alone (an Into): its Do is then DoInto with a
// nil dst, which the Op supplies, so an Into need not write Do. Apply
// refuses a Spec that has neither.
type Spec interface {
	// Name is the op's name in messages and graph dumps ("copy_u_sum").
	Name() string
	// Key returns what sets the op apart from other ops of the same name:
	// two ops with one name and one key compute the same function of
	// their inputs (Gorgonia merges such nodes). It names the graph by its
	// ID, the shapes and every constant the op reads.
	Key() string
	// Shapes returns the shapes of the inputs, in order, and of the output.
	// A shape of rank 0 is a scalar.
	Shapes() (in []tensor.Shape, out tensor.Shape)
}

// Doer is a Spec that computes its output into a fresh value.
type Doer interface {
	Spec
	// Do computes the output from the input values into a fresh value; it
	// never writes an input.
	Do(vals []gorgonia.Value) (gorgonia.Value, error)
}

// computes reports whether s has a way to compute its output.
func computes(s Spec) bool {
	switch s.(type) {
	case Doer, Into:
		return true
	}
	return false
}

// Forward is a Spec with a gradient. Grad builds, from the gradient grad of
// output, the gradient of every input (nil for one it does not reach), with
// separate backward ops; Gorgonia calls it once per node, from
// gorgonia.Grad.
type Forward interface {
	Spec
	Grad(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error)
}

// Partial is a Forward whose gradient reaches only some of its inputs:
// WRT reports which, by input (integer inputs, say, get none).
type Partial interface {
	Forward
	WRT(arity int) []bool
}

// Op is the gorgonia.Op of a Spec. It is a gorgonia.SDOp: the op of a
// Forward differentiates through Grad, and any other op (a backward op) is
// not differentiable: its DiffWRT is all false and its SymDiff returns an
// error, so gradients of gradients fail instead of coming out wrong.
type Op struct {
	CPUOp
	pkg  string
	spec Spec
}

// New returns the op of s; pkg prefixes its errors ("ops").
func New(pkg string, s Spec) *Op { return &Op{pkg: pkg, spec: s} }

// Apply adds the op of s to the expression graph of its inputs; pkg
// prefixes the errors. s must be a Doer or an Into.
func Apply(pkg string, s Spec, inputs ...*gorgonia.Node) (*gorgonia.Node, error) {
	if !computes(s) {
		return nil, fmt.Errorf("%s: %s has neither Do nor DoInto", pkg, s.Name())
	}
	n, err := gorgonia.ApplyOp(New(pkg, s), inputs...)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", pkg, s.Name(), err)
	}
	return n, nil
}

// Spec returns the op's Spec.
func (o *Op) Spec() Spec { return o.spec }

// Arity returns the number of inputs.
func (o *Op) Arity() int {
	in, _ := o.spec.Shapes()
	return len(in)
}

// Type returns a fresh function type from the inputs' ranks to the
// output's, all of one dtype.
func (o *Op) Type() hm.Type {
	in, out := o.spec.Shapes()
	r := make([]int, len(in))
	for i, s := range in {
		r[i] = len(s)
	}
	return FnType(len(out), r...)
}

// InferShape checks the input shapes and returns the output's.
func (o *Op) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	want, out := o.spec.Shapes()
	if err := CheckInputs(o.pkg, o.spec.Name(), want, in); err != nil {
		return nil, err
	}
	return out.Clone(), nil
}

// Do checks the number of values and runs the Spec's Do (its DoInto with
// a nil dst when it is an Into without Do) or, when a device backend is
// registered (a gnncuda build with a device open) and an input is on the
// device, its DeviceDo.
func (o *Op) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	if n := o.Arity(); len(vals) != n {
		return nil, fmt.Errorf("%s: %s takes %d inputs, got %d", o.pkg, o.spec.Name(), n, len(vals))
	}
	if b := device.Current(); b != nil && device.Any(vals) {
		return o.deviceDo(b, vals)
	}
	return o.hostDo(vals)
}

// hostDo runs the Spec's Do, or its DoInto into a fresh value.
func (o *Op) hostDo(vals []gorgonia.Value) (gorgonia.Value, error) {
	switch s := o.spec.(type) {
	case Doer:
		return s.Do(vals)
	case Into:
		return s.DoInto(nil, vals)
	}
	return nil, fmt.Errorf("%s: %s has neither Do nor DoInto", o.pkg, o.spec.Name())
}

// deviceDo runs the Spec's DeviceDo, or fails naming the op when it has
// none.
func (o *Op) deviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	d, ok := o.spec.(device.Spec)
	if !ok {
		return nil, fmt.Errorf("%s: %s has no device implementation, and an input is on the device", o.pkg, o.spec.Name())
	}
	v, err := d.DeviceDo(b, vals)
	if err != nil {
		return nil, fmt.Errorf("%s: %s on the device: %w", o.pkg, o.spec.Name(), err)
	}
	return v, nil
}

// String returns the Spec's name.
func (o *Op) String() string { return o.spec.Name() }

// WriteHash writes the package, name and key.
func (o *Op) WriteHash(h hash.Hash) { writeKey(h, o.pkg, o.spec) }

// Hashcode returns the FNV-32a hash of what WriteHash writes.
func (o *Op) Hashcode() uint32 {
	h := fnv.New32a()
	writeKey(h, o.pkg, o.spec)
	return h.Sum32()
}

func writeKey(w io.Writer, pkg string, s Spec) { fmt.Fprintf(w, "%s.%s{%s}", pkg, s.Name(), s.Key()) }

// DiffWRT reports which inputs the gradient reaches.
func (o *Op) DiffWRT(n int) []bool {
	d := make([]bool, n)
	switch s := o.spec.(type) {
	case Partial:
		copy(d, s.WRT(n))
	case Forward:
		for i := range d {
			d[i] = true
		}
	}
	return d
}

// SymDiff builds the gradients through the Spec's Grad.
func (o *Op) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	f, ok := o.spec.(Forward)
	if !ok {
		return nil, fmt.Errorf("%s: %s is a backward op and is not differentiable", o.pkg, o.spec.Name())
	}
	if n := o.Arity(); len(inputs) != n {
		return nil, fmt.Errorf("%s: %s: %d inputs, want %d", o.pkg, o.spec.Name(), len(inputs), n)
	}
	return f.Grad(inputs, output, grad)
}

var (
	_ gorgonia.Op   = (*Op)(nil)
	_ gorgonia.SDOp = (*Op)(nil)
)
