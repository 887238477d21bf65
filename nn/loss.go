package nn

import (
	"fmt"
	"math"
	"sync/atomic"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/device"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
)

// CrossEntropy builds the mean softmax cross-entropy of the rows of logits
// (N x C) listed in nodes against their classes in labels (one per row of
// logits): -1/|nodes| * sum over i in nodes of log softmax(logits[i])[labels[i]].
// It is one fused op (a stable log-sum-exp per row) whose gradient is
// (softmax - onehot)/|nodes| on the listed rows and 0 elsewhere. labels and
// nodes are copied.
func CrossEntropy(logits *gorgonia.Node, labels []int32, nodes []int32) (*gorgonia.Node, error) {
	if logits == nil {
		return nil, fmt.Errorf("nn: cross-entropy of a nil node")
	}
	s := logits.Shape()
	if len(s) != 2 {
		return nil, fmt.Errorf("nn: cross-entropy needs N x C logits, got shape %v", s)
	}
	if dt := logits.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("nn: cross-entropy of dtype %v, want float32 or float64", dt)
	}
	n, c := s[0], s[1]
	if len(labels) != n {
		return nil, fmt.Errorf("nn: %d labels for %d rows of logits", len(labels), n)
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("nn: cross-entropy over no nodes")
	}
	seen := make([]bool, n)
	unique := true
	for i, v := range nodes {
		if v < 0 || int(v) >= n {
			return nil, fmt.Errorf("nn: nodes[%d] = %d but the logits have %d rows", i, v, n)
		}
		if y := labels[v]; y < 0 || int(y) >= c {
			return nil, fmt.Errorf("nn: node %d has label %d but there are %d classes", v, y, c)
		}
		unique = unique && !seen[v]
		seen[v] = true
	}
	op := &xentOp{labels: append([]int32{}, labels...), nodes: append([]int32{}, nodes...), n: n, c: c, unique: unique, id: xentIDs.Add(1)}
	if unique {
		op.listed = seen
	}
	return apply(op, logits)
}

// xentIDs numbers cross-entropy ops process-wide: the ID goes into the
// op's hash, so that two losses over different labels or nodes never merge.
var xentIDs atomic.Uint64

// xentOp is the loss of the listed rows of an n x c input.
type xentOp struct {
	labels, nodes []int32
	n, c          int
	unique        bool   // no node listed twice: gradient rows are disjoint
	listed        []bool // with unique: whether each row is listed
	id            uint64
}

func (op *xentOp) Name() string { return "cross_entropy" }

func (op *xentOp) Key() string { return fmt.Sprint(op.id) }

func (op *xentOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{{op.n, op.c}}, tensor.ScalarShape()
}

func (op *xentOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) {
	return xentDo(nil, op, vals, false)
}

// xentConsts returns op's labels and listed nodes on the device, uploaded
// once per op.
func xentConsts(b device.Backend, op *xentOp) (labels, nodes *tensor.Dense, err error) {
	if labels, err = b.Cached(fmt.Sprintf("nn.xent/%d/labels", op.id), tensor.Shape{op.n}, func() any { return op.labels }); err != nil {
		return nil, nil, err
	}
	nodes, err = b.Cached(fmt.Sprintf("nn.xent/%d/nodes", op.id), tensor.Shape{len(op.nodes)}, func() any { return op.nodes })
	return labels, nodes, err
}

// DeviceDo computes the loss on the device and returns it as a host scalar:
// the one value of the forward pass that crosses to the host.
func (op *xentOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := device.Inputs(b, vals)
	if err != nil {
		return nil, err
	}
	labels, nodes, err := xentConsts(b, op)
	if err != nil {
		return nil, err
	}
	terms, err := b.Alloc(tensor.Float64, tensor.Shape{len(op.nodes)})
	if err != nil {
		return nil, err
	}
	if err := b.CrossEntropy(terms, in[0], labels, nodes, op.c, 1/float64(len(op.nodes))); err != nil {
		return nil, err
	}
	s, err := b.Sum(terms)
	if err != nil {
		return nil, err
	}
	if in[0].Dtype() == tensor.Float32 {
		return gorgonia.NewF32(float32(-s)), nil
	}
	return gorgonia.NewF64(-s), nil
}

// Grad is one op of (logits, dloss).
func (op *xentOp) Grad(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := apply(&xentGradOp{fwd: op}, inputs[0], grad)
	return gorgonia.Nodes{d}, err
}

// xentGradOp is the gradient of fwd, taking (logits, dloss).
type xentGradOp struct{ fwd *xentOp }

func (op *xentGradOp) Name() string { return "dcross_entropy" }

