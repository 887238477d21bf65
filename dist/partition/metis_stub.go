//go:build !metis

package partition

import "github.com/gnngo/gnn/graph"

// METISBuilt reports whether this build has the METIS partitioner (build tag
// metis).
const METISBuilt = false

// METIS returns ErrMETISNotBuilt: this build has no METIS. Build with
// -tags metis to get it.
func METIS(g *graph.Graph, parts int, seed int64) ([]int32, error) { return nil, ErrMETISNotBuilt }

// METISBalanced returns ErrMETISNotBuilt: this build has no METIS.
func METISBalanced(g *graph.Graph, parts int, seed int64, b Balance) ([]int32, error) {
	return nil, ErrMETISNotBuilt
}
