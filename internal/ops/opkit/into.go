package opkit

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/ops/device"
)

// Into is a Spec that can compute its output into a tensor it is given,
// so that a machine that keeps buffers from one run to the next (nn/vm)
// need not allocate the output again. An Into need not have Do: the Op
// runs DoInto with a nil dst for it.
type Into interface {
	Spec
	// DoInto computes the output from the input values into dst and
	// returns it. dst, when not nil, has the output's shape and the
	// inputs' dtype, holds anything and is no input's memory (but for an
	// Overwrite's); an op that cannot use it (values.AllocInto checks)
	// returns a fresh value.
	DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error)
}

// Overwrite is an Into whose DoInto may be handed as dst the very tensor
// of one of its inputs, of the output's shape, and then writes its output
// over it: Overwrites returns that input's position, or -1 when this op
// cannot (it may depend on the op's configuration). nn/vm hands it so when
// no later op reads the input, and the output then needs no buffer.
type Overwrite interface {
	Into
	Overwrites() int
}

// Overwrites returns the input position the Spec's DoInto may write its
// output over (Overwrite), or -1.
func (o *Op) Overwrites() int {
	if s, ok := o.spec.(Overwrite); ok {
		return s.Overwrites()
	}
	return -1
}

// DoInto runs the Spec's DoInto into dst when the Spec is an Into, dst a
// host tensor and no input on the device, else Do. The method is what
// nn/vm asks an op for; Gorgonia's TapeMachine does not call it.
func (o *Op) DoInto(dst gorgonia.Value, vals ...gorgonia.Value) (gorgonia.Value, error) {
	s, ok := o.spec.(Into)
	t, isDense := dst.(*tensor.Dense)
	if !ok || !isDense || t == nil || device.On(t) || (device.Current() != nil && device.Any(vals)) {
		return o.Do(vals...)
	}
	if n := o.Arity(); len(vals) != n {
		return nil, fmt.Errorf("%s: %s takes %d inputs, got %d", o.pkg, o.spec.Name(), n, len(vals))
	}
	return s.DoInto(t, vals)
}
