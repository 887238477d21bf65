package interop

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

// file builds a safetensors file from a raw JSON header and data.
func file(header string, data []byte) []byte {
	b := make([]byte, 8, 8+len(header)+len(data))
	binary.LittleEndian.PutUint64(b, uint64(len(header)))
	return append(append(b, header...), data...)
}

func TestRoundTrip(t *testing.T) {
	in := map[string]*tensor.Dense{
		"a.weight": tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float32{1, 2, 3, 4, 5, -6.5})),
		"b":        tensor.New(tensor.WithShape(3), tensor.WithBacking([]float64{math.Pi, -0, 1e-300})),
	}
	path := filepath.Join(t.TempDir(), "m.safetensors")
	if err := WriteSafetensors(path, in, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	ts, err := ReadSafetensors(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := ts.Names(); len(got) != 2 || got[0] != "a.weight" || got[1] != "b" {
		t.Fatalf("names %v", got)
	}
	if ts.Metadata["format"] != "pt" {
		t.Errorf("metadata %v", ts.Metadata)
	}
	a := ts.Get("a.weight")
	if a.Dtype != F32 || len(a.Shape) != 2 || a.Shape[0] != 2 || a.Shape[1] != 3 {
		t.Fatalf("a: %s %v", a.Dtype, a.Shape)
	}
	for i, v := range a.Float32s() {
		if v != in["a.weight"].Data().([]float32)[i] {
			t.Errorf("a[%d] = %v", i, v)
		}
	}
	for i, v := range ts.Get("b").Float64s() {
		if v != in["b"].Data().([]float64)[i] {
			t.Errorf("b[%d] = %v", i, v)
		}
	}
	raw, _ := os.ReadFile(path)
	if n := binary.LittleEndian.Uint64(raw); (8+n)%8 != 0 {
		t.Errorf("header of %d bytes leaves the data unaligned", n)
	}
	if _, err := ts.Get("b").Int64s(); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("Int64s of a float tensor: %v", err)
	}
}

// TestDtypes decodes every accepted dtype, with F16 and BF16 special
// values (subnormals, infinities, signed zero) against their exact values.
func TestDtypes(t *testing.T) {
	le := binary.LittleEndian
	var d []byte
	f16 := []uint16{0x3c00, 0xc000, 0x0001, 0x03ff, 0x7bff, 0x7c00, 0x8000, 0x3555}
	want16 := []float64{1, -2, math.Ldexp(1, -24), 1023 * math.Ldexp(1, -24), 65504, math.Inf(1), 0, 0.333251953125}
	for _, h := range f16 {
		d = le.AppendUint16(d, h)
	}
	bf := []uint16{0x3f80, 0xc0a0, 0x7f80}
	wantBF := []float64{1, -5, math.Inf(1)}
	for _, h := range bf {
		d = le.AppendUint16(d, h)
	}
	d = le.AppendUint64(d, uint64(1<<62))
	d = le.AppendUint64(d, math.MaxUint64) // -1
	d = le.AppendUint32(d, math.MaxUint32) // -1
	header := `{"h":{"dtype":"F16","shape":[8],"data_offsets":[0,16]},` +
		`"bf":{"dtype":"BF16","shape":[3],"data_offsets":[16,22]},` +
		`"i":{"dtype":"I64","shape":[2],"data_offsets":[22,38]},` +
		`"j":{"dtype":"I32","shape":[],"data_offsets":[38,42]}}`
	ts, err := ParseSafetensors(file(header, d))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range ts.Get("h").Float64s() {
		if v != want16[i] {
			t.Errorf("F16 %#x = %v, want %v", f16[i], v, want16[i])
		}
	}
	if v := ts.Get("h").Float64s()[6]; !math.Signbit(v) {
		t.Errorf("F16 0x8000 lost its sign")
	}
	for i, v := range ts.Get("bf").Float32s() {
		if float64(v) != wantBF[i] {
			t.Errorf("BF16 %#x = %v, want %v", bf[i], v, wantBF[i])
		}
	}
	if v, _ := ts.Get("i").Int64s(); v[0] != 1<<62 || v[1] != -1 {
		t.Errorf("I64 %v", v)
	}
	if v, _ := ts.Get("j").Int64s(); len(v) != 1 || v[0] != -1 {
		t.Errorf("I32 scalar %v", v)
	}
	nan := halfToFloat32(0x7e00)
	if !math.IsNaN(float64(nan)) {
		t.Errorf("F16 NaN decoded as %v", nan)
	}
}

