package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/gnngo/gnn/cmd/gnnbench/internal/bench"
)

// childEnv marks a child process: with it set to 1, the executable reads
// one bench.Spec as JSON on stdin, runs it and reports on stdout. An
// environment variable rather than a flag, so that the test binary, which
// has flags of its own, can be a child too.
const childEnv = "GNNBENCH_CHILD"

// profileEnv names the directory a child writes its profiles to (-profile).
const profileEnv = "GNNBENCH_PROFILE"

// memProfileEnv names the directory a child writes its heap profile at the
// end of the last epoch to (-memprofile).
const memProfileEnv = "GNNBENCH_MEMPROFILE"

// childMessage is one line a child writes on stdout: an epoch as it
// completes, or the result at the end.
type childMessage struct {
	Epoch  *bench.Epoch  `json:"epoch_done,omitempty"`
	Result *bench.Result `json:"result,omitempty"`
}

// isChild reports whether this process is a child.
func isChild() bool { return os.Getenv(childEnv) == "1" }

// childMain runs the spec on stdin and writes epochs and the result to
// stdout, one JSON object per line. The parent takes the larger of the
// peak RSS the child reports and the one its rusage says. It returns the
// exit code.
func childMain(stdin io.Reader, stdout io.Writer) int {
	enc := json.NewEncoder(stdout)
	var spec bench.Spec
	if err := json.NewDecoder(stdin).Decode(&spec); err != nil {
		r := bench.Result{Status: bench.StatusError, Error: fmt.Sprintf("reading the spec: %v", err)}
		enc.Encode(childMessage{Result: &r})
		return 1
	}
	stop, err := startProfiles(os.Getenv(profileEnv), spec)
	if err != nil {
		r := bench.Result{Spec: spec, Status: bench.StatusError, Error: err.Error()}
		enc.Encode(childMessage{Result: &r})
		return 1
	}
	opts := bench.Options{OnEpoch: func(e bench.Epoch) { enc.Encode(childMessage{Epoch: &e}) }}
	mem, err := memProfile(os.Getenv(memProfileEnv), spec)
	if err != nil {
		r := bench.Result{Spec: spec, Status: bench.StatusError, Error: err.Error()}
		enc.Encode(childMessage{Result: &r})
		return 1
	}
	if mem != nil {
		opts.HeapProfile = mem
	}
	r := bench.RunWith(spec, opts)
	if err := stop(); err != nil && r.Status == bench.StatusOK {
		r.Note = err.Error()
	}
	if mem != nil {
		if err := mem.Close(); err != nil && r.Status == bench.StatusOK {
			r.Note = err.Error()
		}
	}
	if err := enc.Encode(childMessage{Result: &r}); err != nil {
		return 1
	}
	return 0
}
