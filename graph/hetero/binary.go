package hetero

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strings"

	"github.com/gnngo/gnn/graph"
)

// The binary heterograph format, version 1, little-endian:
//
//	"GNNHETER" | version uint32 | header length H uint32 |
//	header [H]byte | CRC-32C of the header uint32 |
//	one graph per edge type in edge-type order (graph.WriteBinary's format)
//
// The header holds the number of node types uint32, each type's name
// (length uint16, bytes) and count uint64 in sorted order, then the number
// of edge types uint32 and each one's source, relation and destination
// names (length uint16, bytes), in sorted order. Each relation's graph
// carries its own checksum.
const (
	heteroMagic     = "GNNHETER"
	heteroVersion   = 1
	maxHeaderLength = 1 << 24
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteBinary writes h to w in the binary heterograph format; ReadBinary
// reads it back.
func (h *Graph) WriteBinary(w io.Writer) error {
	var hd bytes.Buffer
	le := binary.LittleEndian
	name := func(s string) {
		hd.Write(le.AppendUint16(nil, uint16(len(s))))
		hd.WriteString(s)
	}
	hd.Write(le.AppendUint32(nil, uint32(len(h.ntypes))))
	for i, nt := range h.ntypes {
		name(nt)
		hd.Write(le.AppendUint64(nil, uint64(h.counts[i])))
	}
	hd.Write(le.AppendUint32(nil, uint32(len(h.etypes))))
	for _, t := range h.etypes {
		name(t.Src)
		name(t.Rel)
		name(t.Dst)
	}
	if hd.Len() > maxHeaderLength {
		return fmt.Errorf("hetero: writing binary heterograph: header of %d bytes exceeds %d", hd.Len(), maxHeaderLength)
	}
	out := append([]byte(heteroMagic), le.AppendUint32(nil, heteroVersion)...)
	out = le.AppendUint32(out, uint32(hd.Len()))
	out = append(out, hd.Bytes()...)
	out = le.AppendUint32(out, crc32.Checksum(hd.Bytes(), castagnoli))
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("hetero: writing binary heterograph: %w", err)
	}
	for i := range h.etypes {
		if err := h.RelationAt(i).WriteBinary(w); err != nil {
			return fmt.Errorf("hetero: relation %s: %w", h.etypes[i], err)
		}
	}
	return nil
}

// ReadBinary reads a heterograph written by WriteBinary. A corrupt input
// gives an error, never a panic: bad magic, an unsupported version, a
// header longer than the limit or than the data, a header checksum
// mismatch, malformed or invalid names and counts, and every error of
// graph.ReadBinary and New, naming the relation at fault.
func ReadBinary(r io.Reader) (*Graph, error) {
	var pre [16]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("hetero: reading binary heterograph: %w", err)
	}
	le := binary.LittleEndian
	if string(pre[:8]) != heteroMagic {
		return nil, fmt.Errorf("hetero: not a binary heterograph (magic %q)", pre[:8])
	}
	if v := le.Uint32(pre[8:]); v != heteroVersion {
		return nil, fmt.Errorf("hetero: binary heterograph version %d; this reader knows %d", v, heteroVersion)
	}
	n := le.Uint32(pre[12:])
	if n > maxHeaderLength {
		return nil, fmt.Errorf("hetero: header of %d bytes exceeds %d", n, maxHeaderLength)
	}
	hd, err := io.ReadAll(io.LimitReader(r, int64(n)+4))
	if err != nil {
		return nil, fmt.Errorf("hetero: reading header: %w", err)
	}
	if len(hd) != int(n)+4 {
		return nil, fmt.Errorf("hetero: header of %d bytes and its checksum, but %d bytes follow", n, len(hd))
	}
	if want, got := le.Uint32(hd[n:]), crc32.Checksum(hd[:n], castagnoli); want != got {
		return nil, fmt.Errorf("hetero: header checksum %08x, computed %08x", want, got)
	}
	p := &headerParser{b: hd[:n]}
	counts := map[string]int{}
	nn := p.uint32("node type count")
	for i := uint32(0); i < nn && p.err == nil; i++ {
		name := p.name("node type")
		c := p.uint64("node count")
		if p.err == nil && c > graph.MaxNodes {
			p.err = fmt.Errorf("node type %q has %d nodes, above %d", name, c, graph.MaxNodes)
		}
		if _, dup := counts[name]; dup && p.err == nil {
			p.err = fmt.Errorf("node type %q appears twice", name)
		}
		counts[name] = int(c)
	}
	var types []EdgeType
	ne := p.uint32("edge type count")
	for i := uint32(0); i < ne && p.err == nil; i++ {
		types = append(types, EdgeType{Src: p.name("source type"), Rel: p.name("relation"), Dst: p.name("destination type")})
	}
	if p.err == nil && len(p.b) != 0 {
		p.err = fmt.Errorf("%d bytes left after the edge types", len(p.b))
	}
	if p.err != nil {
		return nil, fmt.Errorf("hetero: header: %w", p.err)
	}
	rels := make(map[EdgeType]*graph.Graph, len(types))
	for _, t := range types {
		if _, dup := rels[t]; dup {
			return nil, fmt.Errorf("hetero: header: edge type %s appears twice", t)
		}
		s, okS := counts[t.Src]
		d, okD := counts[t.Dst]
		if !okS || !okD {
			return nil, fmt.Errorf("hetero: header: edge type %s names an undeclared node type", t)
		}
		g, err := graph.ReadBinary(r, graph.WithMaxNodes(max(s, d)))
		if err != nil {
			return nil, fmt.Errorf("hetero: relation %s: %w", t, err)
		}
		rels[t] = g
	}
	h, err := New(counts, rels)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// headerParser reads the header's fields, keeping the first error.
type headerParser struct {
	b   []byte
	err error
}

func (p *headerParser) take(n int, what string) []byte {
	if p.err != nil {
		return nil
	}
	if len(p.b) < n {
		p.err = fmt.Errorf("%s: %d bytes left, want %d", what, len(p.b), n)
		return nil
	}
	v := p.b[:n]
	p.b = p.b[n:]
	return v
}

func (p *headerParser) uint32(what string) uint32 {
	if b := p.take(4, what); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (p *headerParser) uint64(what string) uint64 {
	if b := p.take(8, what); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return math.MaxUint64
}

func (p *headerParser) name(what string) string {
	b := p.take(2, what+" name length")
	if b == nil {
		return ""
	}
	s := string(p.take(int(binary.LittleEndian.Uint16(b)), what+" name"))
	if p.err == nil {
		if err := checkName(what, s); err != nil {
			p.err = errors.New(strings.TrimPrefix(err.Error(), "hetero: "))
		}
	}
	return s
}
