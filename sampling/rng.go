package sampling

import "github.com/gnngo/gnn/internal/seeded"

// derive returns a seed for the sub-stream tag of seed, such as one layer of
// a batch or one batch of an epoch.
func derive(seed, tag uint64) uint64 {
	return seeded.Mix64(seed ^ seeded.Mix64(tag+0x3c6ef372fe94f82b))
}
