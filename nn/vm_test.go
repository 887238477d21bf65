package nn_test

import (
	"runtime"
	"testing"
	"weak"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
)

// runDropped builds and runs a machine on a graph of its own, closes it
// with close and returns a weak pointer to the tensor it computed.
func runDropped(t *testing.T, close func(gorgonia.VM) error) weak.Pointer[tensor.Dense] {
	t.Helper()
	eg := gorgonia.NewGraph()
	x := gorgonia.NodeFromAny(eg, tensor.New(tensor.WithShape(64, 64), tensor.Of(tensor.Float64)), gorgonia.WithName("x"))
	y, err := gorgonia.Add(x, x)
	if err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	out := y.Value().(*tensor.Dense)
	if err := close(vm); err != nil {
		t.Fatal(err)
	}
	return weak.Make(out)
}

// TestCloseVMFreesAtOnce checks that a machine closed by CloseVM and
// dropped is collected, with the values it computed, by the next
// collection; with Gorgonia's own Close its finalizer keeps them one
// collection longer (which made a machine per mini-batch grow the heap
// without bound).
func TestCloseVMFreesAtOnce(t *testing.T) {
	w := runDropped(t, nn.CloseVM)
	runtime.GC()
	if w.Value() != nil {
		t.Fatal("a value computed by a machine closed with CloseVM survived a collection")
	}
	w = runDropped(t, func(vm gorgonia.VM) error { return vm.Close() })
	runtime.GC()
	if w.Value() == nil {
		t.Log("Gorgonia's Close alone freed the value at once: its finalizer no longer delays collection")
	}
}
