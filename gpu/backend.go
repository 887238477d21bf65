//go:build gnncuda

package gpu

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/gpu/internal/dense"
	"github.com/gnngo/gnn/internal/ops/device"
)

// backend is a Device as internal/ops/device's Backend: what gnn's ops call.
type backend struct{ d *Device }

var _ device.Backend = backend{}

func (b backend) Alloc(dt tensor.Dtype, shape tensor.Shape) (*tensor.Dense, error) {
	return b.d.newTensor(dt, shape, false)
}

func (b backend) Zeros(dt tensor.Dtype, shape tensor.Shape) (*tensor.Dense, error) {
	t, err := b.d.newTensor(dt, shape, false)
	if err != nil {
		return nil, err
	}
	return t, b.d.c.Zero(ptr(t), bytesOf(t))
}

func (b backend) Upload(h *tensor.Dense) (*tensor.Dense, error) {
	data, err := hostData(h)
	if err != nil {
		return nil, err
	}
	return b.d.upload(data, h.Shape().Clone(), false)
}

func (b backend) Download(t *tensor.Dense) (*tensor.Dense, error) { return b.d.ToHost(t) }

func (b backend) Cached(key string, shape tensor.Shape, host func() any) (*tensor.Dense, error) {
	b.d.mu.Lock()
	t, ok := b.d.cache[key]
	b.d.mu.Unlock()
	if ok {
		return t, nil
	}
	t, err := b.d.upload(host(), shape, true)
	if err != nil {
		return nil, fmt.Errorf("gpu: constant %s: %w", key, err)
	}
	b.d.mu.Lock()
	b.d.cache[key] = t
	b.d.mu.Unlock()
	return t, nil
}

func (b backend) Recycle() error { return b.d.Recycle() }

// scratch is device memory of the step, for the first pass of two-pass
// sums (dense.Scratch).
func (b backend) scratch(bytes int) (cuda.Ptr, error) { return b.d.alloc(bytes, false) }

// dtype returns the kernel dtype of t, checking that the others share it.
func dtype(ts ...*tensor.Dense) (dense.Dtype, error) {
	dt := ts[0].Dtype()
	for _, t := range ts {
		if t.Dtype() != dt {
			return 0, fmt.Errorf("gpu: mixed dtypes %v and %v", dt, t.Dtype())
		}
		if !device.On(t) {
			return 0, fmt.Errorf("gpu: a kernel operand of shape %v is on the host", t.Shape())
		}
	}
	switch dt {
	case tensor.Float32:
		return dense.F32, nil
	case tensor.Float64:
		return dense.F64, nil
	}
	return 0, fmt.Errorf("gpu: kernels of dtype %v are not supported", dt)
}

// size checks that t holds n elements.
func size(t *tensor.Dense, n int, what string) error {
	if got := t.Shape().TotalSize(); got != n {
		return fmt.Errorf("gpu: %s holds %d elements, want %d", what, got, n)
	}
	return nil
}

func (b backend) MatMul(c, x, y *tensor.Dense, n, k, m int, mode device.MatMulMode) error {
	dt, err := dtype(c, x, y)
	if err != nil {
		return err
	}
	sizes := map[device.MatMulMode][3]int{device.Product: {n * k, k * m, n * m}, device.TransB: {n * m, k * m, n * k}, device.TransA: {n * k, n * m, k * m}}[mode]
	for i, t := range []*tensor.Dense{x, y, c} {
		if err := size(t, sizes[i], "matmul operand"); err != nil {
			return err
		}
	}
	if h := b.d.blas; h != nil {
		return h.MatMul(dt == dense.F32, ptr(c), ptr(x), ptr(y), n, k, m, int(mode))
	}
	return dense.MatMul(b.d.c, dt, ptr(c), ptr(x), ptr(y), n, k, m, int(mode), b.scratch)
}

func (b backend) AddRows(y, x, bias *tensor.Dense, n, w int) error {
	dt, err := dtype(y, x, bias)
	if err != nil {
		return err
	}
	if err := size(bias, w, "bias"); err != nil {
		return err
	}
	return dense.AddRows(b.d.c, dt, ptr(y), ptr(x), ptr(bias), n, w)
}

