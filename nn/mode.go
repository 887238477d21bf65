package nn

import "sync/atomic"

// Mode switches a model between training and evaluation and numbers the
// training steps, so that stochastic ops (dropout) draw a new, reproducible
// mask every step and are the identity in evaluation. One Mode is shared by
// all the layers of a model; it is safe for concurrent use.
type Mode struct {
	eval atomic.Bool
	step atomic.Uint64
}

// NewMode returns a Mode in training, at step 0.
func NewMode() *Mode { return &Mode{} }

// Train switches to training.
func (m *Mode) Train() { m.eval.Store(false) }

// Eval switches to evaluation: dropout becomes the identity.
func (m *Mode) Eval() { m.eval.Store(true) }

// Training reports whether the mode is training.
func (m *Mode) Training() bool { return !m.eval.Load() }

// Next advances to the next training step; call it once before each run of
// the expression graph in training.
func (m *Mode) Next() { m.step.Add(1) }

// Step returns the current step number.
func (m *Mode) Step() uint64 { return m.step.Load() }
