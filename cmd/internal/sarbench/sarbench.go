package sarbench

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gnngo/gnn/dist/comm"
)

// Usage is the benchmark's command line, for help texts.
const Usage = `-exe ./sar-example -parts parts-%d [-np 1,2,4,8] [-models gcn,gat] [-modes sequential,one-shot]`

// rankStats is one rank's "stats" line.
type rankStats struct {
	rank          int
	nodes, edges  int
	rssMiB, epoch float64
	sentMB        float64
	leastMB       float64
	heapMiB       float64 // live heap at the end of an epoch; 0 from an example that does not say
}

// Run parses the benchmark's flags from args and runs it, writing the table
// to w; name names the command in errors and help.
func Run(name string, args []string, w, stderr io.Writer) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	exe := fs.String("exe", "", "examples/sar built with -tags mpi")
	parts := fs.String("parts", "", "partition directories, %d standing for the rank count (e.g. parts-%d)")
	nps := fs.String("np", "1,2,4,8", "comma-separated rank counts")
	models := fs.String("models", "gcn,gat", "comma-separated models")
	modes := fs.String("modes", "sequential,one-shot", "comma-separated aggregation modes")
	epochs := fs.Int("epochs", 5, "epochs per run (the median is reported)")
	timeout := fs.Duration("timeout", 20*time.Minute, "limit of one mpirun job")
	extra := fs.String("args", "", "more flags for the example, space-separated (e.g. \"-features 64 -hidden 16\")")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *exe == "" || !strings.Contains(*parts, "%d") {
		return fmt.Errorf("need -exe and -parts with %%d (%s %s)", name, Usage)
	}
	var counts []int
	for _, np := range strings.Split(*nps, ",") {
		n, err := strconv.Atoi(np)
		if err != nil || n < 1 {
			return fmt.Errorf("-np %q: want positive rank counts", np)
		}
		counts = append(counts, n)
	}
	fmt.Fprintf(w, "%-5s %-11s %3s %12s %12s %13s %9s %10s %11s %11s %7s\n", "model", "mode", "np", "max RSS MiB", "mean RSS MiB", "max heap MiB", "max/np=1", "epoch ms", "sent MB/ep", "least MB/ep", "sent/least")
	single := map[string]float64{}
	for _, n := range counts {
		for _, model := range strings.Split(*models, ",") {
			for _, mode := range strings.Split(*modes, ",") {
				a := []string{"-parts", fmt.Sprintf(*parts, n), "-model", model, "-mode", mode, "-epochs", strconv.Itoa(*epochs), "-dropout", "0", "-attn-dropout", "0", "-stats"}
				a = append(a, strings.Fields(*extra)...)
				stats, err := job(n, *timeout, *exe, a)
				if err != nil {
					// The table gets the first line; stderr the whole of it.
					short, _, _ := strings.Cut(err.Error(), "\n")
					fmt.Fprintf(w, "%-5s %-11s %3d  failed: %s\n", model, mode, n, short)
					fmt.Fprintf(stderr, "%s: %s %s on %d ranks: %v\n", name, model, mode, n, err)
					continue
				}
				var maxRSS, sumRSS, maxHeap, epoch, sent, least float64
				for _, s := range stats {
					maxRSS, sumRSS, maxHeap = max(maxRSS, s.rssMiB), sumRSS+s.rssMiB, max(maxHeap, s.heapMiB)
					epoch, sent, least = max(epoch, s.epoch), sent+s.sentMB, least+s.leastMB
				}
				key := model + "/" + mode
				if n == 1 {
					single[key] = maxRSS
				}
				ratio, over := "-", "-"
				if s := single[key]; s > 0 {
					ratio = fmt.Sprintf("%.3f", maxRSS/s)
				}
				if least > 0 {
					over = fmt.Sprintf("%.3f", sent/least)
				}
				fmt.Fprintf(w, "%-5s %-11s %3d %12.1f %12.1f %13.1f %9s %10.1f %11.2f %11.2f %7s\n", model, mode, n, maxRSS, sumRSS/float64(len(stats)), maxHeap, ratio, epoch, sent, least, over)
			}
		}
	}
	return nil
}

// job runs the example on np ranks and returns every rank's stats.
func job(np int, timeout time.Duration, exe string, args []string) ([]rankStats, error) {
	cmd, err := comm.MPIRunCommand(np, timeout, exe, args...)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, jobFailure(err, out.String())
	}
	var stats []rankStats
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// 17 fields with the live heap, 15 from an example before it
		if len(f) != 15 && len(f) != 17 || f[0] != "stats" {
			continue
		}
		var s rankStats
		var perr error
		num := func(i int) float64 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil && perr == nil {
				perr = fmt.Errorf("stats line %q: %w", sc.Text(), err)
			}
			return v
		}
		s.rank, s.nodes, s.edges = int(num(2)), int(num(4)), int(num(6))
		s.rssMiB, s.epoch, s.sentMB, s.leastMB = num(8), num(10), num(12), num(14)
		if len(f) == 17 {
			s.heapMiB = num(16)
		}
		if perr != nil {
			return nil, perr
		}
		stats = append(stats, s)
	}
	if len(stats) != np {
		return nil, fmt.Errorf("%d stats lines from %d ranks:\n%s", len(stats), np, tail(out.String(), 2000))
	}
	return stats, nil
}

// jobFailure is the error of a job that failed with err and printed out:
// a first line saying why (naming a rank killed by signal 9, what the
// kernel's out-of-memory killer sends), then the end of the output.
func jobFailure(err error, out string) error {
	if strings.Contains(out, "exited on signal 9 (Killed)") {
		err = fmt.Errorf("%w: a rank was killed (signal 9; most often the kernel's out-of-memory killer)", err)
	}
	return fmt.Errorf("%w\n%s", err, tail(out, 2000))
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
