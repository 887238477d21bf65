package sampling

import (
	"slices"
	"testing"
)

func TestParseFanouts(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
	}{{"15,10,5", []int{15, 10, 5}}, {" -1 , 0", []int{-1, 0}}, {"7", []int{7}}} {
		got, err := ParseFanouts(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseFanouts(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "10,x", "10,-2", "1.5", "10,,5"} {
		if _, err := ParseFanouts(bad); err == nil {
			t.Errorf("ParseFanouts(%q) gave no error", bad)
		}
	}
}
