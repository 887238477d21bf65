// Command gnnbench measures gnn's fused message passing against the
// unfused (gather + degree-bucketed reduce) and dense-adjacency ways of
// computing the same GCN and GAT models, reproducing the experiments of
// DGL's kernel-fusion study: epoch times on Cora, CiteSeer and PubMed,
// ablations over density, node count and hidden size on uniform random
// graphs, the largest models that fit, and the kernels alone.
//
//	go run ./cmd/gnnbench -suite planetoid             # data from -data
//	go run ./cmd/gnnbench -suite synth -sweeps density
//	go run ./cmd/gnnbench -suite kernels
//	go run ./cmd/gnnbench -suite scale -mem-cap 24GiB
//	go run ./cmd/gnnbench -suite synth -quick -json -plot /tmp/plots
//	go run ./cmd/gnnbench -suite sar -exe ./sar-example -parts parts-%d -np 1,2,4,8
//
// The sar suite (first, alone, with the flags of cmd/sarbench) runs
// distributed training with dist/sar under mpirun instead: per-worker peak
// RSS, epoch time and traffic for several rank counts, models and modes.
//
// Every run (one model or kernel, one path, one size) executes in a fresh
// child process (this executable, re-executed with GNNBENCH_CHILD=1 and the
// run as JSON on stdin), which reports its epochs and result as JSON lines
// on stdout; the parent reads the child's peak RSS from its rusage, and
// the child measures the Go heap each epoch allocates and the heap still
// live after the last epoch and a GC (-memprofile DIR writes a heap
// profile at that point; see the README for the pprof recipe). The
// parent polls the child's VmRSS every 50 ms and kills it above -mem-cap
// (status oom), kills it after -time-cap (status timeout), and records a
// kernel OOM kill (SIGKILL the parent did not send) or a Go "out of
// memory" as oom and any other crash as error; the suite goes on. The
// child runs with GOMEMLIMIT at -gomemlimit (default 0.85) times the cap,
// so that its garbage collector works to stay under the cap before the
// parent kills it. Runs are timed after -warmup untimed epochs; the median
// of -epochs (at least 10 by default) is reported. Within a series of
// growing sizes, once a path runs out of memory or time, its larger sizes
// are recorded as such without running (unless -keep-going), and a dense
// run whose N x N matrix alone exceeds the cap is recorded as oom without
// running.
//
// The output is a markdown table per suite on stdout, one row per case
// and one column per path, with the ratios to the fused path; with -json,
// one JSON object per run goes to stdout instead and the tables to stderr.
// -plot DIR writes PNG charts of epoch time and peak memory against
// density, nodes and hidden size (synth), and per dataset (planetoid) and
// kernel (kernels), one line per path. Progress lines go to stderr.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gnngo/gnn/cmd/gnnbench/internal/bench"
	"github.com/gnngo/gnn/cmd/internal/sarbench"
)

func main() {
	if isChild() {
		os.Exit(childMain(os.Stdin, os.Stdout))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the harness with its arguments and outputs; it returns the exit
// code.
func run(args []string, stdout, stderr io.Writer) int {
	if rest, ok := sarSuite(args); ok {
		if err := sarbench.Run("gnnbench -suite sar", rest, stdout, stderr); err != nil {
			if !errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(stderr, "gnnbench: %v\n", err)
			}
			return 2
		}
		return 0
	}
	fs := flag.NewFlagSet("gnnbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: gnnbench [flags] [suite ...]\n\nSuites: planetoid, synth, scale, kernels (also -suite).\n"+
			"gnnbench -suite sar %s runs distributed training under mpirun (see cmd/sarbench).\n\nFlags:\n", sarbench.Usage)
		fs.PrintDefaults()
	}
	var c config
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if fs.NArg() > 0 {
		if set["suite"] {
			fmt.Fprintf(stderr, "gnnbench: suites given both by -suite and as arguments\n")
			return 2
		}
		c.suites = splitList(strings.Join(fs.Args(), ","))
	}
	if c.quick {
		c.applyQuick(set)
	}
	if err := c.validate(); err != nil {
		fmt.Fprintf(stderr, "gnnbench: %v\n", err)
		return 2
	}

	var results []bench.Result
	if c.from != "" {
		var err error
		if results, err = readResults(c.from); err != nil {
			fmt.Fprintf(stderr, "gnnbench: %v\n", err)
			return 1
		}
	} else {
		jobs, err := plan(&c)
		if err != nil {
			fmt.Fprintf(stderr, "gnnbench: %v\n", err)
			return 1
		}
		if c.dryRun {
			for i, j := range jobs {
				fmt.Fprintf(stdout, "[%d/%d] %s\n", i+1, len(jobs), j.spec.Describe())
			}
			return 0
		}
		if results, err = execute(&c, jobs, stdout, stderr); err != nil {
			fmt.Fprintf(stderr, "gnnbench: %v\n", err)
			return 1
		}
	}

	tables := stdout
	if c.json && c.from == "" {
		tables = stderr
	}
	writeTables(tables, results)
	if c.plotDir != "" {
		files, err := writePlots(c.plotDir, results)
		if err != nil {
			fmt.Fprintf(stderr, "gnnbench: plots: %v\n", err)
			return 1
		}
		for _, f := range files {
			fmt.Fprintf(stderr, "wrote %s\n", f)
		}
	}
	return 0
}

