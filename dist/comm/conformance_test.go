package comm

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
)

// The conformance suite: checks that every engine must pass, written as
// functions every rank of a job runs. The in-process engine runs them in
// inprocess_test.go; the MPI engine runs them under mpirun in mpi_test.go.

type check struct {
	name string
	run  func(c Comm) error
}

var conformance = []check{
	{"RankSize", checkRankSize},
	{"Ring", checkRing},
	{"ConcurrentStreams", checkConcurrentStreams},
	{"RingWithSilentRank", checkRingWithSilentRank},
	{"AllToAllV", checkAllToAllV_},
	{"AllReduceSum", checkAllReduceSum},
	{"AllReduceMaxMin", checkAllReduceMaxMin},
	{"AllReduceMismatch", checkAllReduceMismatch},
	{"Broadcast", checkBroadcast},
	{"Barrier", checkBarrier},
	{"BadArguments", checkBadArguments},
}

// payload is what rank src sends to rank dst in round k of a test: its
// length varies with the three (zero included) and its bytes name them.
func payload(src, dst, k int) []byte {
	n := (src*7 + dst*3 + k) % 11
	if src == dst {
		n = 0
	}
	b := make([]byte, n*4)
	for i := range b {
		b[i] = byte(src*31 + dst*17 + k*5 + i)
	}
	return b
}

func checkRankSize(c Comm) error {
	if c.Size() < 1 || c.Rank() < 0 || c.Rank() >= c.Size() {
		return fmt.Errorf("rank %d of size %d", c.Rank(), c.Size())
	}
	// Every rank number appears exactly once.
	buf := make([]int64, c.Size())
	buf[c.Rank()] = 1
	if err := c.AllReduceInt64(buf, Sum); err != nil {
		return err
	}
	for r, v := range buf {
		if v != 1 {
			return fmt.Errorf("rank %d claimed by %d ranks", r, v)
		}
	}
	return nil
}

// ring runs SAR's shifted exchange on one tag: in round k send to r+k and
// receive from r-k.
func ring(c Comm, tag, rounds int) error {
	n, r := c.Size(), c.Rank()
	for round := range rounds {
		k := round % n
		dst, src := (r+k)%n, (r-k+n)%n
		got, err := c.SendRecv(payload(r, dst, round+tag), dst, src, tag)
		if err != nil {
			return err
		}
		if want := payload(src, r, round+tag); !bytes.Equal(got, want) {
			return fmt.Errorf("tag %d round %d: got %d bytes from rank %d, want %d", tag, round, len(got), src, len(want))
		}
	}
	return nil
}

func checkRing(c Comm) error { return ring(c, 0, 2*c.Size()+1) }

// checkRingWithSilentRank runs the ring with rank 0 sending and receiving
// nothing in every round while the others exchange bytes: a rank with no
// payload either way must not leave its partners waiting (the MPI engine
// once skipped the exchange there, and 3 or more ranks hung).
func checkRingWithSilentRank(c Comm) error {
	n, r := c.Size(), c.Rank()
	msg := func(src, dst, round int) []byte {
		if src == 0 || dst == 0 || src == dst {
			return nil
		}
		return []byte{byte(src), byte(dst), byte(round)}
	}
	for round := range 2 * n {
		k := round % n
		dst, src := (r+k)%n, (r-k+n)%n
		got, err := c.SendRecv(msg(r, dst, round), dst, src, 20)
		if err != nil {
			return err
		}
		if want := msg(src, r, round); !bytes.Equal(got, want) {
			return fmt.Errorf("round %d: got %v from rank %d, want %v", round, got, src, want)
		}
	}
	return nil
}

