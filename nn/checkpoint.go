package nn

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/atomicfile"
)

// The parameter file format, version 1 (little-endian):
//
//	magic "GNNPARAM", version uint32, count uint32, then count records:
//	  name length uint32, name bytes, dtype uint8 (1 float32, 2 float64),
//	  rank uint32, rank dimensions uint64, elements (4 or 8 bytes each),
//	then a CRC-32C (Castagnoli) of every byte before it.
const (
	paramMagic   = "GNNPARAM"
	paramVersion = 1
	maxParamName = 1 << 16
	maxParamRank = 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SaveParams writes the values of params to path, atomically: a crash never
// leaves a half-written file under that name. Every parameter must have a
// name (unique among params) and a float32 or float64 tensor value.
func SaveParams(path string, params gorgonia.Nodes) error {
	seen := map[string]bool{}
	for _, p := range params {
		if p.Name() == "" || seen[p.Name()] {
			return fmt.Errorf("nn: save %s: parameter names must be unique and non-empty (%q)", path, p.Name())
		}
		seen[p.Name()] = true
		if p.Value() == nil {
			return fmt.Errorf("nn: save %s: parameter %q has no value", path, p.Name())
		}
	}
	err := atomicfile.Write(path, func(w io.Writer) error {
		cw := &crcWriter{w: w}
		put := func(v any) error { return binary.Write(cw, binary.LittleEndian, v) }
		if _, err := io.WriteString(cw, paramMagic); err != nil {
			return err
		}
		if err := put([2]uint32{paramVersion, uint32(len(params))}); err != nil {
			return err
		}
		for _, p := range params {
			if err := writeParam(cw, put, p); err != nil {
				return err
			}
		}
		return binary.Write(w, binary.LittleEndian, cw.sum)
	})
	if err != nil {
		return fmt.Errorf("nn: save %s: %w", path, err)
	}
	return nil
}

func writeParam(w io.Writer, put func(any) error, p *gorgonia.Node) error {
	v := p.Value()
	var code uint8
	switch v.Dtype() {
	case tensor.Float32:
		code = 1
	case tensor.Float64:
		code = 2
	default:
		return fmt.Errorf("parameter %q has dtype %v", p.Name(), v.Dtype())
	}
	if err := put(uint32(len(p.Name()))); err != nil {
		return err
	}
	if _, err := io.WriteString(w, p.Name()); err != nil {
		return err
	}
	shape := v.Shape()
	if err := put(code); err != nil {
		return err
	}
	if err := put(uint32(len(shape))); err != nil {
		return err
	}
	for _, d := range shape {
		if err := put(uint64(d)); err != nil {
			return err
		}
	}
	switch d := v.Data().(type) {
	case []float32:
		return put(d[:v.Size()])
	case []float64:
		return put(d[:v.Size()])
	case float32, float64:
		return put(d)
	}
	return fmt.Errorf("parameter %q holds %T", p.Name(), v.Data())
}

// LoadParams reads a file written by SaveParams into params, matching by
// name. Every parameter must be in the file with the same dtype and shape,
// and the file must hold no other parameter; the checksum must match. Values
// are copied into the parameters' existing tensors, bit-exact.
func LoadParams(path string, params gorgonia.Nodes) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("nn: load %s: %w", path, err)
	}
	defer f.Close()
	if err := readParams(bufio.NewReaderSize(f, 1<<20), params); err != nil {
		return fmt.Errorf("nn: load %s: %w", path, err)
	}
	return nil
}

