package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gnngo/gnn/graph"
)

// OGBOptions configures LoadOGB with what OGB keeps in its package's
// master.csv rather than in the dataset's files. OGBOptionsFor returns them
// for the datasets it knows.
type OGBOptions struct {
	// Name is the Dataset's name; empty means the directory's base name.
	Name string

	// Split is the splitting scheme, the folder under split/ ("time" for
	// ogbn-arxiv, "sales_ranking" for ogbn-products). Empty means the only
	// folder there; several folders are then an error.
	Split string

	// NumClasses is the number of classes; zero means the largest label
	// plus one. A label at or above a declared count is an error.
	NumClasses int

	// AddInverseEdges reads edge.csv.gz as OGB does for undirected graphs
	// (master.csv's add_inverse_edge, true for ogbn-products): the file
	// stores each pair once, and row i becomes edges 2i (src -> dst) and
	// 2i+1 (dst -> src), the edge order of OGB's PyG and DGL loaders.
	AddInverseEdges bool
}

// ogbNodeDatasets holds master.csv's settings of the node-property datasets
// in OGB's CSV layout.
var ogbNodeDatasets = map[string]OGBOptions{
	"ogbn-arxiv":    {Name: "ogbn-arxiv", Split: "time", NumClasses: 40},
	"ogbn-products": {Name: "ogbn-products", Split: "sales_ranking", NumClasses: 47, AddInverseEdges: true},
}

// OGBOptionsFor returns the options of the OGB dataset stored in dir,
// recognised by the directory's base name: OGB's ogbn_arxiv and
// ogbn_products, their dashed names, or the arxiv and products folders of
// OGB's zip files. For any other name it returns zero options (only the
// Name set to the base name) and false.
func OGBOptionsFor(dir string) (OGBOptions, bool) {
	base, name := ogbName(dir, "ogbn-")
	if o, ok := ogbNodeDatasets[name]; ok {
		return o, true
	}
	return OGBOptions{Name: base}, false
}

// ogbName returns the base name of dir and the OGB dataset name it stands
// for: dashed, with prefix ("ogbn-", "ogbl-") added when missing.
func ogbName(dir, prefix string) (base, name string) {
	base = filepath.Base(filepath.Clean(dir))
	name = strings.ReplaceAll(base, "_", "-")
	if !strings.HasPrefix(name, prefix) {
		name = prefix + name
	}
	return base, name
}

// IsOGB reports whether dir holds a dataset in OGB's layout, that is a
// raw/edge.csv.gz file.
func IsOGB(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "raw", "edge.csv.gz"))
	return err == nil && st.Mode().IsRegular()
}

// LoadOGB reads a node-property-prediction dataset in the raw layout of the
// Open Graph Benchmark (Hu et al., NeurIPS 2020), as OGB's download of
// ogbn-arxiv or ogbn-products unpacks it. dir holds, all files gzip'd CSV
// without a header, node IDs 0-based:
//
//   - raw/num-node-list.csv.gz: one line, the node count N.
//   - raw/num-edge-list.csv.gz: one line, the number of rows E of edge.csv.gz.
//   - raw/edge.csv.gz: E rows "src,dst"; the row order is the edge-ID order
//     (see OGBOptions.AddInverseEdges for undirected graphs).
//   - raw/node-feat.csv.gz: N rows of D comma-separated numbers, the same
//     D on every row, finite as float32.
//   - raw/node-label.csv.gz: N rows, each one integer class (a number such
//     as "3.0" is accepted when it is an integer). Files with several label
//     columns (multi-task datasets such as ogbn-proteins) are rejected.
//   - split/<scheme>/train.csv.gz, valid.csv.gz and test.csv.gz: one node
//     ID per row, the three sets disjoint and without repeats. They are
//     returned sorted, as Dataset documents.
//
// Other files (mapping/, raw/node_year.csv.gz, processed/) are ignored.
// Every file is streamed: none is read into memory whole, and the
// declared counts are checked against what the compressed file can hold
// before anything of their size is allocated. Every error names the file
// and, where there is one, the line; a file that ends early (fewer rows
// than declared, or a gzip stream cut short) is reported as truncated.
// Features are returned dense and unnormalised.
func LoadOGB(dir string, opts OGBOptions) (*Dataset, error) {
	if opts.NumClasses < 0 || opts.NumClasses > math.MaxInt32 {
		return nil, fmt.Errorf("dataset: ogb: NumClasses %d outside [0, %d]", opts.NumClasses, math.MaxInt32)
	}
	raw := filepath.Join(dir, "raw")
	g, err := readOGBGraph(raw, opts.AddInverseEdges)
	if err != nil {
		return nil, err
	}
	n := g.NumNodes()
	feat, err := readOGBFeatures(filepath.Join(raw, "node-feat.csv.gz"), n)
	if err != nil {
		return nil, err
	}
	labels, classes, err := readOGBLabels(filepath.Join(raw, "node-label.csv.gz"), n, opts.NumClasses)
	if err != nil {
		return nil, err
	}
	scheme, err := ogbSplitScheme(dir, opts.Split)
	if err != nil {
		return nil, err
	}
	split, err := readOGBSplit(filepath.Join(dir, "split", scheme), n)
	if err != nil {
		return nil, err
	}
	name := opts.Name
	if name == "" {
		name = filepath.Base(filepath.Clean(dir))
	}
	return &Dataset{
		Name:       name,
		Graph:      g,
		Features:   feat,
		Labels:     labels,
		NumClasses: classes,
		Train:      split[0],
		Val:        split[1],
		Test:       split[2],
	}, nil
}

