// Package paramio is the binary encoding gnn's parameter files (nn.SaveParams,
// "GNNPARAM") and model files (package model, "GNNMODEL") share: a writer
// and a reader that keep a CRC-32C (Castagnoli) of every byte they pass, and
// the record of one named parameter tensor (little-endian):
//
//	name length uint32, name bytes, dtype uint8 (1 float32, 2 float64),
//	rank uint32, rank dimensions uint64, elements (4 or 8 bytes each).
//
// The reader checks a record's name, dtype and shape against what the caller
// expects before it reads (or allocates for) the elements, so a corrupt
// length can never make it allocate more than the model's own parameter.
package paramio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"gorgonia.org/tensor"
)

// Limits of a record's header, refused beyond.
const (
	MaxName = 1 << 16
	MaxRank = 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// summed keeps the CRC-32C of the bytes a Writer or a Reader passes.
type summed struct{ sum uint32 }

// pass calls rw (the underlying Write or Read) on p and adds the bytes it
// wrote or read, p[:n], to the checksum.
func (s *summed) pass(rw func([]byte) (int, error), p []byte) (int, error) {
	n, err := rw(p)
	s.sum = crc32.Update(s.sum, castagnoli, p[:n])
	return n, err
}

// Writer writes to an underlying writer, keeping the CRC-32C of everything
// written through it.
type Writer struct {
	w io.Writer
	summed
}

// NewWriter returns a Writer on w with an empty checksum.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p and adds the bytes written to the checksum.
func (c *Writer) Write(p []byte) (int, error) { return c.pass(c.w.Write, p) }

// Put writes v (a fixed-size value or slice of them) little-endian.
func (c *Writer) Put(v any) error { return binary.Write(c, binary.LittleEndian, v) }

// Finish writes the checksum of everything written so far (not itself
// summed).
func (c *Writer) Finish() error { return binary.Write(c.w, binary.LittleEndian, c.sum) }

// Value is what a record holds: a tensor.Tensor or a gorgonia.Value (a
// scalar is written as rank 0).
type Value interface {
	Shape() tensor.Shape
	Size() int
	Data() any
	Dtype() tensor.Dtype
}

// Record writes the record of the parameter name with value v, of dtype
// float32 or float64.
func (c *Writer) Record(name string, v Value) error {
	var code uint8
	switch v.Dtype() {
	case tensor.Float32:
		code = 1
	case tensor.Float64:
		code = 2
	default:
		return fmt.Errorf("parameter %q has dtype %v", name, v.Dtype())
	}
	if err := c.Put(uint32(len(name))); err != nil {
		return err
	}
	if _, err := io.WriteString(c, name); err != nil {
		return err
	}
	shape := v.Shape()
	if err := c.Put(code); err != nil {
		return err
	}
	if err := c.Put(uint32(len(shape))); err != nil {
		return err
	}
	for _, d := range shape {
		if err := c.Put(uint64(d)); err != nil {
			return err
		}
	}
	switch d := v.Data().(type) {
	case []float32:
		return c.Put(d[:v.Size()])
	case []float64:
		return c.Put(d[:v.Size()])
	case float32, float64:
		return c.Put(d)
	}
	return fmt.Errorf("parameter %q holds %T", name, v.Data())
}

// Reader reads from an underlying reader, keeping the CRC-32C of everything
// read through it.
type Reader struct {
	r io.Reader
	summed
}

// NewReader returns a Reader on r with an empty checksum.
func NewReader(r io.Reader) *Reader { return &Reader{r: r} }

// Read reads into p and adds the bytes read to the checksum.
func (c *Reader) Read(p []byte) (int, error) { return c.pass(c.r.Read, p) }

// Get reads v (a pointer to a fixed-size value or a slice of them)
// little-endian; a short read is io.ErrUnexpectedEOF.
func (c *Reader) Get(v any) error {
	err := binary.Read(c, binary.LittleEndian, v)
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// Finish reads the checksum that follows what was read so far, compares it
// with the sum of those bytes, and checks that nothing follows it.
func (c *Reader) Finish() error {
	sum := c.sum
	var want uint32
	if err := c.Get(&want); err != nil {
		return fmt.Errorf("missing checksum: %w", err)
	}
	if sum != want {
		return fmt.Errorf("checksum mismatch: the file is corrupt")
	}
	if n, err := c.r.Read(make([]byte, 1)); n > 0 || (err != nil && err != io.EOF) {
		return fmt.Errorf("unexpected data after the checksum")
	}
	return nil
}

// Record reads one parameter record. expect returns the tensor the
// parameter of a name must fit (its dtype and shape), or nil when the model
// has no such parameter; the record must agree with it. The elements are
// returned as a new []float32 or []float64 of the tensor's size.
func (c *Reader) Record(expect func(name string) Value) (string, any, error) {
	var n uint32
	if err := c.Get(&n); err != nil {
		return "", nil, err
	}
	if n == 0 || n > MaxName {
		return "", nil, fmt.Errorf("bad name length %d", n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(c, buf); err != nil {
		return "", nil, fmt.Errorf("truncated name: %w", io.ErrUnexpectedEOF)
	}
	name := string(buf)
	v := expect(name)
	if v == nil {
		return "", nil, fmt.Errorf("the model has no parameter %q (a different model or layer?)", name)
	}
	var code uint8
	var rank uint32
	if err := c.Get(&code); err != nil {
		return "", nil, err
	}
	if err := c.Get(&rank); err != nil {
		return "", nil, err
	}
	if rank > MaxRank {
		return "", nil, fmt.Errorf("%q: bad rank %d", name, rank)
	}
	dims := make([]uint64, rank)
	if err := c.Get(dims); err != nil {
		return "", nil, err
	}
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
		return name, vals, c.Get(vals)
	case []float64:
		vals := make([]float64, v.Size())
		return name, vals, c.Get(vals)
	}
	return "", nil, fmt.Errorf("%q: cannot load into %T", name, v.Data())
}

// Valid reports whether data ends with the CRC-32C of the bytes before its
// last four, as a Writer's Finish leaves it.
func Valid(data []byte) bool {
	if len(data) < 4 {
		return false
	}
	body := data[:len(data)-4]
	return crc32.Checksum(body, castagnoli) == binary.LittleEndian.Uint32(data[len(body):])
}