func readParams(r io.Reader, params gorgonia.Nodes) error {
	cr := &crcReader{r: r}
	get := func(v any) error {
		err := binary.Read(cr, binary.LittleEndian, v)
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	magic := make([]byte, len(paramMagic))
	if _, err := io.ReadFull(cr, magic); err != nil || string(magic) != paramMagic {
		return fmt.Errorf("not a gnn parameter file")
	}
	var hdr [2]uint32
	if err := get(&hdr); err != nil {
		return fmt.Errorf("truncated header: %w", err)
	}
	if hdr[0] != paramVersion {
		return fmt.Errorf("unsupported version %d (this build reads %d)", hdr[0], paramVersion)
	}
	byName := map[string]*gorgonia.Node{}
	for _, p := range params {
		byName[p.Name()] = p
	}
	if int(hdr[1]) != len(params) {
		return fmt.Errorf("the file holds %d parameters, the model has %d", hdr[1], len(params))
	}
	// Values are staged and copied into the model only once the whole file
	// has been read and its checksum verified: a bad file changes nothing.
	staged := map[string]any{}
	for i := range int(hdr[1]) {
		name, vals, err := readParam(get, cr, byName)
		if err != nil {
			return fmt.Errorf("parameter %d: %w", i, err)
		}
		if _, dup := staged[name]; dup {
			return fmt.Errorf("parameter %q appears twice", name)
		}
		staged[name] = vals
	}
	sum := cr.sum
	var want uint32
	if err := get(&want); err != nil {
		return fmt.Errorf("missing checksum: %w", err)
	}
	if sum != want {
		return fmt.Errorf("checksum mismatch: the file is corrupt")
	}
	if n, err := r.Read(make([]byte, 1)); n > 0 || (err != nil && err != io.EOF) {
		return fmt.Errorf("unexpected data after the checksum")
	}
	for name, vals := range staged {
		switch d := byName[name].Value().Data().(type) {
		case []float32:
			copy(d, vals.([]float32))
		case []float64:
			copy(d, vals.([]float64))
		}
	}
	return nil
}

func readParam(get func(any) error, r io.Reader, byName map[string]*gorgonia.Node) (string, any, error) {
	var n uint32
	if err := get(&n); err != nil {
		return "", nil, err
	}
	if n == 0 || n > maxParamName {
		return "", nil, fmt.Errorf("bad name length %d", n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return "", nil, fmt.Errorf("truncated name: %w", io.ErrUnexpectedEOF)
	}
	name := string(buf)
	p, ok := byName[name]
	if !ok {
		return "", nil, fmt.Errorf("the model has no parameter %q (a different model or layer?)", name)
	}
	var code uint8
	var rank uint32
	if err := get(&code); err != nil {
		return "", nil, err
	}
	if err := get(&rank); err != nil {
		return "", nil, err
	}
	if rank > maxParamRank {
		return "", nil, fmt.Errorf("%q: bad rank %d", name, rank)
	}
	dims := make([]uint64, rank)
	if err := get(dims); err != nil {
		return "", nil, err
	}
	v := p.Value()
	shape := v.Shape()
	same := len(shape) == len(dims)
	for i := 0; same && i < len(dims); i++ {
		same = dims[i] <= math.MaxInt32 && int(dims[i]) == shape[i]
	}
	if !same {
		return "", nil, fmt.Errorf("%q has shape %v in the file but %v in the model", name, dims, shape)
	}
	want := map[tensor.Dtype]uint8{tensor.Float32: 1, tensor.Float64: 2}[v.Dtype()]
	if code != want {
		return "", nil, fmt.Errorf("%q: dtype code %d in the file, the model has %v", name, code, v.Dtype())
	}
	switch v.Data().(type) {
	case []float32:
		vals := make([]float32, v.Size())
		return name, vals, get(vals)
	case []float64:
		vals := make([]float64, v.Size())
		return name, vals, get(vals)
	}
	return "", nil, fmt.Errorf("%q: cannot load into %T", name, v.Data())
}

type crcWriter struct {
	w   io.Writer
	sum uint32
}

func (c *crcWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.sum = crc32.Update(c.sum, castagnoli, p[:n])
	return n, err
}

type crcReader struct {
	r   io.Reader
	sum uint32
}

func (c *crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.sum = crc32.Update(c.sum, castagnoli, p[:n])
	return n, err
}
