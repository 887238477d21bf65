package train

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/sampling"
)

// TestInferenceReusesLayers runs a four-layer stack, in which layer 2
// writes into layer 0's output memory, and checks the result against each
// layer computed chunk by chunk into a tensor of its own (Inference before
// it reused memory) to the bit, at GOMAXPROCS 1 and 2, in float32 and
// float64, and that the result does not lie in a reused buffer.
func TestInferenceReusesLayers(t *testing.T) {
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features, cfg.Classes = 600, 12, 5
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d32 := ds.Features.ToDense()
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		var feats *tensor.Dense
		if dt == tensor.Float32 {
			feats = tensor.New(tensor.WithShape(cfg.Nodes, cfg.Features), tensor.WithBacking(d32))
		} else {
			d := make([]float64, len(d32))
			for i, v := range d32 {
				d[i] = float64(v)
			}
			feats = tensor.New(tensor.WithShape(cfg.Nodes, cfg.Features), tensor.WithBacking(d))
		}
		m := &sage.Stack{Widths: []int{cfg.Features, 16, 9, 7, cfg.Classes}, Dtype: dt}
		s, err := NewShared(0.01, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Binding a batch puts the parameters in s.
		sampler, err := sampling.NewMultiLayer(ds.Graph, []int{3, 3, 3, 3}, sampling.Options{})
		if err != nil {
			t.Fatal(err)
		}
		mb, err := sampler.Sample([]int32{0, 1}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := BuildBatch(m, s, mb, feats); err != nil {
			t.Fatal(err)
		}
		want := layerByLayer(t, m, s, ds, feats, 97)
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("%v/procs=%d", dt, procs), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				got, err := Inference(m, s, ds.Graph, feats, 97, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !got.Shape().Eq(tensor.Shape{cfg.Nodes, cfg.Classes}) {
					t.Fatalf("shape %v, want (%d, %d)", got.Shape(), cfg.Nodes, cfg.Classes)
				}
				if got.DataSize() != cap(bitsData(got)) {
					t.Errorf("the result has %d elements in memory for %d: it lies in a reused buffer", cap(bitsData(got)), got.DataSize())
				}
				g, w := bitsData(got), bitsData(want)
				for i := range w {
					if g[i] != w[i] {
						t.Fatalf("element %d has bits %x, layer by layer into fresh tensors %x", i, g[i], w[i])
					}
				}
			})
		}
	}
}

// layerByLayer is Inference writing every layer into a tensor of its own.
func layerByLayer(t *testing.T, m Stack, s *Shared, ds *dataset.Dataset, feats *tensor.Dense, chunk int) *tensor.Dense {
	t.Helper()
	full, err := sampling.NewMultiLayer(ds.Graph, []int{-1}, sampling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := ds.Graph.NumDst()
	h := feats
	for l := range m.NumLayers() {
		var next *tensor.Dense
		for lo := 0; lo < n; lo += chunk {
			var dst []int32
			for v := lo; v < min(lo+chunk, n); v++ {
				dst = append(dst, int32(v))
			}
			mb, err := full.Sample(dst, 0)
			if err != nil {
				t.Fatal(err)
			}
			x, err := Rows(h, mb.Blocks[0].SrcNodes)
			if err != nil {
				t.Fatal(err)
			}
			out, err := s.runLayer(m, l, mb.Blocks[0], x)
			if err != nil {
				t.Fatal(err)
			}
			if next == nil {
				next = tensor.New(tensor.WithShape(n, out.Shape()[1]), tensor.Of(out.Dtype()))
			}
			if err := copyRows(next, out, lo); err != nil {
				t.Fatal(err)
			}
		}
		h = next
	}
	return h
}

// bitsData returns a tensor's backing as bit patterns, with its capacity.
func bitsData(x *tensor.Dense) []uint64 {
	switch d := x.Data().(type) {
	case []float32:
		out := make([]uint64, len(d), cap(d))
		for i, v := range d {
			out[i] = uint64(math.Float32bits(v))
		}
		return out
	case []float64:
		out := make([]uint64, len(d), cap(d))
		for i, v := range d {
			out[i] = math.Float64bits(v)
		}
		return out
	}
	return nil
}

// TestLayerOutput checks that a layer's output takes spare memory of its
// dtype with room, and new memory otherwise.
func TestLayerOutput(t *testing.T) {
	spare := make([]float32, 40)
	if x := layerOutput(4, 10, tensor.Float32, spare); &x.Data().([]float32)[0] != &spare[0] {
		t.Error("a 4 x 10 output did not take 40 spare floats")
	}
	if x := layerOutput(5, 10, tensor.Float32, spare); &x.Data().([]float32)[0] == &spare[0] {
		t.Error("a 5 x 10 output took 40 spare floats")
	}
	if x := layerOutput(2, 10, tensor.Float64, spare); x.Dtype() != tensor.Float64 {
		t.Errorf("a float64 output over float32 memory: %v", x.Dtype())
	}
	if x := layerOutput(2, 3, tensor.Float64, nil); !x.Shape().Eq(tensor.Shape{2, 3}) {
		t.Errorf("shape %v, want (2, 3)", x.Shape())
	}
}
