package hetero

import (
	"fmt"
	"path/filepath"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/limits"
)

// Bytes a loaded heterograph takes at least: a node's type and ID in
// ToHomogeneous's columns (8), each relation's offsets on both sides
// (16 a node of either end type), an edge in its relation and in the
// homogeneous graph (32), a feature value (4).
const (
	schemaNodeBytes     = 8
	schemaRelNodeBytes  = 16
	schemaEdgeBytesHint = 32
)

// TotalNodes returns the number of nodes the schema declares over all
// types.
func (s *Schema) TotalNodes() int64 {
	var n int64
	for _, t := range s.Nodes {
		n += int64(t.Count)
	}
	return n
}

// checkSize refuses a schema whose node counts cannot be held before any
// file it names is read: more than graph.MaxNodes nodes in all (the
// homogeneous view numbers them in one int32 range), or more memory than
// the machine has for the nodes' columns and relation offsets alone.
func (s *Schema) checkSize(dir string) error {
	path := filepath.Join(dir, "schema.txt")
	if n := s.TotalNodes(); n > graph.MaxNodes {
		return fmt.Errorf("hetero: %s declares %d nodes in all, more than graph.MaxNodes (%d)", path, n, graph.MaxNodes)
	}
	count := map[string]int{}
	for _, t := range s.Nodes {
		count[t.Name] = t.Count
	}
	est := float64(s.TotalNodes()) * schemaNodeBytes
	for _, e := range s.Edges {
		est += float64(count[e.Type.Src]+count[e.Type.Dst]) * schemaRelNodeBytes
	}
	largest := NodeSpec{}
	for _, t := range s.Nodes {
		if t.Count > largest.Count {
			largest = t
		}
	}
	return limits.Bytes(fmt.Sprintf("hetero: %s (largest type %q, %d nodes)", path, largest.Name, largest.Count), est)
}
