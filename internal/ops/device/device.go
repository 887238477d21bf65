package device

import (
	"fmt"
	"reflect"
	"sync/atomic"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/ops/edgesoftmax"
	"github.com/gnngo/gnn/ops/sddmm"
	"github.com/gnngo/gnn/ops/spmm"
)

// Backend is a device: its memory and the kernels gnn's ops run on it.
// Tensors passed to kernels are device values (On reports true) of the
// dtype of the first, float32 or float64, contiguous and row-major; every
// kernel writes all of its output unless it says otherwise.
type Backend interface {
	Memory
	Dense
	Sparse
}

// Memory allocates and copies device tensors.
type Memory interface {
	// Alloc returns a device tensor of the given dtype and shape, its
	// contents undefined. It lives until the backend recycles the values of
	// a step (see the gpu package).
	Alloc(dt tensor.Dtype, shape tensor.Shape) (*tensor.Dense, error)
	// Zeros is Alloc filled with zeros.
	Zeros(dt tensor.Dtype, shape tensor.Shape) (*tensor.Dense, error)
	// Upload returns a device copy of the host tensor h (a step's value,
	// like Alloc's).
	Upload(h *tensor.Dense) (*tensor.Dense, error)
	// Download returns a host copy of the device tensor d.
	Download(d *tensor.Dense) (*tensor.Dense, error)
	// Cached returns the device copy of the host data that host() returns
	// ([]float32, []float64 or []int32, of shape), uploading it on the
	// first call for key only: constants of an op (labels, degree factors)
	// that cross once, not every step.
	Cached(key string, shape tensor.Shape, host func() any) (*tensor.Dense, error)
	// Recycle ends a step: the memory of every value Alloc, Zeros and
	// Upload returned since the last Recycle is reused by later calls.
	Recycle() error
	// Keep returns a zeroed device tensor that lives until the device is
	// closed (optimiser state, saved weights).
	Keep(dt tensor.Dtype, shape tensor.Shape) (*tensor.Dense, error)
	// Copy copies src to dst within the device (same dtype and size).
	Copy(dst, src *tensor.Dense) error
}

// AdamHyper is one step of Gorgonia's AdamSolver: its constants as values
// of the parameters' type (float32 or float64), widened to float64.
type AdamHyper struct {
	UseL2                                       bool
	L2, OmB1, OmB2, B1, B2, C1, C2, NegEta, Eps float64
}

// MatMulMode selects the product MatMul computes.
type MatMulMode int

const (
	Product MatMulMode = iota // c (n x m) = a (n x k) b (k x m)
	TransB                    // c (n x k) = a (n x m) b(k x m)ᵀ
	TransA                    // c (k x m) = a(n x k)ᵀ b (n x m)
)

// Activation is an elementwise function with a kernel.
type Activation int

const (
	ReLU Activation = iota
	ELU
)

// HeadMode selects what HeadDot computes.
type HeadMode int

const (
	HeadFwd HeadMode = iota // s[n,h] = Σf z[n,h,f] a[h,f]: HeadDot(s, z, a)
	HeadDZ                  // dz[n,h,f] = ds[n,h] a[h,f]: HeadDot(dz, a, ds)
	HeadDA                  // da[h,f] = Σn ds[n,h] z[n,h,f]: HeadDot(da, z, ds)
)

