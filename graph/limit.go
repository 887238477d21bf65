package graph

// A file can declare more nodes than it holds: a binary header states node
// counts, and an edge list's node count is its largest ID plus one, so a
// few bytes can ask for two billion nodes, and the CSR and CSC views then
// allocate 8 bytes per node each. The loaders (Load, ReadBinary,
// ReadEdgeList and the functions around them) therefore accept a node count
// read from a file only up to a limit, DefaultNodeLimit of the edge count
// unless the caller raises it; a count the caller declares
// (EdgeListOptions.NumNodes, NumSrc, NumDst) is not limited.
const (
	// MinNodeLimit is the node limit of a file with no edges: 2^24 nodes,
	// 128 MiB per compressed view.
	MinNodeLimit = 1 << 24
	// NodesPerEdge is how many nodes each edge of a file adds to the limit.
	NodesPerEdge = 16
)

// DefaultNodeLimit returns the largest number of nodes, on either side, that
// the loaders accept from a file of the given number of edges: MinNodeLimit
// plus NodesPerEdge per edge, at most MaxNodes. A graph with more isolated
// nodes than that loads with WithMaxNodes or EdgeListOptions.MaxNodes.
func DefaultNodeLimit(edges int) int {
	if edges >= (MaxNodes-MinNodeLimit)/NodesPerEdge {
		return MaxNodes
	}
	return MinNodeLimit + NodesPerEdge*edges
}

// nodeLimit returns max when positive, else DefaultNodeLimit(edges).
func nodeLimit(max, edges int) int {
	if max > 0 {
		return max
	}
	return DefaultNodeLimit(edges)
}

// ReadOption configures Load and ReadBinary.
type ReadOption func(*readConfig)

type readConfig struct {
	maxNodes int // 0: DefaultNodeLimit
}

// WithMaxNodes sets the largest node count, on either side, that Load and
// ReadBinary accept from a file's header, in place of DefaultNodeLimit of
// its edge count: for graphs of many isolated nodes. Values above MaxNodes
// and below 1 leave the default.
func WithMaxNodes(n int) ReadOption {
	return func(c *readConfig) {
		if n > 0 && n <= MaxNodes {
			c.maxNodes = n
		}
	}
}

func readOptions(opts []ReadOption) readConfig {
	var c readConfig
	for _, o := range opts {
		o(&c)
	}
	return c
}
