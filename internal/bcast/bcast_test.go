package bcast

import (
	"reflect"
	"testing"
)

func TestNew(t *testing.T) {
	cases := []struct {
		name     string
		lhs, rhs []int
		dot      bool
		out      []int
		lhsOff   []int
		rhsOff   []int
		trivial  bool
		reduce   int
	}{
		{name: "same", lhs: []int{2, 3}, rhs: []int{2, 3}, out: []int{2, 3}, trivial: true, reduce: 1},
		{name: "scalar-rhs", lhs: []int{3}, rhs: []int{1}, out: []int{3}, lhsOff: []int{0, 1, 2}, rhsOff: []int{0, 0, 0}, reduce: 1},
		{name: "empty-rhs", lhs: []int{3}, rhs: []int{}, out: []int{3}, lhsOff: []int{0, 1, 2}, rhsOff: []int{0, 0, 0}, reduce: 1},
		{name: "heads", lhs: []int{2, 2}, rhs: []int{2, 1}, out: []int{2, 2}, lhsOff: []int{0, 1, 2, 3}, rhsOff: []int{0, 0, 1, 1}, reduce: 1},
		{name: "outer", lhs: []int{2, 1}, rhs: []int{1, 3}, out: []int{2, 3}, lhsOff: []int{0, 0, 0, 1, 1, 1}, rhsOff: []int{0, 1, 2, 0, 1, 2}, reduce: 1},
		{name: "dot", lhs: []int{2, 3}, rhs: []int{2, 3}, dot: true, out: []int{2}, lhsOff: []int{0, 3}, rhsOff: []int{0, 3}, reduce: 3},
		{name: "dot-bcast", lhs: []int{2, 3}, rhs: []int{1, 3}, dot: true, out: []int{2}, lhsOff: []int{0, 3}, rhsOff: []int{0, 0}, reduce: 3},
		{name: "dot-vec", lhs: []int{4}, rhs: []int{4}, dot: true, out: []int{}, lhsOff: []int{0}, rhsOff: []int{0}, reduce: 4},
	}
	for _, c := range cases {
		p, err := New(c.lhs, c.rhs, c.dot)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(p.Out, c.out) || p.Trivial != c.trivial || p.ReduceLen != c.reduce {
			t.Errorf("%s: got out %v trivial %v reduce %d, want %v %v %d", c.name, p.Out, p.Trivial, p.ReduceLen, c.out, c.trivial, c.reduce)
		}
		if !c.trivial && (!reflect.DeepEqual(p.LhsOff, c.lhsOff) || !reflect.DeepEqual(p.RhsOff, c.rhsOff)) {
			t.Errorf("%s: got offsets %v %v, want %v %v", c.name, p.LhsOff, p.RhsOff, c.lhsOff, c.rhsOff)
		}
	}
}

func TestNewErrors(t *testing.T) {
	for _, c := range []struct {
		lhs, rhs []int
		dot      bool
	}{
		{[]int{2, 3}, []int{3, 3}, false},
		{[]int{3}, []int{4}, true},
		{[]int{}, []int{}, true},
		{[]int{-1}, []int{1}, false},
	} {
		if _, err := New(c.lhs, c.rhs, c.dot); err == nil {
			t.Errorf("New(%v, %v, %v): want error", c.lhs, c.rhs, c.dot)
		}
	}
}
