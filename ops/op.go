package ops

import (
	"fmt"

	"github.com/gnngo/gnn/internal/opkit"
)

// cpuOp holds the methods every gnn op shares (opkit.CPUOp).
type cpuOp = opkit.CPUOp

// noSecondOrder is the SymDiff of backward-only ops.
func noSecondOrder(name string) error {
	return fmt.Errorf("ops: %s is a backward op and is not differentiable", name)
}
