package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/device"
)

// The device implementations of this package's ops: each runs when an
// input is on the device (a gnncuda build with a device open; see package
// internal/device), on the same shapes as Do, with the backend's kernels.
// Host inputs (parameters kept on the host) are uploaded for the call.

func (op *matMulOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	return matMulDevice(b, op, product, vals)
}

func (op *matMulGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	return matMulDevice(b, op.fwd, op.mode, vals)
}

func matMulDevice(b device.Backend, op *matMulOp, mode matMulMode, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := device.Inputs(b, vals)
	if err != nil {
		return nil, err
	}
	shape, dm := tensor.Shape{op.n, op.m}, device.Product
	switch mode {
	case transB:
		shape, dm = tensor.Shape{op.n, op.k}, device.TransB
	case transA:
		shape, dm = tensor.Shape{op.k, op.m}, device.TransA
	}
	c, err := b.Alloc(in[0].Dtype(), shape)
	if err != nil {
		return nil, err
	}
	return c, b.MatMul(c, in[0], in[1], op.n, op.k, op.m, dm)
}

func (op *biasOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, y, err := device.Prepare(b, vals, op.shape.Clone())
	if err != nil {
		return nil, err
	}
	return y, b.AddRows(y, in[0], in[1], op.shape[0], op.shape[1:].TotalSize())
}

func (op *biasGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	s := op.fwd.shape
	in, db, err := device.Prepare(b, vals, s[1:].Clone())
	if err != nil {
		return nil, err
	}
	return db, b.SumRows(db, in[0], s[0], s[1:].TotalSize())
}

func (a activation) device() device.Activation {
	if a == relu {
		return device.ReLU
	}
	return device.ELU
}

func (op *activationOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, y, err := device.Prepare(b, vals, op.shape.Clone())
	if err != nil {
		return nil, err
	}
	return y, b.Activate(op.fn.device(), y, in[0])
}

func (op *activationGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, dx, err := device.Prepare(b, vals, op.fwd.shape.Clone())
	if err != nil {
		return nil, err
	}
	return dx, b.ActivateGrad(op.fwd.fn.device(), dx, in[0], in[1])
}

func (op *dropoutOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, y, err := device.Prepare(b, vals, op.shape.Clone())
	if err != nil {
		return nil, err
	}
	return y, b.Dropout(y, in[0], op.p, op.seed, op.mode.Step(), op.mode.Training())
}

func (op *meanHeadsOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, y, err := device.Prepare(b, vals, tensor.Shape{op.n, op.f})
	if err != nil {
		return nil, err
	}
	return y, b.MeanHeads(y, in[0], op.n, op.h, op.f, false)
}

func (op *meanHeadsGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, dx, err := device.Prepare(b, vals, tensor.Shape{op.n, op.h * op.f})
	if err != nil {
		return nil, err
	}
	return dx, b.MeanHeads(in[0], dx, op.n, op.h, op.f, true)
}

// xentConsts returns op's labels and listed nodes on the device, uploaded
// once per op.
func xentConsts(b device.Backend, op *xentOp) (labels, nodes *tensor.Dense, err error) {
	if labels, err = b.Cached(fmt.Sprintf("nn.xent/%d/labels", op.id), tensor.Shape{op.n}, func() any { return op.labels }); err != nil {
		return nil, nil, err
	}
	nodes, err = b.Cached(fmt.Sprintf("nn.xent/%d/nodes", op.id), tensor.Shape{len(op.nodes)}, func() any { return op.nodes })
	return labels, nodes, err
}

// DeviceDo computes the loss on the device and returns it as a host scalar:
// the one value of the forward pass that crosses to the host.
func (op *xentOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := device.Inputs(b, vals)
	if err != nil {
		return nil, err
	}
	labels, nodes, err := xentConsts(b, op)
	if err != nil {
		return nil, err
	}
	terms, err := b.Alloc(tensor.Float64, tensor.Shape{len(op.nodes)})
	if err != nil {
		return nil, err
	}
	if err := b.CrossEntropy(terms, in[0], labels, nodes, op.c, 1/float64(len(op.nodes))); err != nil {
		return nil, err
	}
	s, err := b.Sum(terms)
	if err != nil {
		return nil, err
	}
	if in[0].Dtype() == tensor.Float32 {
		return gorgonia.NewF32(float32(-s)), nil
	}
	return gorgonia.NewF64(-s), nil
}

func (op *xentGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	scale, err := device.HostScalar(vals[1])
	if err != nil {
		return nil, err
	}
	in, err := device.Inputs(b, vals[:1])
	if err != nil {
		return nil, err
	}
	labels, nodes, err := xentConsts(b, op.fwd)
	if err != nil {
		return nil, err
	}
	g, err := b.Zeros(in[0].Dtype(), tensor.Shape{op.fwd.n, op.fwd.c})
	if err != nil {
		return nil, err
	}
	inv := 1 / float64(len(op.fwd.nodes))
	return g, b.CrossEntropyGrad(g, in[0], labels, nodes, op.fwd.c, inv*scale, !op.fwd.unique)
}

var (
	_ device.Spec = (*matMulOp)(nil)
	_ device.Spec = (*matMulGradOp)(nil)
	_ device.Spec = (*biasOp)(nil)
	_ device.Spec = (*biasGradOp)(nil)
	_ device.Spec = (*activationOp)(nil)
	_ device.Spec = (*activationGradOp)(nil)
	_ device.Spec = (*dropoutOp)(nil)
	_ device.Spec = (*meanHeadsOp)(nil)
	_ device.Spec = (*meanHeadsGradOp)(nil)
	_ device.Spec = (*xentOp)(nil)
	_ device.Spec = (*xentGradOp)(nil)
)
