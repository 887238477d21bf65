package limits

import (
	"runtime"
	"testing"
)

// TestPeakRSS checks that the peak resident set size is read on Linux and
// grows to cover memory the process has touched.
func TestPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is read on Linux only")
	}
	buf := make([]byte, 64<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	if n := PeakRSS(); n < int64(len(buf)) {
		t.Fatalf("PeakRSS() = %d after touching %d bytes", n, len(buf))
	}
	runtime.KeepAlive(buf)
	if n, ok := parseKiB([]byte("Name: x\nVmHWM:\t  2048 kB\n"), "VmHWM:"); !ok || n != 2048<<10 {
		t.Fatalf("parseKiB = %d %v", n, ok)
	}
}
