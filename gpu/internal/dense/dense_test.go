//go:build gnncuda

package dense

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/gpu/internal/cudatest"
)

func TestRowBlocks(t *testing.T) {
	for _, c := range []struct{ n, outputs int }{{0, 4}, {1, 4}, {64, 1}, {65, 1}, {1000, 6400}, {2_400_000, 6400}, {2_400_000, 64}, {100, 1 << 20}} {
		blocks, per := RowBlocks(c.n, c.outputs)
		if blocks < 1 || (c.n > 0 && (per < 1 || (blocks-1)*per >= c.n || blocks*per < c.n)) {
			t.Errorf("RowBlocks(%d, %d) = %d blocks of %d rows: they do not tile the rows", c.n, c.outputs, blocks, per)
		}
		if blocks > 1 && per < 64 {
			t.Errorf("RowBlocks(%d, %d): blocks of %d rows, want at least 64", c.n, c.outputs, per)
		}
	}
	if b, _ := RowBlocks(2_400_000, 6400); b < 32 {
		t.Errorf("RowBlocks(2.4M, 6400) = %d blocks: too few to fill a GPU", b)
	}
}

func TestMatMulAndSumRows(t *testing.T) {
	t.Run("float32", testMatMulAndSumRows[float32])
	t.Run("float64", testMatMulAndSumRows[float64])
}

// testMatMulAndSumRows checks every MatMul mode, SumRows and every HeadDot
// mode against loops
// in float64 on the host, with row counts of one pass and of two.
func testMatMulAndSumRows[T float32 | float64](t *testing.T) {
	var z T
	dt, tol := F64, 1e-12
	if unsafe.Sizeof(z) == 4 {
		dt, tol = F32, 2e-5
	}
	for _, c := range cudatest.Contexts(t) {
		for _, n := range []int{3, 70, 5000} {
			const k, m = 5, 7
			r := rand.New(rand.NewPCG(uint64(n), 1))
			rnd := func(len int) []T {
				x := make([]T, len)
				for i := range x {
					x[i] = T(r.Float64()*2 - 1)
				}
				return x
			}
			t.Run(fmt.Sprintf("%s/n=%d", c.Name(), n), func(t *testing.T) {
				scratch := func(bytes int) (cuda.Ptr, error) {
					p, err := c.Alloc(bytes)
					if err == nil {
						t.Cleanup(func() { c.Free(p) })
					}
					return p, err
				}
				dev := func(x []T) cuda.Ptr {
					p, err := scratch(len(x) * int(unsafe.Sizeof(z)))
					if err != nil {
						t.Fatal(err)
					}
					if err := c.CopyToDevice(p, unsafe.Pointer(&x[0]), len(x)*int(unsafe.Sizeof(z))); err != nil {
						t.Fatal(err)
					}
					return p
				}
				check := func(what string, p cuda.Ptr, want []float64) {
					t.Helper()
					got := make([]T, len(want))
					if err := c.CopyToHost(unsafe.Pointer(&got[0]), p, len(got)*int(unsafe.Sizeof(z))); err != nil {
						t.Fatal(err)
					}
					for i := range want {
						if d := math.Abs(float64(got[i]) - want[i]); d > tol*(1+math.Abs(want[i]))*math.Sqrt(float64(n)) {
							t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], want[i])
						}
					}
				}
				poison := func(len int) cuda.Ptr {
					x := make([]T, len)
					for i := range x {
						x[i] = T(math.NaN())
					}
					return dev(x)
				}
				// a (n x k), b (k x m), d (n x m): Product a b, TransB d bᵀ, TransA aᵀ d.
				a, b, d := rnd(n*k), rnd(k*m), rnd(n*m)
				pa, pb, pd := dev(a), dev(b), dev(d)
				prod, transB, transA, sums := make([]float64, n*m), make([]float64, n*k), make([]float64, k*m), make([]float64, m)
				for i := range n {
					for j := range m {
						for p := range k {
							prod[i*m+j] += float64(a[i*k+p]) * float64(b[p*m+j])
							transA[p*m+j] += float64(a[i*k+p]) * float64(d[i*m+j])
						}
						sums[j] += float64(d[i*m+j])
					}
					for p := range k {
						for j := range m {
							transB[i*k+p] += float64(d[i*m+j]) * float64(b[p*m+j])
						}
					}
				}
				out := poison(n * m)
				if err := MatMul(c, dt, out, pa, pb, n, k, m, Product, scratch); err != nil {
					t.Fatal(err)
				}
				check("a b", out, prod)
				out = poison(n * k)
				if err := MatMul(c, dt, out, pd, pb, n, k, m, TransB, scratch); err != nil {
					t.Fatal(err)
				}
				check("d bᵀ", out, transB)
				out = poison(k * m)
				if err := MatMul(c, dt, out, pa, pd, n, k, m, TransA, scratch); err != nil {
					t.Fatal(err)
				}
				check("aᵀ d", out, transA)
				out = poison(m)
				if err := SumRows(c, dt, out, pd, n, m, scratch); err != nil {
					t.Fatal(err)
				}
				check("column sums", out, sums)

				// Head scores: z (n, h, f), av (h, f), ds (n, h).
				const h, f = 3, 4
				z, av, ds := rnd(n*h*f), rnd(h*f), rnd(n*h)
				pz, pav, pds := dev(z), dev(av), dev(ds)
				scores, dz, da := make([]float64, n*h), make([]float64, n*h*f), make([]float64, h*f)
				for r := range n {
					for hk := range h {
						for j := range f {
							scores[r*h+hk] += float64(z[(r*h+hk)*f+j]) * float64(av[hk*f+j])
							dz[(r*h+hk)*f+j] = float64(ds[r*h+hk]) * float64(av[hk*f+j])
							da[hk*f+j] += float64(ds[r*h+hk]) * float64(z[(r*h+hk)*f+j])
						}
					}
				}
				for _, hc := range []struct {
					what string
					mode int
					p, q cuda.Ptr
					want []float64
				}{{"head scores", HeadFwd, pz, pav, scores}, {"head dz", HeadDZ, pav, pds, dz}, {"head da", HeadDA, pz, pds, da}} {
					out = poison(len(hc.want))
					if err := HeadDot(c, dt, out, hc.p, hc.q, n, h, f, hc.mode, scratch); err != nil {
						t.Fatal(err)
					}
					check(hc.what, out, hc.want)
				}
			})
		}
	}
}
