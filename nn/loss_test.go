package nn

import (
	"math"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func TestCrossEntropy(t *testing.T) {
	logits := []float64{1, 2, 3, -1, 0, 5, 2, 2, 2, 10, -10, 0}
	labels := []int32{2, 0, 1, 0}
	nodes := []int32{0, 1, 3}
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		eg := gorgonia.NewGraph()
		var backing any = append([]float64{}, logits...)
		if dt == tensor.Float32 {
			f := make([]float32, len(logits))
			for i, v := range logits {
				f[i] = float32(v)
			}
			backing = f
		}
		x := gorgonia.NewMatrix(eg, dt, gorgonia.WithShape(4, 3), gorgonia.WithName("logits"), gorgonia.WithValue(tensor.New(tensor.WithShape(4, 3), tensor.WithBacking(backing))))
		loss, err := CrossEntropy(x, labels, nodes)
		if err != nil {
			t.Fatal(err)
		}
		grads, err := gorgonia.Grad(loss, x)
		if err != nil {
			t.Fatal(err)
		}
		vm := gorgonia.NewTapeMachine(eg)
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		// Reference: direct softmax per row in float64.
		var want float64
		wantGrad := make([]float64, 12)
		for _, v := range nodes {
			row := logits[v*3 : v*3+3]
			var s float64
			for _, z := range row {
				s += math.Exp(z)
			}
			want -= math.Log(math.Exp(row[labels[v]])/s) / 3
			for k, z := range row {
				g := math.Exp(z) / s
				if k == int(labels[v]) {
					g--
				}
				wantGrad[int(v)*3+k] = g / 3
			}
		}
		tol := 1e-12
		if dt == tensor.Float32 {
			tol = 1e-5
		}
		got := toFloat64(loss.Value().Data())
		if math.Abs(got[0]-want) > tol {
			t.Errorf("%v: loss %v, want %v", dt, got[0], want)
		}
		for i, g := range toFloat64(grads[0].Value().Data()) {
			if math.Abs(g-wantGrad[i]) > tol {
				t.Errorf("%v: grad[%d] = %v, want %v", dt, i, g, wantGrad[i])
			}
		}
		acc, err := Accuracy(x.Value(), labels, nodes)
		if err != nil || math.Abs(acc-2.0/3) > 1e-12 {
			t.Errorf("%v: accuracy %v (%v), want 2/3", dt, acc, err)
		}
		vm.Close()
	}
}

func TestCrossEntropyErrors(t *testing.T) {
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(2, 3), gorgonia.WithName("x"))
	for _, c := range []struct {
		labels, nodes []int32
		want          string
	}{
		{[]int32{0}, []int32{0}, "1 labels for 2 rows"},
		{[]int32{0, 1}, nil, "no nodes"},
		{[]int32{0, 1}, []int32{2}, "nodes[0] = 2"},
		{[]int32{0, 3}, []int32{1}, "label 3 but there are 3 classes"},
	} {
		if _, err := CrossEntropy(x, c.labels, c.nodes); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

func toFloat64(d any) []float64 {
	switch d := d.(type) {
	case float64:
		return []float64{d}
	case float32:
		return []float64{float64(d)}
	case []float64:
		return d
	case []float32:
		out := make([]float64, len(d))
		for i, v := range d {
			out[i] = float64(v)
		}
		return out
	}
	return nil
}