// sarSuite reports whether args ask for the sar suite ("-suite sar" or
// "-suite=sar" first), which runs distributed training under mpirun with
// its own flags (those of cmd/sarbench), and returns the flags after it.
func sarSuite(args []string) ([]string, bool) {
	switch {
	case len(args) >= 2 && (args[0] == "-suite" || args[0] == "--suite") && args[1] == "sar":
		return args[2:], true
	case len(args) >= 1 && (args[0] == "-suite=sar" || args[0] == "--suite=sar"):
		return args[1:], true
	}
	return nil, false
}

// execute runs the jobs one after another, each in a fresh process,
// writes progress to stderr and, with -json or -out, every result as it
// comes.
func execute(c *config, jobs []job, stdout, stderr io.Writer) ([]bench.Result, error) {
	var sinks []*json.Encoder
	if c.json {
		sinks = append(sinks, json.NewEncoder(stdout))
	}
	if c.out != "" {
		f, err := os.OpenFile(c.out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		sinks = append(sinks, json.NewEncoder(f))
	}
	cp := caps{mem: c.memCap, time: c.timeCap, poll: 50 * time.Millisecond, profile: c.profile, memProf: c.memProf}
	if c.memLimitFrac > 0 {
		cp.memLimit = int64(float64(c.memCap) * c.memLimitFrac)
	}
	var childErr io.Writer
	if c.verbose {
		childErr = stderr
	}
	failed := map[string]bench.Result{} // series -> its first run out of memory or time
	var results []bench.Result
	for i, j := range jobs {
		p := newProgress(stderr, i+1, len(jobs), j.spec.Describe())
		var r bench.Result
		if f, ok := failed[j.series]; ok && !c.keepGoing {
			r = skip(j.spec, f.Status, fmt.Sprintf("not run: a smaller case of the series (%s) already ended %s", sizeOf(&f.Spec), f.Status))
		} else if est := denseEstimate(&j.spec); est > c.memCap {
			r = skip(j.spec, bench.StatusOOM, fmt.Sprintf("not run: its dense N x N float32 matrices alone take %s, over the cap", formatBytes(est)))
		} else {
			cmd, err := childCommand()
			if err != nil {
				return nil, err
			}
			p.start()
			r = supervise(cmd, j.spec, cp, p.epoch, childErr)
		}
		r.MemCap, r.TimeCapS = c.memCap, c.timeCap.Seconds()
		if (r.Status == bench.StatusOOM || r.Status == bench.StatusTimeout) && !r.Skipped {
			if _, ok := failed[j.series]; !ok {
				failed[j.series] = r
			}
		}
		p.done(r)
		for _, e := range sinks {
			if err := e.Encode(r); err != nil {
				return nil, err
			}
		}
		results = append(results, r)
	}
	return results, nil
}

// skip returns the result of a run that was not started.
func skip(s bench.Spec, status, note string) bench.Result {
	return bench.Result{Spec: s, Status: status, Note: note, Skipped: true}
}

// sizeOf describes the size of a spec in a few words.
func sizeOf(s *bench.Spec) string {
	switch s.Sweep {
	case "density":
		return fmt.Sprintf("density %g", s.Density)
	case "hidden":
		return fmt.Sprintf("hidden %d", s.Hidden)
	}
	if s.Dataset != "synth" {
		return s.Dataset
	}
	return fmt.Sprintf("%d nodes, %d edges", s.Nodes, s.Edges)
}

// readResults reads JSON lines of results.
func readResults(path string) ([]bench.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []bench.Result
	dec := json.NewDecoder(f)
	for {
		var r bench.Result
		if err := dec.Decode(&r); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: result %d: %w", path, len(out)+1, err)
		}
		out = append(out, r)
	}
}
