package dataset

import (
	"math"
	"slices"
	"strconv"
	"testing"
)

// FuzzParseFeatureLine checks that no features.txt line makes the parser
// panic, that an accepted line yields ascending in-range columns and finite
// values appended after the existing ones, and that the values written in
// shortest form parse back to the same row.
func FuzzParseFeatureLine(f *testing.F) {
	for _, s := range []string{
		"", "19:1 81:1 146:1", "7:0.0049993712 11:0.048049156", "0:1\t2:0.5\r", "  3:-2e-3  ",
		"2:1 0:1", "1:1 1:1", "5", ":1", "1:", "9:1", "-1:1", "1:nan", "1:1e39", "1:0x1p-2",
		"4294967297:1", "1:1:1", "0:1 \x00:2",
	} {
		f.Add(s, 8)
	}
	f.Fuzz(func(t *testing.T, line string, numCols int) {
		prefixIdx, prefixVal := []int32{42}, []float32{-1}
		idx, val, err := parseFeatureLine([]byte(line), numCols, prefixIdx, prefixVal)
		if err != nil {
			return
		}
		if len(idx) != len(val) || idx[0] != 42 || val[0] != -1 {
			t.Fatalf("result %v %v lost the prefix or its length", idx, val)
		}
		idx, val = idx[1:], val[1:]
		var text []byte
		for i, c := range idx {
			if c < 0 || int(c) >= numCols || i > 0 && c <= idx[i-1] {
				t.Fatalf("columns %v not ascending in [0, %d)", idx, numCols)
			}
			if math.IsNaN(float64(val[i])) || math.IsInf(float64(val[i]), 0) {
				t.Fatalf("value %v accepted", val[i])
			}
			text = strconv.AppendInt(text, int64(c), 10)
			text = append(text, ':')
			text = strconv.AppendFloat(text, float64(val[i]), 'g', -1, 32)
			text = append(text, ' ')
		}
		idx2, val2, err := parseFeatureLine(text, numCols, nil, nil)
		if err != nil || !slices.Equal(idx, idx2) || !slices.Equal(val, val2) {
			t.Fatalf("re-parsing %q: %v %v %v, want %v %v", text, idx2, val2, err, idx, val)
		}
	})
}
