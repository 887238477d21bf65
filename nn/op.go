package nn

import (
	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/internal/ops/opkit"
)

// The Gorgonia ops of this package are opkit Specs, as those of package
// ops: a forward op builds its gradient from separate backward ops.

// apply adds the op of s to the expression graph of its inputs.
func apply(s opkit.Spec, inputs ...*gorgonia.Node) (*gorgonia.Node, error) {
	return opkit.Apply("nn", s, inputs...)
}
