package sar

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/ops/heads"
	"github.com/gnngo/gnn/ops/spmm"
)

// GATAggregate is GAT's attention scores, attention and aggregation over
// the whole distributed graph in one op: with el and er the scores of z
// under the attention vectors al and ar (el[n,h] = sum_f z[n,h,f]
// al[h,f]), it computes ops.UMulESum(g, z, Dropout(ops.GATAttention(g, el,
// er, slope))). z (N, H, F) holds this worker's projected rows, al and ar
// are (H, F) or (1, H, F) (GATConv's parameters), and the result (N, H*F)
// holds the attention-weighted sums at this worker's nodes. The scores are
// computed inside the op (again in the backward: N x H x F products), so
// they and their gradients, each (N, H, F) for z, never become nodes of the
// expression graph: the backward gives z one gradient, that of the
// aggregation plus del ⊗ al + der ⊗ ar, and al and ar theirs (summed over
// the nodes in a fixed order).
//
// The edge softmax needs, for every destination and head, the maximum and
// the sum of exponentials of its scores over all shards. A first sweep
// fetches only the remote el rows (H numbers per node) and merges each
// shard's maximum and sum into running ones (the online max-sum merge); a
// second sweep fetches the remote z and el rows, recomputes each shard's
// attention from them and aggregates. Attention exists for one shard at a
// time, as one number per edge and head, in a buffer reused from shard to
// shard; nothing per edge and feature is stored.
//
// Attention dropout (drop.P > 0, while drop.Mode is training) keeps or
// drops the attention of edge e and head k as nn.Dropout of the (E, H, 1)
// attention tensor of one process does, by the edge's global ID (so the
// graph must keep them: partitions carry them). The backward draws the
// same masks again.
//
// ew, when not nil, holds a weight per local edge (a vector or an (E, 1)
// matrix, in EdgeIDs order) multiplying the attention after dropout, as
// GATConv.ForwardWeighted in one process; the weights are constants: they
// get no gradient (gorgonia.Grad with respect to them fails).
//
// The backward rematerialises: it repeats the first sweep, fetches each
// shard's z and el rows again, recomputes the shard's attention from them,
// and sends the gradients of the remote z and el rows back to their owners.
//
// The backward reads the result: it must not reach an op that may write
// over its input (Gorgonia's arithmetic) through a reshaped view, whose
// register Gorgonia would take as free (GATConv uses it as (N, H*F)).
//
// The head scores and the gradients of al and ar are package heads'
// kernels, the ones GATConv's single-process op runs, so they give the
// same bits; the edge softmax and its backward are written here, because
// they normalise over all the shards at once (the online merge above),
// where ops/edgesoftmax's kernels normalise within one graph.
//
// GATAggregate runs shard by shard in either mode; in OneShot mode
// Aggregate does not call it for gat.Attention, but runs the layer's
// single-process ops on Block.
func (g *Graph) GATAggregate(z, al, ar, ew *gorgonia.Node, slope float64, drop nn.DropoutSpec) (*gorgonia.Node, error) {
	if math.IsNaN(slope) || math.IsInf(slope, 0) {
		return nil, fmt.Errorf("sar: GATAggregate: slope %v is not finite", slope)
	}
	if !(drop.P >= 0 && drop.P < 1) {
		return nil, fmt.Errorf("sar: GATAggregate: attention dropout %v is not in [0, 1)", drop.P)
	}
	if drop.P > 0 {
		if drop.Mode == nil {
			return nil, fmt.Errorf("sar: GATAggregate: attention dropout needs a Mode")
		}
		for j, s := range g.shards {
			if s.eid == nil && s.g.NumEdges() > 0 {
				return nil, fmt.Errorf("sar: GATAggregate: attention dropout needs global edge IDs, and rank %d's shard from rank %d has none", g.rank, j)
			}
		}
	}
	zr, err := g.rows(z, "projected features")
	if err != nil {
		return nil, err
	}
	if len(zr) != 2 {
		return nil, fmt.Errorf("sar: GATAggregate: projected features %q have shape %v, want (%d, heads, features)", z.Name(), z.Shape(), g.n)
	}
	op := &gatOp{g: g, heads: zr[0], feat: zr[1], slope: slope, drop: drop, tag: g.nextTags(), back: new(opkit.Handover[gorgonia.Value, gorgonia.Value])}
	for i, a := range []*gorgonia.Node{al, ar} {
		if a == nil {
			return nil, fmt.Errorf("sar: GATAggregate: nil attention vector")
		}
		s := a.Shape()
		if !slices.Equal(s, []int{op.heads, op.feat}) && !slices.Equal(s, []int{1, op.heads, op.feat}) {
			return nil, fmt.Errorf("sar: GATAggregate: attention vector %q has shape %v, want (%d, %d) or (1, %d, %d)", a.Name(), s, op.heads, op.feat, op.heads, op.feat)
		}
		if a.Dtype() != z.Dtype() {
			return nil, fmt.Errorf("sar: GATAggregate: attention vector %q has dtype %v, features %v", a.Name(), a.Dtype(), z.Dtype())
		}
		op.vShape[i] = s.Clone()
	}
	// The result is (N, H*F), not a view of it: the backward reads it, and
	// Gorgonia writes an op's result over an input whose register is
	// free, which a reshaped view's would be while this one's is not.
	if ew == nil {
		return apply(op, z, al, ar)
	}
	e := g.NumEdges()
	if s := ew.Shape(); !(s.Dims() == 1 && s[0] == e || s.Dims() == 2 && s[0] == e && s[1] == 1) {
		return nil, fmt.Errorf("sar: GATAggregate: edge weights %q have shape %v, want (%d) or (%d, 1) for the %d edges into rank %d", ew.Name(), ew.Shape(), e, e, e, g.rank)
	}
	if ew.Dtype() != z.Dtype() {
		return nil, fmt.Errorf("sar: GATAggregate: edge weights %q have dtype %v, features %v", ew.Name(), ew.Dtype(), z.Dtype())
	}
	op.ewShape = ew.Shape().Clone()
	return apply(op, z, al, ar, ew)
}

