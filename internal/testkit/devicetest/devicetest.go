//go:build gnncuda

package devicetest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/gpu"
	"github.com/gnngo/gnn/internal/ops/device"
	"github.com/gnngo/gnn/internal/ops/opkit"
)

// Dtypes are the types the device ops are tested in.
var Dtypes = []tensor.Dtype{tensor.Float32, tensor.Float64}

// Emulator opens the emulator for the test.
func Emulator(t *testing.T) *gpu.Device {
	t.Helper()
	d, err := gpu.OpenEmulator()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	return d
}

// ForDevices runs f in a subtest on the emulator and, on a machine with
// one, on the first GPU, one device open at a time.
func ForDevices(t *testing.T, f func(t *testing.T, dev *gpu.Device)) {
	t.Run("emulator", func(t *testing.T) { f(t, Emulator(t)) })
	d, err := gpu.Open(0)
	if err != nil {
		t.Logf("no GPU, emulator only: %v", err)
		return
	}
	t.Run("gpu", func(t *testing.T) {
		defer d.Close()
		f(t, d)
	})
}

// Random returns a host tensor of dt and shape with values in [-1, 1),
// away from 0 (activations' kinks), from seed.
func Random(dt tensor.Dtype, seed uint64, shape ...int) *tensor.Dense {
	r := rand.New(rand.NewPCG(seed, 7))
	n := tensor.Shape(shape).TotalSize()
	if dt == tensor.Float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(away(r))
		}
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v))
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = away(r)
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v))
}

func away(r *rand.Rand) float64 {
	for {
		if v := 2*r.Float64() - 1; math.Abs(v) > 0.05 {
			return v
		}
	}
}

// Floats returns the elements of a host value as float64.
func Floats(t *testing.T, v gorgonia.Value) []float64 {
	t.Helper()
	if device.On(v) {
		t.Fatalf("a device value reached floats")
	}
	switch d := v.Data().(type) {
	case []float32:
		out := make([]float64, len(d))
		for i, x := range d {
			out[i] = float64(x)
		}
		return out
	case []float64:
		return append([]float64{}, d...)
	case float32:
		return []float64{float64(d)}
	case float64:
		return []float64{d}
	}
	t.Fatalf("floats of %T", v.Data())
	return nil
}

// Tol returns the relative tolerance of dt: 1e-5 for float32, 1e-12 for
// float64.
func Tol(dt tensor.Dtype) float64 {
	if dt == tensor.Float32 {
		return 1e-5
	}
	return 1e-12
}

