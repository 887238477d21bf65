package sampling

import (
	"math/rand/v2"
	"slices"

	"github.com/gnngo/gnn/internal/seeded"
)

// numBatches returns the number of batches of b items that n items make:
// the last one short, or dropped when dropLast is set.
func numBatches(n, b int, dropLast bool) int {
	if dropLast {
		return n / b
	}
	return (n + b - 1) / b
}

// epochOrder returns a copy of items in epoch's order: shuffled by the
// epoch's sub-stream of seed when shuffle is set, as given otherwise.
func epochOrder[T any](items []T, shuffle bool, seed uint64, epoch int) []T {
	order := slices.Clone(items)
	if shuffle {
		s := derive(seed, uint64(epoch))
		rand.New(rand.NewPCG(s, seeded.Mix64(s))).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	return order
}
