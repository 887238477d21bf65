package nn

import (
	"fmt"
	"sync/atomic"
)

var nameCounter atomic.Uint64

// UniqueName returns prefix followed by a process-wide counter ("gcn3").
// Gorgonia merges unnamed input nodes of equal shape, so every parameter
// needs a unique name; layers use UniqueName when the caller gives none.
func UniqueName(prefix string) string {
	return fmt.Sprintf("%s%d", prefix, nameCounter.Add(1))
}
