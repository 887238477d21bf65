package interop

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
)

// Limits of the reader. The header limit is the one of the reference
// implementation (Hugging Face's safetensors); the others only keep a
// malformed header from asking for absurd allocations.
const (
	maxHeader = 100 << 20 // bytes of JSON header
	maxRank   = 16        // dimensions of one tensor
)

// Dtype is a safetensors element type, spelled as in the file ("F32").
type Dtype string

// The element types the reader accepts. Floating-point tensors convert to
// float32 or float64 (F16 and BF16 exactly, F64 to float32 by rounding);
// integer tensors are read as int64.
const (
	F64  Dtype = "F64"
	F32  Dtype = "F32"
	F16  Dtype = "F16"
	BF16 Dtype = "BF16"
	I64  Dtype = "I64"
	I32  Dtype = "I32"
)

// Size returns the bytes of one element, 0 for an unknown type.
func (d Dtype) Size() int {
	switch d {
	case F64, I64:
		return 8
	case F32, I32:
		return 4
	case F16, BF16:
		return 2
	}
	return 0
}

// IsFloat reports whether d is a floating-point type.
func (d Dtype) IsFloat() bool { return d == F64 || d == F32 || d == F16 || d == BF16 }

// Tensor is one named array of a safetensors file. Its data stays in the
// file's little-endian encoding until asked for.
type Tensor struct {
	Name  string
	Dtype Dtype
	Shape []int
	data  []byte
}

// Len returns the number of elements (1 for a scalar of shape []; 0 for a
// Tensor not read from a file).
func (t *Tensor) Len() int {
	if t.Dtype.Size() == 0 {
		return 0
	}
	return len(t.data) / t.Dtype.Size()
}

// Float64s returns the elements as float64, in row-major order. Integer
// tensors are converted too (exactly up to 2^53).
func (t *Tensor) Float64s() []float64 {
	out := make([]float64, t.Len())
	d := t.data
	le := binary.LittleEndian
	switch t.Dtype {
	case F64:
		for i := range out {
			out[i] = math.Float64frombits(le.Uint64(d[8*i:]))
		}
	case F32:
		for i := range out {
			out[i] = float64(math.Float32frombits(le.Uint32(d[4*i:])))
		}
	case F16:
		for i := range out {
			out[i] = float64(halfToFloat32(le.Uint16(d[2*i:])))
		}
	case BF16:
		for i := range out {
			out[i] = float64(math.Float32frombits(uint32(le.Uint16(d[2*i:])) << 16))
		}
	case I64:
		for i := range out {
			out[i] = float64(int64(le.Uint64(d[8*i:])))
		}
	case I32:
		for i := range out {
			out[i] = float64(int32(le.Uint32(d[4*i:])))
		}
	}
	return out
}

// Float32s returns the elements as float32 (F64 rounds to nearest).
func (t *Tensor) Float32s() []float32 {
	if t.Dtype == F32 {
		out := make([]float32, t.Len())
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.data[4*i:]))
		}
		return out
	}
	f := t.Float64s()
	out := make([]float32, len(f))
	for i, v := range f {
		out[i] = float32(v)
	}
	return out
}

// Int64s returns the elements of an integer tensor, or an error naming the
// tensor when it holds floating-point numbers.
func (t *Tensor) Int64s() ([]int64, error) {
	out := make([]int64, t.Len())
	for i := range out {
		switch t.Dtype {
		case I64:
			out[i] = int64(binary.LittleEndian.Uint64(t.data[8*i:]))
		case I32:
			out[i] = int64(int32(binary.LittleEndian.Uint32(t.data[4*i:])))
		default:
			return nil, fmt.Errorf("interop: tensor %q has dtype %s, not an integer type", t.Name, t.Dtype)
		}
	}
	return out, nil
}

// halfToFloat32 converts an IEEE 754 binary16 number exactly.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: frac * 2^-24
		v := float32(frac) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}

// Tensors is the content of a safetensors file: named tensors and the
// optional string metadata. It remembers which tensors a conversion (PyG,
// DGL) has consumed, so that Unused can list what no mapping claimed.
type Tensors struct {
	// Metadata is the file's "__metadata__" object, nil when absent.
	Metadata map[string]string
	byName   map[string]*Tensor
	names    []string
	used     map[string]bool
}

