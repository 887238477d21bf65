package partition

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadDetectsSwappedFiles swaps two same-size files of a written
// partitioning between ranks (part-002/shard-001.bin with
// part-001/shard-002.bin, and two ranks' features): each checks its own
// CRC, so only the digest part.json records of each body, and the role
// each file records, can tell. Reading must fail naming both files.
func TestReadDetectsSwappedFiles(t *testing.T) {
	dir, _ := writeTestParts(t, false)
	swap(t, dir, "part-002/shard-001.bin", "part-001/shard-002.bin")
	// Two ranks of equal size: their nodes.bin are the same size.
	g := rmat(t, 6, 300)
	owner := make([]int32, g.NumNodes())
	for v := range owner {
		owner[v] = int32(v % 2)
	}
	parts, err := Split(g, owner, 2)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := Write(dir, parts, Info{}); err != nil {
		t.Fatal(err)
	}
	swap(t, dir, "part-000/nodes.bin", "part-001/nodes.bin")
}

// swap exchanges two files of dir, expects ReadAll to fail naming both,
// and puts them back.
func swap(t *testing.T, dir string, sw ...string) {
	t.Helper()
	a, b := filepath.Join(dir, sw[0]), filepath.Join(dir, sw[1])
	da, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(da) != len(db) {
		t.Fatalf("%s and %s differ in size (%d, %d): the test needs a same-size pair", sw[0], sw[1], len(da), len(db))
	}
	if err := os.WriteFile(a, db, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, da, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadAll(dir)
	if err == nil {
		t.Fatalf("swapping %s and %s: read without error", sw[0], sw[1])
	}
	for _, name := range sw {
		if !strings.Contains(err.Error(), filepath.FromSlash(name)) {
			t.Errorf("swapping %s and %s: error %q does not name %s", sw[0], sw[1], err, name)
		}
	}
	os.WriteFile(a, da, 0o644)
	os.WriteFile(b, db, 0o644)
	if _, err := ReadAll(dir); err != nil {
		t.Fatalf("after restoring: %v", err)
	}
}

// TestReadRefusesOldFormat: a partitioning written in format version 1
// (whose part.json recorded no body digests) is refused with an error
// telling the user to partition again.
func TestReadRefusesOldFormat(t *testing.T) {
	dir, _ := writeTestParts(t, false)
	path := filepath.Join(dir, manifestName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := &Manifest{}
	if err := json.Unmarshal(data, m); err != nil {
		t.Fatal(err)
	}
	m.Version = 1
	if _, err := writeJSON(path, m, &m.CRC32C); err != nil {
		t.Fatal(err)
	}
	_, err = Read(dir, 0)
	if err == nil || !strings.Contains(err.Error(), "version 1") || !strings.Contains(err.Error(), "gnnpart") {
		t.Fatalf("got %v, want an error naming version 1 and telling to re-run gnnpart", err)
	}
}
