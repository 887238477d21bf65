package interop

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/atomicfile"
)

// MarshalSafetensors encodes float32 and float64 tensors (as F32 and F64)
// and optional string metadata in the safetensors format, tensors in
// increasing name order, the header padded with spaces to a multiple of 8
// bytes as the reference writer does. It is the inverse of
// ParseSafetensors, for tests and for converting gnn parameters back to
// PyTorch (safetensors.torch.load_file reads the result; the layouts are
// gnn's, not PyG's: see the package documentation).
func MarshalSafetensors(tensors map[string]*tensor.Dense, metadata map[string]string) ([]byte, error) {
	names := make([]string, 0, len(tensors))
	for n := range tensors {
		if n == "" || n == "__metadata__" {
			return nil, fmt.Errorf("interop: safetensors: tensor name %q is reserved", n)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	type record struct {
		Dtype   Dtype    `json:"dtype"`
		Shape   []int    `json:"shape"`
		Offsets []uint64 `json:"data_offsets"`
	}
	header := map[string]any{}
	if len(metadata) > 0 {
		header["__metadata__"] = metadata
	}
	var at uint64
	for _, n := range names {
		t := tensors[n]
		if t == nil {
			return nil, fmt.Errorf("interop: safetensors: tensor %q is nil", n)
		}
		var dt Dtype
		switch t.Dtype() {
		case tensor.Float32:
			dt = F32
		case tensor.Float64:
			dt = F64
		default:
			return nil, fmt.Errorf("interop: safetensors: tensor %q has dtype %v; only float32 and float64 are written", n, t.Dtype())
		}
		size := uint64(t.Shape().TotalSize()) * uint64(dt.Size())
		shape := append([]int{}, t.Shape()...)
		if t.IsScalar() {
			shape = []int{}
		}
		header[n] = record{dt, shape, []uint64{at, at + size}}
		at += size
	}
	h, err := json.Marshal(header)
	if err != nil {
		return nil, fmt.Errorf("interop: safetensors: %w", err)
	}
	for (8+len(h))%8 != 0 {
		h = append(h, ' ')
	}
	out := make([]byte, 8, 8+uint64(len(h))+at)
	binary.LittleEndian.PutUint64(out, uint64(len(h)))
	out = append(out, h...)
	for _, n := range names {
		switch d := tensors[n].Data().(type) {
		case []float32:
			for _, v := range d {
				out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
			}
		case []float64:
			for _, v := range d {
				out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
			}
		case float32:
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(d))
		case float64:
			out = binary.LittleEndian.AppendUint64(out, math.Float64bits(d))
		}
	}
	return out, nil
}

// WriteSafetensors writes MarshalSafetensors' encoding to path atomically:
// a crash never leaves a half-written file under that name.
func WriteSafetensors(path string, tensors map[string]*tensor.Dense, metadata map[string]string) error {
	b, err := MarshalSafetensors(tensors, metadata)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
