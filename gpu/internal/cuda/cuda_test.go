//go:build gnncuda

package cuda

import (
	"fmt"
	"math"
	"runtime/debug"
	"strings"
	"testing"
	"unsafe"
)

// contexts returns the emulator and, when the machine has one, the first
// GPU; each is closed when the test ends.
func contexts(t *testing.T) []*Context {
	t.Helper()
	e, err := OpenEmulator()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	cs := []*Context{e}
	if g, err := Open(0); err == nil {
		t.Cleanup(func() { g.Close() })
		cs = append(cs, g)
	} else {
		t.Logf("no GPU, emulator only: %v", err)
	}
	return cs
}

func TestOpenReportsWhy(t *testing.T) {
	c, err := Open(0)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "cuda: ") {
			t.Errorf("error %q does not say where it came from", err)
		}
		t.Skipf("no CUDA device (as expected on machines without a GPU): %v", err)
	}
	defer c.Close()
	major, minor := c.ComputeCapability()
	free, total, err := c.MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: compute %d.%d, %d SMs, %d of %d MiB free", c.Name(), major, minor, c.Multiprocessors(), free>>20, total>>20)
	if _, err := Open(1 << 20); err == nil {
		t.Error("Open of device 1<<20 succeeded")
	}
}

func TestSmoke(t *testing.T) {
	for _, c := range contexts(t) {
		t.Run(c.Name(), func(t *testing.T) {
			const n = 1000
			x, y := make([]float32, n), make([]float32, n)
			for i := range x {
				x[i], y[i] = float32(i), 1
			}
			dx, err := c.Alloc(4 * n)
			if err != nil {
				t.Fatal(err)
			}
			dy, err := c.Alloc(4 * n)
			if err != nil {
				t.Fatal(err)
			}
			c.ResetStats()
			must(t, c.CopyToDevice(dx, unsafe.Pointer(&x[0]), 4*n))
			must(t, c.CopyToDevice(dy, unsafe.Pointer(&y[0]), 4*n))
			must(t, c.Launch("gnn_smoke_axpy", c.Grid(n, Threads), Dim3{Threads, 1, 1}, dy, dx, float32(2), int64(n)))
			got := make([]float32, n)
			must(t, c.CopyToHost(unsafe.Pointer(&got[0]), dy, 4*n))
			for i, v := range got {
				if v != 2*float32(i)+1 {
					t.Fatalf("axpy[%d] = %v, want %v", i, v, 2*float32(i)+1)
				}
			}
			// A grid far smaller than the work: the kernel's stride loop
			// covers the rest.
			must(t, c.Launch("gnn_smoke_iota", Dim3{2, 1, 1}, Dim3{3, 1, 1}, dx, float64(0.5), int32(n/2)))
			must(t, c.CopyDevice(dy, dx, 4*n))
			d := make([]float64, n/2)
			must(t, c.CopyToHost(unsafe.Pointer(&d[0]), dy, 4*n))
			for i, v := range d {
				if v != float64(i)+0.5 {
					t.Fatalf("iota[%d] = %v", i, v)
				}
			}
			must(t, c.Zero(dy, 4*n))
			must(t, c.CopyToHost(unsafe.Pointer(&got[0]), dy, 4*n))
			for i, v := range got {
				if v != 0 {
					t.Fatalf("after Zero, [%d] = %v", i, v)
				}
			}
			must(t, c.Sync())
			want := Stats{HostToDevice: 8 * n, DeviceToHost: 12 * n, DeviceToDevice: 4 * n, Launches: 2}
			if s := c.Stats(); s != want {
				t.Errorf("Stats = %+v, want %+v", s, want)
			}
			must(t, c.Free(dx))
			must(t, c.Free(dy))
			if err := c.Free(dx + 8); err == nil && c.Emulated() {
				t.Error("Free of a pointer not from Alloc succeeded")
			}
		})
	}
}

