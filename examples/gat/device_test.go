//go:build gnncuda

package main

import (
	"bytes"
	"regexp"
	"testing"
)

// TestDeviceEmulator trains on the GPU emulator (-device emu) and checks
// that the losses are those of the CPU run and that the traffic is
// reported.
func TestDeviceEmulator(t *testing.T) {
	losses := regexp.MustCompile(`(?m)^epoch +\d+ +loss [0-9.]+`)
	var outs [2]string
	for i, d := range []string{"cpu", "emu"} {
		f, h := defaults()
		f.Epochs, f.Hidden, f.Device = 3, 4, d
		h.hidden = 2
		var out bytes.Buffer
		if err := run(&out, &f, h); err != nil {
			t.Fatal(err)
		}
		outs[i] = out.String()
	}
	cpu, emu := losses.FindAllString(outs[0], -1), losses.FindAllString(outs[1], -1)
	if len(cpu) != 3 || len(emu) != 3 {
		t.Fatalf("epoch lines: %q and %q", cpu, emu)
	}
	for i := range cpu {
		if cpu[i] != emu[i] {
			t.Errorf("epoch %d: %q on the CPU, %q on the emulator", i+1, cpu[i], emu[i])
		}
	}
	if !regexp.MustCompile(`(?m)^device emulator: per later epoch: \d+ B to the device, \d+ B to the host`).MatchString(outs[1]) {
		t.Errorf("no traffic line:\n%s", outs[1])
	}
}
