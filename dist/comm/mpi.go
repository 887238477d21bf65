//go:build mpi

package comm

/*
#cgo pkg-config: ompi
#include <mpi.h>
#include <stdint.h>

static int gnn_init(int *provided) {
	int flag = 0;
	MPI_Initialized(&flag);
	if (flag) {
		return MPI_Query_thread(provided);
	}
	return MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, provided);
}
static int gnn_rank(int *r) { return MPI_Comm_rank(MPI_COMM_WORLD, r); }
static int gnn_size(int *s) { return MPI_Comm_size(MPI_COMM_WORLD, s); }
static int gnn_sendrecv(void *sbuf, int scount, int dst, void *rbuf, int rcount, int src, int tag) {
	return MPI_Sendrecv(sbuf, scount, MPI_BYTE, dst, tag, rbuf, rcount, MPI_BYTE, src, tag,
		MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
static int gnn_send(void *buf, int count, int dst, int tag) {
	return MPI_Send(buf, count, MPI_BYTE, dst, tag, MPI_COMM_WORLD);
}
static int gnn_recv(void *buf, int count, int src, int tag) {
	return MPI_Recv(buf, count, MPI_BYTE, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
static int gnn_alltoall_i64(int64_t *s, int64_t *r) {
	return MPI_Alltoall(s, 1, MPI_INT64_T, r, 1, MPI_INT64_T, MPI_COMM_WORLD);
}
static int gnn_alltoallv(void *s, int *sc, int *sd, void *r, int *rc, int *rd) {
	return MPI_Alltoallv(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
}
static int gnn_bcast(void *b, int n, int root) { return MPI_Bcast(b, n, MPI_BYTE, root, MPI_COMM_WORLD); }
static int gnn_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }
static void gnn_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }
static int gnn_finalize(void) {
	int flag = 0;
	MPI_Finalized(&flag);
	return flag ? MPI_SUCCESS : MPI_Finalize();
}
static int gnn_error_string(int code, char *buf) {
	int n = 0;
	MPI_Error_string(code, buf, &n);
	return n;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"unsafe"
)

// maxChunk is the most bytes one MPI call moves: MPI-3.1 counts are C ints.
const maxChunk = 1 << 30

// chunks returns how many MPI calls move n bytes, maxChunk at a time.
func chunks(n int) int { return (n + maxChunk - 1) / maxChunk }

var mpiState struct {
	once     sync.Once
	comm     *mpiComm
	err      error
	finalize chan chan error
	finOnce  sync.Once
	finErr   error
}

// MPI initialises Open MPI (once per process, with MPI_THREAD_MULTIPLE) and
// returns the world communicator. The process must have been started by
// mpirun (or as a singleton). Call Finalize when done, or use RunMPI.
func MPI() (Comm, error) {
	s := &mpiState
	s.once.Do(func() {
		ready := make(chan error)
		s.finalize = make(chan chan error)
		// MPI wants Finalize on the thread that called Init: one locked
		// goroutine does both.
		go func() {
			runtime.LockOSThread()
			var provided C.int
			if rc := C.gnn_init(&provided); rc != C.MPI_SUCCESS {
				ready <- mpiError("MPI_Init_thread", rc)
				return
			}
			if provided < C.MPI_THREAD_MULTIPLE {
				ready <- fmt.Errorf("comm: MPI grants thread level %d, gnn needs MPI_THREAD_MULTIPLE (%d)", int(provided), int(C.MPI_THREAD_MULTIPLE))
				return
			}
			ready <- nil
			done := <-s.finalize
			done <- mpiError("MPI_Finalize", C.gnn_finalize())
		}()
		if s.err = <-ready; s.err != nil {
			return
		}
		var rank, size C.int
		if err := mpiError("MPI_Comm_rank", C.gnn_rank(&rank)); err != nil {
			s.err = err
			return
		}
		if err := mpiError("MPI_Comm_size", C.gnn_size(&size)); err != nil {
			s.err = err
			return
		}
		s.comm = &mpiComm{rank: int(rank), size: int(size)}
	})
	if s.err != nil {
		return nil, s.err
	}
	return allReducer{s.comm}, nil
}

// Finalize shuts Open MPI down after every rank is done with it. It does
// nothing when MPI was never initialised, and only the first call acts.
func Finalize() error {
	s := &mpiState
	if s.comm == nil {
		return nil
	}
	s.finOnce.Do(func() {
		done := make(chan error)
		s.finalize <- done
		s.finErr = <-done
	})
	return s.finErr
}

// RunMPI initialises Open MPI, runs f on the world communicator and ends
// the job. When f returns nil it finalises MPI and returns nil. When f
// returns an error or panics, it aborts the whole job (Abort: "rank R: err"
// on stderr, every process exits non-zero) and does not return.
func RunMPI(f func(c Comm) error) error {
	c, err := MPI()
	if err != nil {
		return err
	}
	func() {
		defer func() {
			if p := recover(); p != nil {
				c.Abort(fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
			}
		}()
		if err := f(c); err != nil {
			c.Abort(err)
		}
	}()
	return Finalize()
}

// mpiError turns an MPI return code into an error naming the call.
func mpiError(call string, rc C.int) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	buf := make([]byte, C.MPI_MAX_ERROR_STRING+1)
	n := C.gnn_error_string(rc, (*C.char)(unsafe.Pointer(&buf[0])))
	return fmt.Errorf("comm: %s failed: %s (MPI error %d)", call, buf[:n], int(rc))
}

// mpiComm is the world communicator of an Open MPI job.
type mpiComm struct{ rank, size int }

func (c *mpiComm) Rank() int { return c.rank }
func (c *mpiComm) Size() int { return c.size }

var dummy [8]byte

// ptr returns a pointer to b's data, or to a dummy byte when b is empty.
func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return unsafe.Pointer(&dummy[0])
	}
	return unsafe.Pointer(&b[0])
}

// SendRecv exchanges the payload sizes first, then the payloads in chunks
// of at most maxChunk bytes, all on the caller's tag.
func (c *mpiComm) SendRecv(send []byte, dst, src, tag int) ([]byte, error) {
	if err := checkSendRecv(dst, src, tag, c.size); err != nil {
		return nil, err
	}
	var sizes [2]int64
	sizes[0] = int64(len(send))
	sb, rb := Int64sToBytes(sizes[:1]), Int64sToBytes(sizes[1:])
	if err := mpiError("MPI_Sendrecv", C.gnn_sendrecv(ptr(sb), 8, C.int(dst), ptr(rb), 8, C.int(src), C.int(tag))); err != nil {
		return nil, err
	}
	if sizes[1] < 0 || sizes[1] > math.MaxInt {
		return nil, fmt.Errorf("comm: SendRecv: rank %d announced %d bytes", src, sizes[1])
	}
	recv := make([]byte, sizes[1])
	// The payloads go in chunks of at most maxChunk bytes. How many chunks
	// travel from this rank to dst depends only on len(send), which dst has
	// just learnt, and how many come from src only on len(recv): each pair
	// agrees on its own count, but the two pairs of one call may not (a rank
	// sending nothing still has to receive what src sends, and the other way
	// round). So chunk i is a Sendrecv while both directions have one, and a
	// plain Send or Recv once only one of them has; an empty payload posts
	// nothing, and its partner posts nothing for it either.
	sendChunks, recvChunks := chunks(len(send)), chunks(len(recv))
	for i := range max(sendChunks, recvChunks) {
		off := i * maxChunk
		s := send[min(off, len(send)):min(off+maxChunk, len(send))]
		r := recv[min(off, len(recv)):min(off+maxChunk, len(recv))]
		var rc C.int
		call := "MPI_Sendrecv"
		switch {
		case i < sendChunks && i < recvChunks:
			rc = C.gnn_sendrecv(ptr(s), C.int(len(s)), C.int(dst), ptr(r), C.int(len(r)), C.int(src), C.int(tag))
		case i < sendChunks:
			call, rc = "MPI_Send", C.gnn_send(ptr(s), C.int(len(s)), C.int(dst), C.int(tag))
		default:
			call, rc = "MPI_Recv", C.gnn_recv(ptr(r), C.int(len(r)), C.int(src), C.int(tag))
		}
		if err := mpiError(call, rc); err != nil {
			return nil, err
		}
	}
	return recv, nil
}

// AllToAllV exchanges the block sizes with MPI_Alltoall, then the blocks
// with one MPI_Alltoallv.
func (c *mpiComm) AllToAllV(send [][]byte) ([][]byte, error) {
	if err := checkAllToAllV(send, c.size); err != nil {
		return nil, err
	}
	n := c.size
	scount, rcount := make([]int64, n), make([]int64, n)
	var stotal int64
	for i, b := range send {
		scount[i] = int64(len(b))
		stotal += scount[i]
	}
	if err := mpiError("MPI_Alltoall", C.gnn_alltoall_i64((*C.int64_t)(unsafe.Pointer(&scount[0])), (*C.int64_t)(unsafe.Pointer(&rcount[0])))); err != nil {
		return nil, err
	}
	var rtotal int64
	for _, k := range rcount {
		rtotal += k
	}
	// Every rank checks the same condition on its own totals; a rank over
	// the limit fails alone, and its peers are ended by its Abort.
	if stotal > math.MaxInt32 || rtotal > math.MaxInt32 {
		return nil, fmt.Errorf("comm: AllToAllV: %d bytes sent and %d received by rank %d exceed MPI's 2^31-1 limit per call; split the exchange", stotal, rtotal, c.rank)
	}
	sbuf := make([]byte, 0, stotal)
	sc, sd, rc, rd := make([]C.int, n), make([]C.int, n), make([]C.int, n), make([]C.int, n)
	var roff int64
	for i := range n {
		sd[i], sc[i] = C.int(len(sbuf)), C.int(scount[i])
		sbuf = append(sbuf, send[i]...)
		rd[i], rc[i] = C.int(roff), C.int(rcount[i])
		roff += rcount[i]
	}
	rbuf := make([]byte, rtotal)
	if err := mpiError("MPI_Alltoallv", C.gnn_alltoallv(ptr(sbuf), &sc[0], &sd[0], ptr(rbuf), &rc[0], &rd[0])); err != nil {
		return nil, err
	}
	recv := make([][]byte, n)
	for i := range n {
		lo, hi := int(rd[i]), int(rd[i])+int(rc[i])
		recv[i] = rbuf[lo:hi:hi]
	}
	return recv, nil
}

// Broadcast sends the size first, then the payload in chunks.
func (c *mpiComm) Broadcast(buf []byte, root int) ([]byte, error) {
	if err := checkPeer("Broadcast", "root", root, c.size); err != nil {
		return nil, err
	}
	size := []int64{int64(len(buf))}
	if err := mpiError("MPI_Bcast", C.gnn_bcast(ptr(Int64sToBytes(size)), 8, C.int(root))); err != nil {
		return nil, err
	}
	out := buf
	if c.rank != root {
		out = make([]byte, size[0])
	}
	for off := 0; off < len(out); off += maxChunk {
		b := out[off:min(off+maxChunk, len(out))]
		if err := mpiError("MPI_Bcast", C.gnn_bcast(ptr(b), C.int(len(b)), C.int(root))); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (c *mpiComm) Barrier() error { return mpiError("MPI_Barrier", C.gnn_barrier()) }

// Abort prints "rank R: err" to stderr and ends every process of the job
// with MPI_Abort; it does not return.
func (c *mpiComm) Abort(err error) {
	if err == nil {
		err = errors.New("Abort(nil)")
	}
	fmt.Fprintf(os.Stderr, "rank %d: %v\n", c.rank, err)
	C.gnn_abort(1)
	os.Exit(1) // MPI_Abort does not return; this is never reached
}
