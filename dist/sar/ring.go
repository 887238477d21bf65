package sar

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/gnngo/gnn/dist/comm"
	"github.com/gnngo/gnn/internal/num"
)

// pass is one sweep of an aggregation over the shards of a Graph. With x
// set, shard j's source rows (xw elements each) are fetched from rank j
// and handed to visit; with gw > 0, visit returns gradient rows (gw each)
// for shard j's sources, which go back to rank j and are added there to
// the rows of dx they belong to. The communication tag is tag.
//
// pack, when set, replaces x: it writes the rows idx of what is fetched
// (xw elements each, laid out as it likes) into dst. scatter, when set,
// replaces the rows of dx: it adds the gradient rows of idx (gw elements
// each, as visit laid them out) to where they belong.
type pass[T num.Float] struct {
	x       []T
	xw      int
	gw      int
	dx      []T
	tag     int
	visit   func(j int, rows []T) ([]T, error)
	pack    func(dst []T, idx []int32)
	scatter func(idx []int32, rows []T)
}

// fetches reports whether the pass fetches rows.
func (p *pass[T]) fetches() bool { return p.x != nil || p.pack != nil }

// gatherInto writes rows idx of what the pass fetches into dst.
func (p *pass[T]) gatherInto(dst []T, idx []int32) {
	if p.pack != nil {
		p.pack(dst, idx)
		return
	}
	for i, r := range idx {
		copy(dst[i*p.xw:(i+1)*p.xw], p.x[int(r)*p.xw:(int(r)+1)*p.xw])
	}
}

// rowsOf returns rows idx of what the pass fetches, packed.
func (p *pass[T]) rowsOf(idx []int32) []T {
	out := make([]T, len(idx)*p.xw)
	p.gatherInto(out, idx)
	return out
}

// addBack adds gradient rows of idx into dx.
func (p *pass[T]) addBack(idx []int32, rows []T) {
	if p.scatter != nil {
		p.scatter(idx, rows)
		return
	}
	scatterAdd(p.dx, idx, rows, p.gw)
}

// run performs the pass in g's mode. An error is returned, not turned
// into comm.Abort here: the pass runs inside an op's Do, on the goroutine
// of Gorgonia's TapeMachine, and the in-process engine's Abort ends the
// calling goroutine (runtime.Goexit), which would leave RunAll waiting for
// it forever. The error reaches the rank's function through RunAll, and the
// job runner (comm.RunInProcess, comm.RunMPI) then releases or aborts
// every other rank, so none is left waiting for this one.
func (p *pass[T]) run(g *Graph) error { return p.runIn(g, g.mode) }

// runIn is run in mode m, whatever g's.
func (p *pass[T]) runIn(g *Graph, m Mode) error {
	var err error
	if m == OneShot {
		err = p.oneShot(g)
	} else {
		err = p.sequential(g)
	}
	if err != nil {
		err = fmt.Errorf("sar: rank %d: %w", g.rank, err)
	}
	return err
}

// round k of a ring: this rank receives features from (and sends
// gradients to) from, and sends features to (and receives gradients
// from) to.
func (g *Graph) round(k int) (from, to int) {
	return (g.rank - k + g.size) % g.size, (g.rank + k) % g.size
}

type fetched[T num.Float] struct {
	rows []T
	raw  []byte // the memory of rows, for g.msgs once they are read
	err  error
}

// fetch returns the rows of shard from in round k, and the memory they
// lie in, to give back to g.msgs once read.
func (p *pass[T]) fetch(g *Graph, k int) ([]T, []byte, error) {
	from, to := g.round(k)
	if k == 0 {
		idx := g.shards[g.rank].src
		b, rows := spareMessage[T](&g.msgs, len(idx)*p.xw)
		p.gatherInto(rows, idx)
		return rows, b, nil
	}
	send, payload := spareMessage[T](&g.msgs, len(g.need[to])*p.xw)
	p.gatherInto(payload, g.need[to])
	g.sent.Add(int64(len(send)))
	b, err := g.c.SendRecv(send, to, from, p.tag)
	g.msgs.put(send) // SendRecv is done with it
	if err != nil {
		return nil, nil, fmt.Errorf("fetching rows from rank %d: %w", from, err)
	}
	rows, err := unmessage[T](b)
	if err != nil {
		return nil, nil, fmt.Errorf("rows from rank %d: %w", from, err)
	}
	if want := len(g.shards[from].src) * p.xw; len(rows) != want {
		return nil, nil, fmt.Errorf("rank %d sent %d values for its shard, want %d", from, len(rows), want)
	}
	return rows, b, nil
}

// push sends the gradient rows of shard from to their owner in round k and
// adds what rank to sent back into dx.
func (p *pass[T]) push(g *Graph, k int, grad []T) error {
	from, to := g.round(k)
	if k == 0 {
		p.addBack(g.shards[g.rank].src, grad)
		return nil
	}
	send, payload := spareMessage[T](&g.msgs, len(grad))
	copy(payload, grad)
	g.sent.Add(int64(len(send)))
	b, err := g.c.SendRecv(send, from, to, p.tag+1)
	g.msgs.put(send)
	if err != nil {
		return fmt.Errorf("returning gradients to rank %d: %w", from, err)
	}
	back, err := unmessage[T](b)
	if err != nil {
		return fmt.Errorf("gradients from rank %d: %w", to, err)
	}
	if want := len(g.need[to]) * p.gw; len(back) != want {
		return fmt.Errorf("rank %d returned %d gradient values, want %d", to, len(back), want)
	}
	p.addBack(g.need[to], back)
	g.msgs.put(b)
	return nil
}

