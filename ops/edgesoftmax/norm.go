package edgesoftmax

import "fmt"

// Norm says which edges a softmax normalises over, as DGL's norm_by.
type Norm uint8

const (
	// ByDst normalises over the in-edges of each destination node, DGL's
	// default norm_by="dst" (graph attention).
	ByDst Norm = iota
	// BySrc normalises over the out-edges of each source node,
	// norm_by="src".
	BySrc
)

// String returns DGL's name of the normalisation: "dst" or "src".
func (n Norm) String() string {
	switch n {
	case ByDst:
		return "dst"
	case BySrc:
		return "src"
	}
	return fmt.Sprintf("Norm(%d)", uint8(n))
}
