package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorNamesTarget: when the temporary file cannot be created, the
// error names the file asked for, not the temporary file's pattern.
func TestErrorNamesTarget(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "x.txt")
	err := Write(path, func(w io.Writer) error { return nil })
	if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".tmp-") || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("got %v, want an error naming %s (not a temporary file), wrapping ErrNotExist", err, path)
	}
}
