//go:build !gnncuda

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gnngo/gnn/examples/internal/setup"
)

// TestDeviceCheckedBeforeData: -device gpu in a build without gnncuda is
// reported before -data is read.
func TestDeviceCheckedBeforeData(t *testing.T) {
	f := setup.Flags{Epochs: 1, LR: 0.01, Hidden: 4, Seed: 1, Device: "gpu", Data: "/nonexistent/cora"}
	err := run(&bytes.Buffer{}, &f)
	if err == nil || !strings.Contains(err.Error(), "-device gpu") || strings.Contains(err.Error(), "nonexistent") {
		t.Fatalf("got %v, want the device error before the data's", err)
	}
}
