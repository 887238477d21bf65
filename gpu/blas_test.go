//go:build gnncuda

package gpu_test

import (
	"fmt"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/gpu"
	"github.com/gnngo/gnn/internal/ops/device"
	"github.com/gnngo/gnn/internal/testkit/devicetest"
)

// TestDeviceMatMul checks the backend's three products against host
// loops in float32 and float64 on the emulator (the kernels) and, on a
// machine with a GPU, with cuBLAS where it loads and with GNN_CUBLAS=0.
func TestDeviceMatMul(t *testing.T) {
	devicetest.ForDevices(t, func(t *testing.T, dev *gpu.Device) {
		t.Logf("%s: dense products by %s", dev.Name(), dev.BLAS())
		if dev.Emulated() && !strings.Contains(dev.BLAS(), "emulator") {
			t.Errorf("the emulator's BLAS() = %q, want kernels because of the emulator", dev.BLAS())
		}
		checkMatMul(t, dev)
	})
	t.Setenv("GNN_CUBLAS", "0")
	dev, err := gpu.Open(0)
	if err != nil {
		return
	}
	t.Run("gpu/GNN_CUBLAS=0", func(t *testing.T) {
		defer dev.Close()
		if got := dev.BLAS(); got != "kernels (no cuBLAS: GNN_CUBLAS=0)" {
			t.Errorf("BLAS() = %q under GNN_CUBLAS=0", got)
		}
		checkMatMul(t, dev)
	})
}

func checkMatMul(t *testing.T, dev *gpu.Device) {
	b := device.Current()
	if b == nil {
		t.Fatal("no backend registered")
	}
	for _, dt := range devicetest.Dtypes {
		for _, s := range [][3]int{{1, 1, 1}, {70, 13, 9}, {300, 5, 7}} {
			n, k, m := s[0], s[1], s[2]
			for mode, shapes := range [][3][2]int{{{n, k}, {k, m}, {n, m}}, {{n, m}, {k, m}, {n, k}}, {{n, k}, {n, m}, {k, m}}} {
				t.Run(fmt.Sprintf("mode=%d/n=%d/k=%d/m=%d/%v", mode, n, k, m, dt), func(t *testing.T) {
					x := devicetest.Random(dt, uint64(10*mode+1), shapes[0][:]...)
					y := devicetest.Random(dt, uint64(10*mode+2), shapes[1][:]...)
					xd, err := dev.Place(x)
					if err != nil {
						t.Fatal(err)
					}
					yd, err := dev.Place(y)
					if err != nil {
						t.Fatal(err)
					}
					c, err := b.Alloc(dt, tensor.Shape(shapes[2][:]))
					if err != nil {
						t.Fatal(err)
					}
					if err := b.MatMul(c, xd, yd, n, k, m, device.MatMulMode(mode)); err != nil {
						t.Fatal(err)
					}
					h, err := dev.ToHost(c)
					if err != nil {
						t.Fatal(err)
					}
					a, bb := devicetest.Floats(t, x), devicetest.Floats(t, y)
					want := make([]float64, shapes[2][0]*shapes[2][1])
					for i := range shapes[2][0] {
						for j := range shapes[2][1] {
							var s float64
							switch mode {
							case 0:
								for p := range k {
									s += a[i*k+p] * bb[p*m+j]
								}
							case 1:
								for p := range m {
									s += a[i*m+p] * bb[j*m+p]
								}
							case 2:
								for r := range n {
									s += a[r*k+i] * bb[r*m+j]
								}
							}
							want[i*shapes[2][1]+j] = s
						}
					}
					devicetest.Near(t, "MatMul", devicetest.Floats(t, h), want, devicetest.Tol(dt))
				})
			}
		}
	}
}
