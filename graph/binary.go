package graph

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"strings"
	"unsafe"

	"github.com/gnngo/gnn/internal/atomicfile"
)

// The binary graph format, version 1. Integers are little-endian; E is the
// number of edges.
//
//	offset   size  field
//	0        8     magic "GNNGRAPH"
//	8        4     format version, uint32 (1)
//	12       8     NumSrc, uint64
//	20       8     NumDst, uint64
//	28       8     NumEdges E, uint64
//	36       4E    source IDs, int32, in edge-ID order
//	36+4E    4E    destination IDs, int32, in edge-ID order
//	36+8E    4     CRC-32C (Castagnoli) of bytes [0, 36+8E)
//
// A file holds exactly 40+8E bytes. The CSR and CSC views are not stored:
// they are rebuilt on first use, in O(E).
const (
	binaryMagic   = "GNNGRAPH"
	binaryVersion = 1
	headerSize    = 36
	checksumSize  = 4

	// ioBlock is the number of bytes written, read and checksummed per
	// step, small enough to stay in cache between the CRC and the copy.
	ioBlock = 1 << 20

	// maxBinaryEdges keeps 8E and the int32 slices' byte lengths within
	// int on every platform.
	maxBinaryEdges = math.MaxInt / 8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// hostLittleEndian reports whether int32 slices can be written and read
// as raw bytes.
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// WriteBinary writes g to w in the binary graph format (version 1):
//
//	"GNNGRAPH" | version uint32 | NumSrc, NumDst, NumEdges uint64 |
//	src [E]int32 | dst [E]int32 | CRC-32C uint32
//
// all little-endian, the checksum covering everything before it. A reversed
// graph is written as the graph it is (sources first). ReadBinary and Load
// read the result back. WriteBinary issues large writes and needs no
// buffering.
func (g *Graph) WriteBinary(w io.Writer) error {
	if err := writeBinary(w, g, hostLittleEndian); err != nil {
		return fmt.Errorf("graph: writing binary graph: %w", err)
	}
	return nil
}

// ReadBinary reads one graph in the binary format written by WriteBinary.
// It reads exactly the graph's bytes from r, so graphs may be concatenated.
//
// Every field is validated and a corrupt input gives an error, never a
// panic: bad magic, an unsupported version, node counts above MaxNodes, an
// edge count larger than the data that follows, truncated data, a checksum
// mismatch, and node IDs out of range. Sizes in the header are never
// trusted for allocation: when r's length is known (*os.File,
// *bytes.Reader, *bytes.Buffer, *strings.Reader) the header is checked
// against it first; otherwise the edge lists grow as data arrives. Node
// counts above DefaultNodeLimit of the edge count are an error unless
// WithMaxNodes raises the limit.
func ReadBinary(r io.Reader, opts ...ReadOption) (*Graph, error) {
	avail := remaining(r)
	g, err := readBinary(r, avail, false, hostLittleEndian, readOptions(opts))
	if err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	return g, nil
}

// Save writes g to the file at path in the binary format of WriteBinary,
// atomically: it writes a temporary file in the same directory, syncs it to
// disk and renames it over path, so readers see the old file or the
// complete new one, never a partial write. The file gets mode 0644.
func (g *Graph) Save(path string) error {
	err := atomicfile.Write(path, func(w io.Writer) error { return writeBinary(w, g, hostLittleEndian) })
	if err != nil {
		return fmt.Errorf("graph: save %s: %w", path, err)
	}
	return nil
}

// Load reads a graph from a file written by Save or WriteBinary, with the
// validation and options of ReadBinary; in addition the file must end right
// after the checksum.
func Load(path string, opts ...ReadOption) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	defer f.Close()
	avail := remaining(f)
	g, err := readBinary(f, avail, avail >= 0, hostLittleEndian, readOptions(opts))
	if err != nil {
		return nil, fmt.Errorf("graph: %s: %w", path, err)
	}
	return g, nil
}

