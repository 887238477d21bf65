package limits

import (
	"math"
	"strings"
	"testing"
)

func TestParseMemTotal(t *testing.T) {
	n, ok := parseMemTotal([]byte("MemFree:  10 kB\nMemTotal:       24683656 kB\n"))
	if !ok || n != 24683656<<10 {
		t.Fatalf("got %d %v", n, ok)
	}
	if _, ok := parseMemTotal([]byte("nothing")); ok {
		t.Fatal("no MemTotal line parsed")
	}
	if Memory() <= 0 {
		t.Fatal("Memory() <= 0")
	}
}

func TestCount(t *testing.T) {
	if err := Count("-parts", MaxCount); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{-1, MaxCount + 1, math.MaxInt64} {
		if err := Count("-parts", n); err == nil || !strings.HasPrefix(err.Error(), "-parts ") {
			t.Errorf("Count(%d) = %v, want an error naming -parts", n, err)
		}
	}
}

func TestBytes(t *testing.T) {
	if err := bytesWithin("-hidden 10", 1e9, 2e9); err != nil {
		t.Fatal(err)
	}
	for _, b := range []float64{3e9, math.Inf(1), math.NaN()} {
		err := bytesWithin("-hidden 10", b, 2e9)
		if err == nil || !strings.Contains(err.Error(), "-hidden 10 needs about") || !strings.Contains(err.Error(), "2.0 GB") {
			t.Errorf("%v bytes: got %v", b, err)
		}
	}
	if err := Bytes("x", 1e30); err == nil {
		t.Fatal("1e30 bytes fit")
	}
}
