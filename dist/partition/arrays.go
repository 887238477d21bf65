package partition

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"unsafe"

	"github.com/gnngo/gnn/internal/enum"
)

// The array file, the container of every binary file of the partition
// format (version 1). Integers are little-endian.
//
//	offset  size  field
//	0       8     magic "GNNARRAY"
//	8       4     format version, uint32 (1)
//	12      4     number of arrays A, uint32 (at most maxArrays)
//	16      ...   A entries: name length uint8 (1..64), name (ASCII letters,
//	              digits, '_'), element type uint8 (1 int32, 2 int64,
//	              3 float32), element count uint64
//	...     ...   zero padding to a multiple of 8, then each array's data
//	              in entry order, each padded with zeros to a multiple of 8
//	end-4   4     CRC-32C (Castagnoli) of every byte before it
//
// A reader checks the magic, version, names, types, that the counts match
// the file's length exactly, the padding, and the checksum, so truncation,
// extension and corruption are all detected.
const (
	arrayMagic   = "GNNARRAY"
	arrayVersion = 1
	maxArrays    = 16
	maxNameLen   = 64
)

// dtype is an array file's element type.
type dtype uint8

const (
	dtInt32 dtype = 1 + iota
	dtInt64
	dtFloat32
)

func (t dtype) size() int {
	if t == dtInt64 {
		return 8
	}
	return 4
}

func (t dtype) String() string {
	return enum.Name(t, "type", "", "int32", "int64", "float32")
}

// array is one named array of an array file: exactly one of the slices is
// set, according to typ.
type array struct {
	name string
	typ  dtype
	i32  []int32
	i64  []int64
	f32  []float32
}

func i32Array(name string, s []int32) array   { return array{name: name, typ: dtInt32, i32: s} }
func i64Array(name string, s []int64) array   { return array{name: name, typ: dtInt64, i64: s} }
func f32Array(name string, s []float32) array { return array{name: name, typ: dtFloat32, f32: s} }

func (a array) len() int { return len(a.i32) + len(a.i64) + len(a.f32) }

// raw returns the array's elements as little-endian bytes.
func (a array) raw() []byte {
	var p unsafe.Pointer
	switch {
	case len(a.i32) > 0:
		p = unsafe.Pointer(&a.i32[0])
	case len(a.i64) > 0:
		p = unsafe.Pointer(&a.i64[0])
	case len(a.f32) > 0:
		p = unsafe.Pointer(&a.f32[0])
	default:
		return nil
	}
	n := a.len() * a.typ.size()
	if hostLittleEndian {
		return unsafe.Slice((*byte)(p), n)
	}
	out := make([]byte, n)
	switch a.typ {
	case dtInt32:
		for i, x := range a.i32 {
			binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
		}
	case dtInt64:
		for i, x := range a.i64 {
			binary.LittleEndian.PutUint64(out[8*i:], uint64(x))
		}
	case dtFloat32:
		for i, x := range a.f32 {
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
		}
	}
	return out
}

var (
	castagnoli       = crc32.MakeTable(crc32.Castagnoli)
	hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1
)

func pad8(n int) int { return (n + 7) &^ 7 }

func validName(name string) bool {
	if len(name) == 0 || len(name) > maxNameLen {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// writeArrays writes arrays as one array file and returns its size and
// the checksum of its body (the CRC trailer's value).
func writeArrays(w io.Writer, arrays []array) (size int64, sum uint32, err error) {
	if len(arrays) > maxArrays {
		return 0, 0, fmt.Errorf("%d arrays, at most %d", len(arrays), maxArrays)
	}
	hdr := []byte(arrayMagic)
	hdr = binary.LittleEndian.AppendUint32(hdr, arrayVersion)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(arrays)))
	for _, a := range arrays {
		if !validName(a.name) {
			return 0, 0, fmt.Errorf("bad array name %q", a.name)
		}
		hdr = append(hdr, byte(len(a.name)))
		hdr = append(hdr, a.name...)
		hdr = append(hdr, byte(a.typ))
		hdr = binary.LittleEndian.AppendUint64(hdr, uint64(a.len()))
	}
	hdr = append(hdr, make([]byte, pad8(len(hdr))-len(hdr))...)
	crc := uint32(0)
	put := func(b []byte) error {
		crc = crc32.Update(crc, castagnoli, b)
		size += int64(len(b))
		_, err := w.Write(b)
		return err
	}
	if err := put(hdr); err != nil {
		return 0, 0, err
	}
	var zeros [8]byte
	for _, a := range arrays {
		b := a.raw()
		if err := put(b); err != nil {
			return 0, 0, err
		}
		if err := put(zeros[:pad8(len(b))-len(b)]); err != nil {
			return 0, 0, err
		}
	}
	var tail [4]byte
	binary.LittleEndian.PutUint32(tail[:], crc)
	if _, err := w.Write(tail[:]); err != nil {
		return 0, 0, err
	}
	return size + 4, crc, nil
}

