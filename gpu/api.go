package gpu

import (
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
)

// api is the method set of Device in both builds: with and without the
// gnncuda tag, so that code written against one compiles against the
// other (checked at compile time below).
type api interface {
	Close() error
	Name() string
	Emulated() bool
	PlaceGraph(g *graph.Graph) error
	Place(t *tensor.Dense) (*tensor.Dense, error)
	PlaceNode(n *gorgonia.Node) error
	ToHost(v gorgonia.Value) (*tensor.Dense, error)
	Recycle() error
	Stats() Stats
	ResetStats()
	Bind(vm gorgonia.VM) error
}

var (
	_ api                        = (*Device)(nil)
	_ func(int) (*Device, error) = Open
	_ func() (*Device, error)    = OpenEmulator
)
