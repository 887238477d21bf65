package train

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/ops/device"
	"github.com/gnngo/gnn/nn"
)

// onDevice returns the registered device backend when a value of eg lives
// on the device (features placed with package gpu), else nil: Fit then
// trains on the device.
func onDevice(eg *gorgonia.ExprGraph) device.Backend {
	b := device.Current()
	if b == nil {
		return nil
	}
	for _, n := range eg.AllNodes() {
		if v := n.Value(); v != nil && device.On(v) {
			return b
		}
	}
	return nil
}

// deviceRun trains on the device: its tape machines give their outputs
// the device engine (Gorgonia's gradient sums run there), each run starts
// by recycling the previous run's device values, and the gradients, read
// from the gradient nodes, step a device.Adam per group when the
// parameters live on the device, else are copied to the host for the
// solvers (dual values would add them on the host).
type deviceRun struct {
	b     device.Backend
	grads gorgonia.Nodes // one per parameter, in parameter order

	t        *Task
	all      gorgonia.Nodes // the parameters
	vm, eval gorgonia.VM
	solvers  []gorgonia.Solver // for parameters on the host

	// params says the parameters live on the device (all of them): the
	// optimiser then steps there, one device.Adam per group.
	params bool
	adam   []*device.Adam
}

func newDeviceRun(b device.Backend, t *Task, params, grads gorgonia.Nodes, lr float64) (*deviceRun, error) {
	d := &deviceRun{b: b, grads: grads, t: t, all: params}
	if err := d.placeParams(params, t.Groups, lr); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	if !d.params {
		d.solvers = newSolvers(t.Groups, lr)
	}
	eg := t.Loss.Graph()
	d.vm = gorgonia.NewTapeMachine(eg.SubgraphRoots(append(gorgonia.Nodes{t.Loss}, grads...)...))
	machines := []gorgonia.VM{d.vm}
	if t.Logits != nil { // a Stepper's task may have none
		d.eval = gorgonia.NewTapeMachine(eg.SubgraphRoots(t.Logits))
		machines = append(machines, d.eval)
	}
	for _, m := range machines {
		if err := d.bind(m); err != nil {
			d.close()
			return nil, fmt.Errorf("train: %w", err)
		}
	}
	return d, nil
}

func (d *deviceRun) forward() (float64, error) {
	d.vm.Reset()
	if err := d.start(); err != nil {
		return 0, err
	}
	if err := d.vm.RunAll(); err != nil {
		return 0, err
	}
	return scalar(d.t.Loss.Value()), nil
}

func (d *deviceRun) step() error {
	off := 0
	for i, g := range d.t.Groups {
		if d.params {
			if err := d.adamStep(i, g, off); err != nil {
				return fmt.Errorf("optimiser: %w", err)
			}
			off += len(g.Params)
			continue
		}
		model, err := d.valueGrads(g.Params, off)
		if err != nil {
			return err
		}
		off += len(g.Params)
		if err := d.solvers[i].Step(model); err != nil {
			return fmt.Errorf("optimiser: %w", err)
		}
	}
	return nil
}

func (d *deviceRun) evaluate(e *Epoch) error { return evaluate(d.eval, d.t, d, e) }

func (d *deviceRun) snapshot() (saved, error) {
	if d.params {
		return d.snapshotDevice(d.all)
	}
	return snapshot(d.all)
}

func (d *deviceRun) close() {
	nn.CloseVM(d.vm)
	if d.eval != nil {
		nn.CloseVM(d.eval)
	}
}

// placeParams checks that the parameters are all on the host or all on
// the device and, on the device, makes each group's optimiser.
func (d *deviceRun) placeParams(params gorgonia.Nodes, groups []Group, lr float64) error {
	on, err := device.Placed(params)
	if !on || err != nil {
		return err
	}
	d.params = true
	for _, g := range groups {
		a, err := device.NewAdam(d.b, g.Params, lr, g.WeightDecay)
		if err != nil {
			return err
		}
		d.adam = append(d.adam, a)
	}
	return nil
}

// adamStep steps group gi's optimiser with the gradients of its
// parameters (which start at parameter index off).
func (d *deviceRun) adamStep(gi int, g Group, off int) error {
	return d.adam[gi].StepNodes(d.grads[off : off+len(g.Params)])
}