// Names returns the tensor names in increasing order.
func (ts *Tensors) Names() []string { return append([]string(nil), ts.names...) }

// Len returns the number of tensors.
func (ts *Tensors) Len() int { return len(ts.names) }

// Get returns the tensor of that name, or nil.
func (ts *Tensors) Get(name string) *Tensor { return ts.byName[name] }

// Unused returns, in increasing order, the names of the tensors that no
// conversion has read so far: after converting every layer of a model,
// anything listed is a parameter the gnn model will not have.
func (ts *Tensors) Unused() []string {
	var out []string
	for _, n := range ts.names {
		if !ts.used[n] {
			out = append(out, n)
		}
	}
	return out
}

// markUsed records that a conversion read name.
func (ts *Tensors) markUsed(name string) {
	if ts.used == nil {
		ts.used = map[string]bool{}
	}
	ts.used[name] = true
}

// ReadSafetensors reads a safetensors file (what
// safetensors.torch.save_file writes) whole and validates it; see
// ParseSafetensors.
func ReadSafetensors(path string) (*Tensors, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("interop: %w", err)
	}
	ts, err := ParseSafetensors(data)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return ts, nil
}

// ParseSafetensors decodes a safetensors file held in data: an 8-byte
// little-endian header length N, N bytes of JSON header mapping each
// tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets
// relative to the byte after the header) and an optional "__metadata__"
// object of strings, then the tensors' bytes. It checks everything: the
// header length against the data, the JSON (one object, no duplicate
// names, no unknown fields), every dtype (F64, F32, F16, BF16, I64, I32),
// shape and offset pair, that each tensor's byte count is its element count
// times the element size, and that the tensors tile the data exactly (no
// overlap, no gap, nothing after the last). Errors name the tensor and the
// problem. The tensors keep slices of data, which must not change after.
func ParseSafetensors(data []byte) (*Tensors, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("interop: safetensors: %d bytes, too short for the 8-byte header length", len(data))
	}
	n := binary.LittleEndian.Uint64(data)
	if n > maxHeader {
		return nil, fmt.Errorf("interop: safetensors: header length %d exceeds the %d-byte limit", n, maxHeader)
	}
	if n > uint64(len(data)-8) {
		return nil, fmt.Errorf("interop: safetensors: header length %d, but only %d bytes follow the length", n, len(data)-8)
	}
	header, body := data[8:8+n], data[8+n:]
	entries, meta, err := parseHeader(header)
	if err != nil {
		return nil, err
	}
	ts := &Tensors{Metadata: meta, byName: make(map[string]*Tensor, len(entries))}
	type span struct {
		name       string
		begin, end uint64
	}
	spans := make([]span, 0, len(entries))
	for _, e := range entries {
		t, b, end, err := e.tensor(uint64(len(body)))
		if err != nil {
			return nil, err
		}
		t.data = body[b:end]
		ts.byName[t.Name] = t
		ts.names = append(ts.names, t.Name)
		spans = append(spans, span{t.Name, b, end})
	}
	sort.Strings(ts.names)
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].begin != spans[j].begin {
			return spans[i].begin < spans[j].begin
		}
		return spans[i].end < spans[j].end
	})
	var at uint64
	for i, s := range spans {
		switch {
		case s.begin < at:
			return nil, fmt.Errorf("interop: safetensors: tensor %q (bytes %d to %d) overlaps tensor %q (ending at %d)", s.name, s.begin, s.end, spans[i-1].name, at)
		case s.begin > at:
			return nil, fmt.Errorf("interop: safetensors: %d unused bytes before tensor %q (bytes %d to %d)", s.begin-at, s.name, s.begin, s.end)
		}
		at = s.end
	}
	if at != uint64(len(body)) {
		return nil, fmt.Errorf("interop: safetensors: %d bytes after the last tensor's data", uint64(len(body))-at)
	}
	return ts, nil
}

// headerEntry is one tensor's header record, as read.
type headerEntry struct {
	name string
	raw  json.RawMessage
}

