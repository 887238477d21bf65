package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gnngo/gnn/examples/internal/setup"
)

// TestHugeHidden: a width no machine holds is refused, naming -hidden,
// before the model is built (it was "fatal error: out of memory").
func TestHugeHidden(t *testing.T) {
	f := setup.Flags{Epochs: 1, LR: 0.01, Hidden: 100000000, Seed: 1}
	err := run(&bytes.Buffer{}, &f)
	if err == nil || !strings.Contains(err.Error(), "-hidden (2 layers of 100000000 features") {
		t.Fatalf("got %v", err)
	}
}