// TestMalformed checks that every kind of bad file is an error that names
// the tensor or the problem.
func TestMalformed(t *testing.T) {
	eight := make([]byte, 8)
	rec := func(name, dt, shape, off string) string {
		return `"` + name + `":{"dtype":"` + dt + `","shape":` + shape + `,"data_offsets":` + off + `}`
	}
	huge := make([]byte, 8)
	binary.LittleEndian.PutUint64(huge, 1<<40)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"short", []byte{1, 2, 3}, "too short"},
		{"header past end", file(`{}`, nil)[:9], "only 1 bytes follow"},
		{"header over limit", huge, "exceeds"},
		{"not json", file(`{"a":`, nil), "bad header"},
		{"not an object", file(`[1,2]`, nil), "not a JSON object"},
		{"trailing", file(`{} {}`, nil), "after the header"},
		{"duplicate", file(`{`+rec("a", "F32", "[2]", "[0,8]")+`,`+rec("a", "F32", "[2]", "[0,8]")+`}`, eight), `"a" appears twice`},
		{"unknown dtype", file(`{`+rec("w", "U8", "[8]", "[0,8]")+`}`, eight), `"w" has dtype "U8"`},
		{"negative dim", file(`{`+rec("w", "F32", "[-2]", "[0,8]")+`}`, eight), `"w" has negative dimension`},
		{"size mismatch", file(`{`+rec("w", "F32", "[3]", "[0,8]")+`}`, eight), `"w" of dtype F32 and shape [3] needs 12 bytes`},
		{"past end", file(`{`+rec("w", "F64", "[2]", "[0,16]")+`}`, eight), `"w" has data_offsets [0, 16] past the 8 bytes`},
		{"reversed", file(`{`+rec("w", "F32", "[0]", "[8,0]")+`}`, eight), "begin after end"},
		{"three offsets", file(`{`+rec("w", "F32", "[2]", "[0,8,8]")+`}`, eight), "3 data_offsets"},
		{"overlap", file(`{`+rec("a", "F32", "[2]", "[0,8]")+`,`+rec("b", "F32", "[1]", "[4,8]")+`}`, eight), `overlaps`},
		{"gap", file(`{`+rec("a", "F32", "[1]", "[4,8]")+`}`, eight), `4 unused bytes before tensor "a"`},
		{"trailing data", file(`{`+rec("a", "F32", "[1]", "[0,4]")+`}`, eight), "4 bytes after the last"},
		{"no dtype", file(`{"w":{"shape":[2],"data_offsets":[0,8]}}`, eight), `"w" has no dtype`},
		{"no shape", file(`{"w":{"dtype":"F32","data_offsets":[0,8]}}`, eight), `"w" has no shape`},
		{"no offsets", file(`{"w":{"dtype":"F32","shape":[2]}}`, eight), `"w" has no data_offsets`},
		{"unknown field", file(`{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}}`, eight), `"w": bad header record`},
		{"overflow", file(`{`+rec("w", "F64", "[4294967296,4294967296]", "[0,8]")+`}`, eight), "overflows"},
		{"rank", file(`{`+rec("w", "F32", "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]", "[0,4]")+`}`, eight[:4]), "17 dimensions"},
		{"bad metadata", file(`{"__metadata__":{"a":1}}`, nil), "__metadata__"},
		{"empty name", file(`{`+rec("", "F32", "[1]", "[0,4]")+`}`, eight[:4]), "empty name"},
	} {
		_, err := ParseSafetensors(c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := ReadSafetensors(filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Error("reading a missing file succeeded")
	}
}

// TestPaddedHeader accepts the spaces the reference writer pads with.
func TestPaddedHeader(t *testing.T) {
	ts, err := ParseSafetensors(file(`{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}    `, make([]byte, 4)))
	if err != nil || ts.Len() != 1 {
		t.Fatalf("%v", err)
	}
}

func TestMarshalErrors(t *testing.T) {
	if _, err := MarshalSafetensors(map[string]*tensor.Dense{"__metadata__": tensor.New(tensor.WithShape(1), tensor.WithBacking([]float32{1}))}, nil); err == nil {
		t.Error("reserved name accepted")
	}
	if _, err := MarshalSafetensors(map[string]*tensor.Dense{"i": tensor.New(tensor.WithShape(1), tensor.WithBacking([]int{1}))}, nil); err == nil || !strings.Contains(err.Error(), `"i"`) {
		t.Errorf("int tensor: %v", err)
	}
}

// FuzzParseSafetensors checks that no input panics and that whatever
// parses survives a round trip through MarshalSafetensors.
func FuzzParseSafetensors(f *testing.F) {
	good, _ := MarshalSafetensors(map[string]*tensor.Dense{
		"w": tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float32{1, 2, 3, 4})),
		"b": tensor.New(tensor.WithShape(2), tensor.WithBacking([]float64{5, 6})),
	}, map[string]string{"k": "v"})
	f.Add(good)
	f.Add(file(`{"h":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}`, make([]byte, 4)))
	f.Add(file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"I64","shape":[],"data_offsets":[4,12]}}`, make([]byte, 12)))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := ParseSafetensors(data)
		if err != nil {
			return
		}
		out := map[string]*tensor.Dense{}
		for _, n := range ts.Names() {
			x := ts.Get(n)
			if x.Len()*x.Dtype.Size() != len(x.data) {
				t.Fatalf("tensor %q: %d elements in %d bytes", n, x.Len(), len(x.data))
			}
			if x.Len() == 0 {
				continue // gorgonia's tensors cannot be empty
			}
			shape := append([]int{}, x.Shape...)
			if len(shape) == 0 {
				shape = []int{1}
			}
			out[n] = tensor.New(tensor.WithShape(shape...), tensor.WithBacking(x.Float64s()))
		}
		b, err := MarshalSafetensors(out, ts.Metadata)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseSafetensors(b)
		if err != nil {
			t.Fatalf("re-encoded file does not parse: %v", err)
		}
		if back.Len() != len(out) {
			t.Fatalf("%d tensors, %d after the round trip", len(out), back.Len())
		}
	})
}
