//go:build mpi

package comm

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv selects what this test binary does when mpirun starts it as a
// rank (see mpiChild) instead of running the tests.
const childEnv = "GNN_COMM_MPI_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(mpiChild(mode))
	}
	os.Exit(m.Run())
}

// mpiChild is one rank of a job the tests below start under mpirun.
func mpiChild(mode string) int {
	var err error
	switch mode {
	case "conformance":
		err = RunMPI(func(c Comm) error {
			if err := runConformance(c); err != nil {
				return err
			}
			if c.Rank() == 0 {
				fmt.Printf("conformance: %d checks passed on %d ranks\n", len(conformance), c.Size())
			}
			return nil
		})
	case "fail":
		err = RunMPI(func(c Comm) error {
			if c.Rank() == 1 {
				return errors.New("injected failure")
			}
			return c.Barrier()
		})
	case "panic":
		err = RunMPI(func(c Comm) error {
			if c.Rank() == c.Size()-1 {
				panic("injected panic")
			}
			return c.Barrier()
		})
	case "kill":
		// Ranks pass messages around a ring; rank 2 dies by SIGKILL in the
		// middle, as a crashed or OOM-killed worker would.
		err = RunMPI(func(c Comm) error {
			n, r := c.Size(), c.Rank()
			for round := range 1 << 30 {
				if r == 2 && round == 50 {
					syscall.Kill(os.Getpid(), syscall.SIGKILL)
				}
				if _, err := c.SendRecv(make([]byte, 1000), (r+1)%n, (r-1+n)%n, 0); err != nil {
					return err
				}
			}
			return nil
		})
	default:
		err = fmt.Errorf("unknown mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// mpiJob runs this test binary on np ranks in the given mode and returns
// its combined output, its error and how long it took.
func mpiJob(t *testing.T, np int, mode string) (string, error, time.Duration) {
	t.Helper()
	cmd, err := MPIRunCommand(np, 60*time.Second, os.Args[0], "-test.run=^$")
	if err != nil {
		t.Skip(err)
	}
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	return string(out), err, time.Since(start)
}

func TestMPIConformance(t *testing.T) {
	for _, np := range []int{2, 4} {
		t.Run(fmt.Sprintf("np=%d", np), func(t *testing.T) {
			out, err, took := mpiJob(t, np, "conformance")
			if err != nil {
				t.Fatalf("mpirun -np %d: %v after %v\n%s", np, err, took, out)
			}
			if want := fmt.Sprintf("conformance: %d checks passed on %d ranks", len(conformance), np); !strings.Contains(out, want) {
				t.Fatalf("the output lacks %q:\n%s", want, out)
			}
			t.Logf("np=%d: %v", np, took)
		})
	}
}

// expectAbort checks that a job ended with a non-zero status within 10 s
// and that its output has every one of want.
func expectAbort(t *testing.T, out string, err error, took time.Duration, want ...string) {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Fatalf("the job ended with %v, want a non-zero exit\n%s", err, out)
	}
	if took > 10*time.Second {
		t.Fatalf("the job took %v to end, more than 10 s", took)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Fatalf("the output lacks %q:\n%s", w, out)
		}
	}
	t.Logf("ended in %v with %v", took, err)
}

func TestMPIFailingRankAbortsJob(t *testing.T) {
	out, err, took := mpiJob(t, 4, "fail")
	expectAbort(t, out, err, took, "rank 1: injected failure")
}

func TestMPIPanickingRankAbortsJob(t *testing.T) {
	out, err, took := mpiJob(t, 2, "panic")
	expectAbort(t, out, err, took, "rank 1: panic: injected panic")
}

func TestMPIKilledRankEndsJob(t *testing.T) {
	out, err, took := mpiJob(t, 4, "kill")
	expectAbort(t, out, err, took, "process rank 2 ", "exited on signal 9")
}
