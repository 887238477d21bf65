package nn

import (
	"fmt"
	"hash/fnv"
	"sync/atomic"
)

var nameCounter atomic.Uint64

// UniqueName returns prefix followed by a process-wide counter ("gcn3").
// Gorgonia merges unnamed input nodes of equal shape, so every parameter
// needs a unique name; layers use UniqueName when the caller gives none.
func UniqueName(prefix string) string {
	return fmt.Sprintf("%s%d", prefix, nameCounter.Add(1))
}

// SeedOf returns a seed derived from a parameter-name prefix: the default
// initialisation seed of a layer built without an explicit seed, so that two
// layers never start from the same random stream.
func SeedOf(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// ParamSeed returns the seed of parameter (or dropout site) k of a layer
// seeded with seed. Mixing k in, rather than adding it, keeps parameter k+1 of
// a layer seeded s from starting equal to parameter k of a layer seeded s+1.
func ParamSeed(seed, k uint64) uint64 { return seed ^ (k+1)*0x9e3779b97f4a7c15 }