func (b backend) SumRows(s, x *tensor.Dense, n, w int) error {
	dt, err := dtype(s, x)
	if err != nil {
		return err
	}
	return dense.SumRows(b.d.c, dt, ptr(s), ptr(x), n, w, b.scratch)
}

func (b backend) Add(y, x, z *tensor.Dense) error {
	dt, err := dtype(y, x, z)
	if err != nil {
		return err
	}
	n := y.Shape().TotalSize()
	if x.Shape().TotalSize() != n || z.Shape().TotalSize() != n {
		return fmt.Errorf("gpu: Add of %v and %v into %v", x.Shape(), z.Shape(), y.Shape())
	}
	return dense.Add(b.d.c, dt, ptr(y), ptr(x), ptr(z), n)
}

func (b backend) ScaleRows(y, x, f *tensor.Dense, w int) error {
	dt, err := dtype(y, x, f)
	if err != nil {
		return err
	}
	n := f.Shape().TotalSize()
	if err := size(x, n*w, "scaled rows"); err != nil {
		return err
	}
	return dense.ScaleRows(b.d.c, dt, ptr(y), ptr(x), ptr(f), n, w)
}

func (b backend) GatherCols(y, x, idx *tensor.Dense, n, w int) error {
	dt, err := dtype(y, x)
	if err != nil {
		return err
	}
	if err := int32s(idx); err != nil {
		return err
	}
	m := idx.Shape().TotalSize()
	if err := size(x, n*w, "gathered rows"); err != nil {
		return err
	}
	if err := size(y, n*m, "gather output"); err != nil {
		return err
	}
	return dense.GatherCols(b.d.c, dt, ptr(y), ptr(x), ptr(idx), n, m, w)
}

func (b backend) SumCols(y, x, colPtr, idx *tensor.Dense, n, w int) error {
	dt, err := dtype(y, x)
	if err != nil {
		return err
	}
	if err := int32s(colPtr, idx); err != nil {
		return err
	}
	m := colPtr.Shape().TotalSize() - 1
	if err := size(x, n*w, "summed rows"); err != nil {
		return err
	}
	if err := size(y, n*m, "column sums"); err != nil {
		return err
	}
	return dense.SumCols(b.d.c, dt, ptr(y), ptr(x), ptr(colPtr), ptr(idx), n, m, w)
}

func kernelActivation(fn device.Activation) int {
	if fn == device.ELU {
		return dense.ELU
	}
	return dense.ReLU
}

func (b backend) Activate(fn device.Activation, y, x *tensor.Dense) error {
	dt, err := dtype(y, x)
	if err != nil {
		return err
	}
	return dense.Activate(b.d.c, dt, kernelActivation(fn), ptr(y), ptr(x), y.Shape().TotalSize())
}

func (b backend) ActivateGrad(fn device.Activation, dx, at, dy *tensor.Dense) error {
	dt, err := dtype(dx, at, dy)
	if err != nil {
		return err
	}
	return dense.ActivateGrad(b.d.c, dt, kernelActivation(fn), ptr(dx), ptr(at), ptr(dy), dx.Shape().TotalSize())
}

func (b backend) Dropout(y, x *tensor.Dense, p float64, seed, step uint64, training bool) error {
	dt, err := dtype(y, x)
	if err != nil {
		return err
	}
	return dense.Dropout(b.d.c, dt, ptr(y), ptr(x), y.Shape().TotalSize(), p, seed, step, training)
}

// int32s checks that the tensors are int32 device tensors.
func int32s(ts ...*tensor.Dense) error {
	for _, t := range ts {
		if t.Dtype() != tensor.Int32 || !device.On(t) {
			return fmt.Errorf("gpu: want an int32 device tensor, got %v (on the device: %v)", t.Dtype(), device.On(t))
		}
	}
	return nil
}

func (b backend) CrossEntropy(terms, logits, labels, nodes *tensor.Dense, c int, inv float64) error {
	dt, err := dtype(logits)
	if err != nil {
		return err
	}
	if err := int32s(labels, nodes); err != nil {
		return err
	}
	if terms.Dtype() != tensor.Float64 || !device.On(terms) {
		return fmt.Errorf("gpu: cross-entropy terms must be a float64 device tensor")
	}
	return dense.CrossEntropy(b.d.c, dt, ptr(terms), ptr(logits), ptr(labels), ptr(nodes), nodes.Shape().TotalSize(), c, inv)
}

