package interop

import (
	"fmt"
	"testing"

	"gorgonia.org/tensor"
)

// BenchmarkParseSafetensors parses a file of 16 float32 tensors and
// converts each to float32 and float64, as a conversion does.
func BenchmarkParseSafetensors(b *testing.B) {
	for _, elems := range []int{1 << 12, 1 << 18} {
		m := map[string]*tensor.Dense{}
		for i := range 16 {
			m[fmt.Sprintf("layer%d.weight", i)] = tensor.New(tensor.WithShape(elems), tensor.WithBacking(make([]float32, elems)))
		}
		data, err := MarshalSafetensors(m, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("tensors=16/elems=%d", elems), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for range b.N {
				ts, err := ParseSafetensors(data)
				if err != nil {
					b.Fatal(err)
				}
				for _, n := range ts.Names() {
					_ = ts.Get(n).Float32s()
					_ = ts.Get(n).Float64s()
				}
			}
		})
	}
}
