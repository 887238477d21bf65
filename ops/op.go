package ops

import (
	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/internal/ops/opkit"
)

// The Gorgonia ops of this package are opkit Specs: a struct of static
// configuration (graph, shapes, constants) with a name, a hash key, shapes,
// Do and, for a forward op, Grad, which builds its gradient from separate
// backward ops (a backward op has no Grad).

// apply adds the op of s to the expression graph of its inputs.
func apply(s opkit.Spec, inputs ...*gorgonia.Node) (*gorgonia.Node, error) {
	return opkit.Apply("ops", s, inputs...)
}