// gatOp is GATAggregate, taking (z, al, ar), or (z, al, ar, ew) with edge
// weights. Its backward is gatGradOp.
type gatOp struct {
	g           *Graph
	heads, feat int
	vShape      [2]tensor.Shape // of al and ar
	ewShape     tensor.Shape    // of the edge weights; nil without them
	slope       float64
	drop        nn.DropoutSpec
	tag         int
	// back hands the gradients of al and ar from a run of the backward's
	// gatGradOp to the two vecGradOps that give them, keyed by the
	// gatGradOp's result, their input. A machine that reuses buffers
	// (nn/vm) gives the gatGradOp the same result every run: each run
	// starts its key afresh (Handover.Begin).
	back *opkit.Handover[gorgonia.Value, gorgonia.Value]
}

// Tags of the sweeps of a gatOp, after its base tag (each fetching sweep
// uses its tag and the next one for returning gradients).
const (
	tagNorm     = 0
	tagAgg      = 2
	tagNormBack = 4
	tagAggBack  = 6
)

func (op *gatOp) zShape() tensor.Shape { return tensor.Shape{op.g.n, op.heads, op.feat} }

// shapes returns the input and output shapes of the forward, or with grad
// of the backward.
func (op *gatOp) shapes(grad bool) ([]tensor.Shape, tensor.Shape) {
	in := []tensor.Shape{op.zShape(), op.vShape[0], op.vShape[1]}
	out := op.outShape()
	if grad {
		in, out = append(in, op.outShape(), op.outShape()), op.zShape()
	}
	if op.ewShape != nil {
		in = append(in, op.ewShape)
	}
	return in, out
}

// WRT says that the edge weights, if any, get no gradient.
func (op *gatOp) WRT(arity int) []bool {
	wrt := []bool{true, true, true, false}
	return wrt[:arity]
}

// outShape is the shape of the result, (N, H*F): heads side by side.
func (op *gatOp) outShape() tensor.Shape { return tensor.Shape{op.g.n, op.heads * op.feat} }

func (op *gatOp) Shapes() ([]tensor.Shape, tensor.Shape) { return op.shapes(false) }

func (op *gatOp) Name() string {
	if op.drop.P > 0 {
		return fmt.Sprintf("sar_gat(%g,drop=%g)", op.slope, op.drop.P)
	}
	return fmt.Sprintf("sar_gat(%g)", op.slope)
}

func (op *gatOp) Key() string {
	return fmt.Sprintf("g=%d,tag=%d,%d,%d", op.g.id, op.tag, op.heads, op.feat)
}

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *gatOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return gatDo[float32](op, false, dst, vals) },
		func() (gorgonia.Value, error) { return gatDo[float64](op, false, dst, vals) })
}

