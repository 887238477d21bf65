// Command sarbench measures distributed training with dist/sar: for each
// rank count, model and aggregation mode it runs examples/sar (built with
// -tags mpi) under mpirun, one process per rank, and reports the largest
// per-worker peak RSS, the epoch time and the bytes sent per epoch. The
// partitions come from cmd/gnnpart, one directory per rank count:
//
//	for n in 1 2 4 8; do go run ./cmd/gnnpart -gen rmat:17:2000000 -parts $n -out parts-$n; done
//	go build -tags mpi -o sar-example ./examples/sar
//	go run ./cmd/sarbench -exe ./sar-example -parts parts-%d -np 1,2,4,8
//
// Oversubscribed on a small machine the times are for the record; the
// memory is the figure that counts.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gnngo/gnn/dist/comm"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("sarbench: ")
	if err := run(os.Args[1:], os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// rankStats is one rank's "stats" line.
type rankStats struct {
	rank          int
	nodes, edges  int
	rssMiB, epoch float64
	sentMB        float64
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("sarbench", flag.ContinueOnError)
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
		return fmt.Errorf("need -exe and -parts with %%d")
	}
	fmt.Fprintf(w, "%-5s %-11s %3s %14s %14s %10s %12s\n", "model", "mode", "np", "max RSS MiB", "mean RSS MiB", "epoch ms", "sent MB/ep")
	for _, np := range strings.Split(*nps, ",") {
		n, err := strconv.Atoi(np)
		if err != nil {
			return fmt.Errorf("-np %q: %w", np, err)
		}
		for _, model := range strings.Split(*models, ",") {
			for _, mode := range strings.Split(*modes, ",") {
				a := []string{"-parts", fmt.Sprintf(*parts, n), "-model", model, "-mode", mode, "-epochs", strconv.Itoa(*epochs), "-dropout", "0", "-stats"}
				a = append(a, strings.Fields(*extra)...)
				stats, err := job(n, *timeout, *exe, a)
				if err != nil {
					fmt.Fprintf(w, "%-5s %-11s %3d  failed: %v\n", model, mode, n, err)
					continue
				}
				var maxRSS, sumRSS, epoch, sent float64
				for _, s := range stats {
					maxRSS, sumRSS = max(maxRSS, s.rssMiB), sumRSS+s.rssMiB
					epoch, sent = max(epoch, s.epoch), sent+s.sentMB
				}
				fmt.Fprintf(w, "%-5s %-11s %3d %14.1f %14.1f %10.1f %12.2f\n", model, mode, n, maxRSS, sumRSS/float64(len(stats)), epoch, sent)
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
		return nil, fmt.Errorf("%v:\n%s", err, tail(out.String(), 2000))
	}
	var stats []rankStats
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 13 || f[0] != "stats" {
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
		s.rssMiB, s.epoch, s.sentMB = num(8), num(10), num(12)
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

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