func (op *xentGradOp) Key() string { return op.fwd.Key() }

func (op *xentGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	s := tensor.Shape{op.fwd.n, op.fwd.c}
	return []tensor.Shape{s, tensor.ScalarShape()}, s
}

// DoInto computes the output into dst (opkit.Into), which may be the
// logits' own tensor (Overwrites).
func (op *xentGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return xentDo(dst, op.fwd, vals, true)
}

// Overwrites reports that the gradient may be written over the logits
// (opkit.Overwrite) when no node is listed twice: each listed row's
// gradient is made from that row alone, and the other rows are zeroed.
func (op *xentGradOp) Overwrites() int {
	if op.fwd.unique {
		return 0
	}
	return -1
}

// DeviceDo computes the loss gradient on the device. It runs when an input is on the device
// (see package internal/ops/device); host inputs are uploaded for the call.
func (op *xentGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	scale, err := device.HostScalar(vals[1])
	if err != nil {
		return nil, err
	}
	in, err := device.Inputs(b, vals[:1])
	if err != nil {
		return nil, err
	}
	labels, nodes, err := xentConsts(b, op.fwd)
	if err != nil {
		return nil, err
	}
	g, err := b.Zeros(in[0].Dtype(), tensor.Shape{op.fwd.n, op.fwd.c})
	if err != nil {
		return nil, err
	}
	inv := 1 / float64(len(op.fwd.nodes))
	return g, b.CrossEntropyGrad(g, in[0], labels, nodes, op.fwd.c, inv*scale, !op.fwd.unique)
}

// xentDo computes op's loss of (logits), or with grad its gradient from
// (logits, dloss), into dst when it can (values.AllocInto).
func xentDo(dst *tensor.Dense, op *xentOp, vals []gorgonia.Value, grad bool) (gorgonia.Value, error) {
	t, err := values.Dense(vals[0])
	if err != nil {
		return nil, fmt.Errorf("nn: cross-entropy: %w", err)
	}
	var scale float64 = 1
	if grad {
		switch d := vals[1].Data().(type) {
		case float32:
			scale = float64(d)
		case float64:
			scale = d
		case []float32:
			scale = float64(d[0])
		case []float64:
			scale = d[0]
		}
	}
	if grad && dst != nil && dst.Uintptr() == t.Uintptr() {
		if !op.unique || dst.Dtype() != t.Dtype() || !dst.Shape().Eq(t.Shape()) {
			return nil, fmt.Errorf("nn: cross-entropy gradient: cannot write over the logits")
		}
		switch x := t.Data().(type) {
		case []float32:
			xentOver(x, op, scale)
		case []float64:
			xentOver(x, op, scale)
		}
		return dst, nil
	}
	switch x := t.Data().(type) {
	case []float32:
		if grad {
			out, g := values.AllocInto[float32](dst, []int{op.n, op.c})
			xent(x, op, scale, g)
			return out, nil
		}
		return gorgonia.NewF32(float32(xent(x, op, scale, nil))), nil
	case []float64:
		if grad {
			out, g := values.AllocInto[float64](dst, []int{op.n, op.c})
			xent(x, op, scale, g)
			return out, nil
		}
		return gorgonia.NewF64(xent(x, op, scale, nil)), nil
	}
	return nil, fmt.Errorf("nn: cross-entropy of %T data", t.Data())
}

// xentChunk is the number of listed nodes per task of xent.
const xentChunk = 2048

// xent returns the loss and, when g is not nil (the backward op, g
// zeroed), writes the gradient scaled by scale into g. Chunks of listed nodes run in parallel and record each node's
// term of the loss, which are then added in list order: the result is the
// same for any GOMAXPROCS, and the same as one loop over the nodes. With a
// node listed twice, whose gradient row takes two contributions, it runs in
// one goroutine.
func xent[T float32 | float64](x []T, op *xentOp, scale float64, g []T) float64 {
	terms := parallel.Scratch[float64](len(op.nodes))
	defer parallel.PutScratch(terms)
	run := func(lo, hi int) { xentNodes(terms[lo:hi], x, g, op, op.nodes[lo:hi], scale) }
	if op.unique {
		parallel.For(len(op.nodes), xentChunk, run)
	} else {
		run(0, len(op.nodes))
	}
	var loss float64
	for _, t := range terms {
		loss -= t
	}
	return loss
}

// xentOver writes the gradient over the logits x: the listed rows (no
// node listed twice) as xent does, each from its own row, and zeros in the
// others.
func xentOver[T float32 | float64](x []T, op *xentOp, scale float64) {
	parallel.For(op.n, xentChunk, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			if !op.listed[v] {
				clear(x[v*op.c : (v+1)*op.c])
			}
		}
	})
	xent(x, op, scale, x)
}

