package gradcheck

import (
	"fmt"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Dtypes are the dtypes everything is tested in.
var Dtypes = []tensor.Dtype{tensor.Float64, tensor.Float32}

// Input returns an input node of dtype dt (Float32 or Float64), name and
// shape holding vals, converted to dt.
func Input(eg *gorgonia.ExprGraph, dt tensor.Dtype, name string, shape []int, vals []float64) *gorgonia.Node {
	var backing any
	if dt == tensor.Float32 {
		f := make([]float32, len(vals))
		for i, x := range vals {
			f[i] = float32(x)
		}
		backing = f
	} else {
		backing = append([]float64{}, vals...)
	}
	v := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(backing))
	return gorgonia.NewTensor(eg, dt, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName(name), gorgonia.WithValue(v))
}

// Zeros returns an input node of dtype dt, name and shape holding zeros.
func Zeros(eg *gorgonia.ExprGraph, dt tensor.Dtype, name string, shape ...int) *gorgonia.Node {
	return Input(eg, dt, name, shape, make([]float64, tensor.Shape(shape).TotalSize()))
}

// Floats returns a copy of a value's elements as float64. It panics on a
// value that is not float32 or float64.
func Floats(v gorgonia.Value) []float64 {
	switch d := v.Data().(type) {
	case []float64:
		return append([]float64{}, d[:v.Size()]...)
	case []float32:
		out := make([]float64, v.Size())
		for i := range out {
			out[i] = float64(d[i])
		}
		return out
	case float64:
		return []float64{d}
	case float32:
		return []float64{float64(d)}
	}
	panic(fmt.Sprintf("gradcheck: value data %T", v.Data()))
}

// Values returns the current values of nodes as float64, running nothing:
// for parameters and inputs.
func Values(nodes gorgonia.Nodes) [][]float64 {
	out := make([][]float64, len(nodes))
	for i, n := range nodes {
		out[i] = Floats(n.Value())
	}
	return out
}

// SetElem overwrites element i of a node's value in place with x.
func SetElem(n *gorgonia.Node, i int, x float64) {
	switch d := n.Value().Data().(type) {
	case []float64:
		d[i] = x
	case []float32:
		d[i] = float32(x)
	default:
		panic(fmt.Sprintf("gradcheck: cannot set %T data", d))
	}
}

// Set overwrites the elements of a node's value in place with vals.
func Set(n *gorgonia.Node, vals []float64) {
	for i, x := range vals {
		SetElem(n, i, x)
	}
}

// Run evaluates the expression graph of the first node with a TapeMachine
// and returns the values of nodes.
func Run(t testing.TB, nodes ...*gorgonia.Node) [][]float64 {
	t.Helper()
	vm := gorgonia.NewTapeMachine(nodes[0].Graph())
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatalf("run: %v", err)
	}
	out := make([][]float64, len(nodes))
	for i, n := range nodes {
		out[i] = Floats(n.Value())
	}
	return out
}
