package dataset

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// TestReadAhead checks that the bytes and the final error of the underlying
// reader pass through unchanged, and that Close stops a reader not read to
// the end.
func TestReadAhead(t *testing.T) {
	data := make([]byte, 3*readAheadBlock+17)
	for i := range data {
		data[i] = byte(i * 7)
	}
	cut := errors.New("cut")
	for _, tc := range []struct {
		name string
		r    io.Reader
		want error
	}{
		{"whole", bytes.NewReader(data), nil},
		{"one byte at a time", iotest.OneByteReader(bytes.NewReader(data[:1000])), nil},
		{"unexpected EOF", io.MultiReader(bytes.NewReader(data), iotest.ErrReader(io.ErrUnexpectedEOF)), io.ErrUnexpectedEOF},
		{"error", io.MultiReader(bytes.NewReader(data), iotest.ErrReader(cut)), cut},
	} {
		ra := newReadAhead(tc.r)
		got, err := io.ReadAll(iotest.HalfReader(ra))
		ra.Close()
		n := len(data)
		if tc.name == "one byte at a time" {
			n = 1000
		}
		if err != tc.want || !bytes.Equal(got, data[:n]) {
			t.Errorf("%s: %d bytes, error %v; want %d bytes, error %v", tc.name, len(got), err, n, tc.want)
		}
	}
	ra := newReadAhead(bytes.NewReader(data))
	if _, err := ra.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	ra.Close() // must not hang with blocks still queued
}
