package layertest

import (
	"fmt"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
)

// ExpectError runs call as subtest name: it must fail with an error that
// contains want and starts with prefix (a package's "name: ").
func ExpectError[T any](t *testing.T, name, prefix, want string, call func() (T, error)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		got, err := call()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, %v; want an error containing %q", got, err, want)
		}
		if !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("error %q lacks the prefix %q", err, prefix)
		}
	})
}

// NewCase is a call of a layer's constructor that must fail; see Bad.
type NewCase[O any] struct {
	name, want string
	in, out    int
	opts       []O
}

// Bad is the case name of NewErrors: building a layer from in to out
// features with opts must fail with an error containing want.
func Bad[O any](name, want string, in, out int, opts ...O) NewCase[O] {
	return NewCase[O]{name: name, want: want, in: in, out: out, opts: opts}
}

// NewErrors checks that newLayer, a layer's constructor, rejects a nil
// expression graph, sizes that are not positive, and every case (built in
// eg), each with an error that contains what the case wants and starts with
// prefix.
func NewErrors[O, L any](t *testing.T, prefix string, newLayer func(*gorgonia.ExprGraph, int, int, ...O) (L, error), eg *gorgonia.ExprGraph, cases ...NewCase[O]) {
	t.Helper()
	ExpectError(t, "nil-graph", prefix, "nil expression graph", func() (L, error) { return newLayer(nil, 2, 2) })
	sizes := []NewCase[O]{
		Bad[O]("zero-in", "must be positive", 0, 2),
		Bad[O]("negative-in", "must be positive", -1, 2),
		Bad[O]("zero-out", "must be positive", 2, 0),
		Bad[O]("negative-out", "must be positive", 2, -1),
	}
	for _, c := range append(sizes, cases...) {
		ExpectError(t, c.name, prefix, c.want, func() (L, error) { return newLayer(eg, c.in, c.out, c.opts...) })
	}
}

// ForwardErrors checks the Forward errors every layer shares, for l, a
// float32 layer in eg from in features, on g: a nil graph, nil features,
// features with a column or a row too many or of dtype float64, and edge
// weights that are nil, of dtype float64, or with a row too many (which must
// fail with an error containing weightRows), each with an error that starts
// with prefix. It returns the well-formed features x it used, for the
// layer's own cases.
func ForwardErrors(t *testing.T, prefix string, eg *gorgonia.ExprGraph, g *graph.Graph, l Layer, in int, weightRows string) (x *gorgonia.Node) {
	t.Helper()
	n := g.NumSrc()
	x = gradcheck.Zeros(eg, tensor.Float32, "x", n, in)
	shape := fmt.Sprintf("want (%d, %d)", n, in)
	forward := func(x *gorgonia.Node) func() (*gorgonia.Node, error) {
		return func() (*gorgonia.Node, error) { return l.Forward(g, x) }
	}
	ExpectError(t, "nil-graph", prefix, "needs a graph", func() (*gorgonia.Node, error) { return l.Forward(nil, x) })
	ExpectError(t, "nil-features", prefix, "needs a graph", forward(nil))
	ExpectError(t, "columns", prefix, shape, forward(gradcheck.Zeros(eg, tensor.Float32, "wide", n, in+1)))
	ExpectError(t, "rows", prefix, shape, forward(gradcheck.Zeros(eg, tensor.Float32, "tall", n+1, in)))
	ExpectError(t, "dtype", prefix, "dtype", forward(gradcheck.Zeros(eg, tensor.Float64, "x64", n, in)))
	weighted := func(ew *gorgonia.Node) func() (*gorgonia.Node, error) {
		return func() (*gorgonia.Node, error) { return l.ForwardWeighted(g, x, ew) }
	}
	ExpectError(t, "nil-weight", prefix, "nil edge weight", weighted(nil))
	ExpectError(t, "weight-rows", prefix, weightRows, weighted(gradcheck.Zeros(eg, tensor.Float32, "ew", g.NumEdges()+1, 1)))
	ExpectError(t, "weight-dtype", prefix, "dtype", weighted(gradcheck.Zeros(eg, tensor.Float64, "ew64", g.NumEdges(), 1)))
	return x
}
