package graph_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
)

var ioBenchSink *graph.Graph

// ioBenchSizes are the uniform random graphs of the I/O benchmarks: a
// million nodes with fifty million edges (400 MB of IDs) for the binary
// format, and a smaller graph on which text and binary compare.
var ioBenchSizes = []struct {
	n int
	e int64
}{
	{100_000, 1_000_000},
	{1_000_000, 50_000_000},
}

var ioBenchGraphs sync.Map // "n/e" -> *graph.Graph

// ioBenchGraph returns the seeded uniform graph of the given size, built
// once per process.
func ioBenchGraph(b *testing.B, n int, e int64) *graph.Graph {
	b.Helper()
	key := fmt.Sprint(n, "/", e)
	if g, ok := ioBenchGraphs.Load(key); ok {
		return g.(*graph.Graph)
	}
	g, err := generate.Uniform(n, e, 1)
	if err != nil {
		b.Fatal(err)
	}
	ioBenchGraphs.Store(key, g)
	return g
}

// BenchmarkBinary measures the binary format: Save (with fsync) and Load
// through the file system, and WriteBinary/ReadBinary in memory (encode,
// decode). Throughput is over the file's bytes.
func BenchmarkBinary(b *testing.B) {
	for _, size := range ioBenchSizes {
		name := fmt.Sprintf("n=%d/e=%d", size.n, size.e)
		fileBytes := int64(40 + 8*size.e)
		b.Run("op=save/"+name, func(b *testing.B) {
			g := ioBenchGraph(b, size.n, size.e)
			path := filepath.Join(b.TempDir(), "g.gnng")
			b.SetBytes(fileBytes)
			b.ReportAllocs()
			for b.Loop() {
				if err := g.Save(path); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("op=load/"+name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "g.gnng")
			if err := ioBenchGraph(b, size.n, size.e).Save(path); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(fileBytes)
			b.ReportAllocs()
			for b.Loop() {
				g, err := graph.Load(path)
				if err != nil {
					b.Fatal(err)
				}
				ioBenchSink = g
			}
		})
		b.Run("op=encode/"+name, func(b *testing.B) {
			g := ioBenchGraph(b, size.n, size.e)
			b.SetBytes(fileBytes)
			b.ReportAllocs()
			for b.Loop() {
				if err := g.WriteBinary(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("op=decode/"+name, func(b *testing.B) {
			var buf bytes.Buffer
			buf.Grow(int(fileBytes))
			if err := ioBenchGraph(b, size.n, size.e).WriteBinary(&buf); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(fileBytes)
			b.ReportAllocs()
			for b.Loop() {
				g, err := graph.ReadBinary(bytes.NewReader(buf.Bytes()))
				if err != nil {
					b.Fatal(err)
				}
				ioBenchSink = g
			}
		})
	}
}

// BenchmarkEdgeList measures the text edge list on the smaller graph, for
// comparison with BenchmarkBinary: LoadEdgeList from a file and
// WriteEdgeList to memory. Throughput is over the text's bytes.
func BenchmarkEdgeList(b *testing.B) {
	size := ioBenchSizes[0]
	name := fmt.Sprintf("n=%d/e=%d", size.n, size.e)
	b.Run("op=load/"+name, func(b *testing.B) {
		g := ioBenchGraph(b, size.n, size.e)
		var buf bytes.Buffer
		if err := g.WriteEdgeList(&buf); err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(b.TempDir(), "g.txt")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		opts := graph.EdgeListOptions{NumNodes: size.n}
		b.SetBytes(int64(buf.Len()))
		b.ReportAllocs()
		for b.Loop() {
			g, err := graph.LoadEdgeList(path, opts)
			if err != nil {
				b.Fatal(err)
			}
			ioBenchSink = g
		}
	})
	b.Run("op=write/"+name, func(b *testing.B) {
		g := ioBenchGraph(b, size.n, size.e)
		var buf bytes.Buffer
		if err := g.WriteEdgeList(&buf); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(buf.Len()))
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			if err := g.WriteEdgeList(&buf); err != nil {
				b.Fatal(err)
			}
		}
	})
}
