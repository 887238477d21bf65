package train

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/vm"
	"github.com/gnngo/gnn/sampling"
)

// Inference evaluates m on the whole graph g one layer at a time (DGL's
// layer-wise inference): layer l runs over all nodes in chunks of chunk
// destination nodes, each on the block of all their in-edges, reading the
// previous layer's outputs for the chunk's sources, so that no expression
// graph holds more than one chunk of one layer. features is N x F; the
// result holds the last layer's outputs, one row per node. The parameters
// are s's; mode, if not nil, is switched to evaluation for the call.
//
// Memory: besides features and g, at most two layers' N x F outputs are
// held at a time (the layer's input and the one it writes); a layer writes
// into the memory of the output two layers back when it is large enough,
// and the last layer's output, the result, is allocated to its size. Each
// chunk's values are garbage once copied out; so that they do not grow
// the heap to twice the live data before Go collects them, the heap is
// collected whenever the garbage since the last collection passes
// max(256 MiB, live/32) (see heapGuard).
func Inference(m Stack, s *Shared, g *graph.Graph, features *tensor.Dense, chunk int, mode *nn.Mode) (*tensor.Dense, error) {
	if g == nil || g.NumSrc() != g.NumDst() {
		return nil, fmt.Errorf("train: Inference needs a homogeneous graph")
	}
	if chunk <= 0 {
		return nil, fmt.Errorf("train: chunk size %d, want at least 1", chunk)
	}
	if features == nil || features.Dims() != 2 || features.Shape()[0] != g.NumDst() {
		return nil, fmt.Errorf("train: Inference needs features with one row per node (%d)", g.NumDst())
	}
	if mode != nil {
		mode.Eval()
		defer mode.Train()
	}
	full, err := sampling.NewMultiLayer(g, []int{-1}, sampling.Options{})
	if err != nil {
		return nil, err
	}
	h := features
	n := g.NumDst()
	var buf any   // the chunks' source rows, one buffer for the whole call
	var spare any // the backing of the output two layers back, dead
	guard := newHeapGuard()
	layers := m.NumLayers()
	for l := range layers {
		var next *tensor.Dense
		for lo := 0; lo < n; lo += chunk {
			hi := min(lo+chunk, n)
			dst := make([]int32, hi-lo)
			for i := range dst {
				dst[i] = int32(lo + i)
			}
			mb, err := full.Sample(dst, 0)
			if err != nil {
				return nil, err
			}
			var out *tensor.Dense
			out, buf, err = s.layerOn(m, l, mb.Blocks[0], h, buf)
			if err != nil {
				return nil, fmt.Errorf("train: layer %d, nodes %d to %d: %w", l, lo, hi-1, err)
			}
			if next == nil {
				if l == layers-1 {
					spare = nil // the result gets memory of its own size
				}
				next = layerOutput(n, out.Shape()[1], out.Dtype(), spare)
				spare = nil
			}
			if err := copyRows(next, out, lo); err != nil {
				return nil, err
			}
			guard.check()
		}
		if h != features {
			spare = h.Data() // layer l's input is dead: layer l+2 may write there
		}
		h = next
	}
	return h, nil
}

// layerOutput returns an n x f tensor of dt over spare's memory (a slice of
// dt's type) when it has room, else a new one. Every row is written by the
// chunks, so the memory is not cleared.
func layerOutput(n, f int, dt tensor.Dtype, spare any) *tensor.Dense {
	switch b := spare.(type) {
	case []float32:
		if dt == tensor.Float32 && cap(b) >= n*f {
			return tensor.New(tensor.WithShape(n, f), tensor.WithBacking(b[:n*f]))
		}
	case []float64:
		if dt == tensor.Float64 && cap(b) >= n*f {
			return tensor.New(tensor.WithShape(n, f), tensor.WithBacking(b[:n*f]))
		}
	}
	return tensor.New(tensor.WithShape(n, f), tensor.Of(dt))
}

// layerOn runs layer l of m with s's parameters on block b, reading the
// rows of h of the block's sources, gathered into buf's memory when it is
// large enough (see rowsInto); it returns the buffer to reuse next.
func (s *Shared) layerOn(m Stack, l int, b *sampling.Block, h *tensor.Dense, buf any) (*tensor.Dense, any, error) {
	x, buf, err := rowsInto(h, b.SrcNodes, buf)
	if err != nil {
		return nil, buf, err
	}
	out, err := s.runLayer(m, l, b, x)
	return out, buf, err
}

// runLayer runs layer l of m with s's parameters on block b and the
// sources' rows x.
func (s *Shared) runLayer(m Stack, l int, b *sampling.Block, x *tensor.Dense) (*tensor.Dense, error) {
	eg := gorgonia.NewGraph()
	out, ps, err := m.Layer(eg, l, b.Graph, gorgonia.NodeFromAny(eg, x, gorgonia.WithName("x")))
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		if _, ok := s.index[p.Name()]; !ok {
			return nil, fmt.Errorf("parameter %q is not in the shared model", p.Name())
		}
	}
	if err := s.Bind(ps); err != nil {
		return nil, err
	}
	if err := vm.Run(out); err != nil {
		return nil, err
	}
	v, ok := out.Value().(*tensor.Dense)
	if !ok || v.Dims() != 2 {
		return nil, fmt.Errorf("layer output is %v, want a matrix", out.Shape())
	}
	return v, nil
}

// copyRows copies the rows of src into dst from row lo on.
func copyRows(dst, src *tensor.Dense, lo int) error {
	f := dst.Shape()[1]
	switch d := dst.Data().(type) {
	case []float32:
		s, ok := src.Data().([]float32)
		if !ok || src.Shape()[1] != f {
			return fmt.Errorf("train: layer outputs of varying dtype or width")
		}
		copy(d[lo*f:], s)
	case []float64:
		s, ok := src.Data().([]float64)
		if !ok || src.Shape()[1] != f {
			return fmt.Errorf("train: layer outputs of varying dtype or width")
		}
		copy(d[lo*f:], s)
	}
	return nil
}
