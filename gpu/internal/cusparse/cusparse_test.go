//go:build gnncuda

package cusparse

import (
	"testing"

	"github.com/gnngo/gnn/gpu/internal/cuda"
)

// TestLoad loads a cuSPARSE library where one is installed; Debian's
// nvidia-cuda-toolkit ships libcusparse.so.11, so this runs without a GPU.
func TestLoad(t *testing.T) {
	name, err := Load()
	if err != nil {
		t.Skipf("no cuSPARSE library: %v", err)
	}
	t.Logf("loaded %s", name)
}

func TestEmulatorHasNoCuSPARSE(t *testing.T) {
	c, err := cuda.OpenEmulator()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := New(c); err == nil {
		t.Error("New on the emulator succeeded")
	}
}