// Dense holds the kernels of gnn's dense ops (package nn and the layers).
// Sums over rows run in a fixed order: results do not depend on the
// launch configuration.
type Dense interface {
	MatMul(c, a, b *tensor.Dense, n, k, m int, mode MatMulMode) error
	// AddRows sets y[r,:] = x[r,:] + b for the n rows of width w.
	AddRows(y, x, b *tensor.Dense, n, w int) error
	// SumRows sets s = Σr x[r,:] over the n rows of width w.
	SumRows(s, x *tensor.Dense, n, w int) error
	// Add sets y = a + b elementwise (y may be a or b).
	Add(y, a, b *tensor.Dense) error
	// ScaleRows sets y[r,:] = x[r,:] * f[r] for rows of width w (y may be x).
	ScaleRows(y, x, f *tensor.Dense, w int) error
	Activate(fn Activation, y, x *tensor.Dense) error
	// ActivateGrad sets dx from dy and, for ReLU, the output y, for ELU
	// the input x (at).
	ActivateGrad(fn Activation, dx, at, dy *tensor.Dense) error
	// Dropout applies nn.Dropout's mask of (seed, step) with probability
	// p, scaling kept elements by 1/(1-p), or copies x when not training.
	Dropout(y, x *tensor.Dense, p float64, seed, step uint64, training bool) error
	// CrossEntropy sets terms[i] = log softmax(logits[nodes[i]])[labels[nodes[i]]] * inv
	// for the listed nodes (labels and nodes int32 device tensors).
	CrossEntropy(terms, logits, labels, nodes *tensor.Dense, c int, inv float64) error
	// CrossEntropyGrad adds (softmax - onehot) * scale to the rows of g
	// (zeroed by the caller) of the listed nodes; serial says a node may
	// be listed twice.
	CrossEntropyGrad(g, logits, labels, nodes *tensor.Dense, c int, scale float64, serial bool) error
	// Accuracy sets correct[i] (float64) to 1 when the largest entry of
	// logits[nodes[i]] (the first, on ties) is at its label, else 0.
	Accuracy(correct, logits, labels, nodes *tensor.Dense, c int) error
	// Adam updates parameters w on the device from their gradient g and
	// moments m, v (updated too), as Gorgonia's AdamSolver.Step does.
	Adam(w, g, m, v *tensor.Dense, h AdamHyper) error
	// GatherCols sets y[r,k] = x[r,idx[k]] for the n rows of x (w elements
	// each) and y (as many as idx, an int32 device tensor): a broadcast.
	GatherCols(y, x, idx *tensor.Dense, n, w int) error
	// SumCols sets y[r,j] = the sum of x[r,idx[t]] for t in [ptr[j],
	// ptr[j+1]), added in that order from 0, for the n rows of x (w
	// elements each) and y (len(ptr)-1); ptr and idx are int32 device
	// tensors: a broadcast's gradient.
	SumCols(y, x, ptr, idx *tensor.Dense, n, w int) error
	// Sum returns the sum of the elements of x, added in a fixed order.
	Sum(x *tensor.Dense) (float64, error)
	// MeanHeads sets y (n, f) to the mean over h heads of x (n, h*f), or
	// with grad x (n, h*f) to y (n, f) / h for every head.
	MeanHeads(y, x *tensor.Dense, n, h, f int, grad bool) error
	// HeadDot computes mode's product for z (n, h, f), a (h, f), s (n, h):
	// see HeadMode for the operands.
	HeadDot(out, a, b *tensor.Dense, n, h, f int, mode HeadMode) error
}

// Sparse holds the graph kernels, with the semantics of the CPU kernel
// packages ops/spmm, ops/sddmm and ops/edgesoftmax on the same graph.
type Sparse interface {
	SpMM(out *tensor.Dense, g *graph.Graph, op spmm.Op, red spmm.Reduce, u, e *tensor.Dense, p bcast.Plan) error
	// SpMMArgBackward sets du and de (either may be nil) to the gradients
	// of a Max or Min SpMM of the same g, op, red, u, e and p given the
	// gradient dOut of its output, as spmm.BackwardArg: it recomputes the
	// winning edges (ties to the smallest edge ID) and routes dOut to them.
	SpMMArgBackward(du, de *tensor.Dense, g *graph.Graph, op spmm.Op, red spmm.Reduce, u, e *tensor.Dense, p bcast.Plan, dOut *tensor.Dense) error
	SDDMM(out *tensor.Dense, g *graph.Graph, op sddmm.Op, lhs *tensor.Dense, lt sddmm.Target, rhs *tensor.Dense, rt sddmm.Target, p bcast.Plan) error
	// EdgeSoftmax sets out to the softmax of score (width columns per
	// edge) over the edges sharing a destination (ByDst) or a source
	// (BySrc); EdgeSoftmaxBackward sets ds from its output y and dy.
	EdgeSoftmax(out *tensor.Dense, g *graph.Graph, norm edgesoftmax.Norm, score *tensor.Dense, width int) error
	EdgeSoftmaxBackward(ds *tensor.Dense, g *graph.Graph, norm edgesoftmax.Norm, y, dy *tensor.Dense, width int) error
	Attention(out *tensor.Dense, g *graph.Graph, el, er *tensor.Dense, slope float64, width int) error
	AttentionBackward(ds *tensor.Dense, g *graph.Graph, el, er *tensor.Dense, slope float64, y, dy *tensor.Dense, width int) error
}

// Spec is an op with a device implementation: DeviceDo is Do with some
// inputs on the device, computing a device output (or a host scalar,
// as a loss) with b's kernels.
type Spec interface {
	DeviceDo(b Backend, vals []gorgonia.Value) (gorgonia.Value, error)
}

type box struct{ b Backend }

var current atomic.Pointer[box]

// Register makes b the backend ops run on when an input is on the device;
// nil removes it. The gpu package calls it when a device is opened and
// closed.
func Register(b Backend) {
	if b == nil {
		current.Store(nil)
		return
	}
	current.Store(&box{b})
}

// Current returns the registered backend, or nil (always, in a build
// without the gnncuda tag).
func Current() Backend {
	if p := current.Load(); p != nil {
		return p.b
	}
	return nil
}

// On reports whether v is a device value.
func On(v gorgonia.Value) bool {
	d, ok := v.(*tensor.Dense)
	return ok && !d.IsNativelyAccessible()
}

