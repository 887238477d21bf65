package ops

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/ops/opkit"
)

// scorer is a fused op whose output and gradients one function computes
// (its backward ops are gradOps): do computes the output (wrt -1, what
// DoInto computes) or the gradient with respect to input wrt (over the
// values of a gradOp), into dst when it fits.
type scorer interface {
	opkit.Forward
	opkit.Into
	do(dst *tensor.Dense, wrt int, vals []gorgonia.Value) (gorgonia.Value, error)
}

// gradOp is the gradient of fwd with respect to its input wrt. It takes
// fwd's inputs followed by extra values of fwd's output shape, the last
// one the gradient of the output (and before it the output itself, when
// the backward reads it).
type gradOp struct {
	fwd   scorer
	wrt   int
	extra int
}

func (op *gradOp) Name() string { return fmt.Sprintf("d%s/d%d", op.fwd.Name(), op.wrt) }

func (op *gradOp) Key() string { return op.fwd.Key() }

func (op *gradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	in, out := op.fwd.Shapes()
	wrt := in[op.wrt].Clone()
	for range op.extra {
		in = append(in, out)
	}
	return in, wrt
}

// DoInto is Do into dst (opkit.Into).
func (op *gradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return op.fwd.do(dst, op.wrt, vals)
}

// gradOps builds one gradOp for each input of fwd over args: fwd's inputs,
// then the extra values the backward reads, the gradient of the output
// last.
func gradOps(fwd scorer, args gorgonia.Nodes) (gorgonia.Nodes, error) {
	in, _ := fwd.Shapes()
	grads := make(gorgonia.Nodes, len(in))
	for i := range grads {
		d, err := apply(&gradOp{fwd: fwd, wrt: i, extra: len(args) - len(in)}, args...)
		if err != nil {
			return nil, fmt.Errorf("ops: gradient of %s: %w", fwd.Name(), err)
		}
		grads[i] = d
	}
	return grads, nil
}

var _ opkit.Into = (*gradOp)(nil)
