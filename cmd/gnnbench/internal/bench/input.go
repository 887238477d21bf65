package bench

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
)

// input is a model's input features on an expression graph: exactly one of
// dense (N x F) and sparse is set.
type input struct {
	dense  *gorgonia.Node
	sparse *nn.Sparse
}

// newInput adds d's features to eg in their form.
func newInput(eg *gorgonia.ExprGraph, d *Data) (input, error) {
	if f := d.Sparse; f != nil {
		s, err := nn.NewSparse(eg, "features", f.Rows, f.Cols, f.Indptr, f.Indices, f.Values)
		return input{sparse: s}, err
	}
	n := d.Graph.NumSrc()
	if len(d.Dense) != n*d.Feat {
		return input{}, fmt.Errorf("bench: %d dense feature values for %d nodes of %d features", len(d.Dense), n, d.Feat)
	}
	v := tensor.New(tensor.WithShape(n, d.Feat), tensor.WithBacking(d.Dense))
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(n, d.Feat), gorgonia.WithName("features"), gorgonia.WithValue(v))
	return input{dense: x}, nil
}

// dropout applies dropout with probability p (none when p is 0); sparse
// features drop non-zero values.
func (in input) dropout(p float64, seed uint64, mode *nn.Mode) (input, error) {
	if p == 0 {
		return in, nil
	}
	if in.sparse != nil {
		s, err := in.sparse.Dropout(p, seed, mode)
		return input{sparse: s}, err
	}
	x, err := nn.Dropout(in.dense, p, seed, mode)
	return input{dense: x}, err
}

// matmul returns x W.
func (in input) matmul(w *gorgonia.Node) (*gorgonia.Node, error) {
	if in.sparse != nil {
		return in.sparse.MatMul(w)
	}
	return gorgonia.Mul(in.dense, w)
}

// param returns the parameter of ps whose name ends in suffix.
func param(ps gorgonia.Nodes, suffix string) (*gorgonia.Node, error) {
	for _, p := range ps {
		if n := p.Name(); len(n) >= len(suffix) && n[len(n)-len(suffix):] == suffix {
			return p, nil
		}
	}
	return nil, fmt.Errorf("bench: no parameter named *%s", suffix)
}
