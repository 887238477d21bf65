package dataset

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gnngo/gnn/graph"
)

// LoadPlanetoid reads a Planetoid citation dataset (Cora, CiteSeer, PubMed;
// Yang et al., ICML 2016) converted to text, with the node order, features,
// labels and split of PyG's Planetoid loader. dir holds five files, all
// indices 0-based node IDs in [0, num_nodes):
//
//   - meta.txt: "key=value" lines giving name, num_nodes, num_edges,
//     num_features, num_classes, feature_nnz, num_train, num_val, num_test
//     and features_complete (0 or 1); every key exactly once, no others.
//   - edges.txt: one directed edge "src dst" per line, read with
//     graph.ReadEdgeList; the line order is the edge-ID order.
//   - features.txt.gz: gzip'd text of exactly num_nodes lines; line i holds
//     node i's non-zeros as space-separated "col:value" pairs, columns
//     ascending in [0, num_features), values finite float32. An empty line
//     is an all-zero row.
//   - labels.txt: num_nodes lines, line i the class of node i in
//     [0, num_classes).
//   - split.txt: three lines "train i i ...", "val i ...", "test i ...", IDs
//     ascending, the three sets disjoint.
//
// Everything is checked against meta.txt (node, edge, non-zero and split
// counts, column, label and ID ranges) and a mismatch is an error naming
// the file and, where there is one, the line. Counts that only size later
// allocations are bounded by what the files hold: num_features by
// max(feature_nnz, 65536), num_classes by max(num_nodes, 65536). Blank lines are skipped in
// meta.txt and split.txt only.
//
// The Dataset's Name is meta.txt's name. Features are returned sparse (CSR)
// with the raw values; PyG's examples row-normalise them, which
// Features.RowNormalize does. meta.txt's features_complete=0 marks a file
// whose feature rows are partly missing: such features load but do not
// reproduce published accuracies.
func LoadPlanetoid(dir string) (*Dataset, error) {
	m, err := readPlanetoidMeta(filepath.Join(dir, "meta.txt"))
	if err != nil {
		return nil, err
	}
	g, err := readPlanetoidEdges(filepath.Join(dir, "edges.txt"), m)
	if err != nil {
		return nil, err
	}
	feat, err := readPlanetoidFeatures(filepath.Join(dir, "features.txt.gz"), m)
	if err != nil {
		return nil, err
	}
	labels, err := readPlanetoidLabels(filepath.Join(dir, "labels.txt"), m)
	if err != nil {
		return nil, err
	}
	split, err := readPlanetoidSplit(filepath.Join(dir, "split.txt"), m)
	if err != nil {
		return nil, err
	}
	return &Dataset{
		Name:       m.name,
		Graph:      g,
		Features:   feat,
		Labels:     labels,
		NumClasses: m.classes,
		Train:      split[0],
		Val:        split[1],
		Test:       split[2],
	}, nil
}

// planetoidMeta is the content of meta.txt.
type planetoidMeta struct {
	name                                 string
	nodes, edges, features, classes, nnz int
	train, val, test                     int
	featuresComplete                     int
}

// maxLineBytes bounds a line of the text files (a PubMed feature row is
// about 10 kB).
const maxLineBytes = 64 << 20

// minPlanetoidLimit is the smallest bound on num_features and num_classes
// (see readPlanetoidMeta).
const minPlanetoidLimit = 1 << 16

// allocHint caps slice capacities taken from meta.txt, which is not
// trusted for allocation: slices grow past it as data arrives.
func allocHint(n int) int { return min(n, 1<<20) }