// remaining returns the number of unread bytes of r, or -1 when unknown.
func remaining(r io.Reader) int64 {
	switch v := r.(type) {
	case *bytes.Reader:
		return int64(v.Len())
	case *bytes.Buffer:
		return int64(v.Len())
	case *strings.Reader:
		return int64(v.Len())
	case *os.File:
		fi, err := v.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		off, err := v.Seek(0, io.SeekCurrent)
		if err != nil || off > fi.Size() {
			return -1
		}
		return fi.Size() - off
	}
	return -1
}

// crcWriter checksums what it writes.
type crcWriter struct {
	w   io.Writer
	crc uint32
}

func (c *crcWriter) Write(p []byte) (int, error) {
	c.crc = crc32.Update(c.crc, castagnoli, p)
	return c.w.Write(p)
}

// writeBinary writes g; native selects raw int32 copies (little-endian
// hosts) over explicit encoding. Errors are not prefixed.
func writeBinary(w io.Writer, g *Graph, native bool) error {
	src, dst := g.COO()
	var h [headerSize]byte
	copy(h[:], binaryMagic)
	binary.LittleEndian.PutUint32(h[8:], binaryVersion)
	binary.LittleEndian.PutUint64(h[12:], uint64(g.NumSrc()))
	binary.LittleEndian.PutUint64(h[20:], uint64(g.NumDst()))
	binary.LittleEndian.PutUint64(h[28:], uint64(len(src)))
	cw := &crcWriter{w: w}
	if _, err := cw.Write(h[:]); err != nil {
		return err
	}
	var buf []byte // encoding buffer when !native
	if !native && len(src) > 0 {
		buf = make([]byte, min(ioBlock, 4*len(src)))
	}
	for _, ids := range [2][]int32{src, dst} {
		if err := writeInt32s(cw, ids, buf, native); err != nil {
			return err
		}
	}
	var t [checksumSize]byte
	binary.LittleEndian.PutUint32(t[:], cw.crc)
	_, err := w.Write(t[:])
	return err
}

