package partition

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/dataset"
)

// sameParts reports the first difference between two parts (nil and empty
// slices are the same).
func sameParts(a, b *Part) error {
	if a.Rank != b.Rank || a.Parts != b.Parts || a.NumGlobalNodes != b.NumGlobalNodes || a.NumGlobalEdges != b.NumGlobalEdges ||
		a.Name != b.Name || a.NumClasses != b.NumClasses {
		return fmt.Errorf("headers differ: %+v vs %+v", *a, *b)
	}
	if !slices.Equal(a.Nodes, b.Nodes) || !slices.Equal(a.InDeg, b.InDeg) || !slices.Equal(a.OutDeg, b.OutDeg) {
		return fmt.Errorf("nodes or degrees differ")
	}
	if len(a.Shards) != len(b.Shards) {
		return fmt.Errorf("%d vs %d shards", len(a.Shards), len(b.Shards))
	}
	for j := range a.Shards {
		s, t := a.Shards[j], b.Shards[j]
		if s.SrcRank != t.SrcRank || !slices.Equal(s.Src, t.Src) || !slices.Equal(s.Dst, t.Dst) || !slices.Equal(s.EID, t.EID) {
			return fmt.Errorf("shard %d differs", j)
		}
	}
	if (a.Features == nil) != (b.Features == nil) {
		return fmt.Errorf("features present in one only")
	}
	if f, g := a.Features, b.Features; f != nil {
		if f.Rows != g.Rows || f.Cols != g.Cols || f.IsSparse() != g.IsSparse() || !slices.Equal(f.Dense, g.Dense) ||
			!slices.Equal(f.Indptr, g.Indptr) || !slices.Equal(f.Indices, g.Indices) || !slices.Equal(f.Values, g.Values) {
			return fmt.Errorf("features differ")
		}
	}
	if (a.Labels == nil) != (b.Labels == nil) || !slices.Equal(a.Labels, b.Labels) {
		return fmt.Errorf("labels differ")
	}
	if !slices.Equal(a.Train, b.Train) || !slices.Equal(a.Val, b.Val) || !slices.Equal(a.Test, b.Test) {
		return fmt.Errorf("split differs")
	}
	return nil
}

// writeTestParts partitions a planted dataset into 3 parts (sparse
// features when sparse) and writes it to a fresh directory.
func writeTestParts(t *testing.T, sparse bool) (string, []*Part) {
	t.Helper()
	ds := plantedForTest(t)
	if sparse {
		ds.Features = sparsify(ds.Features)
	}
	owner, err := Partition(ds.Graph, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := SplitDataset(ds, owner, 3)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "parts")
	if err := Write(dir, parts, Info{Method: "multilevel", Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return dir, parts
}

func TestWriteReadRoundTrip(t *testing.T) {
	for _, sparse := range []bool{false, true} {
		dir, parts := writeTestParts(t, sparse)
		got, err := ReadAll(dir)
		if err != nil {
			t.Fatal(err)
		}
		for r := range parts {
			if err := sameParts(parts[r], got[r]); err != nil {
				t.Fatalf("sparse %v rank %d: %v", sparse, r, err)
			}
		}
		one, err := Read(dir, 2)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameParts(parts[2], one); err != nil {
			t.Fatal(err)
		}
		m, err := ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		var cut int64
		for _, p := range parts {
			for j, s := range p.Shards {
				if j != p.Rank {
					cut += int64(len(s.Src))
				}
			}
		}
		if m.Parts != 3 || m.EdgeCut != cut || m.Method != "multilevel" || m.FeatureCols != parts[0].Features.Cols || m.Name != parts[0].Name {
			t.Fatalf("manifest %+v", m)
		}
		// No temporary file is left behind.
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if strings.Contains(d.Name(), ".tmp-") {
				t.Errorf("temporary file left: %s", path)
			}
			return nil
		})
	}
}