// Grad computes the three gradients in one gatGradOp, which gives that of
// z and leaves those of al and ar to two vecGradOps after it.
func (op *gatOp) Grad(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	in := gorgonia.Nodes{inputs[0], inputs[1], inputs[2], output, grad}
	if op.ewShape != nil {
		in = append(in, inputs[3])
	}
	dz, err := apply(&gatGradOp{fwd: op}, in...)
	if err != nil {
		return nil, err
	}
	ds := gorgonia.Nodes{dz}
	for i := range 2 {
		d, err := apply(&vecGradOp{fwd: op, which: i}, dz)
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	if op.ewShape != nil {
		ds = append(ds, nil) // the weights are constants
	}
	return ds, nil
}

// gatGradOp is the backward of fwd, taking (z, al, ar, out, dout), then ew
// with edge weights, and
// giving the gradient of z; it hands those of al and ar to the vecGradOps
// through fwd.back.
type gatGradOp struct{ fwd *gatOp }

func (op *gatGradOp) Shapes() ([]tensor.Shape, tensor.Shape) { return op.fwd.shapes(true) }

func (op *gatGradOp) Name() string { return "d" + op.fwd.Name() }

func (op *gatGradOp) Key() string { return op.fwd.Key() }

// DoInto computes the gradient of z into dst when it fits (opkit.Into).
func (op *gatGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return gatDo[float32](op.fwd, true, dst, vals) },
		func() (gorgonia.Value, error) { return gatDo[float64](op.fwd, true, dst, vals) })
}

// gatState is what a gatOp call works with: its inputs as slices, the
// scores computed from them, the per-destination softmax normalisers, the
// call's dropout mask, and the per-edge buffers reused from shard to shard.
type gatState[T num.Float] struct {
	op        *gatOp
	grad      bool // the backward
	z, al, ar []T
	el, er    []T // (N, H): the scores of z under al and ar
	max, sum  []T // (N, H): the maximum score and the sum of exp(score - max)
	drop      bool
	mask      nn.Mask
	scale     T
	w         []T           // the edge weights in EdgeIDs order, nil without them
	off       []int         // where each shard's edges start in w
	a, dpre   []T           // attention (after dropout) and score gradients of one shard's edges
	dst       *tensor.Dense // where the result goes when it fits (opkit.Into), or nil
	bufs      *gatBufs[T]   // the call's working buffers
}

