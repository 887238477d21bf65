package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gnngo/gnn/examples/internal/setup"
)

// TestHugeSizes: a width no machine holds is refused, naming the flags,
// before the model is built (it was "fatal error: out of memory").
func TestHugeSizes(t *testing.T) {
	for _, c := range []struct {
		hidden int
		h      heads
		want   string
	}{
		{100000000, heads{8, 1}, "-hidden and -heads (2 layers of 800000000 features"},
		{8, heads{1000000, 1}, "-hidden and -heads (2 layers of 8000000 features"},
	} {
		f := setup.Flags{Epochs: 1, LR: 0.01, Hidden: c.hidden, Seed: 1}
		err := run(&bytes.Buffer{}, &f, c.h)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("-hidden %d -heads %d: got %v, want %q", c.hidden, c.h.hidden, err, c.want)
		}
	}
}
