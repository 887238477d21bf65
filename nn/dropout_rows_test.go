package nn_test

import (
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn"
)

// TestDropoutRows checks that dropout of some rows of a tensor, through
// DropoutRows, masks them as Dropout of the whole tensor does, forward and
// backward, and that Mask agrees with both.
func TestDropoutRows(t *testing.T) {
	const n, w, p, seed = 37, 7, 0.4, 9
	rng := rand.New(rand.NewPCG(1, 2))
	x := gradcheck.Draw(rng, n*w)
	rows := []int64{36, 0, 5, 17, 18, 19, 2}
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		mode := nn.NewMode()
		mode.Next()
		mode.Next()
		eg := gorgonia.NewGraph()
		all := gradcheck.Input(eg, dt, "all", []int{n, w}, x)
		sub := make([]float64, 0, len(rows)*w)
		for _, r := range rows {
			sub = append(sub, x[int(r)*w:int(r+1)*w]...)
		}
		part := gradcheck.Input(eg, dt, "part", []int{len(rows), w}, sub)
		dAll, err := nn.Dropout(all, p, seed, mode)
		if err != nil {
			t.Fatal(err)
		}
		dPart, err := nn.DropoutRows(part, p, seed, mode, rows)
		if err != nil {
			t.Fatal(err)
		}
		c1, _ := gorgonia.Sum(dAll)
		c2, _ := gorgonia.Sum(dPart)
		cost, _ := gorgonia.Add(c1, c2)
		grads, err := gorgonia.Grad(cost, all, part)
		if err != nil {
			t.Fatal(err)
		}
		vm := gorgonia.NewTapeMachine(eg)
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		vm.Close()
		ya, yp := gradcheck.Floats(dAll.Value()), gradcheck.Floats(dPart.Value())
		ga, gp := gradcheck.Floats(grads[0].Value()), gradcheck.Floats(grads[1].Value())
		m := nn.NewMask(p, seed, mode.Step())
		kept := 0
		for i, r := range rows {
			for c := range w {
				k := int(r)*w + c
				if ya[k] != yp[i*w+c] || ga[k] != gp[i*w+c] {
					t.Fatalf("%v: row %d col %d: %v (grad %v), want %v (grad %v)", dt, r, c, yp[i*w+c], gp[i*w+c], ya[k], ga[k])
				}
				if m.Kept(uint64(k)) != (ga[k] != 0) {
					t.Fatalf("%v: Mask.Kept(%d) = %v, but the gradient is %v", dt, k, m.Kept(uint64(k)), ga[k])
				}
				if ga[k] != 0 {
					kept++
				}
			}
		}
		if kept == 0 || kept == len(rows)*w {
			t.Fatalf("%v: %d of %d kept", dt, kept, len(rows)*w)
		}
	}
	if _, err := nn.DropoutRows(gorgonia.NewMatrix(gorgonia.NewGraph(), tensor.Float64, gorgonia.WithShape(3, 2)), 0.5, 1, nn.NewMode(), []int64{1, 2}); err == nil {
		t.Error("DropoutRows with 2 row IDs for 3 rows: no error")
	}
}