func gatDo[T num.Float](op *gatOp, grad bool, dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	s := &gatState[T]{op: op, grad: grad, dst: dst, bufs: takeSpare[gatBufs[T]](&op.g.spare)}
	defer op.g.spare.put(s.bufs)
	for i, p := range []*[]T{&s.z, &s.al, &s.ar} {
		var err error
		if *p, err = values.Data[T](vals[i]); err != nil {
			return nil, err
		}
	}
	s.el, s.er = s.scores(s.al, &s.bufs.el), s.scores(s.ar, &s.bufs.er)
	if op.ewShape != nil {
		var err error
		if s.w, err = values.Data[T](vals[len(vals)-1]); err != nil {
			return nil, err
		}
		if s.w == nil { // no edges
			s.w = []T{}
		}
		s.off = op.g.edgeOffsets()
	}
	if d := op.drop; d.P > 0 && d.Mode.Training() {
		s.drop, s.mask = true, nn.NewMask(d.P, d.Seed, d.Mode.Step())
		s.scale = T(s.mask.Scale())
	}
	maxE := 0
	for _, sh := range op.g.shards {
		maxE = max(maxE, sh.g.NumEdges())
	}
	s.a = zeroed(&s.bufs.a, maxE*op.heads)
	var zero T
	if hh := op.heads*op.feat + op.heads; grad {
		op.g.account(1, hh, hh, int(unsafe.Sizeof(zero))) // the rematerialising fetch and the gradients
	} else {
		op.g.account(1, hh, 0, int(unsafe.Sizeof(zero)))
	}
	if err := s.normalisers(op.tag + tagNorm + 4*b2i(grad)); err != nil {
		return nil, err
	}
	if !grad {
		return s.forward()
	}
	s.dpre = zeroed(&s.bufs.dpre, maxE*op.heads)
	out, err := values.Data[T](vals[3])
	if err != nil {
		return nil, err
	}
	dout, err := values.Data[T](vals[4])
	if err != nil {
		return nil, err
	}
	return s.backward(out, dout)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// leaky is LeakyReLU.
func leaky[T num.Float](x T, slope float64) T {
	if x > 0 {
		return x
	}
	return x * T(slope)
}

// scores returns, for every node and head, the dot product of its z row
// with the head's row of the attention vector a: el (a = al) or er, in
// buf.
func (s *gatState[T]) scores(a []T, buf *[]T) []T {
	out := zeroed(buf, s.op.g.n*s.op.heads)
	heads.Dot(out, s.z, a, s.op.g.n, s.op.heads, s.op.feat)
	return out
}

// normalisers sweeps the shards, fetching only el, and merges each edge's
// score into the running maximum and sum of exponentials of its
// destination.
func (s *gatState[T]) normalisers(tag int) error {
	g, h := s.op.g, s.op.heads
	s.max = zeroed(&s.bufs.max, g.n*h)
	s.sum = zeroed(&s.bufs.sum, g.n*h)
	for i := range s.max {
		s.max[i] = T(math.Inf(-1))
	}
	p := pass[T]{x: s.el, xw: h, tag: tag, visit: func(j int, el []T) ([]T, error) {
		c := g.shards[j].g.CSC()
		parallel.For(g.n, 256, func(lo, hi int) {
			for v := lo; v < hi; v++ {
				for q := c.Indptr[v]; q < c.Indptr[v+1]; q++ {
					u := int(c.Indices[q])
					for k := range h {
						x := leaky(el[u*h+k]+s.er[v*h+k], s.op.slope)
						i := v*h + k
						if m := s.max[i]; x > m {
							s.sum[i] = s.sum[i]*T(math.Exp(float64(m-x))) + 1
							s.max[i] = x
						} else {
							s.sum[i] += T(math.Exp(float64(x - m)))
						}
					}
				}
			}
		})
		return nil, nil
	}}
	return p.runIn(g, Sequential)
}

// pack writes the rows idx of z and el into dst, what a shard fetches from
// its owner: all the z rows (H*F each), then all the el rows (H each), so
// that the receiver reads both in place.
func (s *gatState[T]) pack(dst []T, idx []int32) {
	hf, h := s.op.heads*s.op.feat, s.op.heads
	zs, els := dst[:len(idx)*hf], dst[len(idx)*hf:]
	for i, r := range idx {
		copy(zs[i*hf:(i+1)*hf], s.z[int(r)*hf:(int(r)+1)*hf])
		copy(els[i*h:(i+1)*h], s.el[int(r)*h:(int(r)+1)*h])
	}
}

// split returns the z and el rows of packed rows.
func (s *gatState[T]) split(rows []T) (z, el []T) {
	hf, h := s.op.heads*s.op.feat, s.op.heads
	r := len(rows) / (hf + h)
	return rows[:r*hf], rows[r*hf:]
}

// keep returns the dropout factor of attention element i (edge e's global
// ID times H plus the head): 0 or 1/(1-p), or 1 without dropout.
func (s *gatState[T]) keep(i uint64) T {
	if !s.drop {
		return 1
	}
	if s.mask.Kept(i) {
		return s.scale
	}
	return 0
}

// attention writes the attention of shard j's edges (E_j, H), by edge ID,
// after dropout, into s.a, from the shard's el rows, and returns it.
func (s *gatState[T]) attention(j int, el []T) []T {
	g, h := s.op.g, s.op.heads
	sh := g.shards[j]
	c := sh.g.CSC()
	a := s.a[:sh.g.NumEdges()*h]
	parallel.For(g.n, 256, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			for q := c.Indptr[v]; q < c.Indptr[v+1]; q++ {
				u, e := int(c.Indices[q]), int(c.EIDs[q])
				for k := range h {
					x := leaky(el[u*h+k]+s.er[v*h+k], s.op.slope)
					ye := T(math.Exp(float64(x-s.max[v*h+k]))) / s.sum[v*h+k]
					if s.drop {
						ye *= s.keep(uint64(sh.eid[e])*uint64(h) + uint64(k))
					}
					if s.w != nil {
						ye *= s.w[s.off[j]+e]
					}
					a[e*h+k] = ye
				}
			}
		}
	})
	return a
}

