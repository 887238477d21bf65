package mp

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/ops"
	"github.com/gnngo/gnn/ops/fn"
)

// The user-defined functions below compute what the builtins compute, with
// dense Gorgonia ops on gathered rows and mailboxes: they are the reference
// the fused paths are checked against, as in DGL's test_ops.

// udfMessage returns an EdgeFunc computing the builtin message m. Operands
// of one shape combine elementwise; Dot keeps a trailing 1.
func udfMessage(m fn.Message) EdgeFunc {
	return func(b *EdgeBatch) (Fields, error) {
		get := func(t ops.Target, name string) (*gorgonia.Node, error) {
			switch t {
			case ops.U:
				return b.Src(name)
			case ops.V:
				return b.Dst(name)
			}
			return b.Data(name)
		}
		x, err := get(m.LHS, m.LHSField)
		if err != nil || m.IsCopy() {
			return Fields{m.Out: x}, err
		}
		y, err := get(m.RHS, m.RHSField)
		if err != nil {
			return nil, err
		}
		var z *gorgonia.Node
		switch m.Op {
		case ops.Add:
			z, err = gorgonia.Add(x, y)
		case ops.Sub:
			z, err = gorgonia.Sub(x, y)
		case ops.Mul:
			z, err = gorgonia.HadamardProd(x, y)
		case ops.Div:
			z, err = gorgonia.HadamardDiv(x, y)
		case ops.Dot:
			if z, err = gorgonia.HadamardProd(x, y); err == nil {
				s := z.Shape()
				if z, err = gorgonia.Sum(z, len(s)-1); err == nil {
					z, err = gorgonia.Reshape(z, append(s[:len(s)-1:len(s)-1], 1))
				}
			}
		default:
			return nil, fmt.Errorf("no UDF for %v", m)
		}
		return Fields{m.Out: z}, err
	}
}

// udfReducer returns a NodeFunc computing the builtin reducer r over the
// mailbox. Max, min and prod fold the mailbox columns in edge-ID order;
// MaxBetween's gradient goes to its first argument on ties, so ties go to
// the smallest edge ID, as in the fused kernels.
func udfReducer(r fn.Reducer) NodeFunc {
	return func(b *NodeBatch) (Fields, error) {
		mb, err := b.Mailbox(r.Msg)
		if err != nil {
			return nil, err
		}
		var x *gorgonia.Node
		switch r.Op {
		case fn.ReduceSum:
			x, err = gorgonia.Sum(mb, 1)
		case fn.ReduceMean:
			x, err = gorgonia.Mean(mb, 1)
		default:
			x, err = fold(mb, b.Degree(), r.Op)
		}
		return Fields{r.Out: x}, err
	}
}

// fold combines the d columns of a (nodes, d, features...) mailbox by max,
// min or product. Columns are gathered rather than sliced: Gorgonia's Slice
// returns a scalar value for a one-element result, which its other ops then
// reject.
func fold(mb *gorgonia.Node, d int, op fn.Reduction) (*gorgonia.Node, error) {
	s := mb.Shape()
	b, feat := s[0], []int(s[2:])
	flat, err := gorgonia.Reshape(mb, append([]int{b * d}, feat...))
	if err != nil {
		return nil, err
	}
	var acc *gorgonia.Node
	for j := range d {
		rows := make([]int64, b)
		for i := range rows {
			rows[i] = int64(i*d + j)
		}
		col, err := gather(flat, newIndex(rows, true), []int{b}, 0)
		if err != nil {
			return nil, err
		}
		if acc == nil {
			acc = col
			continue
		}
		switch op {
		case fn.ReduceMax:
			acc, err = gorgonia.MaxBetween(acc, col)
		case fn.ReduceMin:
			acc, err = gorgonia.MinBetween(acc, col)
		default:
			acc, err = gorgonia.HadamardProd(acc, col)
		}
		if err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// allMessages returns every builtin message: copies of u, v and e, and
// x_OP_y for every pair of targets and operator. Left operands are named
// "a" and right ones "b", followed by the target.
func allMessages() []fn.Message {
	targets := []ops.Target{ops.U, ops.V, ops.E}
	var out []fn.Message
	for _, t := range targets {
		out = append(out, fn.Copy(t, "a"+t.String(), "m"))
	}
	for _, l := range targets {
		for _, op := range []ops.Binary{ops.Add, ops.Sub, ops.Mul, ops.Div, ops.Dot} {
			for _, r := range targets {
				out = append(out, fn.Binary(op, l, "a"+l.String(), r, "b"+r.String(), "m"))
			}
		}
	}
	return out
}

var reducers = []func(msg, out string) fn.Reducer{fn.Sum, fn.Mean, fn.Max, fn.Min, fn.Prod}

// inputsOf returns the fields message m reads, with feature shape feat.
func inputsOf(m fn.Message, feat []int) []input {
	in := []input{{name: m.LHSField, at: m.LHS, shape: feat}}
	if !m.IsCopy() {
		in = append(in, input{name: m.RHSField, at: m.RHS, shape: feat})
	}
	return in
}

// updateAll returns a program running UpdateAll(msg, red) and returning
// destination field out.
func updateAll(msg MessageFunc, red ReduceFunc, out string) program {
	return func(f *Frame) (*gorgonia.Node, error) {
		if err := f.UpdateAll(msg, red, nil); err != nil {
			return nil, err
		}
		return f.DstData().Get(out)
	}
}
