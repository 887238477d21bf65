package main

import (
	"strings"
	"testing"
)

// TestRefusedUpFront: what sage cannot do is refused before training, so
// that no epoch line is printed: an empty validation split (14 nodes of 7
// classes leave none), a device, a width no machine holds.
func TestRefusedUpFront(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-nodes", "14", "-classes", "7", "-degree", "0.5", "-epochs", "1"}, "the dataset has no validation nodes"},
		{[]string{"-device", "emu"}, "-device does not apply"},
		{[]string{"-hidden", "100000000"}, "-hidden (2 layers of 100000000 features"},
		{[]string{"-features", "100000000"}, "-nodes, -features, -degree: dataset: planted: 1500 nodes x 100000000 features"},
	} {
		out, err := runArgs(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
		if strings.Contains(out, "epoch") {
			t.Errorf("%v: trained before refusing:\n%s", c.args, out)
		}
	}
}