// deviceWeights is a copy of parameters placed on the device, kept there.
type deviceWeights struct {
	b      device.Backend
	params gorgonia.Nodes
	saved  []*tensor.Dense
}

// snapshotDevice allocates a device copy of the parameters' values.
func (d *deviceRun) snapshotDevice(params gorgonia.Nodes) (saved, error) {
	w := &deviceWeights{b: d.b, params: params}
	for _, p := range params {
		v := p.Value().(*tensor.Dense)
		s, err := d.b.Keep(v.Dtype(), v.Shape().Clone())
		if err != nil {
			return nil, err
		}
		w.saved = append(w.saved, s)
	}
	return w, nil
}

func (w *deviceWeights) take() error {
	for i, p := range w.params {
		if err := w.b.Copy(w.saved[i], p.Value().(*tensor.Dense)); err != nil {
			return err
		}
	}
	return nil
}

func (w *deviceWeights) restore() error {
	for i, p := range w.params {
		if err := w.b.Copy(p.Value().(*tensor.Dense), w.saved[i]); err != nil {
			return err
		}
	}
	return nil
}

// bind prepares a machine to run device values.
func (d *deviceRun) bind(vm gorgonia.VM) error {
	return device.Bind(vm, device.Engine{B: d.b})
}

// start begins a run: the previous run's device values are dead.
func (d *deviceRun) start() error { return d.b.Recycle() }

// valueGrads returns params (starting at parameter index off) with their
// gradients copied to the host.
func (d *deviceRun) valueGrads(params gorgonia.Nodes, off int) ([]gorgonia.ValueGrad, error) {
	return device.HostGrads(d.b, params, d.grads[off:off+len(params)])
}

// metrics fills in e's accuracies and validation loss from logits on the
// device, computed there: per split a flag per node and their sum, and the
// validation loss's terms and their sum cross, not the logits.
func (d *deviceRun) metrics(v gorgonia.Value, t *Task, e *Epoch) error {
	logits, ok := v.(*tensor.Dense)
	if !ok || !device.On(logits) {
		return metrics(v, t, e)
	}
	s := logits.Shape()
	if len(s) != 2 || len(t.Labels) != s[0] {
		return fmt.Errorf("logits of shape %v for %d labels", s, len(t.Labels))
	}
	labels, err := d.ints(t.Labels)
	if err != nil {
		return err
	}
	for _, a := range []struct {
		dst   *float64
		nodes []int32
	}{{&e.TrainAcc, t.Train}, {&e.ValAcc, t.Val}, {&e.TestAcc, t.Test}} {
		for i, v := range a.nodes {
			if v < 0 || int(v) >= s[0] || t.Labels[v] < 0 || int(t.Labels[v]) >= s[1] {
				return fmt.Errorf("nodes[%d] = %d is out of range or has a bad label", i, v)
			}
		}
		nodes, err := d.ints(a.nodes)
		if err != nil {
			return err
		}
		correct, err := d.b.Alloc(tensor.Float64, tensor.Shape{len(a.nodes)})
		if err != nil {
			return err
		}
		if err := d.b.Accuracy(correct, logits, labels, nodes, s[1]); err != nil {
			return err
		}
		n, err := d.b.Sum(correct)
		if err != nil {
			return err
		}
		*a.dst = n / float64(len(a.nodes))
	}
	val, err := d.ints(t.Val)
	if err != nil {
		return err
	}
	terms, err := d.b.Alloc(tensor.Float64, tensor.Shape{len(t.Val)})
	if err != nil {
		return err
	}
	if err := d.b.CrossEntropy(terms, logits, labels, val, s[1], 1/float64(len(t.Val))); err != nil {
		return err
	}
	sum, err := d.b.Sum(terms)
	e.ValLoss = -sum
	return err
}

// ints returns a device copy of x, uploaded once per content.
func (d *deviceRun) ints(x []int32) (*tensor.Dense, error) {
	h := fnv.New64a()
	binary.Write(h, binary.LittleEndian, x)
	key := fmt.Sprintf("train.ints/%d/%x", len(x), h.Sum64())
	return d.b.Cached(key, tensor.Shape{len(x)}, func() any { return x })
}
