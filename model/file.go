package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/atomicfile"
	"github.com/gnngo/gnn/internal/paramio"
)

// The model file format; see the package documentation.
const (
	// Magic starts every model file.
	Magic = "GNNMODEL"
	// Version is the format version this package writes and reads.
	Version = 1
	// paramMagic starts nn.SaveParams's parameter files.
	paramMagic = "GNNPARAM"
)

// IsModelFile reports whether the file at path starts with Magic: a model
// file, as opposed to a parameter file of nn.SaveParams (or anything else).
// It reads the first 8 bytes only.
func IsModelFile(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var magic [len(Magic)]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return false, nil
	}
	return string(magic[:]) == Magic, nil
}

// Save writes the model, its spec and its parameters, to path, atomically:
// a crash never leaves a half-written file under that name.
func (m *Model) Save(path string) error {
	spec, err := json.Marshal(m.spec)
	if err != nil {
		return fmt.Errorf("model: save %s: spec: %w", path, err)
	}
	code, err := dtypeCode(m.dt)
	if err != nil {
		return fmt.Errorf("model: save %s: %w", path, err)
	}
	err = atomicfile.Write(path, func(w io.Writer) error {
		cw := paramio.NewWriter(w)
		if _, err := io.WriteString(cw, Magic); err != nil {
			return err
		}
		if err := cw.Put([3]uint32{Version, code, uint32(len(spec))}); err != nil {
			return err
		}
		if _, err := cw.Write(spec); err != nil {
			return err
		}
		if err := cw.Put(uint32(len(m.names))); err != nil {
			return err
		}
		for _, name := range m.names {
			if err := cw.Record(name, m.values[name]); err != nil {
				return err
			}
		}
		return cw.Finish()
	})
	if err != nil {
		return fmt.Errorf("model: save %s: %w", path, err)
	}
	return nil
}

// Load reads a model file written by Save and rebuilds the model: its spec,
// dtype and parameters, bit for bit. A file that is not a model file (a
// parameter file of nn.SaveParams is named as such), from a newer format
// version, truncated, corrupt (checksum), with a spec this package cannot
// build, or with parameters missing, unknown or of another shape than the
// spec's gives an error naming the file and what is wrong, and the
// parameter's layer.
//
// The whole file is read and its checksum verified before the spec is
// built, and a spec whose parameters could not fit in the file is refused
// before any is allocated.
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("model: load %s: %w", path, err)
	}
	m, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("model: load %s: %w", path, err)
	}
	return m, nil
}

// Read is Load from a reader, which holds one model file and nothing else.
func Read(r io.Reader) (*Model, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("model: read: %w", err)
	}
	m, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("model: read: %w", err)
	}
	return m, nil
}

