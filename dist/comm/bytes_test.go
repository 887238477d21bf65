package comm

import (
	"math"
	"strings"
	"testing"
)

func TestTypedRoundTrip(t *testing.T) {
	f32 := []float32{1, -2.5, float32(math.Inf(1)), 3e-40}
	got32, err := BytesToFloat32s(Float32sToBytes(f32))
	if err != nil || len(got32) != len(f32) {
		t.Fatalf("float32: %v %v", got32, err)
	}
	for i := range f32 {
		if math.Float32bits(got32[i]) != math.Float32bits(f32[i]) {
			t.Fatalf("float32 [%d]: %v != %v", i, got32[i], f32[i])
		}
	}
	f64 := []float64{math.Pi, -0.0, math.NaN()}
	got64, err := BytesToFloat64s(Float64sToBytes(f64))
	if err != nil {
		t.Fatal(err)
	}
	for i := range f64 {
		if math.Float64bits(got64[i]) != math.Float64bits(f64[i]) {
			t.Fatalf("float64 [%d]", i)
		}
	}
	i32 := []int32{-1, 1 << 30, 7}
	gi32, err := BytesToInt32s(Int32sToBytes(i32))
	if err != nil || gi32[0] != -1 || gi32[1] != 1<<30 || gi32[2] != 7 {
		t.Fatalf("int32: %v %v", gi32, err)
	}
	i64 := []int64{-1 << 40, 5}
	gi64, err := BytesToInt64s(Int64sToBytes(i64))
	if err != nil || gi64[0] != -1<<40 || gi64[1] != 5 {
		t.Fatalf("int64: %v %v", gi64, err)
	}
	if b := Float32sToBytes(nil); len(b) != 0 {
		t.Fatalf("nil gave %d bytes", len(b))
	}
	if s, err := BytesToFloat64s(nil); err != nil || len(s) != 0 {
		t.Fatalf("nil: %v %v", s, err)
	}
}

// TestBytesViewAndCopy: an aligned buffer is viewed, an unaligned one copied.
func TestBytesViewAndCopy(t *testing.T) {
	// Heap memory of a []float64 is 8-byte aligned.
	buf := Float64sToBytes(make([]float64, 3))[:17]
	s, err := BytesToFloat32s(buf[:16])
	if err != nil {
		t.Fatal(err)
	}
	s[0] = 1
	if buf[0] == 0 && buf[3] == 0 {
		t.Fatal("an aligned buffer was copied")
	}
	odd := buf[1:17]                                  // never 4-byte aligned
	odd[0], odd[1], odd[2], odd[3] = 0, 0, 0x80, 0x3f // 1.0 little endian
	u, err := BytesToFloat32s(odd)
	if err != nil {
		t.Fatal(err)
	}
	if u[0] != 1 {
		t.Fatalf("unaligned read gave %v", u[0])
	}
}

func TestBytesBadLength(t *testing.T) {
	_, err := BytesToFloat64s(make([]byte, 12))
	if err == nil || !strings.Contains(err.Error(), "12 bytes are not a whole number of float64s (8 bytes each)") {
		t.Fatalf("got %v", err)
	}
	if _, err := BytesToInt32s(make([]byte, 3)); err == nil {
		t.Fatal("3 bytes accepted as int32s")
	}
}
