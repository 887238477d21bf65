package bench

import (
	"math"
	"testing"
)

// The three paths of every kernel compute the same output.
func TestKernelsAgree(t *testing.T) {
	for _, c := range []struct {
		model, op string
		heads, f  int
	}{
		{SpMM, OpCopyUSum, 1, 5},
		{SpMM, OpUMulESum, 1, 5},
		{SpMM, OpUMulESum, 3, 4},
		{SDDMM, OpUAddV, 3, 1},
		{SDDMM, OpUAddV, 2, 3},
		{SDDMM, OpUDotV, 1, 6},
		{SDDMM, OpUDotV, 2, 4},
		{EdgeSoftmax, OpSoftmaxBy, 3, 1},
	} {
		name := c.model + "/" + c.op
		var ref []float32
		for _, path := range Paths {
			s := Spec{Model: c.model, Op: c.op, Path: path, Nodes: 40, Edges: 300, Heads: c.heads, Feat: c.f, Seed: 2}
			k, err := buildKernel(&s)
			if err != nil {
				t.Fatalf("%s %s: %v", name, path, err)
			}
			k.call()
			got := k.result()
			if path == Fused {
				ref = got
				continue
			}
			skip := multiEdgeRows(k, c.model == EdgeSoftmax && path == Dense, len(got)/k.g.NumEdges())
			for i, v := range got {
				if skip != nil && skip[i] {
					continue
				}
				if d := math.Abs(float64(v - ref[i])); d > 1e-4*math.Max(1, math.Abs(float64(ref[i]))) {
					t.Errorf("%s %s: element %d is %v, fused %v", name, path, i, v, ref[i])
					break
				}
			}
		}
	}
}

// multiEdgeRows marks, when on, the output elements of edges into nodes
// with parallel in-edges: a dense score matrix holds one of them only.
func multiEdgeRows(k kernel, on bool, w int) []bool {
	if !on {
		return nil
	}
	src, dst := k.g.COO()
	seen := map[[2]int32]bool{}
	bad := map[int32]bool{}
	for e := range src {
		p := [2]int32{src[e], dst[e]}
		if seen[p] {
			bad[dst[e]] = true
		}
		seen[p] = true
	}
	skip := make([]bool, len(src)*w)
	for e := range src {
		for j := range w {
			skip[e*w+j] = bad[dst[e]]
		}
	}
	return skip
}
