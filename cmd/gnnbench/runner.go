package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gnngo/gnn/cmd/gnnbench/internal/bench"
)

// caps are the limits of one child run.
type caps struct {
	mem      int64         // resident bytes; the run is killed above it
	memLimit int64         // GOMEMLIMIT of the child; 0 leaves it alone
	time     time.Duration // wall time, setup included
	poll     time.Duration // how often the resident size is read
	profile  string        // directory for the child's profiles; "" for none
	memProf  string        // directory for the child's end-of-run heap profile; "" for none
}

// childCommand returns the command that runs one spec in a fresh
// process: this executable with childEnv set.
func childCommand() (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return exec.Command(exe), nil
}

// supervise runs spec in the child process cmd (not started; its stdin,
// stdout and stderr are set here, and childEnv and GOMEMLIMIT added to its
// environment, os.Environ() when cmd.Env is nil) under the caps, and returns what
// it reported, or what became of it. onEpoch is called for every epoch the
// child reports. stderr, if not nil, receives the child's stderr as well.
func supervise(cmd *exec.Cmd, spec bench.Spec, cp caps, onEpoch func(bench.Epoch), stderr io.Writer) bench.Result {
	res := bench.Result{Spec: spec}
	fail := func(status, msg string) bench.Result {
		res.Status, res.Error = status, msg
		return res
	}
	in, err := json.Marshal(spec)
	if err != nil {
		return fail(bench.StatusError, err.Error())
	}
	cmd.Stdin = bytes.NewReader(in)
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, childEnv+"=1")
	if cp.memLimit > 0 {
		cmd.Env = append(cmd.Env, "GOMEMLIMIT="+strconv.FormatInt(cp.memLimit, 10))
	}
	if cp.profile != "" {
		cmd.Env = append(cmd.Env, profileEnv+"="+cp.profile)
	}
	if cp.memProf != "" {
		cmd.Env = append(cmd.Env, memProfileEnv+"="+cp.memProf)
	}
	tail := &tailBuffer{max: 8 << 10}
	cmd.Stderr = tail
	if stderr != nil {
		cmd.Stderr = io.MultiWriter(tail, stderr)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fail(bench.StatusError, err.Error())
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fail(bench.StatusError, err.Error())
	}

	// The watchdog kills the child over the memory or time cap and says
	// why; done stops it. sampled is the largest resident size it read: the
	// kernel's high-water mark (rusage) can lag a sample by the pages a
	// thread has not yet folded into it.
	var (
		mu      sync.Mutex
		killed  string
		sampled int64
	)
	kill := func(why string) {
		mu.Lock()
		defer mu.Unlock()
		if killed == "" {
			killed = why
			cmd.Process.Kill()
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(cp.poll)
		defer tick.Stop()
		deadline := time.NewTimer(cp.time)
		defer deadline.Stop()
		for {
			select {
			case <-done:
				return
			case <-deadline.C:
				kill(bench.StatusTimeout)
				return
			case <-tick.C:
				rss, ok := residentBytes(cmd.Process.Pid)
				if !ok {
					continue
				}
				mu.Lock()
				sampled = max(sampled, rss)
				mu.Unlock()
				if rss > cp.mem {
					kill(bench.StatusOOM)
					return
				}
			}
		}
	}()

	var (
		epochs []bench.Epoch
		final  *bench.Result
	)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var m childMessage
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch {
		case m.Epoch != nil:
			epochs = append(epochs, *m.Epoch)
			if onEpoch != nil {
				onEpoch(*m.Epoch)
			}
		case m.Result != nil:
			final = m.Result
		}
	}
	io.Copy(io.Discard, out)
	waitErr := cmd.Wait()
	close(done)
	wg.Wait()
	wall := time.Since(start)

	if final != nil {
		res = *final
	}
	res.PeakRSS = max(res.PeakRSS, childPeakRSS(cmd.ProcessState))
	mu.Lock()
	why := killed
	res.PeakRSS = max(res.PeakRSS, sampled)
	mu.Unlock()
	switch {
	case why == bench.StatusOOM:
		res.Status, res.Error = bench.StatusOOM, fmt.Sprintf("resident memory over the cap of %s", formatBytes(cp.mem))
	case why == bench.StatusTimeout:
		res.Status, res.Error = bench.StatusTimeout, fmt.Sprintf("over the time cap of %v", cp.time)
	case final != nil && waitErr == nil:
		return res
	case killedBySignal(cmd.ProcessState, syscall.SIGKILL):
		res.Status, res.Error = bench.StatusOOM, "killed by SIGKILL that the harness did not send (the kernel's OOM killer?)"
	case strings.Contains(tail.String(), "out of memory"):
		res.Status, res.Error = bench.StatusOOM, "the Go runtime ran out of memory: "+lastLines(tail.String(), 3)
	default:
		msg := crashMessage(tail.String())
		if msg == "" && waitErr != nil {
			msg = waitErr.Error()
		}
		if msg == "" {
			msg = "the run reported no result"
		}
		res.Status, res.Error = bench.StatusError, msg
	}
	partial(&res, epochs, wall)
	return res
}

// partial fills the epoch times of a run that did not finish from the
// epochs it reported.
func partial(res *bench.Result, epochs []bench.Epoch, wall time.Duration) {
	var (
		timed, warm []float64
		alloc       int64
	)
	for _, e := range epochs {
		if e.Warmup {
			warm = append(warm, e.MS)
		} else {
			timed = append(timed, e.MS)
			alloc += e.AllocBytes
		}
		if e.Index == 0 {
			res.LossFirst = e.Loss
		}
		res.LossLast = e.Loss
	}
	res.Timed = len(timed)
	if len(timed) > 0 {
		res.AllocPerEpoch = alloc / int64(len(timed))
	}
	switch {
	case len(timed) > 0:
		res.EpochMS, res.EpochMSMin, res.EpochMSMax = bench.Summary(timed)
		res.Note = fmt.Sprintf("median of the %d timed epochs done before it stopped, after %.1f s", len(timed), wall.Seconds())
	case len(warm) > 0:
		res.EpochMS, res.EpochMSMin, res.EpochMSMax = bench.Summary(warm)
		res.Note = fmt.Sprintf("no timed epoch; median of %d warm-up epochs, after %.1f s", len(warm), wall.Seconds())
	default:
		res.Note = fmt.Sprintf("no epoch completed, after %.1f s", wall.Seconds())
	}
}

func killedBySignal(ps *os.ProcessState, sig syscall.Signal) bool {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == sig
}

// residentBytes returns the resident set size of process pid (VmRSS in
// /proc/pid/status).
func residentBytes(pid int) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0, false
			}
			kib, err := strconv.ParseInt(f[0], 10, 64)
			return kib * 1024, err == nil
		}
	}
	return 0, false
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.b) > t.max {
		return string(t.b[len(t.b)-t.max:])
	}
	return string(t.b)
}

// lastLines returns the last n non-empty lines of s, joined by " | ".
func lastLines(s string, n int) string {
	var lines []string
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// crashMessage returns the gist of a crashed child's stderr: the panic or
// fatal error line and the few lines after it, else the last lines.
func crashMessage(s string) string {
	for _, marker := range []string{"panic: ", "fatal error: "} {
		if i := strings.Index(s, marker); i >= 0 {
			var lines []string
			for l := range strings.SplitSeq(s[i:], "\n") {
				if l = strings.TrimSpace(l); l != "" {
					lines = append(lines, l)
				}
				if len(lines) == 5 {
					break
				}
			}
			return strings.Join(lines, " | ")
		}
	}
	return lastLines(s, 8)
}