// ogbSplitNames are the files of a split scheme, in Dataset order.
var ogbSplitNames = [3]string{"train", "valid", "test"}

// ogbSplitScheme returns the split folder to read: scheme when given,
// otherwise the only folder under split/.
func ogbSplitScheme(dir, scheme string) (string, error) {
	splitDir := filepath.Join(dir, "split")
	if scheme != "" {
		if scheme != filepath.Base(scheme) || scheme == "." || scheme == ".." {
			return "", fmt.Errorf("dataset: ogb: split scheme %q is not a folder name", scheme)
		}
		return scheme, nil
	}
	entries, err := os.ReadDir(splitDir)
	if err != nil {
		return "", fmt.Errorf("dataset: %w", err)
	}
	var dirs []string
	for _, ent := range entries {
		if ent.IsDir() {
			dirs = append(dirs, ent.Name())
		}
	}
	switch len(dirs) {
	case 0:
		return "", fmt.Errorf("dataset: %s: no split scheme folder", splitDir)
	case 1:
		return dirs[0], nil
	}
	return "", fmt.Errorf("dataset: %s: several split schemes (%s): choose one with OGBOptions.Split",
		splitDir, strings.Join(dirs, ", "))
}

// ogbFile is an open gzip'd CSV file of the OGB layout.
type ogbFile struct {
	path string
	f    *os.File
	size int64 // compressed bytes
}