func TestLaunchChecksArguments(t *testing.T) {
	c, err := OpenEmulator()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, _ := c.Alloc(64)
	one := Dim3{1, 1, 1}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"unknown", c.Launch("no_such_kernel", one, one), "no kernel"},
		{"count", c.Launch("gnn_smoke_axpy", one, one, p, p), "takes 4 parameters"},
		{"size", c.Launch("gnn_smoke_axpy", one, one, p, p, float32(1), int32(4)), "parameter 3 is 8 bytes"},
		{"type", c.Launch("gnn_smoke_axpy", one, one, p, p, float32(1), 4), "unsupported argument type int"},
		{"grid", c.Launch("gnn_smoke_axpy", Dim3{}, one, p, p, float32(1), int64(4)), "empty grid"},
		{"block", c.Launch("gnn_smoke_axpy", one, Dim3{64, 32, 1}, p, p, float32(1), int64(4)), "more than 1024 threads"},
		{"host pointer", c.Launch("gnn_smoke_axpy", one, one, p, Ptr(8192), float32(1), int64(4)), "not emulated device memory"},
	}
	for _, tc := range cases {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, tc.err, tc.want)
		}
	}
	if s := c.Stats(); s.Launches != 0 {
		t.Errorf("rejected launches were counted: %+v", s)
	}
	if _, err := c.Alloc(-1); err == nil {
		t.Error("Alloc(-1) succeeded")
	}
	if z, err := c.Alloc(0); err != nil || z != 0 {
		t.Errorf("Alloc(0) = %v, %v; want the zero Ptr", z, err)
	}
	if err := c.CopyToDevice(p+32, unsafe.Pointer(&[64]byte{}), 1<<20); err == nil {
		t.Error("a copy past the end of device memory succeeded")
	}
	c.Close()
	if _, err := c.Alloc(8); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Alloc on a closed context: %v", err)
	}
}

// TestEmulatorMemoryIsProtected checks that the host cannot read emulated
// device memory outside copies and kernels: a test that forgot a copy
// faults instead of passing.
func TestEmulatorMemoryIsProtected(t *testing.T) {
	c, err := OpenEmulator()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := c.Alloc(8)
	if err != nil {
		t.Fatal(err)
	}
	v := math.Pi
	must(t, c.CopyToDevice(p, unsafe.Pointer(&v), 8))
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	faulted := func() (f bool) {
		defer func() { f = recover() != nil }()
		host := *(*unsafe.Pointer)(unsafe.Pointer(&p)) // the device address as a host pointer
		_ = *(*float64)(host)
		return false
	}()
	if !faulted {
		t.Fatal("reading emulated device memory from the host did not fault")
	}
	var back float64
	must(t, c.CopyToHost(unsafe.Pointer(&back), p, 8))
	if back != math.Pi {
		t.Errorf("copied back %v", back)
	}
}

func TestGrid(t *testing.T) {
	c := &Context{sms: 132}
	for _, tc := range []struct {
		n    int64
		want uint32
	}{{0, 1}, {1, 1}, {256, 1}, {257, 2}, {1 << 40, 132 * 32}} {
		if g := c.Grid(tc.n, 256); g != (Dim3{tc.want, 1, 1}) {
			t.Errorf("Grid(%d) = %v, want %d blocks", tc.n, g, tc.want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentUse runs allocations, copies and launches from several
// goroutines on one context (run it with -race).
func TestConcurrentUse(t *testing.T) {
	for _, c := range contexts(t) {
		errs := make(chan error, 8)
		for w := range 8 {
			go func() {
				errs <- func() error {
					const n = 300
					x := make([]float32, n)
					for i := range x {
						x[i] = float32(w)
					}
					p, err := c.Alloc(4 * n)
					if err != nil {
						return err
					}
					defer c.Free(p)
					if err := c.CopyToDevice(p, unsafe.Pointer(&x[0]), 4*n); err != nil {
						return err
					}
					for range 10 {
						if err := c.Launch("gnn_smoke_axpy", c.Grid(n, Threads), Dim3{Threads, 1, 1}, p, p, float32(1), int64(n)); err != nil {
							return err
						}
					}
					if err := c.CopyToHost(unsafe.Pointer(&x[0]), p, 4*n); err != nil {
						return err
					}
					for i, v := range x {
						if want := float32(w) * 1024; v != want {
							return fmt.Errorf("worker %d: [%d] = %v, want %v", w, i, v, want)
						}
					}
					return nil
				}()
			}()
		}
		for range 8 {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
	}
}
