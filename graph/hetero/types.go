package hetero

import (
	"cmp"
	"fmt"
	"strings"
)

// EdgeType is a canonical edge type: a relation from the nodes of type Src
// to the nodes of type Dst, as DGL's (srctype, etype, dsttype) triplet.
type EdgeType struct {
	Src, Rel, Dst string
}

// String writes the type as (src, rel, dst).
func (t EdgeType) String() string { return "(" + t.Src + ", " + t.Rel + ", " + t.Dst + ")" }

// Compare orders edge types by source, relation, then destination, DGL's
// order of canonical edge types.
func (t EdgeType) Compare(u EdgeType) int {
	if c := cmp.Compare(t.Src, u.Src); c != 0 {
		return c
	}
	if c := cmp.Compare(t.Rel, u.Rel); c != 0 {
		return c
	}
	return cmp.Compare(t.Dst, u.Dst)
}

// checkName rejects names a text format could not write back: empty ones
// and those with white space or a path separator.
func checkName(kind, name string) error {
	if name == "" {
		return fmt.Errorf("hetero: empty %s name", kind)
	}
	if i := strings.IndexAny(name, " \t\r\n/\\"); i >= 0 {
		return fmt.Errorf("hetero: %s name %q has a space or path separator at byte %d", kind, name, i)
	}
	return nil
}
