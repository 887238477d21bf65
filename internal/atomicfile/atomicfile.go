// Package atomicfile writes files so that a crash never leaves a
// half-written file under the final name: the data goes to a temporary file
// in the same directory, is synced, and is renamed over the target.
package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
)

// Write creates or replaces path with what write produces. On any error the
// temporary file is removed and path is left as it was.
func Write(path string, write func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		// Name the file asked for, not the temporary one's pattern.
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &os.PathError{Op: "create", Path: path, Err: err}
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	// Make the rename durable. Not every platform can sync a directory; the
	// file itself is already on disk.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