// xentNodes sets terms[i] to the term of nodes[i] in the loss (to be
// subtracted) or, when g is not nil (the backward op), adds the node's
// gradient row to g instead.
func xentNodes[T float32 | float64](terms []float64, x, g []T, op *xentOp, nodes []int32, scale float64) {
	inv := 1 / float64(len(op.nodes))
	// e^(z-m) of a row, in T and unrounded (e), reused by the gradient;
	// m repeated over the row, for num.ExpSum.
	eT, e, mr := make([]T, op.c), make([]float64, op.c), make([]T, op.c)
	for i, v := range nodes {
		row := x[int(v)*op.c : int(v+1)*op.c]
		// The row's maximum; a NaN anywhere makes the term NaN through
		// its exponential.
		m := T(math.Inf(-1))
		for _, z := range row {
			m = max(m, z)
		}
		for k := range mr {
			mr[k] = m
		}
		clear(e)
		num.ExpSum(eT, row, mr, e)
		var s float64
		for _, ek := range e {
			s += ek
		}
		label := int(op.labels[v])
		if g == nil {
			terms[i] = (float64(row[label]) - float64(m) - math.Log(s)) * inv
			continue
		}
		gr, r := g[int(v)*op.c:int(v+1)*op.c], inv*scale/s
		if len(gr) > 0 && &gr[0] == &row[0] {
			clear(gr) // written over the logits (xentOver): the row is read
		}
		for k, ek := range e {
			p := ek * r
			if k == label {
				p -= inv * scale
			}
			gr[k] += T(p)
		}
	}
}

var (
	_ opkit.Forward = (*xentOp)(nil)
	_ device.Spec   = (*xentOp)(nil)
	_ opkit.Spec    = (*xentGradOp)(nil)
	_ device.Spec   = (*xentGradOp)(nil)
)

// Accuracy returns the fraction of the listed rows of logits (an N x C
// float32 or float64 tensor value) whose largest entry is at the row's label.
func Accuracy(logits gorgonia.Value, labels []int32, nodes []int32) (float64, error) {
	t, err := values.Dense(logits)
	if err != nil || len(t.Shape()) != 2 {
		return 0, fmt.Errorf("nn: accuracy needs an N x C tensor, got %v", logits.Shape())
	}
	n, c := t.Shape()[0], t.Shape()[1]
	if len(nodes) == 0 {
		return 0, fmt.Errorf("nn: accuracy over no nodes")
	}
	var correct int
	for i, v := range nodes {
		if v < 0 || int(v) >= n || int(v) >= len(labels) {
			return 0, fmt.Errorf("nn: nodes[%d] = %d out of range", i, v)
		}
		if argmax(t.Data(), int(v)*c, c) == int(labels[v]) {
			correct++
		}
	}
	return float64(correct) / float64(len(nodes)), nil
}

func argmax(data any, off, c int) int {
	best := 0
	switch d := data.(type) {
	case []float32:
		for k := 1; k < c; k++ {
			if d[off+k] > d[off+best] {
				best = k
			}
		}
	case []float64:
		for k := 1; k < c; k++ {
			if d[off+k] > d[off+best] {
				best = k
			}
		}
	}
	return best
}

// CrossEntropyOf returns the value CrossEntropy would compute for the listed
// rows of an N x C logits value, without building a graph node (validation
// loss during training, say).
func CrossEntropyOf(logits gorgonia.Value, labels []int32, nodes []int32) (float64, error) {
	t, err := values.Dense(logits)
	if err != nil || len(t.Shape()) != 2 {
		return 0, fmt.Errorf("nn: cross-entropy needs an N x C tensor, got %v", logits.Shape())
	}
	n, c := t.Shape()[0], t.Shape()[1]
	if len(labels) != n || len(nodes) == 0 {
		return 0, fmt.Errorf("nn: cross-entropy of %d rows with %d labels over %d nodes", n, len(labels), len(nodes))
	}
	for i, v := range nodes {
		if v < 0 || int(v) >= n || labels[v] < 0 || int(labels[v]) >= c {
			return 0, fmt.Errorf("nn: nodes[%d] = %d is out of range or has a bad label", i, v)
		}
	}
	op := &xentOp{labels: labels, nodes: nodes, n: n, c: c}
	switch d := t.Data().(type) {
	case []float32:
		return xent(d, op, 1, nil), nil
	case []float64:
		return xent(d, op, 1, nil), nil
	}
	return 0, fmt.Errorf("nn: cross-entropy of %T data", t.Data())
}
