//go:build mpi

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/dist/comm"
)

// childEnv makes this test binary one rank of an mpirun job: the variable
// holds "model partsDir epochs", and rank 0 prints every epoch's loss.
const childEnv = "GNN_SAR_MPI_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(mpiChild(spec))
	}
	os.Exit(m.Run())
}

func mpiChild(spec string) int {
	f := strings.Fields(spec)
	if len(f) != 3 {
		fmt.Fprintf(os.Stderr, "bad %s %q\n", childEnv, spec)
		return 1
	}
	epochs, err := strconv.Atoi(f[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	o := options{parts: f[1], model: f[0], mode: "sequential", epochs: epochs, heads: 4, weightDecay: 5e-4, seed: 1}
	if err := o.defaults(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	err = comm.RunMPI(func(c comm.Comm) error {
		var out bytes.Buffer
		res, err := rank(&out, c, &o)
		if err != nil {
			return err
		}
		if c.Rank() == 0 {
			for _, e := range res.History {
				fmt.Printf("mpi-loss %d %.12g %.6f\n", e.Epoch, e.Loss, e.TestAcc)
			}
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestMPICurve trains GCN and GAT on a generated graph under mpirun with 2
// and 4 processes and checks every epoch's loss (to 1e-5) and test
// accuracy against one process.
func TestMPICurve(t *testing.T) {
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features = 400, 16
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const epochs = 10
	for _, np := range []int{2, 4} {
		dir := writeParts(t, ds, np)
		for _, model := range []string{"gcn", "gat"} {
			o := options{parts: dir, model: model, mode: "sequential", epochs: epochs, heads: 4, weightDecay: 5e-4, seed: 1}
			if err := o.defaults(); err != nil {
				t.Fatal(err)
			}
			want := single(t, ds, &o)
			cmd, err := comm.MPIRunCommand(np, 2*time.Minute, os.Args[0], "-test.run=^$")
			if err != nil {
				t.Skip(err)
			}
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %d", childEnv, model, dir, epochs))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s on %d processes: %v\n%s", model, np, err, out)
			}
			n := 0
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				var ep int
				var loss, acc float64
				if _, err := fmt.Sscanf(sc.Text(), "mpi-loss %d %g %g", &ep, &loss, &acc); err != nil {
					continue
				}
				w := want.History[ep-1]
				if math.Abs(loss-w.Loss) > 1e-5 || math.Abs(acc-w.TestAcc) > 1e-6 {
					t.Errorf("%s on %d processes: epoch %d: loss %.8f, test accuracy %.4f; one process %.8f, %.4f", model, np, ep, loss, acc, w.Loss, w.TestAcc)
				}
				n++
			}
			if n != epochs {
				t.Errorf("%s on %d processes: %d loss lines, want %d:\n%s", model, np, n, epochs, out)
			}
		}
	}
}
