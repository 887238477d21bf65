package nn

import (
	"runtime"

	"gorgonia.org/gorgonia"
)

// CloseVM closes a Gorgonia machine and removes the finalizer Gorgonia
// sets on it. The finalizer does nothing on the CPU, but while it is set
// the garbage collector keeps the machine, and through it the expression
// graph and every value it computed, for one more cycle after the machine
// is dropped. A program that builds a machine per step (a mini-batch per
// step) then keeps every step's tensors since the last collection alive,
// the heap goal doubles with them, and the heap grows without bound;
// CloseVM lets a dropped machine be freed by the next collection.
func CloseVM(vm gorgonia.VM) error {
	err := vm.Close()
	runtime.SetFinalizer(vm, nil)
	return err
}
