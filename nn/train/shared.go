package train

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn/vm"
)

// Shared holds a model's parameter values and its optimiser's state across
// the expression graphs of mini-batches. A batch's graph has its own shapes
// (every batch samples different blocks), so each batch builds its model
// afresh on a new expression graph; Bind then points the new parameter
// nodes at the shared tensors, and Step differentiates the batch's loss,
// runs it and moves the shared values by one Adam step. Parameters are
// matched by name, so a model must name its parameters the same way on
// every graph (layers built in the same order get the same default names).
type Shared struct {
	names  []string
	index  map[string]int
	values []*tensor.Dense
	solver gorgonia.Solver
}

// NewShared returns an empty Shared whose optimiser is Adam with the given
// learning rate and L2 weight decay (0 for none).
func NewShared(learningRate, weightDecay float64) (*Shared, error) {
	if !(learningRate > 0) || math.IsInf(learningRate, 0) {
		return nil, fmt.Errorf("train: learning rate %v, want a positive finite number", learningRate)
	}
	if !(weightDecay >= 0) || math.IsInf(weightDecay, 0) {
		return nil, fmt.Errorf("train: weight decay %v, want a finite number >= 0", weightDecay)
	}
	return &Shared{index: map[string]int{}, solver: newAdamSolver(learningRate, weightDecay)}, nil
}

// Bind makes every node of params hold the shared value of its name. A
// name seen for the first time adopts the node's own value (the layer's
// initialisation); a known name must have the same dtype and shape.
func (s *Shared) Bind(params gorgonia.Nodes) error {
	for _, p := range params {
		v, ok := p.Value().(*tensor.Dense)
		if !ok {
			return fmt.Errorf("train: parameter %q holds %T, want a dense tensor", p.Name(), p.Value())
		}
		i, known := s.index[p.Name()]
		if !known {
			s.index[p.Name()] = len(s.names)
			s.names = append(s.names, p.Name())
			s.values = append(s.values, v)
			continue
		}
		w := s.values[i]
		if w.Dtype() != v.Dtype() || !w.Shape().Eq(v.Shape()) {
			return fmt.Errorf("train: parameter %q is %v %v on this graph but %v %v in the shared model", p.Name(), v.Dtype(), v.Shape(), w.Dtype(), w.Shape())
		}
		if v == w {
			continue
		}
		if err := gorgonia.Let(p, w); err != nil {
			return fmt.Errorf("train: binding parameter %q: %w", p.Name(), err)
		}
	}
	return nil
}

// Value returns the shared tensor of the parameter name, or nil when no
// parameter of that name is bound yet. It is an nn.Values: a model that
// takes its initial values from it on every rebuild (sage.Stack's Values)
// draws no initialisation that Bind would discard.
func (s *Shared) Value(name string) *tensor.Dense {
	if i, ok := s.index[name]; ok {
		return s.values[i]
	}
	return nil
}

// Names returns the names of the shared parameters, in the order they were
// first bound.
func (s *Shared) Names() []string { return slices.Clone(s.names) }

// Nodes returns the shared parameters as nodes of a graph of their own,
// holding the shared tensors: for nn.SaveParams and nn.LoadParams, which
// read and write the values in place.
func (s *Shared) Nodes() gorgonia.Nodes {
	eg := gorgonia.NewGraph()
	ns := make(gorgonia.Nodes, len(s.names))
	for i, name := range s.names {
		ns[i] = gorgonia.NodeFromAny(eg, s.values[i], gorgonia.WithName(name))
	}
	return ns
}

// Step differentiates loss (a scalar of the graph params belong to) with
// respect to params, which must all be bound and must be every shared
// parameter, runs the graph's loss, gradients and the extra nodes asked
// for, then applies one optimiser step to the shared values. It returns the
// loss.
func (s *Shared) Step(loss *gorgonia.Node, params gorgonia.Nodes, extra ...*gorgonia.Node) (float64, error) {
	var prep time.Duration
	return s.step(loss, params, extra, &prep)
}

// step is Step, adding the time spent differentiating and compiling (the
// per-graph cost) to prep.
func (s *Shared) step(loss *gorgonia.Node, params, extra gorgonia.Nodes, prep *time.Duration) (float64, error) {
	t0 := time.Now()
	if len(params) != len(s.names) {
		return 0, fmt.Errorf("train: step over %d parameters, the shared model has %d", len(params), len(s.names))
	}
	// The solver keeps its state by position: order the parameters as they
	// were first bound.
	ordered := make(gorgonia.Nodes, len(params))
	for _, p := range params {
		i, ok := s.index[p.Name()]
		if !ok || ordered[i] != nil {
			return 0, fmt.Errorf("train: parameter %q is not bound or given twice", p.Name())
		}
		ordered[i] = p
	}
	grads, err := gorgonia.Grad(loss, ordered...)
	if err != nil {
		return 0, fmt.Errorf("train: gradients: %w", err)
	}
	roots := append(append(gorgonia.Nodes{loss}, extra...), grads...)
	m, err := vm.New(roots)
	if err != nil {
		return 0, err
	}
	defer m.Close()
	*prep += time.Since(t0)
	if err := m.RunAll(); err != nil {
		return 0, err
	}
	l := scalar(loss.Value())
	if math.IsNaN(l) || math.IsInf(l, 0) {
		return l, fmt.Errorf("train: the loss is %v: the run diverged (lower the learning rate?)", l)
	}
	model, err := m.ValueGrads(ordered, grads)
	if err != nil {
		return l, err
	}
	if err := s.solver.Step(model); err != nil {
		return l, fmt.Errorf("train: optimiser: %w", err)
	}
	for i, p := range ordered {
		// Adam updates in place; keep whatever tensor the node holds now.
		if v, ok := p.Value().(*tensor.Dense); ok && v != s.values[i] {
			s.values[i] = v
		}
	}
	return l, nil
}
