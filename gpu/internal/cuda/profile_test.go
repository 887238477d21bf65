//go:build gnncuda

package cuda

import (
	"errors"
	"testing"
)

// TestTimed checks that Timed runs f once without holding the context's
// lock (f calls the context), returns f's error as it is, and, with
// profiling on a GPU, records the call under its name.
func TestTimed(t *testing.T) {
	for _, c := range contexts(t) {
		t.Run(c.Name(), func(t *testing.T) {
			c.mu.Lock()
			saved := c.prof
			c.prof = profiler{}
			c.mu.Unlock()
			defer func() {
				c.mu.Lock()
				c.prof = saved
				c.mu.Unlock()
			}()
			p, err := c.Alloc(64)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Free(p)
			calls := 0
			err = c.Timed("gnn_test_call", func() error {
				calls++
				if err := c.SetCurrent(); err != nil {
					return err
				}
				return c.Zero(p, 64)
			})
			if err != nil || calls != 1 {
				t.Fatalf("Timed: %v after %d calls of f, want nil after 1", err, calls)
			}
			want := errors.New("f failed")
			if err := c.Timed("gnn_test_call", func() error { return want }); err != want {
				t.Errorf("Timed returned %v, want f's error", err)
			}
			var recorded int64
			for _, k := range c.Profile() {
				if k.Name == "gnn_test_call" {
					recorded = k.Calls
				}
			}
			if wantCalls := map[bool]int64{true: 0, false: 1}[c.Emulated()]; recorded != wantCalls {
				t.Errorf("profile has %d calls of gnn_test_call, want %d", recorded, wantCalls)
			}
		})
	}
}