// tensor validates the record against a data section of size bytes and
// returns the tensor and its byte range.
func (e headerEntry) tensor(size uint64) (*Tensor, uint64, uint64, error) {
	var r struct {
		Dtype   *string   `json:"dtype"`
		Shape   *[]int64  `json:"shape"`
		Offsets *[]uint64 `json:"data_offsets"`
	}
	dec := json.NewDecoder(bytes.NewReader(e.raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, 0, 0, fmt.Errorf("interop: safetensors: tensor %q: bad header record: %v", e.name, err)
	}
	switch {
	case r.Dtype == nil:
		return nil, 0, 0, fmt.Errorf("interop: safetensors: tensor %q has no dtype", e.name)
	case r.Shape == nil:
		return nil, 0, 0, fmt.Errorf("interop: safetensors: tensor %q has no shape", e.name)
	case r.Offsets == nil:
		return nil, 0, 0, fmt.Errorf("interop: safetensors: tensor %q has no data_offsets", e.name)
	}
	dt := Dtype(*r.Dtype)
	if dt.Size() == 0 {
		return nil, 0, 0, fmt.Errorf("interop: safetensors: tensor %q has dtype %q; gnn reads F64, F32, F16, BF16, I64 and I32", e.name, *r.Dtype)
	}
	if len(*r.Shape) > maxRank {
		return nil, 0, 0, fmt.Errorf("interop: safetensors: tensor %q has %d dimensions, more than %d", e.name, len(*r.Shape), maxRank)
	}
	shape := make([]int, len(*r.Shape))
	elems := uint64(1)
	for i, d := range *r.Shape {
		if d < 0 {
			return nil, 0, 0, fmt.Errorf("interop: safetensors: tensor %q has negative dimension %d in shape %v", e.name, d, *r.Shape)
		}
		if d > 0 && elems > math.MaxInt64/uint64(d)/8 {
			return nil, 0, 0, fmt.Errorf("interop: safetensors: tensor %q: shape %v overflows", e.name, *r.Shape)
		}
		elems *= uint64(d)
		shape[i] = int(d)
	}
	off := *r.Offsets
	if len(off) != 2 {
		return nil, 0, 0, fmt.Errorf("interop: safetensors: tensor %q has %d data_offsets, want [begin, end]", e.name, len(off))
	}
	b, end := off[0], off[1]
	switch {
	case b > end:
		return nil, 0, 0, fmt.Errorf("interop: safetensors: tensor %q has data_offsets [%d, %d], begin after end", e.name, b, end)
	case end > size:
		return nil, 0, 0, fmt.Errorf("interop: safetensors: tensor %q has data_offsets [%d, %d] past the %d bytes of data", e.name, b, end, size)
	case end-b != elems*uint64(dt.Size()):
		return nil, 0, 0, fmt.Errorf("interop: safetensors: tensor %q of dtype %s and shape %v needs %d bytes, its data_offsets [%d, %d] give %d", e.name, dt, *r.Shape, elems*uint64(dt.Size()), b, end, end-b)
	}
	return &Tensor{Name: e.name, Dtype: dt, Shape: shape}, b, end, nil
}

// parseHeader reads the JSON header: one object whose members are the
// tensors' records and the optional "__metadata__" object of strings,
// with no name twice and nothing but whitespace after it.
func parseHeader(h []byte) ([]headerEntry, map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(h))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, fmt.Errorf("interop: safetensors: header is not JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("interop: safetensors: header is not a JSON object")
	}
	var (
		entries []headerEntry
		meta    map[string]string
		seen    = map[string]bool{}
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("interop: safetensors: bad header: %v", err)
		}
		name, ok := tok.(string)
		if !ok {
			return nil, nil, fmt.Errorf("interop: safetensors: bad header: member name %v", tok)
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("interop: safetensors: tensor %q appears twice in the header", name)
		}
		seen[name] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, fmt.Errorf("interop: safetensors: tensor %q: bad header record: %v", name, err)
		}
		if name == "__metadata__" {
			if err := json.Unmarshal(raw, &meta); err != nil {
				return nil, nil, fmt.Errorf("interop: safetensors: __metadata__ is not an object of strings: %v", err)
			}
			continue
		}
		if name == "" {
			return nil, nil, fmt.Errorf("interop: safetensors: a tensor has an empty name")
		}
		entries = append(entries, headerEntry{name, raw})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, nil, fmt.Errorf("interop: safetensors: bad header: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, fmt.Errorf("interop: safetensors: data after the header's JSON object")
	}
	return entries, meta, nil
}