func checkConcurrentStreams(c Comm) error {
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for s := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[s] = ring(c, 10+s, 3*c.Size())
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func checkAllToAllV_(c Comm) error {
	for round := range 3 {
		send := make([][]byte, c.Size())
		for i := range send {
			send[i] = payload(c.Rank(), i, round)
		}
		recv, err := c.AllToAllV(send)
		if err != nil {
			return err
		}
		if len(recv) != c.Size() {
			return fmt.Errorf("%d blocks for %d ranks", len(recv), c.Size())
		}
		for i, got := range recv {
			if want := payload(i, c.Rank(), round); !bytes.Equal(got, want) {
				return fmt.Errorf("round %d: block from rank %d has %d bytes, want %d", round, i, len(got), len(want))
			}
		}
	}
	return nil
}

// value is rank r's element i in the all-reduce checks: magnitudes spread
// so that the order of a float sum changes its bits.
func value(r, i int) float64 {
	return math.Ldexp(float64((r*13+i*7)%17)-8.3, ((r+i)%5-2)*20)
}

func checkAllReduceSum(c Comm) error {
	const n = 37
	f64 := make([]float64, n)
	f32 := make([]float32, n)
	i64 := make([]int64, n)
	for i := range n {
		f64[i] = value(c.Rank(), i)
		f32[i] = float32(value(c.Rank(), i))
		i64[i] = int64(c.Rank()*1000 + i)
	}
	if err := c.AllReduceFloat64(f64, Sum); err != nil {
		return err
	}
	if err := c.AllReduceFloat32(f32, Sum); err != nil {
		return err
	}
	if err := c.AllReduceInt64(i64, Sum); err != nil {
		return err
	}
	for i := range n {
		// The documented order: rank 0's value, plus rank 1's, plus ...
		w64, w32, wi := value(0, i), float32(value(0, i)), int64(i)
		for r := 1; r < c.Size(); r++ {
			w64 += value(r, i)
			w32 += float32(value(r, i))
			wi += int64(r*1000 + i)
		}
		if math.Float64bits(f64[i]) != math.Float64bits(w64) {
			return fmt.Errorf("float64 sum [%d] = %v, want %v", i, f64[i], w64)
		}
		if math.Float32bits(f32[i]) != math.Float32bits(w32) {
			return fmt.Errorf("float32 sum [%d] = %v, want %v", i, f32[i], w32)
		}
		if i64[i] != wi {
			return fmt.Errorf("int64 sum [%d] = %d, want %d", i, i64[i], wi)
		}
	}
	// An empty buffer is a valid all-reduce.
	return c.AllReduceFloat64(nil, Sum)
}

func checkAllReduceMaxMin(c Comm) error {
	const n = 20
	for _, op := range []ReduceOp{Max, Min} {
		buf := make([]float64, n)
		for i := range buf {
			buf[i] = value(c.Rank(), i)
		}
		// Element 0 is NaN on the last rank only: NaN must win.
		if c.Rank() == c.Size()-1 {
			buf[0] = math.NaN()
		}
		if err := c.AllReduceFloat64(buf, op); err != nil {
			return err
		}
		if !math.IsNaN(buf[0]) {
			return fmt.Errorf("%v: NaN on rank %d lost: got %v", op, c.Size()-1, buf[0])
		}
		for i := 1; i < n; i++ {
			want := value(0, i)
			for r := 1; r < c.Size(); r++ {
				if op == Max {
					want = math.Max(want, value(r, i))
				} else {
					want = math.Min(want, value(r, i))
				}
			}
			if buf[i] != want {
				return fmt.Errorf("%v [%d] = %v, want %v", op, i, buf[i], want)
			}
		}
	}
	return nil
}

// checkAllReduceMismatch: ranks that disagree on the length or the op all
// get the same error instead of garbage or a hang.
func checkAllReduceMismatch(c Comm) error {
	if c.Size() == 1 {
		return nil
	}
	buf := make([]float32, 4+c.Rank())
	err := c.AllReduceFloat32(buf, Sum)
	if err == nil || !strings.Contains(err.Error(), "elements") {
		return fmt.Errorf("lengths %d..%d: got error %v, want one about elements", 4, 3+c.Size(), err)
	}
	op := Sum
	if c.Rank() == 1 {
		op = Max
	}
	err = c.AllReduceFloat64(make([]float64, 3), op)
	if err == nil || !strings.Contains(err.Error(), "rank 1 asked for Max") {
		return fmt.Errorf("mixed ops: got error %v", err)
	}
	// The job goes on normally afterwards.
	return c.Barrier()
}

func checkBroadcast(c Comm) error {
	for root := range c.Size() {
		var buf []byte
		if c.Rank() == root {
			buf = payload(root, root+1, 3)
		} else {
			buf = []byte("ignored")
		}
		got, err := c.Broadcast(buf, root)
		if err != nil {
			return err
		}
		if want := payload(root, root+1, 3); !bytes.Equal(got, want) {
			return fmt.Errorf("root %d: got %q, want %q", root, got, want)
		}
		// Empty from root.
		got, err = c.Broadcast(nil, root)
		if err != nil {
			return err
		}
		if len(got) != 0 {
			return fmt.Errorf("root %d: empty broadcast gave %d bytes", root, len(got))
		}
	}
	return nil
}

func checkBarrier(c Comm) error {
	for range 5 {
		if err := c.Barrier(); err != nil {
			return err
		}
	}
	return nil
}

// checkBadArguments: argument errors are returned by every rank alike
// before any communication, so the job can go on.
func checkBadArguments(c Comm) error {
	n := c.Size()
	wantErr := func(err error, sub string) error {
		if err == nil || !strings.Contains(err.Error(), sub) {
			return fmt.Errorf("got error %v, want one containing %q", err, sub)
		}
		return nil
	}
	_, err := c.SendRecv(nil, n, 0, 0)
	if e := wantErr(err, fmt.Sprintf("destination rank %d is out of range [0, %d)", n, n)); e != nil {
		return e
	}
	_, err = c.SendRecv(nil, 0, -1, 0)
	if e := wantErr(err, "source rank -1"); e != nil {
		return e
	}
	_, err = c.SendRecv(nil, 0, 0, MaxTag+1)
	if e := wantErr(err, "tag 32768"); e != nil {
		return e
	}
	_, err = c.AllToAllV(make([][]byte, n+1))
	if e := wantErr(err, fmt.Sprintf("%d send blocks for %d ranks", n+1, n)); e != nil {
		return e
	}
	_, err = c.Broadcast(nil, -2)
	if e := wantErr(err, "root rank -2"); e != nil {
		return e
	}
	if e := wantErr(c.AllReduceFloat64(nil, ReduceOp(9)), "unknown reduction ReduceOp(9)"); e != nil {
		return e
	}
	return c.Barrier()
}

// runConformance runs every check on c, in order, stopping at the first
// failure, which it names.
func runConformance(c Comm) error {
	for _, ch := range conformance {
		if err := ch.run(c); err != nil {
			return fmt.Errorf("%s: %w", ch.name, err)
		}
	}
	return nil
}
