//go:build gnncuda

package gpu

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/gpu/internal/cublas"
	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/ops/device"
)

// Device is an open GPU or emulator, the backend ops run on while it is
// open. One device may be open at a time.
type Device struct {
	c *cuda.Context

	// blas computes dense products on a GPU where a cuBLAS library
	// loads; nil means dense's kernels do, for the reason in noBLAS.
	blas   *cublas.Handle
	noBLAS string

	mu     sync.Mutex
	free   map[int][]cuda.Ptr // recycled memory, by size in bytes
	step   []block            // values of the current step
	pinned []block            // placed tensors and cached constants
	cache  map[string]*tensor.Dense
	graphs map[uint64]*placedGraph
	closed bool
}

// block is one allocation.
type block struct {
	p     cuda.Ptr
	bytes int
}

var (
	openMu sync.Mutex
	open   *Device
)

// Open opens GPU ordinal (0 is the first) and makes it the device gnn's
// ops run on. It returns an error naming why when there is no driver or
// no such GPU, or when a device is open already.
func Open(ordinal int) (*Device, error) {
	return openWith(func() (*cuda.Context, error) { return cuda.Open(ordinal) })
}

// OpenEmulator opens the emulator: the same kernels compiled for the host
// and run one thread at a time, with device memory that faults when the
// host reads it outside copies. It is for tests; its speed says nothing
// about a GPU's.
func OpenEmulator() (*Device, error) { return openWith(cuda.OpenEmulator) }

func openWith(f func() (*cuda.Context, error)) (*Device, error) {
	openMu.Lock()
	defer openMu.Unlock()
	if open != nil {
		return nil, fmt.Errorf("gpu: %s is open already; close it first", open.c.Name())
	}
	c, err := f()
	if err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}
	d := &Device{c: c, free: map[int][]cuda.Ptr{}, cache: map[string]*tensor.Dense{}, graphs: map[uint64]*placedGraph{}}
	d.blas, d.noBLAS = openBLAS(c)
	open = d
	device.Register(backend{d})
	return d, nil
}

// Close frees the device's memory and closes it; ops run on the CPU again.
// Values on the device must not be used after Close.
func (d *Device) Close() error {
	if d == nil {
		return fmt.Errorf("gpu: Close of a nil device")
	}
	openMu.Lock()
	defer openMu.Unlock()
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return fmt.Errorf("gpu: device closed twice")
	}
	d.closed = true
	d.mu.Unlock()
	if open == d {
		open = nil
		device.Register(nil)
	}
	if ks := d.c.Profile(); ks != nil {
		fmt.Fprintf(os.Stderr, "gpu: where %s's time went (%s=1; every call waited for):\n", d.c.Name(), cuda.ProfileEnv)
		cuda.WriteProfile(os.Stderr, ks)
	}
	var blasErr error
	if d.blas != nil {
		blasErr = d.blas.Close()
	}
	if err := d.c.Close(); err != nil {
		return err
	}
	return blasErr
}

// blasEnv is the environment variable that, set to 0, keeps dense
// products on gnn's kernels where cuBLAS would compute them.
const blasEnv = "GNN_CUBLAS"

// openBLAS returns a cuBLAS handle on c, or nil and why there is none:
// the emulator, blasEnv=0, no library, or cuBLAS failing to start.
func openBLAS(c *cuda.Context) (*cublas.Handle, string) {
	if os.Getenv(blasEnv) == "0" {
		return nil, blasEnv + "=0"
	}
	h, err := cublas.New(c)
	if err != nil {
		return nil, strings.TrimPrefix(err.Error(), "cublas: ")
	}
	return h, ""
}

// BLAS says what computes d's dense products (the matrix products of
// layers and their gradients): "cuBLAS (libcublas.so.12)" on a GPU where
// the library loads, else "kernels (no cuBLAS: ...)" with the reason.
func (d *Device) BLAS() string {
	if d.blas != nil {
		return "cuBLAS (" + d.blas.Library() + ")"
	}
	return "kernels (no cuBLAS: " + d.noBLAS + ")"
}

// Name returns the GPU's name, or "emulator".
func (d *Device) Name() string { return d.c.Name() }

// Emulated reports whether d is the emulator.
func (d *Device) Emulated() bool { return d.c.Emulated() }

