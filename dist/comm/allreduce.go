package comm

import (
	"errors"
	"fmt"
)

// transport is what an engine implements itself: Comm without the
// AllReduce methods, which allReducer builds on it for every engine.
type transport interface {
	Rank() int
	Size() int
	SendRecv(send []byte, dst, src, tag int) ([]byte, error)
	AllToAllV(send [][]byte) ([][]byte, error)
	Broadcast(buf []byte, root int) ([]byte, error)
	Barrier() error
	Abort(err error)
}

// allReducer is the Comm of an engine: its transport, and the AllReduce
// methods on top of it (allReduce).
type allReducer struct{ transport }

func (c allReducer) AllReduceFloat64(buf []float64, op ReduceOp) error {
	return allReduce(c, "AllReduceFloat64", buf, op)
}

func (c allReducer) AllReduceFloat32(buf []float32, op ReduceOp) error {
	return allReduce(c, "AllReduceFloat32", buf, op)
}

func (c allReducer) AllReduceInt64(buf []int64, op ReduceOp) error {
	return allReduce(c, "AllReduceInt64", buf, op)
}

var _ Comm = allReducer{}

// allReduce implements the AllReduce methods of every engine on top of
// AllToAllV and Broadcast: each rank sends its op and buffer to rank 0, rank
// 0 checks that all agree and folds the buffers in rank order, and
// broadcasts either the result or the error, so that every rank gets the
// same bits or the same error.
func allReduce[T number](c transport, call string, buf []T, op ReduceOp) error {
	if err := checkOp(call, op); err != nil {
		return err
	}
	send := make([][]byte, c.Size())
	send[0] = append([]byte{byte(op)}, asBytes(buf)...)
	recv, err := c.AllToAllV(send)
	if err != nil {
		return err
	}
	var out []byte
	if c.Rank() == 0 {
		out = foldRanks[T](call, recv, len(buf))
	}
	res, err := c.Broadcast(out, 0)
	if err != nil {
		return err
	}
	if len(res) == 0 {
		return fmt.Errorf("comm: %s: empty result from rank 0", call)
	}
	if res[0] != 0 {
		return errors.New(string(res[1:]))
	}
	if len(res)-1 != len(asBytes(buf)) {
		return fmt.Errorf("comm: %s: rank 0 sent %d bytes of result for a %d-byte buffer", call, len(res)-1, len(asBytes(buf)))
	}
	copy(asBytes(buf), res[1:])
	return nil
}

// foldRanks reduces the ranks' messages (op byte, then values) in rank order.
// It returns 0 followed by the result, or 1 followed by an error message.
func foldRanks[T number](call string, recv [][]byte, n int) []byte {
	fail := func(format string, args ...any) []byte {
		return append([]byte{1}, fmt.Sprintf("comm: "+call+": "+format, args...)...)
	}
	var acc []T
	var op ReduceOp
	for r, msg := range recv {
		if len(msg) == 0 {
			return fail("rank %d sent no reduction", r)
		}
		v, err := fromBytes[T](msg[1:], "elements")
		if err != nil {
			return fail("rank %d: %v", r, err)
		}
		if r == 0 {
			op = ReduceOp(msg[0])
			if len(v) != n {
				return fail("rank 0 reduced %d elements but sent %d", n, len(v))
			}
			acc = append([]T(nil), v...)
			continue
		}
		if ReduceOp(msg[0]) != op {
			return fail("rank %d asked for %v but rank 0 for %v", r, ReduceOp(msg[0]), op)
		}
		if len(v) != n {
			return fail("rank %d has %d elements but rank 0 has %d", r, len(v), n)
		}
		fold(acc, v, op)
	}
	return append([]byte{0}, asBytes(acc)...)
}

// fold reduces v into acc elementwise. Max and Min propagate NaN.
func fold[T number](acc, v []T, op ReduceOp) {
	v = v[:len(acc)]
	switch op {
	case Sum:
		for i, x := range v {
			acc[i] += x
		}
	case Max:
		for i, x := range v {
			if x > acc[i] || x != x {
				acc[i] = x
			}
		}
	case Min:
		for i, x := range v {
			if x < acc[i] || x != x {
				acc[i] = x
			}
		}
	}
}