func (s *gatState[T]) plan() bcast.Plan {
	p, err := bcast.New([]int{s.op.heads, s.op.feat}, []int{s.op.heads, 1}, false)
	if err != nil {
		panic(err) // shapes fixed at construction
	}
	return p
}

func (s *gatState[T]) forward() (gorgonia.Value, error) {
	g, hf, h := s.op.g, s.op.heads*s.op.feat, s.op.heads
	t, out := values.AllocInto[T](s.dst, s.op.outShape())
	tmp := zeroed(&s.bufs.big, len(out))
	plan := s.plan()
	p := pass[T]{pack: s.pack, xw: hf + h, tag: s.op.tag + tagAgg, visit: func(j int, rows []T) ([]T, error) {
		z, el := s.split(rows)
		a := s.attention(j, el)
		spmm.Forward(tmp, g.shards[j].g, spmm.Mul, spmm.Sum, z, a, plan, nil)
		addTo(out, tmp)
		return nil, nil
	}}
	if err := p.runIn(g, Sequential); err != nil {
		return nil, err
	}
	return t, nil
}

// backward computes, shard by shard, the gradients of the shard's z and el
// rows (returned to their owners) and of er (kept here), from the output
// out and its gradient dout, then folds those of the scores into the
// gradients of z, al and ar. With y = softmax(score) and b = d y the
// attention after dropout and edge weight (d is 0 or 1/(1-p), times the
// edge's weight), the gradient of a score is
// y (d dy - c_v), where dy = <z_u, dout_v> per head and c_v = sum over v's
// in-edges of b dy = <out_v, dout_v>, so it needs no extra sweep.
//
// The gradients of z go straight into the result; in sequential mode the
// gradient rows sent back use two buffers in turn (one being sent while
// the next is computed).
func (s *gatState[T]) backward(out, dout []T) (gorgonia.Value, error) {
	g, f, h := s.op.g, s.op.feat, s.op.heads
	hf := h * f
	cv := zeroed(&s.bufs.cv, g.n*h)
	for i := range cv {
		var d T
		for k := range f {
			d += out[i*f+k] * dout[i*f+k]
		}
		cv[i] = d
	}
	t, res := values.AllocInto[T](s.dst, s.op.zShape())
	resL, resR := zeroed(&s.bufs.resL, g.n*h), zeroed(&s.bufs.resR, g.n*h) // del and der
	plan := s.plan()
	copyE := bcast.Same([]int{h, 1})
	// The op always runs shard by shard: the gradient rows sent back use
	// two buffers in turn.
	// bufs[i] serves the rounds k with k%2 == i (round k visits the shard
	// from rank (rank-k) mod size), so each is as large as its largest
	// shard's rows: the first holds this rank's own shard's.
	var bufs [2][]T
	var rows [2]int
	for k := range g.size {
		j := (g.rank - k + g.size) % g.size
		rows[k%2] = max(rows[k%2], g.shards[j].g.NumSrc())
	}
	bufs[0] = zeroed(&s.bufs.big, rows[0]*(hf+h))
	bufs[1] = zeroed(&s.bufs.send, rows[1]*(hf+h))
	p := pass[T]{pack: s.pack, xw: hf + h, gw: hf + h, tag: s.op.tag + tagAggBack,
		scatter: func(idx []int32, rows []T) {
			dz, del := s.split(rows)
			for i, v := range idx {
				addTo(res[int(v)*hf:(int(v)+1)*hf], dz[i*hf:(i+1)*hf])
				addTo(resL[int(v)*h:(int(v)+1)*h], del[i*h:(i+1)*h])
			}
		},
		visit: func(j int, rows []T) ([]T, error) {
			z, el := s.split(rows)
			sh := g.shards[j]
			sg := sh.g
			c := sg.CSC()
			a, dpre := s.a[:sg.NumEdges()*h], s.dpre[:sg.NumEdges()*h]
			parallel.For(g.n, 256, func(lo, hi int) {
				for v := lo; v < hi; v++ {
					der := resR[v*h : (v+1)*h]
					for q := c.Indptr[v]; q < c.Indptr[v+1]; q++ {
						u, e := int(c.Indices[q]), int(c.EIDs[q])
						for k := range h {
							pre := el[u*h+k] + s.er[v*h+k]
							y := T(math.Exp(float64(leaky(pre, s.op.slope)-s.max[v*h+k]))) / s.sum[v*h+k]
							d := T(1) // what multiplies the softmax: dropout and weight
							if s.drop {
								d = s.keep(uint64(sh.eid[e])*uint64(h) + uint64(k))
							}
							if s.w != nil {
								d *= s.w[s.off[j]+e]
							}
							a[e*h+k] = y * d
							var dy T
							zu, dv := z[(u*h+k)*f:(u*h+k+1)*f], dout[(v*h+k)*f:(v*h+k+1)*f]
							for i := range f {
								dy += zu[i] * dv[i]
							}
							ds := y * (d*dy - cv[v*h+k])
							if pre <= 0 {
								ds *= T(s.op.slope)
							}
							dpre[e*h+k] = ds
							der[k] += ds
						}
					}
				}
			})
			r := sg.NumSrc()
			k := (g.rank - j + g.size) % g.size
			grad := bufs[k%2][:r*(hf+h)]
			rev := sg.Reverse()
			spmm.Forward(grad[:r*hf], rev, spmm.Mul, spmm.Sum, dout, a, plan, nil)
			spmm.Forward(grad[r*hf:], rev, spmm.CopyE, spmm.Sum, nil, dpre, copyE, nil)
			return grad, nil
		}}
	if err := p.runIn(g, Sequential); err != nil {
		return nil, err
	}
	s.op.back.Begin(t)
	for i, v := range s.fold(res, resL, resR) {
		if err := s.op.back.Put(t, i, v); err != nil {
			return nil, fmt.Errorf("sar: %s: %w", s.op.Name(), err)
		}
	}
	return t, nil
}

