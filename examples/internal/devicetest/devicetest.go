package devicetest

import (
	"bytes"
	"io"
	"regexp"
	"testing"
)

var (
	losses  = regexp.MustCompile(`(?m)^epoch +\d+ +loss [0-9.]+`)
	traffic = regexp.MustCompile(`(?m)^device emulator: per later epoch: \d+ B to the device, \d+ B to the host`)
)

// SameLosses calls train with device "cpu" and then "emu", and checks
// that both print epochs lines "epoch N loss L" with the same losses, and
// that the emulator's run reports its traffic per epoch.
func SameLosses(t *testing.T, epochs int, train func(w io.Writer, device string) error) {
	t.Helper()
	var outs [2]string
	for i, d := range []string{"cpu", "emu"} {
		var out bytes.Buffer
		if err := train(&out, d); err != nil {
			t.Fatal(err)
		}
		outs[i] = out.String()
	}
	cpu, emu := losses.FindAllString(outs[0], -1), losses.FindAllString(outs[1], -1)
	if len(cpu) != epochs || len(emu) != epochs {
		t.Fatalf("epoch lines: %q and %q", cpu, emu)
	}
	for i := range cpu {
		if cpu[i] != emu[i] {
			t.Errorf("epoch %d: %q on the CPU, %q on the emulator", i+1, cpu[i], emu[i])
		}
	}
	if !traffic.MatchString(outs[1]) {
		t.Errorf("no traffic line:\n%s", outs[1])
	}
}
