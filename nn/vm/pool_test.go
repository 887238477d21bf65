package vm

import (
	"testing"

	"gorgonia.org/tensor"
)

// TestPoolBestFit checks that a value with no free buffer of its size
// takes a view of the smallest free buffer of up to four times its size,
// that giving the view back frees the whole buffer, and that a buffer
// more than four times the size, or of another dtype, is not used.
func TestPoolBestFit(t *testing.T) {
	p := NewPool()
	f32 := func(n int) key { return key{tensor.Float32, n} }
	big := p.get(f32(100), tensor.Shape{10, 10})
	bigger := p.get(f32(300), tensor.Shape{300})
	p.put(big)
	p.put(bigger)
	if s := p.Stats(); s.Buffers != 2 || s.InUse != 0 {
		t.Fatalf("after two gets and puts: %+v", s)
	}

	v := p.get(f32(60), tensor.Shape{6, 10})
	if s := p.Stats(); s.Buffers != 2 {
		t.Fatalf("a value of 60 allocated a buffer with one of 100 free: %+v", s)
	}
	if !v.Shape().Eq(tensor.Shape{6, 10}) || len(v.Data().([]float32)) != 60 {
		t.Fatalf("view has shape %v and %d elements", v.Shape(), len(v.Data().([]float32)))
	}
	if v.Uintptr() != big.Uintptr() {
		t.Fatal("the value of 60 is not in the smallest buffer that fits (100)")
	}
	if in := p.Stats().InUse; in != 400 {
		t.Fatalf("in use %d bytes, want the whole buffer's 400", in)
	}
	p.put(v)
	if w := p.get(f32(100), tensor.Shape{100}); w != big {
		t.Fatal("the buffer of the view did not come back whole")
	}
	if p.Stats().InUse != 400 || len(p.whole) != 0 {
		t.Fatalf("after the view's return: %+v, %d views", p.Stats(), len(p.whole))
	}

	// 50 * 4 < 300: the buffer of 300 is too large for 50.
	if w := p.get(f32(50), tensor.Shape{50}); w.Uintptr() == bigger.Uintptr() || p.Stats().Buffers != 3 {
		t.Fatalf("a value of 50 took the buffer of 300: %+v", p.Stats())
	}
	if w := p.get(key{tensor.Float64, 80}, tensor.Shape{80}); w.Uintptr() == bigger.Uintptr() || p.Stats().Buffers != 4 {
		t.Fatalf("a float64 value took a float32 buffer: %+v", p.Stats())
	}
	if w := p.get(f32(80), tensor.Shape{80}); w.Uintptr() != bigger.Uintptr() {
		t.Fatal("a value of 80 did not take the free buffer of 300")
	}
}