// sequential visits the shards in ring order, fetching the next shard's
// rows while the current one is aggregated, and returning each shard's
// gradients while the next one is computed (pipeline depth 1). Received
// gradients are added in round order, so results do not depend on timing.
func (p *pass[T]) sequential(g *Graph) error {
	var cur []T
	var raw []byte // cur's memory
	if p.fetches() {
		cur, raw, _ = p.fetch(g, 0)
	}
	var pushed chan error // the push of the previous round
	wait := func() error {
		if pushed == nil {
			return nil
		}
		err := <-pushed
		pushed = nil
		return err
	}
	for k := range g.size {
		var next chan fetched[T]
		if p.fetches() && k+1 < g.size {
			next = make(chan fetched[T], 1)
			go func(k int) {
				rows, b, err := p.fetch(g, k)
				next <- fetched[T]{rows, b, err}
			}(k + 1)
		}
		from, _ := g.round(k)
		grad, err := p.visit(from, cur)
		g.msgs.put(raw)
		cur, raw = nil, nil
		if err == nil {
			err = wait()
		}
		if err == nil && p.gw > 0 {
			pushed = make(chan error, 1)
			go func(k int) { pushed <- p.push(g, k, grad) }(k)
		}
		if next != nil {
			f := <-next
			cur, raw = f.rows, f.raw
			if err == nil {
				err = f.err
			}
		}
		if err != nil {
			wait()
			return err
		}
	}
	return wait()
}

// oneShot fetches every shard's rows in one all-to-all, visits the shards
// in ring order, and returns all gradients in one all-to-all.
func (p *pass[T]) oneShot(g *Graph) error {
	var all [][]byte
	if p.fetches() {
		send := make([][]byte, g.size)
		for j := range send {
			if j != g.rank {
				send[j] = encode(p.rowsOf(g.need[j]))
				g.sent.Add(int64(len(send[j])))
			}
		}
		var err error
		if all, err = g.c.AllToAllV(send); err != nil {
			return fmt.Errorf("fetching rows: %w", err)
		}
	}
	grads := make([][]byte, g.size)
	for k := range g.size {
		from, _ := g.round(k)
		var rows []T
		switch {
		case !p.fetches():
		case k == 0:
			rows = p.rowsOf(g.shards[g.rank].src)
		default:
			var err error
			if rows, err = decode[T](all[from]); err != nil {
				return fmt.Errorf("rows from rank %d: %w", from, err)
			}
			all[from] = nil
			if want := len(g.shards[from].src) * p.xw; len(rows) != want {
				return fmt.Errorf("rank %d sent %d values for its shard, want %d", from, len(rows), want)
			}
		}
		grad, err := p.visit(from, rows)
		if err != nil {
			return err
		}
		if p.gw == 0 {
			continue
		}
		if k == 0 {
			p.addBack(g.shards[g.rank].src, grad)
			continue
		}
		grads[from] = encode(grad)
		g.sent.Add(int64(len(grads[from])))
	}
	if p.gw == 0 {
		return nil
	}
	back, err := g.c.AllToAllV(grads)
	if err != nil {
		return fmt.Errorf("returning gradients: %w", err)
	}
	for k := 1; k < g.size; k++ {
		_, to := g.round(k)
		b, err := decode[T](back[to])
		if err != nil {
			return fmt.Errorf("gradients from rank %d: %w", to, err)
		}
		if want := len(g.need[to]) * p.gw; len(b) != want {
			return fmt.Errorf("rank %d returned %d gradient values, want %d", to, len(b), want)
		}
		p.addBack(g.need[to], b)
	}
	return nil
}

// scatterAdd adds packed row i of rows to row idx[i] of dx.
func scatterAdd[T num.Float](dx []T, idx []int32, rows []T, w int) {
	for i, r := range idx {
		d := dx[int(r)*w : (int(r)+1)*w]
		for k, v := range rows[i*w : (i+1)*w] {
			d[k] += v
		}
	}
}

// A message is a point-to-point payload: the element count (8 bytes,
// little endian), then the elements. The header also keeps every payload
// non-empty: comm's Open MPI SendRecv skips the payload exchange when a
// rank has nothing to send and nothing to receive, while the partners
// that do have data wait for it (seen at 8 ranks), so no rank may have
// both.

// spareMessage returns a message of n elements and its payload, for the
// caller to fill in (the rows are written once, straight into the bytes
// that are sent), in memory from s: the caller gives the bytes back to s
// once sent.
func spareMessage[T num.Float](s *byteSpares, n int) ([]byte, []T) {
	var zero T
	b := s.take(8 + n*int(unsafe.Sizeof(zero)))
	binary.LittleEndian.PutUint64(b, uint64(n))
	payload, err := decode[T](b[8:])
	if err != nil {
		panic(err) // a whole number of elements by construction
	}
	return b, payload
}

// unmessage decodes a message, checking its element count.
func unmessage[T num.Float](b []byte) ([]T, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("a message of %d bytes has no header", len(b))
	}
	v, err := decode[T](b[8:])
	if err == nil && uint64(len(v)) != binary.LittleEndian.Uint64(b) {
		err = fmt.Errorf("a message announces %d values but holds %d", binary.LittleEndian.Uint64(b), len(v))
	}
	return v, err
}

func encode[T num.Float](v []T) []byte {
	switch v := any(v).(type) {
	case []float32:
		return comm.Float32sToBytes(v)
	case []float64:
		return comm.Float64sToBytes(v)
	}
	panic("sar: unreachable")
}

func decode[T num.Float](b []byte) ([]T, error) {
	var zero T
	if _, ok := any(zero).(float32); ok {
		v, err := comm.BytesToFloat32s(b)
		return any(v).([]T), err
	}
	v, err := comm.BytesToFloat64s(b)
	return any(v).([]T), err
}
