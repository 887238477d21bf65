package vm_test

import (
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn/vm"
)

// TestPlanSharesSlots checks that values whose lives do not overlap share
// buffers, a smaller value in a larger one: x+x and its square (100
// floats each) go into the buffers that the two later products of 200
// need anyway, where handing out buffers first come first served would
// take two of 100 and two of 200.
func TestPlanSharesSlots(t *testing.T) {
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(10, 10), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Ones()))
	w := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(10, 20), gorgonia.WithName("w"), gorgonia.WithInit(gorgonia.Ones()))
	s1 := gorgonia.Must(gorgonia.Add(x, x))
	s2 := gorgonia.Must(gorgonia.HadamardProd(s1, s1))
	m1 := gorgonia.Must(gorgonia.Mul(s2, w))
	m2 := gorgonia.Must(gorgonia.Add(m1, m1))
	m, err := vm.New(gorgonia.Nodes{m2})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for range 3 {
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
	}
	if s := m.Stats(); s.Buffers != 2 || s.BufferBytes != 2*200*8 {
		t.Errorf("%+v: want 2 buffers of 200 float64", s)
	}
	// s2 = 4 everywhere, m1 = 4 * 10, m2 = 80.
	for i, v := range m2.Value().Data().([]float64) {
		if v != 80 {
			t.Fatalf("m2[%d] = %v, want 80", i, v)
		}
	}
}

// TestResetGivesBack checks that Reset hands the buffers of a run's kept
// values back to a shared pool: a second machine then runs in them
// instead of allocating its own.
func TestResetGivesBack(t *testing.T) {
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(10, 10), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Ones()))
	a := gorgonia.Must(gorgonia.Add(x, x))
	b := gorgonia.Must(gorgonia.HadamardProd(x, x))
	pool := vm.NewPool()
	ma, err := vm.New(gorgonia.Nodes{a}, vm.WithPool(pool))
	if err != nil {
		t.Fatal(err)
	}
	defer ma.Close()
	mb, err := vm.New(gorgonia.Nodes{b}, vm.WithPool(pool))
	if err != nil {
		t.Fatal(err)
	}
	defer mb.Close()
	for range 3 {
		if err := ma.RunAll(); err != nil {
			t.Fatal(err)
		}
		if v := a.Value().Data().([]float64)[0]; v != 2 {
			t.Fatalf("a = %v, want 2", v)
		}
		ma.Reset()
		if err := mb.RunAll(); err != nil {
			t.Fatal(err)
		}
		mb.Reset()
	}
	if s := pool.Stats(); s.Buffers != 1 {
		t.Errorf("pool %+v: want the one buffer both machines run in", s)
	}
}
