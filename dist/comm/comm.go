package comm

import (
	"errors"
	"fmt"

	"github.com/gnngo/gnn/internal/enum"
)

// ReduceOp names the elementwise reduction of an all-reduce.
type ReduceOp int

const (
	// Sum adds the ranks' values, folding in rank order.
	Sum ReduceOp = iota
	// Max keeps the largest value; a NaN on any rank gives NaN.
	Max
	// Min keeps the smallest value; a NaN on any rank gives NaN.
	Min
)

// String returns the name of the reduction.
func (op ReduceOp) String() string {
	return enum.Name(op, "ReduceOp", "Sum", "Max", "Min")
}

// MaxTag is the largest tag SendRecv accepts: the smallest upper bound the
// MPI standard guarantees (MPI_TAG_UB >= 32767).
const MaxTag = 32767

// Comm is one rank's handle on a job of Size() ranks. See the package
// documentation for the calling rules every engine shares.
type Comm interface {
	// Rank returns this rank's number, in [0, Size()).
	Rank() int
	// Size returns the number of ranks in the job.
	Size() int
	// SendRecv sends send to rank dst and returns the bytes rank src sent to
	// this rank with the same tag (MPI_Sendrecv). dst == src == Rank() is
	// allowed. send may be reused as soon as SendRecv returns.
	SendRecv(send []byte, dst, src, tag int) ([]byte, error)
	// AllToAllV sends send[i] to rank i and returns recv[i], what rank i sent
	// here. len(send) must be Size(); empty blocks are allowed.
	AllToAllV(send [][]byte) ([][]byte, error)
	// AllReduceFloat64 reduces buf elementwise over all ranks, in place. The
	// result is the same bits on every rank and for every run: the ranks'
	// buffers are folded in rank order. Every rank must pass the same length.
	AllReduceFloat64(buf []float64, op ReduceOp) error
	// AllReduceFloat32 is AllReduceFloat64 for float32 buffers.
	AllReduceFloat32(buf []float32, op ReduceOp) error
	// AllReduceInt64 is AllReduceFloat64 for int64 buffers (counts, degrees).
	AllReduceInt64(buf []int64, op ReduceOp) error
	// Broadcast returns root's buf on every rank (buf is ignored on
	// non-roots; on root the result is buf itself).
	Broadcast(buf []byte, root int) ([]byte, error)
	// Barrier returns once every rank has called it.
	Barrier() error
	// Abort ends the whole job because of err and does not return. Under MPI
	// it prints "rank R: err" to stderr and every process exits non-zero; in
	// the in-process engine it ends the calling goroutine, and every other
	// rank's pending and later calls return an *AbortError naming rank R.
	// Call it from the rank's own goroutine (the function given to
	// RunInProcess or RunMPI), never from inside a Gorgonia op: ending the
	// TapeMachine's worker goroutine leaves its RunAll waiting forever.
	// Returning an error from the rank's function aborts the job too.
	Abort(err error)
}

// AbortError is the error a rank's calls return after another rank aborted
// the job, and what RunInProcess returns when a rank failed.
type AbortError struct {
	Rank int   // the rank that failed
	Err  error // why it failed
}

func (e *AbortError) Error() string { return fmt.Sprintf("rank %d: %v", e.Rank, e.Err) }

// Unwrap returns the failing rank's error.
func (e *AbortError) Unwrap() error { return e.Err }

// ErrNotBuilt is returned by MPI and RunMPI in a build without the mpi tag.
var ErrNotBuilt = errors.New("comm: the Open MPI engine is not built in; build with -tags mpi (needs the apt packages openmpi-bin and libopenmpi-dev)")

// checkPeer reports a rank number outside [0, size).
func checkPeer(call, what string, r, size int) error {
	if r < 0 || r >= size {
		return fmt.Errorf("comm: %s: %s rank %d is out of range [0, %d)", call, what, r, size)
	}
	return nil
}

// checkSendRecv validates the arguments of SendRecv.
func checkSendRecv(dst, src, tag, size int) error {
	if err := checkPeer("SendRecv", "destination", dst, size); err != nil {
		return err
	}
	if err := checkPeer("SendRecv", "source", src, size); err != nil {
		return err
	}
	if tag < 0 || tag > MaxTag {
		return fmt.Errorf("comm: SendRecv: tag %d is out of range [0, %d]", tag, MaxTag)
	}
	return nil
}

// checkAllToAllV validates the arguments of AllToAllV.
func checkAllToAllV(send [][]byte, size int) error {
	if len(send) != size {
		return fmt.Errorf("comm: AllToAllV: %d send blocks for %d ranks", len(send), size)
	}
	return nil
}

// checkOp validates a reduction.
func checkOp(call string, op ReduceOp) error {
	if op < Sum || op > Min {
		return fmt.Errorf("comm: %s: unknown reduction %v", call, op)
	}
	return nil
}