func (b backend) CrossEntropyGrad(g, logits, labels, nodes *tensor.Dense, c int, scale float64, serial bool) error {
	dt, err := dtype(g, logits)
	if err != nil {
		return err
	}
	if err := int32s(labels, nodes); err != nil {
		return err
	}
	return dense.CrossEntropyGrad(b.d.c, dt, ptr(g), ptr(logits), ptr(labels), ptr(nodes), nodes.Shape().TotalSize(), c, scale, serial)
}

// Sum adds the partial sums the device computes, in order, on the host:
// ceil(n/4096) float64 values cross to the host.
func (b backend) Sum(x *tensor.Dense) (float64, error) {
	dt, err := dtype(x)
	if err != nil {
		return 0, err
	}
	n := x.Shape().TotalSize()
	parts, err := b.d.newTensor(tensor.Float64, tensor.Shape{(n + dense.SumChunk - 1) / dense.SumChunk}, false)
	if err != nil {
		return 0, err
	}
	if err := dense.Sum(b.d.c, dt, ptr(parts), ptr(x), n); err != nil {
		return 0, err
	}
	h, err := b.d.ToHost(parts)
	if err != nil {
		return 0, err
	}
	var s float64
	for _, v := range h.Data().([]float64) {
		s += v
	}
	return s, nil
}

func (b backend) MeanHeads(y, x *tensor.Dense, n, h, f int, grad bool) error {
	dt, err := dtype(y, x)
	if err != nil {
		return err
	}
	if err := size(y, n*f, "mean over heads"); err != nil {
		return err
	}
	if err := size(x, n*h*f, "heads"); err != nil {
		return err
	}
	return dense.MeanHeads(b.d.c, dt, ptr(y), ptr(x), n, h, f, grad)
}

func (b backend) HeadDot(out, p, q *tensor.Dense, n, h, f int, mode device.HeadMode) error {
	dt, err := dtype(out, p, q)
	if err != nil {
		return err
	}
	return dense.HeadDot(b.d.c, dt, ptr(out), ptr(p), ptr(q), n, h, f, int(mode), b.scratch)
}

func (b backend) Accuracy(correct, logits, labels, nodes *tensor.Dense, c int) error {
	dt, err := dtype(logits)
	if err != nil {
		return err
	}
	if err := int32s(labels, nodes); err != nil {
		return err
	}
	if correct.Dtype() != tensor.Float64 || !device.On(correct) || correct.Shape().TotalSize() != nodes.Shape().TotalSize() {
		return fmt.Errorf("gpu: accuracy flags must be a float64 device tensor of one element per node")
	}
	return dense.Accuracy(b.d.c, dt, ptr(correct), ptr(logits), ptr(labels), ptr(nodes), nodes.Shape().TotalSize(), c)
}

func (b backend) Keep(dt tensor.Dtype, shape tensor.Shape) (*tensor.Dense, error) {
	t, err := b.d.newTensor(dt, shape, true)
	if err != nil {
		return nil, err
	}
	return t, b.d.c.Zero(ptr(t), bytesOf(t))
}

func (b backend) Copy(dst, src *tensor.Dense) error {
	if dst.Dtype() != src.Dtype() || bytesOf(dst) != bytesOf(src) || !device.On(dst) || !device.On(src) {
		return fmt.Errorf("gpu: Copy of a %v %v device tensor into a %v %v one", src.Dtype(), src.Shape(), dst.Dtype(), dst.Shape())
	}
	return b.d.c.CopyDevice(ptr(dst), ptr(src), bytesOf(src))
}

func (b backend) Adam(w, g, m, v *tensor.Dense, h device.AdamHyper) error {
	dt, err := dtype(w, g, m, v)
	if err != nil {
		return err
	}
	n := w.Shape().TotalSize()
	for _, t := range []*tensor.Dense{g, m, v} {
		if err := size(t, n, "Adam operand"); err != nil {
			return err
		}
	}
	return dense.Adam(b.d.c, dt, ptr(w), ptr(g), ptr(m), ptr(v), n, dense.AdamHyper(h))
}