// Any reports whether any of vals is a device value.
func Any(vals []gorgonia.Value) bool {
	for _, v := range vals {
		if On(v) {
			return true
		}
	}
	return false
}

// Inputs returns vals as device tensors, uploading host tensors (parameters
// kept on the host, say) with b; a scalar that is not a tensor is an error.
func Inputs(b Backend, vals []gorgonia.Value) ([]*tensor.Dense, error) {
	out := make([]*tensor.Dense, len(vals))
	for i, v := range vals {
		d, ok := v.(*tensor.Dense)
		if !ok {
			return nil, fmt.Errorf("input %d is a %T, not a tensor", i, v)
		}
		if d.IsNativelyAccessible() {
			if d.IsView() {
				d = d.Materialize().(*tensor.Dense)
			}
			var err error
			if d, err = b.Upload(d); err != nil {
				return nil, fmt.Errorf("input %d: %w", i, err)
			}
		}
		out[i] = d
	}
	return out, nil
}

// Prepare is the prologue of most DeviceDo methods: vals as device tensors
// (Inputs) and a fresh device tensor of the given shape, in the first
// input's dtype, for the result.
func Prepare(b Backend, vals []gorgonia.Value, shape tensor.Shape) (in []*tensor.Dense, out *tensor.Dense, err error) {
	if in, err = Inputs(b, vals); err != nil {
		return nil, nil, err
	}
	if len(in) == 0 {
		return nil, nil, fmt.Errorf("an op without inputs")
	}
	if out, err = b.Alloc(in[0].Dtype(), shape); err != nil {
		return nil, nil, err
	}
	return in, out, nil
}

// HostScalar returns the value of a host scalar or one-element host tensor
// v (a loss gradient, say).
func HostScalar(v gorgonia.Value) (float64, error) {
	if On(v) {
		return 0, fmt.Errorf("expected a host scalar, got a device tensor of shape %v", v.Shape())
	}
	return values.Scalar(v)
}

// Engine is the tensor engine of a machine running device values: the
// standard engine for host tensors, b's kernels for Add when an operand is
// on the device (Gorgonia's gradient sums).
type Engine struct {
	tensor.StdEng
	B Backend
}

// Add adds a and b; on the device it writes into the reuse tensor (when it
// is a device tensor of the right size), into a (unsafe) or a new tensor.
// A host reuse tensor is an error, which makes the TapeMachine call Do.
func (e Engine) Add(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	ad, aok := a.(*tensor.Dense)
	bd, bok := b.(*tensor.Dense)
	if !aok || !bok || (!On(ad) && !On(bd)) {
		return e.StdEng.Add(a, b, opts...)
	}
	if !ad.Shape().Eq(bd.Shape()) && ad.Shape().TotalSize() != bd.Shape().TotalSize() {
		return nil, fmt.Errorf("device: Add of shapes %v and %v", ad.Shape(), bd.Shape())
	}
	o := tensor.ParseFuncOpts(opts...)
	if o.Incr() != nil {
		return nil, fmt.Errorf("device: Add into an increment tensor is not supported")
	}
	ins, err := Inputs(e.B, []gorgonia.Value{ad, bd})
	if err != nil {
		return nil, fmt.Errorf("device: Add: %w", err)
	}
	var y *tensor.Dense
	switch r := o.Reuse(); {
	case r != nil:
		rd, ok := r.(*tensor.Dense)
		if !ok || !On(rd) || rd.Shape().TotalSize() != ad.Shape().TotalSize() || rd.Dtype() != ad.Dtype() {
			return nil, fmt.Errorf("device: Add: the reuse tensor is not a device tensor of %v", ad.Shape())
		}
		y = rd
	case !o.Safe() && On(ad):
		y = ad
	default:
		if y, err = e.B.Alloc(ad.Dtype(), ad.Shape().Clone()); err != nil {
			return nil, err
		}
	}
	if err := e.B.Add(y, ins[0], ins[1]); err != nil {
		return nil, err
	}
	if !y.Shape().Eq(ad.Shape()) {
		if err := y.Reshape(ad.Shape()...); err != nil {
			return nil, err
		}
	}
	return y, nil
}

// Bind makes vm (a *gorgonia.tapeMachine from gorgonia.NewTapeMachine)
// give its outputs e as their engine, so that Gorgonia's own Add on device
// values runs on the device. The machine type is unexported, so its
// embedded ExternMetadata.Engine field is set by reflection.
func Bind(vm gorgonia.VM, e tensor.Engine) error {
	v := reflect.ValueOf(vm)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("device: cannot set the engine of a %T", vm)
	}
	f := v.Elem().FieldByName("Engine")
	if !f.IsValid() || !f.CanSet() || !reflect.TypeOf(e).AssignableTo(f.Type()) {
		return fmt.Errorf("device: a %T has no settable Engine field", vm)
	}
	f.Set(reflect.ValueOf(e))
	return nil
}