// TestWriteReadGraphOnly: a split without a dataset (no features, labels
// or split), an empty rank, and a rewrite over an older partitioning.
func TestWriteReadGraphOnly(t *testing.T) {
	g := rmat(t, 8, 2000)
	owner := make([]int32, g.NumNodes())
	for v := range owner {
		owner[v] = int32(v % 3) // rank 3 owns nothing
	}
	parts, err := Split(g, owner, 4)
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := writeTestParts(t, false) // an older 3-part dataset in the same place
	if err := Write(dir, parts, Info{}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	for r := range parts {
		if err := sameParts(parts[r], got[r]); err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	if got[0].Features != nil || got[0].Labels != nil || got[3].NumNodes() != 0 {
		t.Fatal("dataset fields or nodes appeared")
	}
	if _, err := Read(dir, 4); err == nil || !strings.Contains(err.Error(), "holds 4 parts; there is no rank 4") {
		t.Fatalf("got %v", err)
	}
}

// TestReadDetectsCorruption flips a byte in, and truncates, every file of
// a written partitioning in turn: reading every rank must fail with an
// error naming the file (or the manifest), never panic.
func TestReadDetectsCorruption(t *testing.T) {
	for _, sparse := range []bool{false, true} {
		dir, _ := writeTestParts(t, sparse)
		var files []string
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if !d.IsDir() {
				files = append(files, path)
			}
			return nil
		})
		if len(files) < 3*6+1 {
			t.Fatalf("only %d files written", len(files))
		}
		readAll := func() error {
			for r := range 3 {
				if _, err := Read(dir, r); err != nil {
					return err
				}
			}
			return nil
		}
		for _, path := range files {
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, path)
			damage := map[string][]byte{
				"flipped":   flip(orig, len(orig)/2),
				"last byte": flip(orig, len(orig)-1),
				"truncated": orig[:len(orig)/2],
				"empty":     nil,
				"extended":  append(slices.Clone(orig), 0),
			}
			for how, bad := range damage {
				if err := os.WriteFile(path, bad, 0o644); err != nil {
					t.Fatal(err)
				}
				err := readAll()
				name := filepath.Base(path)
				if name == manifestName {
					name = dir
				}
				if err == nil || !strings.Contains(err.Error(), name) {
					t.Errorf("%s %s: got error %v, want one naming %s", rel, how, err, name)
				}
			}
			if err := os.WriteFile(path, orig, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := readAll(); err != nil {
			t.Fatalf("after restoring every file: %v", err)
		}
		if err := os.Remove(filepath.Join(dir, manifestName)); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(dir, 0); err == nil || !strings.Contains(err.Error(), "has no manifest.json") {
			t.Fatalf("no manifest: got %v", err)
		}
	}
}

func flip(b []byte, i int) []byte {
	c := slices.Clone(b)
	c[i] ^= 0xff
	return c
}

// TestReadChecksContents: files with valid checksums but bad contents (as
// a buggy writer could produce) are still rejected.
func TestReadChecksContents(t *testing.T) {
	g := rmat(t, 6, 300)
	owner := make([]int32, g.NumNodes())
	for v := range owner {
		owner[v] = int32(v % 2)
	}
	cases := []struct {
		name  string
		spoil func(p []*Part)
		want  string
	}{
		{"source out of range", func(p []*Part) { p[0].Shards[1].Src[0] = 1 << 20 }, "has source 1048576, but rank 1 has"},
		{"nodes out of order", func(p []*Part) { p[1].Nodes[0], p[1].Nodes[1] = p[1].Nodes[1], p[1].Nodes[0] }, "out of order"},
		{"negative degree", func(p []*Part) { p[0].InDeg[3] = -1 }, "has degrees -1/"},
	}
	for _, c := range cases {
		parts, err := Split(g, owner, 2)
		if err != nil {
			t.Fatal(err)
		}
		c.spoil(parts)
		dir := t.TempDir()
		if err := Write(dir, parts, Info{}); err != nil {
			t.Fatal(err)
		}
		_, err = ReadAll(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

func TestWriteRejectsBadParts(t *testing.T) {
	g := rmat(t, 5, 100)
	parts, _ := Split(g, make([]int32, g.NumNodes()), 1)
	parts[0].Rank = 1
	if err := Write(t.TempDir(), parts, Info{}); err == nil || !strings.Contains(err.Error(), "says rank 1 of 1") {
		t.Fatalf("got %v", err)
	}
	if err := Write(t.TempDir(), nil, Info{}); err == nil {
		t.Fatal("no parts accepted")
	}
	parts[0].Rank = 0
	parts[0].Labels = []int32{1}
	if err := Write(t.TempDir(), parts, Info{}); err == nil || !strings.Contains(err.Error(), "1 labels for 32 nodes") {
		t.Fatalf("got %v", err)
	}
}

func encodeArrays(t testing.TB, arrays ...array) []byte {
	var buf bytes.Buffer
	if _, _, err := writeArrays(&buf, arrays); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestArraysRoundTrip(t *testing.T) {
	data := encodeArrays(t, i32Array("a", []int32{1, -2, 3}), i64Array("b_2", []int64{1 << 40}), f32Array("C", []float32{0.5, -1}), i32Array("empty", nil))
	// Decode from an unaligned copy too, which takes the copying path.
	odd := make([]byte, len(data)+1)
	copy(odd[1:], data)
	for _, d := range [][]byte{data, odd[1:]} {
		got, err := decodeArrays(d)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 4 || !slices.Equal(got[0].i32, []int32{1, -2, 3}) || !slices.Equal(got[1].i64, []int64{1 << 40}) ||
			!slices.Equal(got[2].f32, []float32{0.5, -1}) || got[3].len() != 0 || got[3].typ != dtInt32 || got[1].name != "b_2" {
			t.Fatalf("got %+v", got)
		}
	}
	if _, _, err := writeArrays(&bytes.Buffer{}, []array{i32Array("bad name", nil)}); err == nil {
		t.Fatal("a bad name was written")
	}
}

func TestArraysErrors(t *testing.T) {
	good := encodeArrays(t, i32Array("x", []int32{7, 8}))
	cases := map[string][]byte{
		"shorter than any":     good[:10],
		"bad magic":            append([]byte("GNNGRAPH"), good[8:]...),
		"unsupported":          func() []byte { b := slices.Clone(good); b[8] = 9; return b }(),
		"claims 4294967295":    func() []byte { b := slices.Clone(good); b[12], b[13], b[14], b[15] = 255, 255, 255, 255; return b }(),
		"checksum mismatch":    flip(good, len(good)-1),
		"needs 8 bytes":        good[:len(good)-8],
		"more than the":        func() []byte { b := slices.Clone(good); b[19+7] = 1; return b }(),
		"unexpected bytes":     append(slices.Clone(good[:len(good)-4]), append(make([]byte, 8), good[len(good)-4:]...)...),
		"unknown element type": func() []byte { b := slices.Clone(good); b[18] = 7; return b }(),
	}
	for want, data := range cases {
		_, err := decodeArrays(data)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

// FuzzDecodeArrays: the array-file reader never panics or over-allocates,
// and whatever it accepts re-encodes to the same bytes.
func FuzzDecodeArrays(f *testing.F) {
	f.Add(encodeArrays(f, i32Array("x", []int32{7, 8})))
	f.Add(encodeArrays(f, i64Array("nodes", []int64{1, 5, 9}), i32Array("in_deg", []int32{0, 2, 1}), i32Array("out_deg", []int32{1, 1, 1})))
	f.Add(encodeArrays(f, f32Array("values", []float32{1, 2, 3}), i32Array("e", nil)))
	f.Add([]byte(arrayMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		arrays, err := decodeArrays(data)
		if err != nil {
			return
		}
		if again := encodeArrays(t, arrays...); !bytes.Equal(again, data) {
			t.Fatalf("accepted %d bytes that re-encode to %d different ones", len(data), len(again))
		}
	})
}

// FuzzParseMeta: the JSON readers never panic on any input.
func FuzzParseMeta(f *testing.F) {
	dir := f.TempDir()
	ds, err := dataset.PlantedPartition(dataset.DefaultPlantedConfig())
	if err != nil {
		f.Fatal(err)
	}
	parts, err := SplitDataset(ds, make([]int32, ds.Graph.NumNodes()), 1)
	if err != nil {
		f.Fatal(err)
	}
	if err := Write(dir, parts, Info{Method: "test"}); err != nil {
		f.Fatal(err)
	}
	for _, p := range []string{manifestName, filepath.Join(rankDir(0), partMetaName)} {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		parseManifest(data)
		parsePartMeta(data)
	})
}
