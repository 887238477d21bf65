package comm

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// within fails the test when f does not return within d: the in-process
// engine must never hang.
func within(t *testing.T, d time.Duration, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("the job did not end within %v", d)
		return nil
	}
}

func TestInProcessConformance(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 8} {
		for _, ch := range conformance {
			t.Run(fmt.Sprintf("n=%d/%s", n, ch.name), func(t *testing.T) {
				if err := within(t, 20*time.Second, func() error { return RunInProcess(n, ch.run) }); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestRunInProcessRejectsNoRanks(t *testing.T) {
	err := RunInProcess(0, func(Comm) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "at least one rank, got 0") {
		t.Fatalf("got %v", err)
	}
}

// released checks that err names the failing rank and wraps cause.
func released(t *testing.T, err error, rank int, cause error) {
	t.Helper()
	var ae *AbortError
	if !errors.As(err, &ae) {
		t.Fatalf("got %v (%T), want an *AbortError", err, err)
	}
	if ae.Rank != rank {
		t.Fatalf("error names rank %d, want %d: %v", ae.Rank, rank, err)
	}
	if cause != nil && !errors.Is(err, cause) {
		t.Fatalf("error %v does not wrap %v", err, cause)
	}
	if !strings.HasPrefix(err.Error(), fmt.Sprintf("rank %d: ", rank)) {
		t.Fatalf("message %q does not start with the rank", err)
	}
}

// TestAbortReleasesEveryone: rank 2 aborts while the others wait in a
// barrier, a pairwise exchange with rank 2, or a broadcast from it; every
// pending and later call returns an error naming rank 2.
func TestAbortReleasesEveryone(t *testing.T) {
	boom := errors.New("boom")
	var seen atomic.Int32
	err := within(t, 10*time.Second, func() error {
		return RunInProcess(5, func(c Comm) error {
			var err error
			switch c.Rank() {
			case 2:
				time.Sleep(20 * time.Millisecond)
				c.Abort(boom)
				t.Error("Abort returned")
			case 0:
				err = c.Barrier()
			case 1:
				_, err = c.SendRecv([]byte{1}, 2, 2, 7)
			case 3:
				_, err = c.Broadcast(nil, 2)
			case 4:
				err = c.Barrier()
			}
			released(t, err, 2, boom)
			// Later calls fail the same way.
			_, err = c.SendRecv(nil, c.Rank(), c.Rank(), 0)
			released(t, err, 2, boom)
			seen.Add(1)
			return err
		})
	})
	released(t, err, 2, boom)
	if seen.Load() != 4 {
		t.Fatalf("%d of 4 surviving ranks saw the abort", seen.Load())
	}
}

func TestErrorReturnAbortsJob(t *testing.T) {
	bad := errors.New("bad input on this rank")
	err := within(t, 10*time.Second, func() error {
		return RunInProcess(4, func(c Comm) error {
			if c.Rank() == 3 {
				return bad
			}
			buf := make([]float64, 3)
			err := c.AllReduceFloat64(buf, Sum)
			released(t, err, 3, bad)
			return err
		})
	})
	released(t, err, 3, bad)
}

func TestPanicAbortsJob(t *testing.T) {
	err := within(t, 10*time.Second, func() error {
		return RunInProcess(3, func(c Comm) error {
			if c.Rank() == 1 {
				var m map[string]int
				m["x"] = 1
			}
			return c.Barrier()
		})
	})
	released(t, err, 1, nil)
	if !strings.Contains(err.Error(), "panic: assignment to entry in nil map") {
		t.Fatalf("message %q does not give the panic", err)
	}
}

// TestReturnedRankDoesNotHang: a rank that returns nil without taking part
// leaves its peers an error, not a hang.
func TestReturnedRankDoesNotHang(t *testing.T) {
	err := within(t, 10*time.Second, func() error {
		return RunInProcess(3, func(c Comm) error {
			switch c.Rank() {
			case 0:
				return nil
			case 1:
				_, err := c.SendRecv(nil, 0, 0, 4)
				return err
			default:
				return c.Barrier()
			}
		})
	})
	if err == nil || !strings.Contains(err.Error(), "for rank 0, which has returned") {
		t.Fatalf("got %v", err)
	}
}

func TestMismatchedCollectives(t *testing.T) {
	err := within(t, 10*time.Second, func() error {
		return RunInProcess(2, func(c Comm) error {
			if c.Rank() == 0 {
				return c.Barrier()
			}
			_, err := c.AllToAllV(make([][]byte, 2))
			return err
		})
	})
	if err == nil || !strings.Contains(err.Error(), "called Barrier while rank 1 called AllToAllV") &&
		!strings.Contains(err.Error(), "called AllToAllV while rank 0 called Barrier") {
		t.Fatalf("got %v", err)
	}
}

// TestSendRecvCopies: the sender may reuse its buffer at once, and the
// receiver owns what it gets.
func TestSendRecvCopies(t *testing.T) {
	err := RunInProcess(2, func(c Comm) error {
		buf := []byte{byte(c.Rank()), 9}
		peer := 1 - c.Rank()
		got, err := c.SendRecv(buf, peer, peer, 0)
		buf[0] = 77
		if err != nil {
			return err
		}
		if got[0] != byte(peer) || got[1] != 9 {
			return fmt.Errorf("got %v", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAllReduceSameBits: every rank ends with the same bits, for every
// GOMAXPROCS (the fold order is fixed).
func TestAllReduceSameBits(t *testing.T) {
	const n = 6
	results := make([][]float32, n)
	err := RunInProcess(n, func(c Comm) error {
		buf := make([]float32, 100)
		for i := range buf {
			buf[i] = float32(value(c.Rank(), i))
		}
		if err := c.AllReduceFloat32(buf, Sum); err != nil {
			return err
		}
		results[c.Rank()] = buf
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for r := 1; r < n; r++ {
		for i := range results[0] {
			if results[r][i] != results[0][i] {
				t.Fatalf("rank %d [%d] = %v, rank 0 has %v", r, i, results[r][i], results[0][i])
			}
		}
	}
}

func BenchmarkInProcessRing(b *testing.B) {
	for _, n := range []int{2, 4} {
		b.Run(fmt.Sprintf("ranks=%d/bytes=1M", n), func(b *testing.B) {
			buf := make([]byte, 1<<20)
			b.SetBytes(int64(len(buf)) * int64(n))
			b.ReportAllocs()
			err := RunInProcess(n, func(c Comm) error {
				r := c.Rank()
				for i := range b.N {
					k := i%(n-1) + 1
					if _, err := c.SendRecv(buf, (r+k)%n, (r-k+n)%n, 0); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}
