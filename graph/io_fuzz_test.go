package graph_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/graph"
)

// FuzzReadEdgeList checks that no input makes the edge-list readers panic,
// that an accepted graph has every ID in range, and that WriteEdgeList
// followed by ReadEdgeList reproduces it.
func FuzzReadEdgeList(f *testing.F) {
	for _, s := range []string{
		"", "0 1\n1 2\n", "# c\n0,1\n\n2\t0 # x\r\n", "src dst\n3 4", "0 1 0.5\n1 0 -2\n",
		"-1 0\n", "1,,2\n", "99999999999 1\n", "0 1 2 3\n", "+0 -0\n", "0 1\n\x00\xff\n",
	} {
		f.Add([]byte(s), false, false, int8(-1))
		f.Add([]byte(s), true, false, int8(3))
		f.Add([]byte(s), false, true, int8(5))
	}
	f.Fuzz(func(t *testing.T, data []byte, header, bipartite bool, n int8) {
		opts := graph.EdgeListOptions{Header: header, Bipartite: bipartite}
		if n >= 0 {
			if bipartite {
				opts.NumSrc, opts.NumDst = int(n), int(n)/2
			} else {
				opts.NumNodes = int(n)
			}
		}
		if _, w, err := graph.ReadWeightedEdgeList(bytes.NewReader(data), opts); err == nil {
			for _, x := range w {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					t.Fatalf("weight %v accepted", x)
				}
			}
		}
		g, err := graph.ReadEdgeList(bytes.NewReader(data), opts)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "graph: ") {
				t.Fatalf("error %q lacks the package prefix", err)
			}
			return
		}
		src, dst := g.COO()
		for e := range src {
			if !g.HasSrcNode(int(src[e])) || !g.HasDstNode(int(dst[e])) {
				t.Fatalf("edge %d (%d -> %d) out of range in %v", e, src[e], dst[e], g)
			}
		}
		var buf bytes.Buffer
		if err := g.WriteEdgeList(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := graph.ReadEdgeList(&buf, graph.EdgeListOptions{Bipartite: true, NumSrc: g.NumSrc(), NumDst: g.NumDst()})
		if err != nil {
			t.Fatalf("re-reading %q: %v", buf.String(), err)
		}
		bs, bd := back.COO()
		if !slices.Equal(bs, src) || !slices.Equal(bd, dst) {
			t.Fatalf("round trip changed the edges")
		}
	})
}

// FuzzReadBinary checks that no input makes ReadBinary panic, that inputs of
// known and unknown length are accepted alike, and that an accepted graph
// re-encodes to the bytes it was read from. fixCRC rewrites the trailing
// checksum so that mutations get past it to the checks behind it.
func FuzzReadBinary(f *testing.F) {
	for _, g := range []struct {
		ns, nd   int
		src, dst []int32
	}{
		{0, 0, nil, nil},
		{3, 3, []int32{0, 1, 2}, []int32{1, 2, 0}},
		{2, 4, []int32{1, 1, 0}, []int32{3, 0, 2}},
	} {
		gr, err := graph.FromCOO(g.ns, g.nd, g.src, g.dst)
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		if err := gr.WriteBinary(&buf); err != nil {
			f.Fatal(err)
		}
		b := buf.Bytes()
		f.Add(b, false)
		f.Add(b[:len(b)-3], false)
		f.Add(b[:20], false)
		f.Add(append(slices.Clone(b), 7), false)
		for _, off := range []int{0, 8, 12, 20, 28, 29, 35, 36, len(b) - 5, len(b) - 1} {
			if off < len(b) {
				m := slices.Clone(b)
				m[off] ^= 0x81
				f.Add(m, true)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, fixCRC bool) {
		data = slices.Clone(data)
		if fixCRC && len(data) >= 4 {
			body := data[:len(data)-4]
			binary.LittleEndian.PutUint32(data[len(body):], crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
		}
		known, errKnown := graph.ReadBinary(bytes.NewReader(data))
		stream, errStream := graph.ReadBinary(struct{ io.Reader }{bytes.NewReader(data)})
		if (errKnown == nil) != (errStream == nil) {
			t.Fatalf("known length: %v; stream: %v", errKnown, errStream)
		}
		if errKnown != nil {
			for _, err := range []error{errKnown, errStream} {
				if !strings.HasPrefix(err.Error(), "graph: binary graph: ") {
					t.Fatalf("error %q lacks the prefix", err)
				}
			}
			return
		}
		for _, g := range []*graph.Graph{known, stream} {
			var buf bytes.Buffer
			if err := g.WriteBinary(&buf); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, buf.Bytes()) {
				t.Fatalf("re-encoding differs from the input")
			}
		}
	})
}