// errChecksum marks a checksum mismatch.
var errChecksum = errors.New("checksum mismatch: the file is corrupt")

// decodeArrays parses an array file held in data. The arrays returned may
// share data's memory. Any malformation is an error, never a panic, and no
// allocation is larger than data.
func decodeArrays(data []byte) ([]array, error) {
	const fixed = len(arrayMagic) + 8
	if len(data) < fixed+4 {
		return nil, fmt.Errorf("truncated: %d bytes, shorter than any array file", len(data))
	}
	if string(data[:8]) != arrayMagic {
		return nil, fmt.Errorf("not an array file (bad magic %q)", data[:8])
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != arrayVersion {
		return nil, fmt.Errorf("unsupported array file version %d (this build reads %d)", v, arrayVersion)
	}
	body, tail := data[:len(data)-4], data[len(data)-4:]
	count := binary.LittleEndian.Uint32(data[12:])
	if count > maxArrays {
		return nil, fmt.Errorf("header claims %d arrays, at most %d", count, maxArrays)
	}
	arrays := make([]array, count)
	sizes := make([]int, count)
	off := fixed
	for i := range arrays {
		if off+1 > len(body) {
			return nil, fmt.Errorf("truncated in the header of array %d", i)
		}
		nl := int(body[off])
		off++
		if off+nl+9 > len(body) {
			return nil, fmt.Errorf("truncated in the header of array %d", i)
		}
		name := string(body[off : off+nl])
		if !validName(name) {
			return nil, fmt.Errorf("array %d has a bad name %q", i, name)
		}
		off += nl
		typ := dtype(body[off])
		if typ < dtInt32 || typ > dtFloat32 {
			return nil, fmt.Errorf("array %q has unknown element type %d", name, uint8(typ))
		}
		n := binary.LittleEndian.Uint64(body[off+1:])
		off += 9
		if n > uint64(len(body)/typ.size()) {
			return nil, fmt.Errorf("array %q claims %d elements, more than the %d-byte file holds", name, n, len(data))
		}
		arrays[i] = array{name: name, typ: typ}
		sizes[i] = int(n) * typ.size()
	}
	start := pad8(off)
	if start > len(body) || !zero(body[off:start]) {
		return nil, fmt.Errorf("bad header padding")
	}
	off = start
	for i := range arrays {
		end := off + sizes[i]
		if end < off || end > len(body) || pad8(end) > len(body) {
			return nil, fmt.Errorf("truncated: array %q needs %d bytes at offset %d of a %d-byte file", arrays[i].name, sizes[i], off, len(data))
		}
		if !zero(body[end:pad8(end)]) {
			return nil, fmt.Errorf("bad padding after array %q", arrays[i].name)
		}
		arrays[i].setRaw(body[off:end])
		off = pad8(end)
	}
	if off != len(body) {
		return nil, fmt.Errorf("%d unexpected bytes after the last array", len(body)-off)
	}
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(tail) {
		return nil, errChecksum
	}
	return arrays, nil
}

func zero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// setRaw fills a's slice from little-endian bytes, viewing them in place
// when the host is little-endian and b is aligned.
func (a *array) setRaw(b []byte) {
	n := len(b) / a.typ.size()
	if n == 0 {
		switch a.typ {
		case dtInt32:
			a.i32 = []int32{}
		case dtInt64:
			a.i64 = []int64{}
		case dtFloat32:
			a.f32 = []float32{}
		}
		return
	}
	p := unsafe.Pointer(&b[0])
	if hostLittleEndian && uintptr(p)%uintptr(a.typ.size()) == 0 {
		switch a.typ {
		case dtInt32:
			a.i32 = unsafe.Slice((*int32)(p), n)
		case dtInt64:
			a.i64 = unsafe.Slice((*int64)(p), n)
		case dtFloat32:
			a.f32 = unsafe.Slice((*float32)(p), n)
		}
		return
	}
	switch a.typ {
	case dtInt32:
		a.i32 = make([]int32, n)
		for i := range n {
			a.i32[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case dtInt64:
		a.i64 = make([]int64, n)
		for i := range n {
			a.i64[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		}
	case dtFloat32:
		a.f32 = make([]float32, n)
		for i := range n {
			a.f32[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}
}
