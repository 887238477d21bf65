package graph

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// largeBinaryTestGraph is a random graph whose ID lists span two I/O blocks,
// built once and shared by the tests (graphs are immutable).
var largeBinaryTestGraph = sync.OnceValue(func() *Graph {
	r := rand.New(rand.NewPCG(1, 1))
	const n, e = 1000, ioBlock/4 + 17
	src, dst := make([]int32, e), make([]int32, e)
	for i := range e {
		src[i], dst[i] = r.Int32N(n), r.Int32N(n)
	}
	return newGraph(n, n, src, dst)
})

// binaryTestGraphs returns named graphs covering the format's edge cases;
// "large" spans several I/O blocks.
func binaryTestGraphs(t *testing.T) map[string]*Graph {
	t.Helper()
	mk := func(ns, nd int, src, dst []int32) *Graph {
		g, err := FromCOO(ns, nd, src, dst)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	bip := mk(3, 5, []int32{0, 2, 2, 1}, []int32{4, 0, 4, 3})
	return map[string]*Graph{
		"empty":     mk(0, 0, nil, nil),
		"no edges":  mk(4, 4, nil, nil),
		"small":     mk(3, 3, []int32{0, 1, 2, 2}, []int32{1, 2, 0, 2}),
		"bipartite": bip,
		"reversed":  bip.Reverse(),
		"large":     largeBinaryTestGraph(),
	}
}

func checkSameGraph(t *testing.T, name string, got, want *Graph) {
	t.Helper()
	if got.NumSrc() != want.NumSrc() || got.NumDst() != want.NumDst() || got.NumEdges() != want.NumEdges() {
		t.Fatalf("%s: got %v, want %v", name, got, want)
	}
	gs, gd := got.COO()
	ws, wd := want.COO()
	if !slices.Equal(gs, ws) || !slices.Equal(gd, wd) {
		t.Fatalf("%s: COO lists differ", name)
	}
}

func TestBinaryRoundTrip(t *testing.T) {
	t.Parallel()
	for name, g := range binaryTestGraphs(t) {
		var native, portable bytes.Buffer
		if err := g.WriteBinary(&native); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := writeBinary(&portable, g, false); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(native.Bytes(), portable.Bytes()) {
			t.Fatalf("%s: raw and encoded writes differ", name)
		}
		data := native.Bytes()
		if want := headerSize + 8*g.NumEdges() + checksumSize; len(data) != want {
			t.Errorf("%s: wrote %d bytes, want %d", name, len(data), want)
		}
		// Known length (bytes.Reader), unknown length (a plain reader,
		// one byte at a time for the small graphs), and the byte-order
		// independent decoder.
		readers := map[string]func() (*Graph, error){
			"known":  func() (*Graph, error) { return ReadBinary(bytes.NewReader(data)) },
			"stream": func() (*Graph, error) { return ReadBinary(struct{ io.Reader }{bytes.NewReader(data)}) },
			"portable": func() (*Graph, error) {
				return readBinary(bytes.NewReader(data), int64(len(data)), true, false, readConfig{})
			},
			"portable stream": func() (*Graph, error) {
				return readBinary(struct{ io.Reader }{bytes.NewReader(data)}, -1, false, false, readConfig{})
			},
		}
		if g.NumEdges() < 100 {
			readers["one byte"] = func() (*Graph, error) { return ReadBinary(iotest.OneByteReader(bytes.NewReader(data))) }
		}
		for how, read := range readers {
			back, err := read()
			if err != nil {
				t.Fatalf("%s, %s: %v", name, how, err)
			}
			checkSameGraph(t, name+", "+how, back, g)
			if back.ID() == g.ID() {
				t.Errorf("%s, %s: read graph shares the ID of the written one", name, how)
			}
		}
	}
}

// TestBinaryLayout pins the documented byte layout.
func TestBinaryLayout(t *testing.T) {
	t.Parallel()
	g, err := FromCOO(2, 3, []int32{0, 1}, []int32{2, 0})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := g.WriteBinary(&buf); err != nil {
		t.Fatal(err)
	}
	want := []byte("GNNGRAPH")
	want = binary.LittleEndian.AppendUint32(want, 1)
	for _, v := range []uint64{2, 3, 2} {
		want = binary.LittleEndian.AppendUint64(want, v)
	}
	for _, v := range []uint32{0, 1, 2, 0} {
		want = binary.LittleEndian.AppendUint32(want, v)
	}
	want = binary.LittleEndian.AppendUint32(want, crc32.Checksum(want, crc32.MakeTable(crc32.Castagnoli)))
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("encoding\n%x\nwant\n%x", buf.Bytes(), want)
	}
}

func TestReadBinaryConcatenated(t *testing.T) {
	t.Parallel()
	gs := binaryTestGraphs(t)
	names := []string{"small", "empty", "bipartite", "no edges"}
	var buf bytes.Buffer
	for _, name := range names {
		if err := gs[name].WriteBinary(&buf); err != nil {
			t.Fatal(err)
		}
	}
	stream := struct{ io.Reader }{&buf}
	for _, name := range names {
		g, err := ReadBinary(stream)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkSameGraph(t, name, g, gs[name])
	}
	if _, err := ReadBinary(stream); err == nil || !strings.Contains(err.Error(), "empty input") {
		t.Errorf("read past the last graph: error %v, want empty input", err)
	}
}

