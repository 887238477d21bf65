package dataset

import (
	"errors"
	"io/fs"
	"os"
)

// missing reports whether err says that a file does not exist, wrapped or
// not: the loaders skip a missing optional file and name a missing
// required one.
func missing(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// exists reports whether path names a file (a missing optional file is
// skipped; any other problem is left to the reader to report).
func exists(path string) bool {
	_, err := os.Stat(path)
	return !missing(err)
}
