package nn

import (
	"fmt"
	"math"
	"unsafe"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/device"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
)

// Dropout zeroes each element of x with probability p and scales the kept
// ones by 1/(1-p) while mode is training, and is the identity in evaluation.
//
// The mask is a function of (seed, mode.Step(), element index): it changes
// every step, is the same for the same seed and step whatever GOMAXPROCS is,
// and the backward pass recomputes it instead of storing it. Give each
// dropout site its own seed. p must be in [0, 1); it is applied with a
// resolution of 1/65536.
func Dropout(x *gorgonia.Node, p float64, seed uint64, mode *Mode) (*gorgonia.Node, error) {
	if err := checkDropout(x, p, mode); err != nil {
		return nil, err
	}
	if p == 0 {
		return x, nil
	}
	return apply(&dropoutOp{maskOf(x, p, seed, mode)}, x)
}

// checkDropout validates Dropout's arguments.
func checkDropout(x *gorgonia.Node, p float64, mode *Mode) error {
	if !(p >= 0 && p < 1) {
		return fmt.Errorf("nn: dropout probability %v is not in [0, 1)", p)
	}
	if mode == nil {
		return fmt.Errorf("nn: dropout needs a Mode")
	}
	if x == nil {
		return fmt.Errorf("nn: dropout of a nil node")
	}
	if dt := x.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return fmt.Errorf("nn: dropout of %q: dtype %v, want float32 or float64", x.Name(), dt)
	}
	return nil
}

// dropMask is what the dropout ops (Dropout, ReLUDropout, DropoutRows)
// draw their mask from, over an input of one shape: the probability, the
// seed and the mode's step. It gives them their Key and Shapes.
type dropMask struct {
	p     float64
	seed  uint64
	mode  *Mode
	shape tensor.Shape
}

// maskOf returns the mask of Dropout's arguments, which checkDropout has
// accepted.
func maskOf(x *gorgonia.Node, p float64, seed uint64, mode *Mode) dropMask {
	return dropMask{p: p, seed: seed, mode: mode, shape: x.Shape().Clone()}
}

func (m *dropMask) Key() string {
	return fmt.Sprintf("p=%v,seed=%d,mode=%p,%v", m.p, m.seed, m.mode, m.shape)
}

func (m *dropMask) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{m.shape}, m.shape
}

// dropoutOp multiplies by the step's mask. It is linear in its input and
// self-adjoint, so it is its own gradient.
type dropoutOp struct{ dropMask }

func (op *dropoutOp) Name() string { return fmt.Sprintf("dropout(p=%g)", op.p) }

// DoInto computes the output into dst (opkit.Into).
func (op *dropoutOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	t, err := values.Dense(vals[0])
	if err != nil {
		return nil, fmt.Errorf("nn: dropout: %w", err)
	}
	training := op.mode.Training()
	step := op.mode.Step()
	n := t.Shape().TotalSize()
	switch x := t.Data().(type) {
	case []float32:
		out, y := values.OverInto[float32](dst, t.Shape()) // applyMask writes every element
		applyMask(y, x[:n], op.p, op.seed, step, training, false)
		return out, nil
	case []float64:
		out, y := values.OverInto[float64](dst, t.Shape())
		applyMask(y, x[:n], op.p, op.seed, step, training, false)
		return out, nil
	}
	return nil, fmt.Errorf("nn: dropout of %T data", t.Data())
}

// DeviceDo draws the same masks as DoInto, on the device. It runs when an input is on the device
// (see package internal/ops/device); host inputs are uploaded for the call.
func (op *dropoutOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, y, err := device.Prepare(b, vals, op.shape.Clone())
	if err != nil {
		return nil, err
	}
	return y, b.Dropout(y, in[0], op.p, op.seed, op.mode.Step(), op.mode.Training())
}

// applyMask writes dropout of x (of max(x, 0) when relu is set, the op
// ReLUDropout) into y: the mask of seed and step while training, x itself
// otherwise.
func applyMask[T num.Float](y, x []T, p float64, seed, step uint64, training, relu bool) {
	if !training {
		if !relu {
			copy(y, x)
			return
		}
		parallel.For(len(x), 1<<14, func(lo, hi int) {
			for i, v := range x[lo:hi] {
				y[lo+i] = max(v, 0)
			}
		})
		return
	}
	// One 64-bit hash gives the 16-bit draws of four consecutive elements;
	// p is resolved to 1/65536.
	threshold := uint64(math.Round(p * (1 << 16)))
	scale := T(1 / (1 - p))
	key := seed*0x9e3779b97f4a7c15 ^ step*0xbf58476d1ce4e5b9
	parallel.For((len(x)+3)/4, 1<<12, func(lo, hi int) {
		if g := maskGroups(x, lo, hi, threshold); g > 0 {
			r := 0
			if relu {
				r = 1
			}
			maskF32((*float32)(unsafe.Pointer(&y[4*lo])), (*float32)(unsafe.Pointer(&x[4*lo])), g, key,
				uint64(lo+1)*0x94d049bb133111eb, threshold, float32(scale), r)
			lo += 4 * g
		}
		for q := lo; q < hi; q++ {
			h := mix(seed, step, uint64(q))
			for i := 4 * q; i < min(4*q+4, len(x)); i++ {
				// All ones when the draw is at least the threshold (kept),
				// else 0: a mask, not a branch, which random draws would
				// mispredict half the time at p = 0.5.
				keep := (h&0xffff-threshold)>>63 - 1
				v := x[i]
				if relu {
					v = max(v, 0)
				}
				y[i] = zeroUnless(v*scale, keep)
				h >>= 16
			}
		}
	})
}

// maskGroups returns how many groups of four hashes (16 elements) from
// hash lo on, within hash hi and the whole hashes of x, maskF32 takes: 0
// unless x is float32 and AVX2 is there.
func maskGroups[T num.Float](x []T, lo, hi int, threshold uint64) int {
	if unsafe.Sizeof(x[0]) != 4 || !useMaskAVX2 || threshold > 0xffff {
		return 0
	}
	return max(0, (min(hi, len(x)/4)-lo)/4)
}

// zeroUnless returns v when keep is all ones and +0 when keep is 0, by
// masking its bits: a dropped Inf or NaN becomes 0, as a skipped element
// would.
func zeroUnless[T num.Float](v T, keep uint64) T {
	if unsafe.Sizeof(v) == 4 {
		b := *(*uint32)(unsafe.Pointer(&v)) & uint32(keep)
		return *(*T)(unsafe.Pointer(&b))
	}
	b := *(*uint64)(unsafe.Pointer(&v)) & keep
	return *(*T)(unsafe.Pointer(&b))
}

// mix is a counter-based random 64-bit value (SplitMix64's finaliser over a
// combination of the seed, the step and the index).
func mix(seed, step, i uint64) uint64 {
	z := seed*0x9e3779b97f4a7c15 ^ step*0xbf58476d1ce4e5b9 ^ (i+1)*0x94d049bb133111eb
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	z ^= z >> 31
	return z
}

// Grad applies the same mask to the gradient: the op is its own adjoint.
func (op *dropoutOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := apply(op, grad)
	return gorgonia.Nodes{d}, err
}

var (
	_ opkit.Forward = (*dropoutOp)(nil)
	_ device.Spec   = (*dropoutOp)(nil)
)
