package hetero

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBinaryRoundTrip writes the shipped heterograph and random ones
// and reads them back unchanged.
func TestBinaryRoundTrip(t *testing.T) {
	h, _, err := Load("testdata/small")
	if err != nil {
		t.Fatal(err)
	}
	hs := []*Graph{h}
	r := rand.New(rand.NewPCG(7, 8))
	for range 10 {
		hs = append(hs, randomHetero(t, r))
	}
	for i, h := range hs {
		var b bytes.Buffer
		if err := h.WriteBinary(&b); err != nil {
			t.Fatal(err)
		}
		got, err := ReadBinary(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("graph %d: %v", i, err)
		}
		sameGraph(t, "binary", h, got)
	}
}

// TestBinaryCorruption: every truncation and every flipped byte of a
// written heterograph is an error.
func TestBinaryCorruption(t *testing.T) {
	h, _, err := Load("testdata/small")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := h.WriteBinary(&b); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	for n := range len(data) {
		if _, err := ReadBinary(bytes.NewReader(data[:n])); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(data))
		}
	}
	for i := range data {
		c := bytes.Clone(data)
		c[i] ^= 0x41
		if _, err := ReadBinary(bytes.NewReader(c)); err == nil {
			t.Fatalf("byte %d flipped: no error", i)
		}
	}
	for _, c := range []struct {
		data []byte
		want string
	}{
		{[]byte("GNNGRAPH\x01\x00\x00\x00\x00\x00\x00\x00"), `not a binary heterograph (magic "GNNGRAPH")`},
		{[]byte("GNNHETER\x02\x00\x00\x00\x00\x00\x00\x00"), "version 2"},
		{[]byte("GNNHETER\x01\x00\x00\x00\xff\xff\xff\xff"), "exceeds"},
		{append([]byte("GNNHETER\x01\x00\x00\x00\x08\x00\x00\x00"), 0, 0, 0, 0), "4 bytes follow"},
	} {
		if _, err := ReadBinary(bytes.NewReader(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want it to contain %q", c.data, err, c.want)
		}
	}
}

func FuzzReadBinary(f *testing.F) {
	h, _, err := Load("testdata/small")
	if err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if err := h.WriteBinary(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadBinary(bytes.NewReader(data))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := h.WriteBinary(&out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), data[:out.Len()]) {
			t.Fatal("a graph read back writes other bytes")
		}
	})
}
