package kernels

import (
	"testing"

	"github.com/gnngo/gnn/gpu/kernels/internal/kgen"
)

// TestGeneratedCurrent fails when a .cu file or header changed without
// go generate: the PTX modules, emulator translation units and kernel table
// must be those of the current sources.
func TestGeneratedCurrent(t *testing.T) {
	if err := kgen.Check(".", PTXSources); err != nil {
		t.Fatal(err)
	}
}