func writeInt32s(w io.Writer, s []int32, buf []byte, native bool) error {
	const blockElems = ioBlock / 4
	for lo := 0; lo < len(s); lo += blockElems {
		chunk := s[lo:min(lo+blockElems, len(s))]
		var b []byte
		if native {
			b = int32Bytes(chunk)
		} else {
			b = buf[:4*len(chunk)]
			for i, v := range chunk {
				binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// int32Bytes returns the memory of s as bytes, in host byte order.
func int32Bytes(s []int32) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 4*len(s))
}

// readBinary reads one graph. avail is the number of bytes left in r, or -1
// when unknown; exact requires the graph to end exactly there. Errors are
// not prefixed.
func readBinary(r io.Reader, avail int64, exact, native bool, c readConfig) (*Graph, error) {
	var h [headerSize]byte
	if n, err := io.ReadFull(r, h[:]); err != nil {
		if err == io.EOF {
			return nil, errors.New("binary graph: empty input")
		}
		if err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("binary graph: truncated header: %d of %d bytes", n, headerSize)
		}
		return nil, fmt.Errorf("binary graph: reading header: %w", err)
	}
	if string(h[:8]) != binaryMagic {
		return nil, fmt.Errorf("binary graph: bad magic %q, want %q: not a gnn graph file", h[:8], binaryMagic)
	}
	if v := binary.LittleEndian.Uint32(h[8:]); v != binaryVersion {
		return nil, fmt.Errorf("binary graph: unsupported format version %d (this package reads version %d)", v, binaryVersion)
	}
	ns := binary.LittleEndian.Uint64(h[12:])
	nd := binary.LittleEndian.Uint64(h[20:])
	ne := binary.LittleEndian.Uint64(h[28:])
	if ns > MaxNodes || nd > MaxNodes {
		return nil, fmt.Errorf("binary graph: header has %d source and %d destination nodes, more than MaxNodes (%d)", ns, nd, MaxNodes)
	}
	if ne > maxBinaryEdges {
		return nil, fmt.Errorf("binary graph: header has %d edges, more than the format allows (%d)", ne, uint64(maxBinaryEdges))
	}
	if lim := uint64(nodeLimit(c.maxNodes, int(min(ne, MaxEdges)))); ns > lim || nd > lim {
		return nil, fmt.Errorf("binary graph: header has %d source and %d destination nodes for %d edges, more than the limit of %d nodes (graph.DefaultNodeLimit; raise it with graph.WithMaxNodes)", ns, nd, ne, lim)
	}
	need := 8*int64(ne) + checksumSize
	if avail >= 0 {
		left := avail - headerSize
		if need > left {
			return nil, fmt.Errorf("binary graph: truncated or corrupt: the header's %d edges need %d bytes after it, but %d follow", ne, need, left)
		}
		if exact && need < left {
			return nil, fmt.Errorf("binary graph: %d unexpected bytes after the graph's %d edges", left-need, ne)
		}
	}
	crc := crc32.Update(0, castagnoli, h[:])
	var buf []byte // decoding buffer when !native
	if !native && ne > 0 {
		buf = make([]byte, min(ioBlock, 4*int(ne)))
	}
	var ids [2][]int32
	for i, side := range [2]string{"source", "destination"} {
		s, n, err := readInt32s(r, int(ne), avail >= 0, buf, native, &crc)
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return nil, fmt.Errorf("binary graph: truncated: %s IDs end after %d of %d edges", side, n, ne)
			}
			return nil, fmt.Errorf("binary graph: reading %s IDs: %w", side, err)
		}
		ids[i] = s
	}
	var t [checksumSize]byte
	if _, err := io.ReadFull(r, t[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, errors.New("binary graph: truncated: checksum missing")
		}
		return nil, fmt.Errorf("binary graph: reading checksum: %w", err)
	}
	if got := binary.LittleEndian.Uint32(t[:]); got != crc {
		return nil, fmt.Errorf("binary graph: checksum mismatch (stored %08x, computed %08x): the data is corrupt", got, crc)
	}
	// The checksum only proves the bytes are those written; a crafted or
	// buggy writer may still store IDs out of range.
	for i, side := range [2]string{"source", "destination"} {
		lim := [2]uint64{ns, nd}[i]
		for e, v := range ids[i] {
			if v < 0 || uint64(v) >= lim {
				return nil, fmt.Errorf("binary graph: edge %d has %s %d but the graph has %d %s nodes", e, side, v, lim, side)
			}
		}
	}
	return newGraph(int(ns), int(nd), ids[0], ids[1]), nil
}

// readInt32s reads n little-endian int32s in blocks, updating crc. When the
// input's length was checked (known) the slice is allocated at once;
// otherwise it grows as data arrives, so a lying header cannot make it
// allocate more than about twice the bytes actually read. On error it
// returns the number of values read.
func readInt32s(r io.Reader, n int, known bool, buf []byte, native bool, crc *uint32) ([]int32, int, error) {
	const blockElems = ioBlock / 4
	size := n
	if !known {
		size = min(n, blockElems)
	}
	s := make([]int32, size)
	for done := 0; done < n; {
		k := min(n-done, blockElems)
		if done+k > len(s) {
			grown := make([]int32, min(n, max(2*len(s), done+k)))
			copy(grown, s[:done])
			s = grown
		}
		chunk := s[done : done+k]
		var b []byte
		if native {
			b = int32Bytes(chunk)
		} else {
			b = buf[:4*k]
		}
		m, err := io.ReadFull(r, b)
		if err != nil {
			return nil, done + m/4, err
		}
		*crc = crc32.Update(*crc, castagnoli, b)
		if !native {
			for i := range chunk {
				chunk[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
			}
		}
		done += k
	}
	return s, n, nil
}