// encodeRaw builds a binary graph from raw header fields and ID lists,
// with a correct checksum when fixCRC is set.
func encodeRaw(magic string, version uint32, ns, nd, ne uint64, src, dst []int32, fixCRC bool) []byte {
	b := []byte(magic)
	b = binary.LittleEndian.AppendUint32(b, version)
	b = binary.LittleEndian.AppendUint64(b, ns)
	b = binary.LittleEndian.AppendUint64(b, nd)
	b = binary.LittleEndian.AppendUint64(b, ne)
	for _, ids := range [][]int32{src, dst} {
		for _, v := range ids {
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
	}
	crc := crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli))
	if !fixCRC {
		crc++
	}
	return binary.LittleEndian.AppendUint32(b, crc)
}

func TestReadBinaryErrors(t *testing.T) {
	t.Parallel()
	valid := encodeRaw(binaryMagic, 1, 3, 3, 2, []int32{0, 1}, []int32{1, 2}, true)
	flipped := slices.Clone(valid)
	flipped[headerSize+5] ^= 0x10
	huge := encodeRaw(binaryMagic, 1, 3, 3, 1<<40, nil, nil, true)[:headerSize]
	for _, tc := range []struct {
		name string
		data []byte
		want string // for both known-length and streamed input
		// wantStream, when set, replaces want for streamed input, which
		// cannot check sizes before reading.
		wantStream string
	}{
		{name: "empty", want: "graph: binary graph: empty input"},
		{name: "short header", data: valid[:20], want: "graph: binary graph: truncated header: 20 of 36 bytes"},
		{name: "bad magic", data: append([]byte("GNNGRAPX"), valid[8:]...), want: `graph: binary graph: bad magic "GNNGRAPX", want "GNNGRAPH": not a gnn graph file`},
		{name: "text file", data: []byte("0 1\n1 2\n2 0\n3 1\n4 4\n5 5\n6 6\n7 7\n8 8\n9 9\n"), want: "bad magic"},
		{name: "version", data: encodeRaw(binaryMagic, 2, 3, 3, 2, []int32{0, 1}, []int32{1, 2}, true), want: "graph: binary graph: unsupported format version 2 (this package reads version 1)"},
		{name: "too many src nodes", data: encodeRaw(binaryMagic, 1, 1<<31, 3, 0, nil, nil, true), want: "header has 2147483648 source and 3 destination nodes, more than MaxNodes"},
		{name: "too many dst nodes", data: encodeRaw(binaryMagic, 1, 3, math.MaxUint64, 0, nil, nil, true), want: "more than MaxNodes"},
		{name: "absurd edges", data: encodeRaw(binaryMagic, 1, 3, 3, 1<<62, nil, nil, true), want: "header has 4611686018427387904 edges, more than the format allows"},
		{
			name: "huge edges", data: huge,
			want:       "graph: binary graph: truncated or corrupt: the header's 1099511627776 edges need 8796093022212 bytes after it, but 0 follow",
			wantStream: "graph: binary graph: truncated: source IDs end after 0 of 1099511627776 edges",
		},
		{
			name: "truncated src", data: valid[:headerSize+6],
			want: "truncated or corrupt", wantStream: "truncated: source IDs end after 1 of 2 edges",
		},
		{
			name: "truncated dst", data: valid[:headerSize+12],
			want: "truncated or corrupt", wantStream: "truncated: destination IDs end after 1 of 2 edges",
		},
		{
			name: "no checksum", data: valid[:len(valid)-1],
			want: "truncated or corrupt", wantStream: "graph: binary graph: truncated: checksum missing",
		},
		{name: "checksum", data: encodeRaw(binaryMagic, 1, 3, 3, 2, []int32{0, 1}, []int32{1, 2}, false), want: "graph: binary graph: checksum mismatch (stored"},
		{name: "flipped bit", data: flipped, want: "checksum mismatch"},
		{name: "src out of range", data: encodeRaw(binaryMagic, 1, 3, 3, 2, []int32{0, 3}, []int32{1, 2}, true), want: "graph: binary graph: edge 1 has source 3 but the graph has 3 source nodes"},
		{name: "negative src", data: encodeRaw(binaryMagic, 1, 3, 3, 2, []int32{-1, 0}, []int32{1, 2}, true), want: "edge 0 has source -1 but"},
		{name: "dst out of range", data: encodeRaw(binaryMagic, 1, 3, 2, 2, []int32{0, 1}, []int32{1, 2}, true), want: "edge 1 has destination 2 but the graph has 2 destination nodes"},
		{name: "edges without nodes", data: encodeRaw(binaryMagic, 1, 0, 0, 1, []int32{0}, []int32{0}, true), want: "edge 0 has source 0 but the graph has 0 source nodes"},
	} {
		for _, stream := range []bool{false, true} {
			var r io.Reader = bytes.NewReader(tc.data)
			want := tc.want
			if stream {
				r = struct{ io.Reader }{r}
				if tc.wantStream != "" {
					want = tc.wantStream
				}
			}
			g, err := ReadBinary(r)
			switch {
			case err == nil:
				t.Errorf("%s (stream %t): got %v, want error %q", tc.name, stream, g, want)
			case !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "graph: "):
				t.Errorf("%s (stream %t): error %q, want %q", tc.name, stream, err, want)
			}
		}
	}
}

