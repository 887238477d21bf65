//go:build !gnncuda

package setup

import (
	"strings"
	"testing"
)

// TestPlaceWithoutCUDA checks that -device gpu and emu fail with a message
// naming the missing build tag, and that cpu places nothing.
func TestPlaceWithoutCUDA(t *testing.T) {
	for _, d := range []string{"gpu", "emu"} {
		f := Flags{Device: d}
		if err := f.Place(Input{}); err == nil || !strings.Contains(err.Error(), "-device "+d+": gpu: this binary was built without -tags gnncuda") {
			t.Errorf("-device %s: %v", d, err)
		}
	}
	f := Flags{Device: "cpu"}
	if err := f.Place(Input{}); err != nil || f.dev != nil {
		t.Errorf("-device cpu: %v", err)
	}
}