// decode decodes a whole model file.
func decode(data []byte) (*Model, error) {
	if len(data) < len(Magic) {
		return nil, fmt.Errorf("not a gnn model file (%d bytes)", len(data))
	}
	switch magic := string(data[:len(Magic)]); magic {
	case Magic:
	case paramMagic:
		return nil, fmt.Errorf("a parameter file (nn.SaveParams), not a model file: it holds no architecture; load it with nn.LoadParams into the model that wrote it")
	default:
		return nil, fmt.Errorf("not a gnn model file (magic %q, want %q)", magic, Magic)
	}
	cr := paramio.NewReader(bytes.NewReader(data))
	cr.Read(make([]byte, len(Magic)))
	var hdr [3]uint32
	if err := cr.Get(&hdr); err != nil {
		return nil, fmt.Errorf("truncated header: %w", err)
	}
	if hdr[0] != Version {
		if hdr[0] > Version {
			return nil, fmt.Errorf("format version %d, newer than this build reads (%d): update gnn", hdr[0], Version)
		}
		return nil, fmt.Errorf("unsupported format version %d (this build reads %d)", hdr[0], Version)
	}
	if len(data) < 4 || !paramio.Valid(data) {
		return nil, fmt.Errorf("checksum mismatch: the file is corrupt or truncated")
	}
	dt, err := codeDtype(hdr[1])
	if err != nil {
		return nil, err
	}
	if int64(hdr[2]) > int64(len(data)) {
		return nil, fmt.Errorf("spec length %d, but the file has %d bytes", hdr[2], len(data))
	}
	spec := make([]byte, hdr[2])
	if _, err := io.ReadFull(cr, spec); err != nil {
		return nil, fmt.Errorf("truncated spec: %w", io.ErrUnexpectedEOF)
	}
	dec := json.NewDecoder(bytes.NewReader(spec))
	dec.DisallowUnknownFields()
	var s Spec
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("spec: data after the JSON object")
	}
	if err := normalize(&s, 0); err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	if need := minParamBytes(&s, dt); need > float64(len(data)) {
		return nil, fmt.Errorf("spec: its parameters need at least %.0f bytes, the file has %d", need, len(data))
	}
	m, err := New(s, dt, 0)
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	var count uint32
	if err := cr.Get(&count); err != nil {
		return nil, fmt.Errorf("truncated parameter count: %w", err)
	}
	if int(count) != len(m.names) {
		return nil, fmt.Errorf("the file holds %d parameters, its spec has %d", count, len(m.names))
	}
	var last string
	expect := func(name string) tensor.Tensor {
		last = name
		if v, ok := m.values[name]; ok {
			return v
		}
		return nil
	}
	staged := map[string]any{}
	for i := range int(count) {
		last = ""
		name, vals, err := cr.Record(expect)
		if err != nil {
			if owner, ok := m.owner[last]; ok {
				return nil, fmt.Errorf("parameter %d (%s): %w", i, owner, err)
			}
			return nil, fmt.Errorf("parameter %d: %w", i, err)
		}
		if _, dup := staged[name]; dup {
			return nil, fmt.Errorf("parameter %q appears twice", name)
		}
		staged[name] = vals
	}
	if err := cr.Finish(); err != nil {
		return nil, err
	}
	for name, vals := range staged {
		switch d := m.values[name].Data().(type) {
		case []float32:
			copy(d, vals.([]float32))
		case []float64:
			copy(d, vals.([]float64))
		}
	}
	return m, nil
}

// minParamBytes returns a lower bound of the bytes the parameters of the
// (normalised) spec s take in dtype dt, as a float64 against overflow.
func minParamBytes(s *Spec, dt tensor.Dtype) float64 {
	size := 4.0
	if dt == tensor.Float64 {
		size = 8
	}
	var elems func(ls []LayerSpec) float64
	elems = func(ls []LayerSpec) float64 {
		n := 0.0
		for i := range ls {
			l := &ls[i]
			in, out := float64(l.In), float64(l.Out)
			switch l.Type {
			case APPNPConv:
			case BatchNorm:
				n += in
			case GINConv:
				n += elems(l.MLP)
			case HeteroGraphConv:
				for _, r := range l.Relations {
					n += elems([]LayerSpec{r.Layer})
				}
			case GATConv, GATv2Conv:
				n += in * out * float64(max(l.Heads, 1))
			case TAGConv:
				n += in * out * float64(max(l.K, 1)+1)
			case ChebConv:
				n += in * out * float64(max(l.K, 1))
			case RelGraphConv:
				n += in * out / float64(max(l.Bases, 1))
			default:
				n += in * out
			}
		}
		return n
	}
	n := elems(s.Layers) + elems(s.Head)
	if s.Readout != nil {
		n += elems(s.Readout.Gate) + elems(s.Readout.Feat)
	}
	return n * size
}

// dtypeCode is the header's code of a dtype: 1 float32, 2 float64.
func dtypeCode(dt tensor.Dtype) (uint32, error) {
	switch dt {
	case tensor.Float32:
		return 1, nil
	case tensor.Float64:
		return 2, nil
	}
	return 0, fmt.Errorf("dtype %v, want float32 or float64", dt)
}

// codeDtype is dtypeCode's inverse.
func codeDtype(c uint32) (tensor.Dtype, error) {
	switch c {
	case 1:
		return tensor.Float32, nil
	case 2:
		return tensor.Float64, nil
	}
	return tensor.Dtype{}, fmt.Errorf("unknown dtype code %d", c)
}