// fold adds the gradients of z through the scores, del ⊗ al + der ⊗ ar,
// to dz and returns those of al and ar: dal[h,f] = sum_n del[n,h]
// z[n,h,f] (likewise dar), summed over fixed chunks of nodes in order, so
// the result does not depend on GOMAXPROCS.
func (s *gatState[T]) fold(dz, del, der []T) [2]gorgonia.Value {
	h, f := s.op.heads, s.op.feat
	parallel.For(s.op.g.n, 256, func(lo, hi int) {
		for i := lo * h; i < hi*h; i++ {
			k := i % h
			row, l, r := dz[i*f:(i+1)*f], s.al[k*f:(k+1)*f], s.ar[k*f:(k+1)*f]
			for j := range row {
				row[j] += del[i]*l[j] + der[i]*r[j]
			}
		}
	})
	var grads [2]gorgonia.Value
	for i, d := range [2][]T{del, der} {
		t, da := values.Alloc[T](s.op.vShape[i])
		heads.Sum(da, s.z, d, s.op.g.n, h, f)
		grads[i] = t
	}
	return grads
}

// vecGradOp hands on the gradient of al (which 0) or ar (which 1) that
// fwd's gatGradOp, its input, computed: it takes that op's result, the key
// of the run in fwd.back, and runs after it.
type vecGradOp struct {
	fwd   *gatOp
	which int
}

func (op *vecGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.fwd.zShape()}, op.fwd.vShape[op.which]
}

func (op *vecGradOp) Name() string {
	return fmt.Sprintf("d%s/%s", op.fwd.Name(), [...]string{"al", "ar"}[op.which])
}

func (op *vecGradOp) Key() string { return op.fwd.Key() }

func (op *vecGradOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) {
	v, ok := op.fwd.back.Take(vals[0], op.which)
	if !ok {
		return nil, fmt.Errorf("sar: %s: no gradient from this run of the backward it comes from", op.Name())
	}
	return v, nil
}

var (
	_ opkit.Partial = (*gatOp)(nil)
	_ opkit.Spec    = (*gatGradOp)(nil)
	_ opkit.Spec    = (*vecGradOp)(nil)
	_ opkit.Into    = (*gatOp)(nil)
	_ opkit.Into    = (*gatGradOp)(nil)
)

// gatBufs are the working buffers of a gatOp call (gatState), kept between
// calls in the Graph's spares, which all its GAT layers share (one call
// runs at a time, so they hold the largest call's buffers, once).
type gatBufs[T num.Float] struct {
	el, er, max, sum []T // (N, H)
	cv, resL, resR   []T // (N, H), in the backward
	a, dpre          []T // per edge and head of the largest shard
	// big is one shard's aggregation (N, H*F) in the forward, and in the
	// backward the gradient rows of the even rounds' shards (this rank's
	// own among them); send those of the odd rounds'.
	big, send []T
}
