package sampling

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseFanouts reads a list of fan-outs as commands take them, "15,10,5"
// (the input layer's first): each a number of neighbours sampled per node,
// at least 0, or -1 for every neighbour. The error says what was wrong.
func ParseFanouts(s string) ([]int, error) {
	var fanouts []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < -1 {
			return nil, fmt.Errorf("%q: want comma-separated numbers, each -1 (all) or at least 0", s)
		}
		fanouts = append(fanouts, k)
	}
	return fanouts, nil
}
