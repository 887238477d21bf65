package dataset

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOGBWideFeaturesError: a first feature row wider than the compressed
// file can hold for every declared row is an error with one "dataset: PATH:"
// prefix, not two.
func TestOGBWideFeaturesError(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(strings.Repeat("0,", 99999) + "0\n"))
	zw.Close()
	path := filepath.Join(t.TempDir(), "node-feat.csv.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := readOGBFeatures(path, 1000)
	if err == nil || !strings.Contains(err.Error(), "1000 rows of 100000 columns cannot be held") || strings.Count(err.Error(), "dataset: ") != 1 {
		t.Fatalf("got %v, want one prefix and the width", err)
	}
}