// Near fails the test when got and want differ by more than rel relative
// to the larger of |want[i]| and a tenth of want's largest magnitude (so
// that sums cancelling to near zero compare by the scale of their terms:
// the kernels add in another order than the CPU's).
func Near(t *testing.T, what string, got, want []float64, rel float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	var scale float64
	for _, w := range want {
		scale = max(scale, math.Abs(w))
	}
	bad := 0
	for i := range got {
		lim := rel * max(math.Abs(want[i]), 0.1*scale, 1e-30)
		if !(math.Abs(got[i]-want[i]) <= lim) {
			if bad < 5 {
				t.Errorf("%s[%d] = %v, want %v (tolerance %.3g)", what, i, got[i], want[i], lim)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values differ", what, bad, len(got))
	}
}

// projOp is <R, y>: a scalar loss with gradient R everywhere, on the host
// or (downloading y, uploading R) the device; a test's way to get every
// input gradient of an op.
type projOp struct {
	r      *tensor.Dense
	shape  tensor.Shape
	id     int
	upload bool // the gradient R goes to the device
}

var projIDs int

func project(y *gorgonia.Node, seed uint64, upload bool) (*gorgonia.Node, error) {
	projIDs++
	return opkit.Apply("gputest", &projOp{r: Random(y.Dtype(), seed, y.Shape()...), shape: y.Shape().Clone(), id: projIDs, upload: upload}, y)
}

func (op *projOp) Name() string { return "proj" }
func (op *projOp) Key() string  { return fmt.Sprint(op.id) }
func (op *projOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.shape}, tensor.ScalarShape()
}
func (op *projOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) {
	var s float64
	y := vals[0].(*tensor.Dense)
	switch d := y.Data().(type) {
	case []float32:
		for i, v := range d {
			s += float64(v) * float64(op.r.Data().([]float32)[i])
		}
		return gorgonia.NewF32(float32(s)), nil
	case []float64:
		for i, v := range d {
			s += v * op.r.Data().([]float64)[i]
		}
	}
	return gorgonia.NewF64(s), nil
}
func (op *projOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	h, err := b.Download(vals[0].(*tensor.Dense))
	if err != nil {
		return nil, err
	}
	return op.Do([]gorgonia.Value{h})
}
func (op *projOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := opkit.Apply("gputest", &projGradOp{op}, grad)
	return gorgonia.Nodes{d}, err
}

type projGradOp struct{ fwd *projOp }

func (op *projGradOp) Name() string { return "dproj" }
func (op *projGradOp) Key() string  { return op.fwd.Key() }
func (op *projGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{tensor.ScalarShape()}, op.fwd.shape
}
func (op *projGradOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) {
	s, err := device.HostScalar(vals[0])
	if err != nil {
		return nil, err
	}
	out := op.fwd.r.Clone().(*tensor.Dense)
	switch d := out.Data().(type) {
	case []float32:
		for i := range d {
			d[i] *= float32(s)
		}
	case []float64:
		for i := range d {
			d[i] *= s
		}
	}
	if b := device.Current(); b != nil && op.fwd.upload {
		// The gradient of a device output arrives on the device, so
		// that every gradient op of the tested op runs there.
		return b.Upload(out)
	}
	return out, nil
}

// DeviceDo uploads the gradient: its input is a host scalar, so the
// dispatch never picks it; placed on the device it stands for a gradient
// arriving from a device op.
func (op *projGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	h, err := op.Do(vals)
	if err != nil {
		return nil, err
	}
	return b.Upload(h.(*tensor.Dense))
}

// Run builds a graph with build from inputs (host tensors), on the device when dev is not nil (the inputs in onDevice
// placed there), and returns the output and the gradient of <R, output>
// with respect to every input, as host values.
func Run(t *testing.T, dev *gpu.Device, inputs []*tensor.Dense, onDevice []bool, build func(in []*gorgonia.Node) (*gorgonia.Node, error)) (out []float64, grads [][]float64) {
	t.Helper()
	eg := gorgonia.NewGraph()
	nodes := make([]*gorgonia.Node, len(inputs))
	for i, v := range inputs {
		nodes[i] = gorgonia.NodeFromAny(eg, v.Clone().(*tensor.Dense), gorgonia.WithName(fmt.Sprintf("in%d", i)))
		if dev != nil && onDevice[i] {
			if err := dev.PlaceNode(nodes[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	y, err := build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	loss := y
	if !y.IsScalar() {
		if loss, err = project(y, 99, dev != nil); err != nil {
			t.Fatal(err)
		}
	}
	gs, err := gorgonia.Grad(loss, nodes...)
	if err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if dev != nil {
		if err := dev.Bind(vm); err != nil {
			t.Fatal(err)
		}
	}
	var before gpu.Stats
	if dev != nil {
		before = dev.Stats()
	}
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	if dev != nil && dev.Stats().Sub(before).Launches == 0 {
		t.Fatal("nothing ran on the device")
	}
	host := func(v gorgonia.Value) []float64 {
		if device.On(v) {
			h, err := dev.ToHost(v)
			if err != nil {
				t.Fatal(err)
			}
			v = h
		}
		return Floats(t, v)
	}
	out = host(y.Value())
	for _, g := range gs {
		grads = append(grads, host(g.Value()))
	}
	if dev != nil {
		if err := dev.Recycle(); err != nil {
			t.Fatal(err)
		}
	}
	return out, grads
}

// Compare runs build on the CPU and on dev and compares the outputs and
// every gradient.
func Compare(t *testing.T, dev *gpu.Device, inputs []*tensor.Dense, onDevice []bool, build func(in []*gorgonia.Node) (*gorgonia.Node, error)) {
	t.Helper()
	wantOut, wantGrads := Run(t, nil, inputs, onDevice, build)
	gotOut, gotGrads := Run(t, dev, inputs, onDevice, build)
	rel := Tol(inputs[0].Dtype())
	Near(t, "output", gotOut, wantOut, rel)
	for i := range wantGrads {
		Near(t, fmt.Sprintf("gradient of input %d", i), gotGrads[i], wantGrads[i], rel)
	}
}
