package nn

import (
	"sync"
	"unsafe"
	"weak"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
)

// sumsCache hands the column sums of a value from the op that wrote it,
// which summed each block of rows right after writing it (while it was
// cached), to the op of the same run that would otherwise read the whole
// value again to sum it: ReLU's gradient inside BatchNormShift's backward
// to its shift's gradient, BatchNorm's dx to the bias gradient of the
// MatMulBias before it, MatMulBias's output to the column means of the
// batch norm after it. The producer sums in the consumer's blocks of
// rows and adds the blocks in the consumer's order (parallel.Sum with the
// consumer's least), so the sums have the consumer's bits.
//
// The sums are kept with the value, by a weak pointer to its backing array
// as bnCache does, and taken once: a consumer given another value, or
// running without its producer, sums the columns itself.
type sumsCache struct {
	mu   sync.Mutex
	data any // weak.Pointer to the first element of the value summed; nil: none
	n    int // the value's length
	sums any // []T or []float64
	hits int // uses, for tests
}

// useSumsCache lets consumers take the sums producers keep. Tests turn it
// off to compare with every op summing for itself.
var useSumsCache = true

// keepSums records sums as the column sums of x in c (nil: none kept).
func keepSums[T num.Float](c *sumsCache, x []T, sums any) {
	if c == nil || len(x) == 0 {
		return
	}
	p := any(weak.Make(unsafe.SliceData(x)))
	c.mu.Lock()
	c.data, c.n, c.sums = p, len(x), sums
	c.mu.Unlock()
}

// takeSums returns the sums c keeps for x, of type S, and forgets them.
func takeSums[S any, T num.Float](c *sumsCache, x []T) (S, bool) {
	var zero S
	if c == nil || len(x) == 0 || !useSumsCache {
		return zero, false
	}
	p := any(weak.Make(unsafe.SliceData(x)))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.data == nil || c.data != p || c.n != len(x) {
		return zero, false
	}
	s, ok := c.sums.(S)
	c.data, c.sums = nil, nil
	if ok {
		c.hits++
	}
	return s, ok
}

// specOf returns the spec of n's op when it is one of this package's ops
// of spec type S.
func specOf[S opkit.Spec](n *gorgonia.Node) (S, bool) {
	var zero S
	if n == nil {
		return zero, false
	}
	o, ok := n.Op().(*opkit.Op)
	if !ok {
		return zero, false
	}
	s, ok := o.Spec().(S)
	return s, ok
}