// Stats returns the traffic since Open or ResetStats.
func (d *Device) Stats() Stats {
	s := d.c.Stats()
	return Stats{HostToDevice: s.HostToDevice, DeviceToHost: s.DeviceToHost, DeviceToDevice: s.DeviceToDevice, Launches: s.Launches}
}

// ResetStats sets the counters of Stats to zero.
func (d *Device) ResetStats() { d.c.ResetStats() }

// alloc returns device memory of n bytes, recycled when possible, kept
// until Recycle (step) or Close (pinned).
func (d *Device) alloc(n int, pinned bool) (cuda.Ptr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return 0, fmt.Errorf("gpu: device is closed")
	}
	var p cuda.Ptr
	if l := d.free[n]; len(l) > 0 {
		p, d.free[n] = l[len(l)-1], l[:len(l)-1]
	} else {
		var err error
		if p, err = d.c.Alloc(n); err != nil {
			return 0, err
		}
	}
	if pinned {
		d.pinned = append(d.pinned, block{p, n})
	} else {
		d.step = append(d.step, block{p, n})
	}
	return p, nil
}

// Recycle ends a step: the memory of every value the ops made since the
// last Recycle is reused by later ones. Values of the step must not be
// used after it (train.Fit calls it before each run of its machines).
func (d *Device) Recycle() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, b := range d.step {
		d.free[b.bytes] = append(d.free[b.bytes], b.p)
	}
	d.step = d.step[:0]
	return nil
}

// memory is the tensor engine through which a *tensor.Dense gets device
// memory at construction: not natively accessible, manually managed.
type memory struct {
	d      *Device
	pinned bool
}

type deviceMem struct {
	p cuda.Ptr
	n int
}

func (m deviceMem) Uintptr() uintptr { return uintptr(m.p) }
func (m deviceMem) MemSize() uintptr { return uintptr(m.n) }

func (m memory) AllocAccessible() bool { return false }
func (m memory) NonStdAlloc()          {}
func (m memory) Alloc(size int64) (tensor.Memory, error) {
	p, err := m.d.alloc(int(size), m.pinned)
	return deviceMem{p, int(size)}, err
}
func (m memory) Free(tensor.Memory, int64) error { return nil } // Recycle and Close free
func (m memory) Memset(mem tensor.Memory, v any) error {
	return fmt.Errorf("gpu: Memset of device memory is not supported")
}
func (m memory) Memclr(mem tensor.Memory) {
	_ = m.d.c.Zero(cuda.Ptr(mem.Uintptr()), int(mem.MemSize()))
}
func (m memory) Memcpy(dst, src tensor.Memory) error {
	return m.d.c.CopyDevice(cuda.Ptr(dst.Uintptr()), cuda.Ptr(src.Uintptr()), int(min(dst.MemSize(), src.MemSize())))
}
func (m memory) Accessible(mem tensor.Memory) (tensor.Memory, error) {
	return nil, fmt.Errorf("gpu: device memory is not accessible from the host; copy it with ToHost")
}
func (m memory) WorksWith(order tensor.DataOrder) bool { return true }

// newTensor returns a device tensor of dt and shape.
func (d *Device) newTensor(dt tensor.Dtype, shape tensor.Shape, pinned bool) (t *tensor.Dense, err error) {
	if dt != tensor.Float32 && dt != tensor.Float64 && dt != tensor.Int32 {
		return nil, fmt.Errorf("gpu: device tensors of %v are not supported", dt)
	}
	if shape.TotalSize() == 0 {
		return nil, fmt.Errorf("gpu: device tensor of shape %v holds no elements", shape)
	}
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("gpu: allocating a %v tensor of shape %v: %v", dt, shape, r)
		}
	}()
	return tensor.New(tensor.WithEngine(memory{d, pinned}), tensor.Of(dt), tensor.WithShape(shape...)), nil
}

// ptr returns the device address of a device tensor.
func ptr(t *tensor.Dense) cuda.Ptr { return cuda.Ptr(t.Uintptr()) }

// bytesOf returns the size of t's elements in bytes.
func bytesOf(t *tensor.Dense) int { return t.Shape().TotalSize() * int(t.Dtype().Size()) }

