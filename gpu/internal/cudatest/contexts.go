//go:build gnncuda

package cudatest

import (
	"testing"

	"github.com/gnngo/gnn/gpu/internal/cuda"
)

// Emulator returns the emulator, closed when the test ends.
func Emulator(t testing.TB) *cuda.Context {
	t.Helper()
	e, err := cuda.OpenEmulator()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// Contexts returns the emulator and, on a machine with one, the first
// GPU, each closed when the test ends.
func Contexts(t testing.TB) []*cuda.Context {
	t.Helper()
	cs := []*cuda.Context{Emulator(t)}
	if g, err := cuda.Open(0); err == nil {
		t.Cleanup(func() { g.Close() })
		cs = append(cs, g)
	}
	return cs
}