func readPlanetoidMeta(path string) (planetoidMeta, error) {
	var m planetoidMeta
	ints := []struct {
		key string
		v   *int
		max int
	}{
		{"num_nodes", &m.nodes, graph.MaxNodes},
		{"num_edges", &m.edges, math.MaxInt},
		{"num_features", &m.features, math.MaxInt32},
		{"num_classes", &m.classes, math.MaxInt32},
		{"feature_nnz", &m.nnz, math.MaxInt},
		{"num_train", &m.train, graph.MaxNodes},
		{"num_val", &m.val, graph.MaxNodes},
		{"num_test", &m.test, graph.MaxNodes},
		{"features_complete", &m.featuresComplete, 1},
	}
	seen := map[string]bool{}
	err := readLines(path, false, func(line []byte) error {
		text := strings.TrimSpace(string(line))
		if text == "" {
			return nil
		}
		key, value, ok := strings.Cut(text, "=")
		if !ok {
			return fmt.Errorf("%q: want key=value", text)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if seen[key] {
			return fmt.Errorf("duplicate key %q", key)
		}
		seen[key] = true
		if key == "name" {
			if value == "" {
				return errors.New("empty name")
			}
			m.name = value
			return nil
		}
		for _, f := range ints {
			if f.key != key {
				continue
			}
			v, err := strconv.Atoi(value)
			if err != nil || v < 0 || v > f.max {
				return fmt.Errorf("%s=%q: want an integer in [0, %d]", key, value, f.max)
			}
			*f.v = v
			return nil
		}
		return fmt.Errorf("unknown key %q", key)
	})
	if err != nil {
		return m, err
	}
	var missing []string
	if !seen["name"] {
		missing = append(missing, "name")
	}
	for _, f := range ints {
		if !seen[f.key] {
			missing = append(missing, f.key)
		}
	}
	if len(missing) > 0 {
		return m, fmt.Errorf("dataset: %s: missing %s", path, strings.Join(missing, ", "))
	}
	if s := m.train + m.val + m.test; s > m.nodes {
		return m, fmt.Errorf("dataset: %s: num_train+num_val+num_test = %d exceeds num_nodes=%d", path, s, m.nodes)
	}
	if uint64(m.nnz) > uint64(m.nodes)*uint64(m.features) {
		return m, fmt.Errorf("dataset: %s: feature_nnz=%d exceeds num_nodes*num_features = %d*%d", path, m.nnz, m.nodes, m.features)
	}
	// Column and class counts size the layers' weights but no file can
	// confirm them: bound them by the counts the files are checked against.
	if lim := max(m.nnz, minPlanetoidLimit); m.features > lim {
		return m, fmt.Errorf("dataset: %s: num_features=%d exceeds max(feature_nnz, %d) = %d: the features file cannot hold a non-zero in that many columns", path, m.features, minPlanetoidLimit, lim)
	}
	if lim := max(m.nodes, minPlanetoidLimit); m.classes > lim {
		return m, fmt.Errorf("dataset: %s: num_classes=%d exceeds max(num_nodes, %d) = %d: the labels file cannot hold that many classes", path, m.classes, minPlanetoidLimit, lim)
	}
	return m, nil
}

func readPlanetoidEdges(path string, m planetoidMeta) (*graph.Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	g, err := graph.ReadEdgeList(f, graph.EdgeListOptions{NumNodes: m.nodes})
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	if g.NumEdges() != m.edges {
		return nil, fmt.Errorf("dataset: %s: %d edges, want num_edges=%d", path, g.NumEdges(), m.edges)
	}
	if g.NumNodes() != m.nodes { // only num_nodes=0, which ReadEdgeList reads as "infer"
		return nil, fmt.Errorf("dataset: %s: edges between %d nodes, but num_nodes=%d", path, g.NumNodes(), m.nodes)
	}
	return g, nil
}

func readPlanetoidFeatures(path string, m planetoidMeta) (*Features, error) {
	feat := &Features{
		Rows:    m.nodes,
		Cols:    m.features,
		Indptr:  make([]int64, 1, allocHint(m.nodes)+1),
		Indices: make([]int32, 0, allocHint(m.nnz)),
		Values:  make([]float32, 0, allocHint(m.nnz)),
	}
	rows := 0
	err := readLines(path, true, func(line []byte) error {
		if rows == m.nodes {
			return fmt.Errorf("more than num_nodes=%d lines", m.nodes)
		}
		var err error
		feat.Indices, feat.Values, err = parseFeatureLine(line, m.features, feat.Indices, feat.Values)
		if err != nil {
			return err
		}
		if len(feat.Values) > m.nnz {
			return fmt.Errorf("more than feature_nnz=%d non-zeros", m.nnz)
		}
		feat.Indptr = append(feat.Indptr, int64(len(feat.Values)))
		rows++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rows != m.nodes {
		return nil, fmt.Errorf("dataset: %s: %d lines, want num_nodes=%d", path, rows, m.nodes)
	}
	if len(feat.Values) != m.nnz {
		return nil, fmt.Errorf("dataset: %s: %d non-zeros, want feature_nnz=%d", path, len(feat.Values), m.nnz)
	}
	return feat, nil
}

// parseFeatureLine appends the "col:value" pairs of one features.txt line
// to indices and values. Pairs are separated by spaces or tabs; columns must
// be ascending in [0, numCols) and values finite float32.
func parseFeatureLine(line []byte, numCols int, indices []int32, values []float32) ([]int32, []float32, error) {
	prev := -1
	for pair := 1; ; pair++ {
		line = bytes.TrimLeft(line, " \t\r")
		if len(line) == 0 {
			return indices, values, nil
		}
		end := bytes.IndexAny(line, " \t\r")
		if end < 0 {
			end = len(line)
		}
		field := line[:end]
		line = line[end:]
		colText, valueText, ok := bytes.Cut(field, []byte(":"))
		if !ok {
			return indices, values, fmt.Errorf("pair %d %q: want col:value", pair, field)
		}
		col, ok := parseIndex(colText)
		if !ok {
			return indices, values, fmt.Errorf("pair %d %q: column %q is not a non-negative integer", pair, field, colText)
		}
		if col >= numCols {
			return indices, values, fmt.Errorf("pair %d %q: column %d out of range [0, %d)", pair, field, col, numCols)
		}
		if col <= prev {
			return indices, values, fmt.Errorf("pair %d %q: column %d after column %d: columns must ascend", pair, field, col, prev)
		}
		v, err := strconv.ParseFloat(string(valueText), 32)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return indices, values, fmt.Errorf("pair %d %q: value %q is not a number", pair, field, valueText)
		}
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return indices, values, fmt.Errorf("pair %d %q: value %q is not a finite float32", pair, field, valueText)
		}
		prev = col
		indices = append(indices, int32(col))
		values = append(values, float32(v))
	}
}

// parseIndex parses an unsigned decimal integer that fits in int32.
func parseIndex(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, v <= math.MaxInt32
}

func readPlanetoidLabels(path string, m planetoidMeta) ([]int32, error) {
	labels := make([]int32, 0, allocHint(m.nodes))
	err := readLines(path, false, func(line []byte) error {
		if len(labels) == m.nodes {
			return fmt.Errorf("more than num_nodes=%d lines", m.nodes)
		}
		text := bytes.TrimSpace(line)
		c, ok := parseIndex(text)
		if !ok {
			return fmt.Errorf("label %q is not a non-negative integer", text)
		}
		if c >= m.classes {
			return fmt.Errorf("label %d out of range [0, num_classes=%d)", c, m.classes)
		}
		labels = append(labels, int32(c))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(labels) != m.nodes {
		return nil, fmt.Errorf("dataset: %s: %d lines, want num_nodes=%d", path, len(labels), m.nodes)
	}
	return labels, nil
}

// readPlanetoidSplit returns the train, validation and test node IDs.
func readPlanetoidSplit(path string, m planetoidMeta) ([3][]int32, error) {
	names := [3]string{"train", "val", "test"}
	counts := [3]int{m.train, m.val, m.test}
	var split [3][]int32
	owner := map[int32]int{} // node ID -> index of its split
	k := 0                   // the split the next line holds
	err := readLines(path, false, func(line []byte) error {
		fields := strings.Fields(string(line))
		if len(fields) == 0 {
			return nil
		}
		if k == len(names) {
			return fmt.Errorf("unexpected line after the test split")
		}
		if fields[0] != names[k] {
			return fmt.Errorf("line starts with %q, want %q", fields[0], names[k])
		}
		if n := len(fields) - 1; n != counts[k] {
			return fmt.Errorf("%d %s IDs, want num_%s=%d", n, names[k], names[k], counts[k])
		}
		ids := make([]int32, 0, len(fields)-1)
		for _, f := range fields[1:] {
			v, ok := parseIndex([]byte(f))
			switch {
			case !ok:
				return fmt.Errorf("%s ID %q is not a non-negative integer", names[k], f)
			case v >= m.nodes:
				return fmt.Errorf("%s ID %d out of range [0, num_nodes=%d)", names[k], v, m.nodes)
			case len(ids) > 0 && int32(v) <= ids[len(ids)-1]:
				return fmt.Errorf("%s ID %d after %d: IDs must ascend", names[k], v, ids[len(ids)-1])
			}
			if j, dup := owner[int32(v)]; dup {
				return fmt.Errorf("node %d is in both %s and %s", v, names[j], names[k])
			}
			owner[int32(v)] = k
			ids = append(ids, int32(v))
		}
		split[k] = ids
		k++
		return nil
	})
	if err != nil {
		return split, err
	}
	if k < len(names) {
		return split, fmt.Errorf("dataset: %s: missing the %s line", path, names[k])
	}
	return split, nil
}

// readLines calls fn with every line of the file at path (gunzipped when
// gz is set), without its line ending. An error from fn is returned as
// "dataset: path: line N: err".
func readLines(path string, gz bool, fn func(line []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	if gz {
		return gunzipLines(f, path, fn)
	}
	return scanLines(f, path, fn)
}

// gunzipLines is scanLines over the gzip stream read from r.
func gunzipLines(r io.Reader, path string, fn func(line []byte) error) error {
	zr, err := gzip.NewReader(bufio.NewReaderSize(r, 1<<16))
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("dataset: %s: truncated: no complete gzip header", path)
		}
		return fmt.Errorf("dataset: %s: %w", path, err)
	}
	defer zr.Close()
	ra := newReadAhead(zr)
	defer ra.Close()
	return scanLines(ra, path, fn)
}

// scanLines is readLines over an open reader. When reading fails (a
// truncated gzip stream, say) the error is the read error, even if the
// partial last line that the scanner still delivers is also malformed.
func scanLines(r io.Reader, path string, fn func(line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	n := 0
	for sc.Scan() {
		n++
		if err := fn(sc.Bytes()); err != nil {
			if sc.Err() != nil { // the line ends where the input broke off
				n--
				break
			}
			return fmt.Errorf("dataset: %s: line %d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("dataset: %s: line %d: longer than %d bytes", path, n+1, maxLineBytes)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("dataset: %s: truncated after line %d: %w", path, n, err)
		}
		return fmt.Errorf("dataset: %s: after line %d: %w", path, n, err)
	}
	return nil
}
