package sarbench

import (
	"errors"
	"strings"
	"testing"
)

// TestJobFailure checks the first line of a failed job's error, which is
// what the table shows: it names a rank killed by signal 9, and otherwise
// is the job's own error; the output follows on the next lines.
func TestJobFailure(t *testing.T) {
	exit := errors.New("exit status 137")
	killed := "epoch 1\nmpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).\n"
	for _, c := range []struct {
		out, first string
	}{
		{killed, "exit status 137: a rank was killed (signal 9; most often the kernel's out-of-memory killer)"},
		{"sar: rank 2: bad partition\n", "exit status 137"},
	} {
		err := jobFailure(exit, c.out)
		first, rest, _ := strings.Cut(err.Error(), "\n")
		if first != c.first {
			t.Errorf("first line %q, want %q", first, c.first)
		}
		if !strings.Contains(rest, strings.TrimSpace(c.out)) {
			t.Errorf("the output is not after the first line: %q", rest)
		}
		if !errors.Is(err, exit) {
			t.Errorf("%v does not wrap the job's error", err)
		}
	}
}