// hostPointer returns the address of the first element of host data: a
// []float32, []float64 or []int32 of n elements.
func hostPointer(data any) (unsafe.Pointer, int, tensor.Dtype, error) {
	switch s := data.(type) {
	case []float32:
		if len(s) > 0 {
			return unsafe.Pointer(&s[0]), len(s), tensor.Float32, nil
		}
	case []float64:
		if len(s) > 0 {
			return unsafe.Pointer(&s[0]), len(s), tensor.Float64, nil
		}
	case []int32:
		if len(s) > 0 {
			return unsafe.Pointer(&s[0]), len(s), tensor.Int32, nil
		}
	default:
		return nil, 0, tensor.Dtype{}, fmt.Errorf("gpu: cannot copy %T to the device", data)
	}
	return nil, 0, tensor.Dtype{}, fmt.Errorf("gpu: no elements to copy")
}

// upload returns a device copy of host data of shape.
func (d *Device) upload(data any, shape tensor.Shape, pinned bool) (*tensor.Dense, error) {
	p, n, dt, err := hostPointer(data)
	if err != nil {
		return nil, err
	}
	if n < shape.TotalSize() {
		return nil, fmt.Errorf("gpu: %d elements for shape %v", n, shape)
	}
	t, err := d.newTensor(dt, shape, pinned)
	if err != nil {
		return nil, err
	}
	return t, d.c.CopyToDevice(ptr(t), p, bytesOf(t))
}

// hostData returns the elements of a host tensor, materialising a view.
func hostData(h *tensor.Dense) (any, error) {
	if device.On(h) {
		return nil, fmt.Errorf("gpu: the tensor is on the device already")
	}
	if h.IsView() {
		h = h.Materialize().(*tensor.Dense)
	}
	if h.Shape().IsScalar() || h.Shape().TotalSize() == 0 {
		return nil, fmt.Errorf("gpu: cannot place a tensor of shape %v", h.Shape())
	}
	return h.Data(), nil
}

// Place returns a device copy of the host tensor t (features, labels),
// kept until Close.
func (d *Device) Place(t *tensor.Dense) (*tensor.Dense, error) {
	if t == nil {
		return nil, fmt.Errorf("gpu: Place of a nil tensor")
	}
	data, err := hostData(t)
	if err != nil {
		return nil, err
	}
	return d.upload(data, t.Shape().Clone(), true)
}

// PlaceNode replaces the value of the input node n (features, a constant
// the model reads) by its copy on the device. Ops that read n then run on
// the device. A node already on the device is left as it is.
func (d *Device) PlaceNode(n *gorgonia.Node) error {
	if n == nil || n.Value() == nil {
		return fmt.Errorf("gpu: PlaceNode of a node without a value")
	}
	if device.On(n.Value()) {
		return nil
	}
	h, ok := n.Value().(*tensor.Dense)
	if !ok {
		return fmt.Errorf("gpu: node %q holds a %T, not a tensor", n.Name(), n.Value())
	}
	t, err := d.Place(h)
	if err != nil {
		return fmt.Errorf("gpu: node %q: %w", n.Name(), err)
	}
	if err := gorgonia.Let(n, t); err != nil {
		return fmt.Errorf("gpu: node %q: %w", n.Name(), err)
	}
	return nil
}

// ToHost returns a host copy of a device value; a host value is returned
// as it is.
func (d *Device) ToHost(v gorgonia.Value) (*tensor.Dense, error) {
	t, ok := v.(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("gpu: ToHost of a %T", v)
	}
	if !device.On(t) {
		return t, nil
	}
	h := tensor.New(tensor.Of(t.Dtype()), tensor.WithShape(t.Shape().Clone()...))
	p, _, _, err := hostPointer(h.Data())
	if err != nil {
		return nil, err
	}
	return h, d.c.CopyToHost(p, ptr(t), bytesOf(t))
}

// PlaceGraph uploads g's structure for the graph kernels, once: later
// calls, and the ops that aggregate over g, use the cached copy. An op
// over a graph that was not placed places it on first use.
func (d *Device) PlaceGraph(g *graph.Graph) error {
	_, err := d.graph(g)
	return err
}

// Bind prepares a TapeMachine that the caller drives itself (train.Fit
// needs no call) for device values: it gives the machine's outputs an
// engine whose Add runs on d, so that Gorgonia's sums of a node's
// gradients stay on the device. Build the machine without
// gorgonia.BindDualValues, read the gradients from the nodes gorgonia.Grad
// returned, and call Recycle before each RunAll.
func (d *Device) Bind(vm gorgonia.VM) error {
	if err := device.Bind(vm, device.Engine{B: backend{d}}); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	return nil
}
