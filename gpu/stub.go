//go:build !gnncuda

package gpu

import (
	"errors"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
)

// ErrNotBuilt is the error of every function of the stub: the binary was
// built without the gnncuda tag.
var ErrNotBuilt = errors.New("gpu: this binary was built without -tags gnncuda: no GPU support")

// Device is an open GPU or emulator. In this build none can be opened.
type Device struct{}

// Open returns ErrNotBuilt.
func Open(ordinal int) (*Device, error) { return nil, ErrNotBuilt }

// OpenEmulator returns ErrNotBuilt.
func OpenEmulator() (*Device, error) { return nil, ErrNotBuilt }

// Close returns ErrNotBuilt.
func (d *Device) Close() error { return ErrNotBuilt }

// Name returns "none".
func (d *Device) Name() string { return "none" }

// BLAS returns "none".
func (d *Device) BLAS() string { return "none" }

// Emulated reports false.
func (d *Device) Emulated() bool { return false }

// PlaceGraph returns ErrNotBuilt.
func (d *Device) PlaceGraph(g *graph.Graph) error { return ErrNotBuilt }

// Place returns ErrNotBuilt.
func (d *Device) Place(t *tensor.Dense) (*tensor.Dense, error) { return nil, ErrNotBuilt }

// PlaceNode returns ErrNotBuilt.
func (d *Device) PlaceNode(n *gorgonia.Node) error { return ErrNotBuilt }

// ToHost returns ErrNotBuilt.
func (d *Device) ToHost(v gorgonia.Value) (*tensor.Dense, error) { return nil, ErrNotBuilt }

// Recycle returns ErrNotBuilt.
func (d *Device) Recycle() error { return ErrNotBuilt }

// Stats returns zeros.
func (d *Device) Stats() Stats { return Stats{} }

// ResetStats does nothing.
func (d *Device) ResetStats() {}

// Bind returns ErrNotBuilt.
func (d *Device) Bind(vm gorgonia.VM) error { return ErrNotBuilt }
