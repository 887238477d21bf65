//go:build amd64 && !purego

package gemm

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

var _ = 0

func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func cpuRate(flops float64, fn func()) float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fn()
	best := 0.0
	for range 5 {
		t0 := threadCPU()
		reps := 0
		for threadCPU()-t0 < 200*time.Millisecond {
			fn()
			reps++
		}
		r := flops * float64(reps) / (threadCPU() - t0).Seconds() / 1e9
		best = max(best, r)
	}
	return best
}

func TestTune(t *testing.T) {
	if os.Getenv("TUNE") == "" {
		t.Skip()
	}
	old := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(old)
	fmt.Printf("peak %.1f\n", cpuRate(192*65536, func() { fmaPeakF32(65536) }))
	rng := rand.New(rand.NewPCG(9, 10))
	for _, s := range [][3]int{{3327, 3703, 16}, {19717, 500, 16}, {50000, 100, 256}, {4096, 4000, 64}, {20000, 1000, 8}, {100000, 500, 64}} {
		n, k, m := s[0], s[1], s[2]
		a := random[float32](rng, n*k)
		w, d := random[float32](rng, k*m), random[float32](rng, n*m)
		c, g := make([]float32, n*m), make([]float32, k*m)
		fl := 2 * float64(n*k*m)
		r1 := cpuRate(fl, func() { Mul(c, a, w, n, k, m) })
		r2 := cpuRate(fl, func() { MulTransA(g, a, d, n, k, m) })
		fmt.Printf("%v mul %.1f transA %.1f\n", s, r1, r2)
	}
}

func TestTuneRB(t *testing.T) {
	if os.Getenv("TUNE") == "" {
		t.Skip()
	}
	old := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(old)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, s := range [][3]int{{3327, 3703, 16}, {19717, 500, 16}, {4096, 4000, 64}, {20000, 1000, 8}} {
		n, k, m := s[0], s[1], s[2]
		a := random[float32](rng, n*k)
		d := random[float32](rng, n*m)
		g := make([]float32, k*m)
		fl := 2 * float64(n*k*m)
		for _, rb := range []int{32} {
			_ = rb
			r2 := cpuRate(fl, func() { MulTransA(g, a, d, n, k, m) })
			fmt.Printf("%v rb %d transA %.1f\n", s, rb, r2)
		}
	}
}

func TestTuneMul(t *testing.T) {
	if os.Getenv("TUNE") == "" {
		t.Skip()
	}
	old := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(old)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, s := range [][3]int{{96, 500, 16}, {96, 3703, 16}, {96, 500, 8}, {2000, 500, 16}, {20000, 500, 16}, {20000, 500, 8}} {
		n, k, m := s[0], s[1], s[2]
		a := random[float32](rng, n*k)
		w := random[float32](rng, k*m)
		c := make([]float32, n*m)
		fl := 2 * float64(n*k*m)
		r1 := cpuRate(fl, func() { Mul(c, a, w, n, k, m) })
		fmt.Printf("%v mul %.1f\n", s, r1)
	}
}

func TestTuneTK(t *testing.T) {
	if os.Getenv("TUNE") == "" {
		t.Skip()
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, s := range [][3]int{{32, 3703, 16}, {32, 500, 16}, {32, 3703, 8}, {16, 1000, 64}} {
		r, k, h := s[0], s[1], s[2]
		fp := (k + 7) &^ 7
		a := random[float32](rng, r*k)
		b := random[float32](rng, r*h)
		p := make([]float32, h*fp)
		var mask [8]int32
		for l := range k % 8 {
			mask[l] = -1
		}
		k1 := cpuRate(2*float64(r*k*h), func() { tmulF32(&p[0], &a[0], &b[0], r, k, h, k, h, fp, &mask[0], 0) })
		fmt.Printf("%v kernel %.1f GFLOPS\n", s, k1)
	}
}
