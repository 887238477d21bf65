package nn

import (
	"hash/fnv"
	"strconv"
	"strings"

	"gorgonia.org/gorgonia"
)

// UniqueName returns prefix followed by the smallest k >= 1 such that no
// node of eg is named prefix+k or prefix+k+".something" ("gcn1", then
// "gcn2"). Gorgonia merges unnamed input nodes of equal shape, so every
// parameter needs a unique name; layers use UniqueName when the caller
// gives none. The names depend on the model alone (the layers built in eg
// before), not on what else the process built, so a checkpoint saved by one
// run loads into the same model built by another.
func UniqueName(eg *gorgonia.ExprGraph, prefix string) string {
	taken := map[int]bool{}
	for _, n := range eg.AllNodes() {
		rest, ok := strings.CutPrefix(n.Name(), prefix)
		if !ok {
			continue
		}
		digits, _, _ := strings.Cut(rest, ".")
		if k, err := strconv.Atoi(digits); err == nil && k > 0 && strconv.Itoa(k) == digits {
			taken[k] = true
		}
	}
	k := 1
	for taken[k] {
		k++
	}
	return prefix + strconv.Itoa(k)
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