func openOGB(path string) (*ogbFile, error) {
	f, err := os.Open(path)
	if err != nil {
		if missing(err) {
			return nil, fmt.Errorf("dataset: ogb: missing %s", path)
		}
		return nil, fmt.Errorf("dataset: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("dataset: %w", err)
	}
	return &ogbFile{path: path, f: f, size: st.Size()}, nil
}

// maxDeflateRatio bounds how many bytes one compressed byte of a gzip
// stream can expand to (deflate's limit is about 1032).
const maxDeflateRatio = 1040

// checkHolds returns an error unless the compressed file can hold rows
// lines of at least minLine bytes each (newline included): a declared size
// is checked against it before anything of that size is allocated.
func (o *ogbFile) checkHolds(rows, minLine int, what string) error {
	if err := o.holds(rows, minLine, what); err != nil {
		return fmt.Errorf("dataset: %s: %w", o.path, err)
	}
	return nil
}

// holds is checkHolds without the "dataset: PATH: " prefix, for use inside
// a lines callback, whose errors gunzipLines prefixes.
func (o *ogbFile) holds(rows, minLine int, what string) error {
	if float64(rows)*float64(minLine) > float64(o.size)*maxDeflateRatio+64 {
		return fmt.Errorf("%s cannot be held in %d compressed bytes: truncated or wrongly declared", what, o.size)
	}
	return nil
}

// lines calls fn with every line of the gunzipped file, as readLines does,
// and reports a gzip stream cut short as truncation.
func (o *ogbFile) lines(fn func(line []byte) error) error {
	defer o.f.Close()
	return gunzipLines(o.f, o.path, fn)
}

// openOGBRows opens the gunzipped CSV file path of n rows (any number when
// n is negative) and checks that it can hold them, rows of at least
// minLine bytes; what names the n rows in the error.
func openOGBRows(path string, n, minLine int, what string) (*ogbFile, error) {
	o, err := openOGB(path)
	if err != nil || n < 0 {
		return o, err
	}
	if err := o.checkHolds(n, minLine, what); err != nil {
		o.f.Close()
		return nil, err
	}
	return o, nil
}

// rows calls fn(i, line) with line i of the gunzipped file, as lines does,
// for a file of exactly n rows (any number when n is negative): a row past
// the n-th, or fewer rows, is an error; per says where n comes from
// ("num-node-list.csv.gz declares", "expected (one per positive pair)").
func (o *ogbFile) rows(n int, per string, fn func(i int, line []byte) error) error {
	i := 0
	err := o.lines(func(line []byte) error {
		if i == n {
			return fmt.Errorf("more than the %d rows %s", n, per)
		}
		if err := fn(i, line); err != nil {
			return err
		}
		i++
		return nil
	})
	if err == nil && i < n {
		err = fmt.Errorf("dataset: %s: truncated: %d of the %d rows %s", o.path, i, n, per)
	}
	return err
}

// readOGBCount reads num-node-list.csv.gz or num-edge-list.csv.gz: a single
// line holding a count in [0, limit].
func readOGBCount(path string, limit int) (int, error) {
	o, err := openOGB(path)
	if err != nil {
		return 0, err
	}
	count, rows := 0, 0
	err = o.lines(func(line []byte) error {
		rows++
		if rows > 1 {
			return errors.New("a second row: files of several graphs are graph-property datasets, not node-property ones")
		}
		v, ok := parseCSVInt(line, limit)
		if !ok {
			return fmt.Errorf("%q: want one integer in [0, %d]", shorten(line), limit)
		}
		count = v
		return nil
	})
	if err != nil {
		return 0, err
	}
	if rows == 0 {
		return 0, fmt.Errorf("dataset: %s: empty: truncated", path)
	}
	return count, nil
}

// readOGBEdges reads the e rows of edge.csv.gz into a graph of n nodes.
func readOGBEdges(path string, n, e int, inverse bool) (*graph.Graph, error) {
	o, err := openOGBRows(path, e, len("0,0\n"), fmt.Sprintf("%d edges (num-edge-list.csv.gz)", e))
	if err != nil {
		return nil, err
	}
	m := e
	if inverse {
		m = 2 * e
	}
	src, dst := make([]int32, m), make([]int32, m)
	err = o.rows(e, "num-edge-list.csv.gz declares", func(i int, line []byte) error {
		s, d, err := parseCSVEdge(line, n)
		if err != nil {
			return err
		}
		if inverse {
			src[2*i], dst[2*i], src[2*i+1], dst[2*i+1] = s, d, d, s
		} else {
			src[i], dst[i] = s, d
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return graph.FromCOO(n, n, src, dst)
}

// parseCSVEdge parses "src,dst", both IDs in [0, n).
func parseCSVEdge(line []byte, n int) (src, dst int32, err error) {
	a, b, ok := bytes.Cut(trimCR(line), []byte(","))
	if !ok || bytes.IndexByte(b, ',') >= 0 {
		return 0, 0, fmt.Errorf("%q: want two comma-separated node IDs", shorten(line))
	}
	s, okS := parseIndex(a)
	d, okD := parseIndex(b)
	switch {
	case !okS:
		return 0, 0, fmt.Errorf("%q: source %q is not a non-negative integer", shorten(line), shorten(a))
	case !okD:
		return 0, 0, fmt.Errorf("%q: destination %q is not a non-negative integer", shorten(line), shorten(b))
	case s >= n:
		return 0, 0, fmt.Errorf("%q: source %d out of range [0, num_nodes=%d)", shorten(line), s, n)
	case d >= n:
		return 0, 0, fmt.Errorf("%q: destination %d out of range [0, num_nodes=%d)", shorten(line), d, n)
	}
	return int32(s), int32(d), nil
}

// readOGBFeatures reads the n rows of node-feat.csv.gz; the first row sets
// the column count.
func readOGBFeatures(path string, n int) (*Features, error) {
	o, err := openOGBRows(path, n, len("0\n"), fmt.Sprintf("%d rows (num-node-list.csv.gz)", n))
	if err != nil {
		return nil, err
	}
	feat := &Features{Rows: n}
	err = o.rows(n, "num-node-list.csv.gz declares", func(i int, line []byte) error {
		if i == 0 {
			cols := bytes.Count(line, []byte(",")) + 1
			if cols > math.MaxInt/n {
				return fmt.Errorf("%d rows of %d columns overflow int", n, cols)
			}
			if err := o.holds(n*cols, len("0,"), fmt.Sprintf("%d rows of %d columns", n, cols)); err != nil {
				return err
			}
			feat.Cols = cols
			feat.Dense = make([]float32, n*cols)
		}
		return parseCSVFloats(line, feat.Dense[i*feat.Cols:(i+1)*feat.Cols])
	})
	if err != nil {
		return nil, err
	}
	if feat.Dense == nil {
		feat.Dense = []float32{} // no nodes: an empty dense matrix
	}
	return feat, nil
}

// parseCSVFloats parses exactly len(out) comma-separated finite float32
// values into out.
func parseCSVFloats(line []byte, out []float32) error {
	rest := trimCR(line)
	for j := range out {
		field := rest
		if i := bytes.IndexByte(rest, ','); i >= 0 {
			field, rest = rest[:i], rest[i+1:]
		} else if j < len(out)-1 {
			return fmt.Errorf("%d columns, want %d as on the first row", j+1, len(out))
		} else {
			rest = nil
		}
		v, err := strconv.ParseFloat(string(field), 32)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("column %d: %q is not a number", j+1, shorten(field))
		}
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Errorf("column %d: %q is not a finite float32", j+1, shorten(field))
		}
		out[j] = float32(v)
	}
	if rest != nil {
		return fmt.Errorf("%d columns, want %d as on the first row", len(out)+1+bytes.Count(rest, []byte(",")), len(out))
	}
	return nil
}

// readOGBLabels reads the n rows of node-label.csv.gz and returns the labels
// and the class count (classes when declared, the largest label plus one
// otherwise).
func readOGBLabels(path string, n, classes int) ([]int32, int, error) {
	o, err := openOGBRows(path, n, len("0\n"), fmt.Sprintf("%d rows (num-node-list.csv.gz)", n))
	if err != nil {
		return nil, 0, err
	}
	limit := math.MaxInt32 - 1
	if classes > 0 {
		limit = classes - 1
	}
	labels := make([]int32, n)
	largest := -1
	err = o.rows(n, "num-node-list.csv.gz declares", func(i int, line []byte) error {
		text := trimCR(line)
		if bytes.IndexByte(text, ',') >= 0 {
			return fmt.Errorf("%q: several label columns (a multi-task dataset): only one class per node is supported", shorten(line))
		}
		c, ok := parseCSVInt(text, limit)
		if !ok {
			if classes > 0 {
				return fmt.Errorf("label %q is not an integer in [0, num_classes=%d)", shorten(text), classes)
			}
			return fmt.Errorf("label %q is not an integer in [0, %d]", shorten(text), limit)
		}
		labels[i] = int32(c)
		largest = max(largest, c)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if classes == 0 {
		classes = largest + 1
	}
	return labels, classes, nil
}

// parseCSVInt parses an integer in [0, limit], written as decimal digits or
// as a number with an integral value ("3.0", "3e0").
func parseCSVInt(b []byte, limit int) (int, bool) {
	b = trimCR(b)
	if v, ok := parseIndex(b); ok {
		return v, v <= limit
	}
	if len(b) == 0 || len(b) > 64 {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f != math.Trunc(f) || f < 0 || f > float64(limit) {
		return 0, false
	}
	return int(f), true
}

// readOGBSplit reads train, valid and test of a split folder: node IDs in
// [0, n), disjoint, returned sorted.
func readOGBSplit(dir string, n int) ([3][]int32, error) {
	var split [3][]int32
	owner := make([]int8, n) // 1 + index of the set holding the node
	for k, name := range ogbSplitNames {
		path := filepath.Join(dir, name+".csv.gz")
		o, err := openOGB(path)
		if err != nil {
			return split, err
		}
		ids := []int32{}
		err = o.lines(func(line []byte) error {
			v, ok := parseCSVInt(line, math.MaxInt32)
			switch {
			case !ok:
				return fmt.Errorf("%q is not a node ID", shorten(line))
			case v >= n:
				return fmt.Errorf("node %d out of range [0, num_nodes=%d)", v, n)
			case owner[v] == int8(k+1):
				return fmt.Errorf("node %d is listed twice", v)
			case owner[v] != 0:
				return fmt.Errorf("node %d is also in %s", v, ogbSplitNames[owner[v]-1])
			}
			owner[v] = int8(k + 1)
			ids = append(ids, int32(v))
			return nil
		})
		if err != nil {
			return split, err
		}
		slices.Sort(ids)
		split[k] = ids
	}
	return split, nil
}

// trimCR drops a trailing carriage return (files written on Windows).
func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

// shorten returns b for an error message, cut to 40 bytes.
func shorten(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// readOGBGraph reads the graph of OGB's raw folder: the node and edge
// counts, then edge.csv.gz, each row also as its inverse with
// addInverse (checked against MaxEdges first).
func readOGBGraph(raw string, addInverse bool) (*graph.Graph, error) {
	n, err := readOGBCount(filepath.Join(raw, "num-node-list.csv.gz"), graph.MaxNodes)
	if err != nil {
		return nil, err
	}
	e, err := readOGBCount(filepath.Join(raw, "num-edge-list.csv.gz"), graph.MaxEdges)
	if err != nil {
		return nil, err
	}
	if addInverse && 2*e > graph.MaxEdges {
		return nil, fmt.Errorf("dataset: %s: %d rows with inverse edges exceed %d edges",
			filepath.Join(raw, "num-edge-list.csv.gz"), e, graph.MaxEdges)
	}
	return readOGBEdges(filepath.Join(raw, "edge.csv.gz"), n, e, addInverse)
}
