// Command sarbench measures distributed training with dist/sar: for each
// rank count, model and aggregation mode it runs examples/sar (built with
// -tags mpi) under mpirun, one process per rank, and reports the largest
// and mean per-worker peak RSS (and the largest over the one-rank run's),
// the epoch time, and the bytes sent per epoch against the least the
// aggregations could have sent. The partitions come from cmd/gnnpart, one
// directory per rank count:
//
//	for n in 1 2 4 8; do go run ./cmd/gnnpart -gen rmat:17:2000000 -parts $n -out parts-$n; done
//	go build -tags mpi -o sar-example ./examples/sar
//	go run ./cmd/sarbench -exe ./sar-example -parts parts-%d -np 1,2,4,8
//
// gnnbench -suite sar runs the same benchmark with the same flags.
// Oversubscribed on a small machine the times are for the record; the
// memory is the figure that counts.
package main

import (
	"errors"
	"flag"
	"log"
	"os"

	"github.com/gnngo/gnn/cmd/internal/sarbench"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("sarbench: ")
	if err := sarbench.Run("sarbench", os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		log.Fatal(err)
	}
}
