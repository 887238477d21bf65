//go:build !gnncuda

package setup

import (
	"strings"
	"testing"
)

// TestCheckOpensDevice: Check reports a device that cannot be opened, so
// that the examples fail before loading any data.
func TestCheckOpensDevice(t *testing.T) {
	f := Flags{Epochs: 1, LR: 0.01, Hidden: 4, Device: "gpu"}
	if err := f.Check(); err == nil || !strings.Contains(err.Error(), "-device gpu: gpu: this binary was built without -tags gnncuda") {
		t.Fatalf("got %v", err)
	}
	f.Device = "cpu"
	if err := f.Check(); err != nil || f.dev != nil {
		t.Fatalf("-device cpu: %v", err)
	}
}
