package graph

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hugeBinary returns a valid binary graph file of 56 bytes: 2 edges between
// nodes 0 and 1, whose header declares n nodes on each side.
func hugeBinary(n uint64) []byte {
	var b bytes.Buffer
	b.WriteString(binaryMagic)
	var h [28]byte
	binary.LittleEndian.PutUint32(h[0:], binaryVersion)
	binary.LittleEndian.PutUint64(h[4:], n)
	binary.LittleEndian.PutUint64(h[12:], n)
	binary.LittleEndian.PutUint64(h[20:], 2)
	b.Write(h[:])
	for _, v := range []uint32{0, 1, 1, 0} {
		b.Write(binary.LittleEndian.AppendUint32(nil, v))
	}
	b.Write(binary.LittleEndian.AppendUint32(nil, crc32.Checksum(b.Bytes(), castagnoli)))
	return b.Bytes()
}

// TestNodeLimit checks that files declaring far more nodes than their
// edges justify are refused before anything is allocated for them, with an
// error naming the file and the size, and load when the caller raises the
// limit.
func TestNodeLimit(t *testing.T) {
	if got := DefaultNodeLimit(0); got != MinNodeLimit {
		t.Errorf("DefaultNodeLimit(0) = %d, want %d", got, MinNodeLimit)
	}
	if got := DefaultNodeLimit(10); got != MinNodeLimit+10*NodesPerEdge {
		t.Errorf("DefaultNodeLimit(10) = %d", got)
	}
	if got := DefaultNodeLimit(MaxEdges); got != MaxNodes {
		t.Errorf("DefaultNodeLimit(MaxEdges) = %d, want MaxNodes", got)
	}
	dir := t.TempDir()

	t.Run("binary", func(t *testing.T) {
		data := hugeBinary(MaxNodes)
		if len(data) != 56 {
			t.Fatalf("file of %d bytes, want 56", len(data))
		}
		path := filepath.Join(dir, "huge.bin")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "2147483647 source") || !strings.Contains(err.Error(), "WithMaxNodes") {
			t.Errorf("Load: error %v, want one naming the file, the node count and WithMaxNodes", err)
		}
		if _, err := ReadBinary(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "limit") {
			t.Errorf("ReadBinary: error %v, want one about the node limit", err)
		}
		g, err := Load(path, WithMaxNodes(MaxNodes))
		if err != nil {
			t.Fatalf("Load with WithMaxNodes: %v", err)
		}
		if g.NumSrc() != MaxNodes || g.NumEdges() != 2 {
			t.Errorf("loaded %d nodes and %d edges", g.NumSrc(), g.NumEdges())
		}
		if _, err := Load(writeFile(t, dir, "ok.bin", hugeBinary(MinNodeLimit))); err != nil {
			t.Errorf("a graph at the limit: %v", err)
		}
	})

	t.Run("edgelist", func(t *testing.T) {
		path := writeFile(t, dir, "huge.txt", []byte("0 2147483646\n"))
		_, err := LoadEdgeList(path, EdgeListOptions{})
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "2147483647 nodes") || !strings.Contains(err.Error(), "edge 0") {
			t.Errorf("LoadEdgeList: error %v, want one naming the file, the edge and the node count", err)
		}
		bip := writeFile(t, dir, "bip.txt", []byte("# big source\n3 1\n2147483646 0\n"))
		_, err = LoadEdgeList(bip, EdgeListOptions{Bipartite: true, NumDst: 2})
		if err == nil || !strings.Contains(err.Error(), "source ID 2147483646 (edge 1)") {
			t.Errorf("bipartite: error %v, want one naming the source ID and its edge", err)
		}
		for _, o := range []EdgeListOptions{{NumNodes: MaxNodes}, {MaxNodes: MaxNodes}} {
			g, err := LoadEdgeList(path, o)
			if err != nil {
				t.Errorf("%+v: %v", o, err)
			} else if g.NumNodes() != MaxNodes {
				t.Errorf("%+v: %d nodes", o, g.NumNodes())
			}
		}
		if _, err := ReadEdgeList(strings.NewReader("0 1\n"), EdgeListOptions{MaxNodes: -1}); err == nil {
			t.Error("negative MaxNodes: no error")
		}
	})
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
