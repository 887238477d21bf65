package gat

import (
	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/internal/ops/device"
)

// DeviceDo runs the head scores on the device (see package internal/ops/device).
func (op *headDotOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	return headDotDevice(b, op, headFwd, vals)
}

func (op *headDotGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	return headDotDevice(b, op.fwd, op.mode, vals)
}

func headDotDevice(b device.Backend, op *headDotOp, mode headMode, vals []gorgonia.Value) (gorgonia.Value, error) {
	_, shape := op.shapes(mode)
	in, out, err := device.Prepare(b, vals, shape)
	if err != nil {
		return nil, err
	}
	dm := [...]device.HeadMode{headFwd: device.HeadFwd, headDZ: device.HeadDZ, headDA: device.HeadDA}[mode]
	return out, b.HeadDot(out, in[0], in[1], op.n, op.h, op.f, dm)
}

var (
	_ device.Spec = (*headDotOp)(nil)
	_ device.Spec = (*headDotGradOp)(nil)
)