// TestReadBinaryBoundedAllocation checks that a header claiming 2^40 edges
// over a stream of unknown length allocates about one I/O block, not 8 TiB.
// It does not run in parallel so that the allocation count is its own.
func TestReadBinaryBoundedAllocation(t *testing.T) {
	data := encodeRaw(binaryMagic, 1, 5, 5, 1<<40, nil, nil, true)[:headerSize]
	data = append(data, make([]byte, 3*ioBlock)...) // 3 MiB of zero IDs, then EOF
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadBinary(struct{ io.Reader }{bytes.NewReader(data)})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "source IDs end after 786432 of 1099511627776 edges") {
		t.Errorf("error %v, want truncated source IDs", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16*ioBlock {
		t.Errorf("allocated %d bytes for %d bytes of input", got, len(data))
	}
}

func TestReadBinaryReaderError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	var buf bytes.Buffer
	if err := binaryTestGraphs(t)["small"].WriteBinary(&buf); err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{0, 10, headerSize + 4, headerSize + 20, buf.Len() - 2} {
		r := io.MultiReader(bytes.NewReader(buf.Bytes()[:cut]), iotest.ErrReader(boom))
		if _, err := ReadBinary(r); !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "graph: ") {
			t.Errorf("cut at %d: error %v, want a graph error wrapping %v", cut, err, boom)
		}
	}
}

// shortWriter accepts n bytes, then fails.
type shortWriter struct{ n int }

func (w *shortWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

func TestWriteBinaryError(t *testing.T) {
	t.Parallel()
	g := binaryTestGraphs(t)["large"]
	for _, n := range []int{0, 10, headerSize + 100, headerSize + 8*g.NumEdges()} {
		for _, native := range []bool{true, false} {
			err := writeBinary(&shortWriter{n: n}, g, native)
			if err == nil || err.Error() != "disk full" {
				t.Errorf("writer failing after %d bytes (native %t): error %v", n, native, err)
			}
		}
		if err := g.WriteBinary(&shortWriter{n: n}); err == nil || !strings.HasPrefix(err.Error(), "graph: writing binary graph: ") {
			t.Errorf("writer failing after %d bytes: error %v", n, err)
		}
	}
}

func TestSaveLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "g.gnng")
	gs := binaryTestGraphs(t)
	// The second Save replaces the first file.
	for _, name := range []string{"small", "large", "bipartite"} {
		if err := gs[name].Save(path); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		g, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkSameGraph(t, name, g, gs[name])
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "g.gnng" {
		t.Errorf("directory holds %v, want only g.gnng (no temporary files)", entries)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("saved file: %v, %v; want mode 0644", fi, err)
	}

	// ReadBinary of an *os.File uses its length, from the current offset.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(headerSize, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if got := remaining(f); got != int64(headerSize+8*gs["bipartite"].NumEdges()+checksumSize-headerSize) {
		t.Errorf("remaining after the header: %d", got)
	}
}

func TestSaveLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	g := binaryTestGraphs(t)["small"]

	err := g.Save(filepath.Join(dir, "no such dir", "g.gnng"))
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "graph: save ") {
		t.Errorf("Save into a missing directory: error %v", err)
	}
	// Renaming over a directory fails after the temporary file is written;
	// it must be removed.
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(sub, "g.gnng", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	err = g.Save(filepath.Join(sub, "g.gnng"))
	if err == nil || !strings.HasPrefix(err.Error(), "graph: save "+filepath.Join(sub, "g.gnng")+": ") {
		t.Errorf("Save over a directory: error %v", err)
	}
	if entries, _ := os.ReadDir(sub); len(entries) != 1 {
		t.Errorf("after a failed Save the directory holds %v", entries)
	}

	_, err = Load(filepath.Join(dir, "missing.gnng"))
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "graph: open ") {
		t.Errorf("Load of a missing file: error %v", err)
	}

	var buf bytes.Buffer
	if err := g.WriteBinary(&buf); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"trailing", append(slices.Clone(buf.Bytes()), 0), ": binary graph: 1 unexpected bytes after the graph's 4 edges"},
		{"truncated", buf.Bytes()[:buf.Len()-1], ": binary graph: truncated or corrupt"},
		{"text", []byte("0 1\n"), ": binary graph: truncated header: 4 of 36 bytes"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if want := "graph: " + path + tc.want; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: error %v, want prefix %q", tc.name, err, want)
		}
	}
	// Load of a directory fails to read, not with a size error.
	if _, err := Load(dir); err == nil || !strings.HasPrefix(err.Error(), "graph: "+dir+": binary graph: reading header: ") {
		t.Errorf("Load of a directory: error %v", err)
	}
}
