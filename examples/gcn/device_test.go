//go:build gnncuda

package main

import (
	"io"
	"testing"

	"github.com/gnngo/gnn/examples/internal/devicetest"
)

// TestDeviceEmulator trains on the GPU emulator (-device emu) and checks
// that the losses are those of the CPU run and that the traffic is
// reported.
func TestDeviceEmulator(t *testing.T) {
	devicetest.SameLosses(t, 3, func(w io.Writer, device string) error {
		f := defaults()
		f.Epochs, f.Hidden, f.Device = 3, 8, device
		return run(w, &f)
	})
}
