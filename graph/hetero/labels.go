package hetero

import (
	"fmt"
	"io"
	"math"
	"strconv"
)

// maxIDLine bounds a line of a label or node ID file.
const maxIDLine = 1 << 10

// ReadLabels reads the class labels of rows nodes: one integer in
// [0, 2^31) per line, '#' starting a comment. It returns an error naming
// the line when a label is not such an integer or there are not exactly
// rows labels.
func ReadLabels(r io.Reader, rows int) ([]int32, error) {
	labels := make([]int32, 0, min(rows, 1<<16))
	err := scanLines(r, maxIDLine, func(line int, text []byte) error {
		if len(labels) == rows {
			return fmt.Errorf("hetero: labels line %d: more than %d labels", line, rows)
		}
		v, err := strconv.ParseInt(string(text), 10, 64)
		if err != nil || v < 0 || v > math.MaxInt32 {
			return fmt.Errorf("hetero: labels line %d: %q is not a class in [0, %d]", line, quote(text), math.MaxInt32)
		}
		labels = append(labels, int32(v))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(labels) != rows {
		return nil, fmt.Errorf("hetero: %d labels for %d nodes", len(labels), rows)
	}
	return labels, nil
}

// ReadNodeIDs reads a set of node IDs of a type with count nodes, such as
// a split: one ID in [0, count) per line, '#' starting a comment, in the
// order given. It returns an error naming the line when an ID is not such
// an integer or repeats an earlier line's.
func ReadNodeIDs(r io.Reader, count int) ([]int32, error) {
	ids := []int32{}
	seen := map[int32]int{}
	err := scanLines(r, maxIDLine, func(line int, text []byte) error {
		v, err := strconv.ParseInt(string(text), 10, 64)
		if err != nil || v < 0 || v >= int64(count) {
			return fmt.Errorf("hetero: node IDs line %d: %q is not a node ID in [0, %d)", line, quote(text), count)
		}
		if j, dup := seen[int32(v)]; dup {
			return fmt.Errorf("hetero: node IDs line %d: node %d is also on line %d", line, v, j)
		}
		seen[int32(v)] = line
		ids = append(ids, int32(v))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}
