package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/gnngo/gnn/graph"
)

// LoadTU reads the graph-classification dataset name from dir in the text
// format of the TU datasets (Morris et al., "TUDataset: A collection of
// benchmark datasets for learning with graphs", 2020; MUTAG, PROTEINS,
// NCI1, IMDB-BINARY, ...). With N nodes in G graphs, the files are:
//
//   - name_A.txt: one directed edge "i, j" per line (comma-separated, spaces
//     allowed), i and j node IDs in [1, N] of one graph. Undirected graphs
//     list both directions, and edges are kept as listed.
//   - name_graph_indicator.txt: N lines, line i the graph of node i. Graphs
//     are numbered 1 to G in order: the first line is 1 and each line
//     repeats the previous number or adds one, so every graph has a node
//     and its nodes are contiguous.
//   - name_graph_labels.txt: G lines, line g the class of graph g, an
//     integer.
//   - name_node_labels.txt (optional): N lines, line i the label of node i,
//     an integer.
//   - name_node_attributes.txt (optional): N lines, line i the attributes
//     of node i, comma-separated finite float32 numbers, as many on every
//     line.
//
// Node i of graph g becomes node i - first(g) of Graphs[g-1], and its edges
// keep their order in name_A.txt. Labels keep their values by name: the
// distinct graph labels, in increasing order, are the classes 0, 1, ...,
// and ClassNames holds them as written (MUTAG's -1 and 1 become classes 0
// and 1 named "-1" and "1"); node labels become NodeLabels the same way.
// Node attributes are Features, dense. Other files of the format (edge
// labels and attributes, graph attributes) are not read. The split is left
// empty: choose one with SplitRandom.
//
// Every line is checked; an error names the file and the line, and any
// count that disagrees with the graph indicator (lines of labels or
// attributes) is an error. Blank lines are errors, since every line stands
// for a node, graph or edge.
func LoadTU(dir, name string) (*GraphDataset, error) {
	if name == "" || filepath.Base(name) != name {
		return nil, fmt.Errorf("dataset: TU dataset name %q is not a file name prefix", name)
	}
	return readTU(dirFiles{dir: dir, name: name}, name)
}

// tuFiles names and opens the files of a TU dataset by suffix ("A",
// "graph_labels", ...). open returns an error wrapping fs.ErrNotExist for
// a missing file.
type tuFiles interface {
	path(suffix string) string
	open(path string) (io.ReadCloser, error)
}

// dirFiles are dir/name_suffix.txt.
type dirFiles struct{ dir, name string }

func (d dirFiles) path(suffix string) string {
	return filepath.Join(d.dir, d.name+"_"+suffix+".txt")
}

func (d dirFiles) open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	return f, nil
}

// readTU reads a TU dataset from files.
func readTU(files tuFiles, name string) (*GraphDataset, error) {
	starts, err := readTUIndicator(files)
	if err != nil {
		return nil, err
	}
	numGraphs := len(starts) - 1
	numNodes := int(starts[numGraphs])
	ds := &GraphDataset{Name: name}
	if ds.Graphs, err = readTUEdges(files, starts); err != nil {
		return nil, err
	}
	labels, err := readTUInts(files, "graph_labels", numGraphs, "graphs", true)
	if err != nil {
		return nil, err
	}
	ds.Labels, ds.ClassNames = categories(labels)
	ds.NumClasses = len(ds.ClassNames)
	nodeLabels, err := readTUInts(files, "node_labels", numNodes, "nodes", false)
	if err != nil {
		return nil, err
	}
	if nodeLabels != nil {
		ds.NodeLabels, ds.NodeLabelNames = categories(nodeLabels)
		ds.NumNodeLabels = len(ds.NodeLabelNames)
	}
	if ds.Features, err = readTUAttributes(files, numNodes); err != nil {
		return nil, err
	}
	return ds, nil
}

// eachLine calls fn with every line of the file suffix, trimmed of spaces
// and a carriage return; an error from fn is returned as "dataset: path:
// line N: err". It returns false, and no error, when the file is missing
// and optional.
func eachLine(files tuFiles, suffix string, optional bool, fn func(line []byte) error) (bool, error) {
	path := files.path(suffix)
	r, err := files.open(path)
	if err != nil {
		if optional && missing(err) {
			return false, nil
		}
		return false, err
	}
	defer r.Close()
	return true, scanLines(r, path, func(line []byte) error {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			return errors.New("blank line")
		}
		return fn(line)
	})
}

// readTUIndicator returns the first node of every graph and, last, the
// number of nodes: graph g (from 0) holds nodes [starts[g], starts[g+1]).
func readTUIndicator(files tuFiles) ([]int64, error) {
	starts := []int64{}
	n := int64(0)
	_, err := eachLine(files, "graph_indicator", false, func(line []byte) error {
		g, err := strconv.ParseInt(string(line), 10, 64)
		if err != nil {
			return fmt.Errorf("graph %q is not an integer", line)
		}
		switch cur := int64(len(starts)); {
		case cur == 0 && g != 1:
			return fmt.Errorf("graph %d: the first node must be in graph 1", g)
		case g == cur+1:
			starts = append(starts, n)
		case g != cur:
			return fmt.Errorf("graph %d after graph %d: graphs must be numbered 1, 2, ... with contiguous nodes", g, cur)
		}
		if n++; n > graph.MaxNodes {
			return fmt.Errorf("more than %d nodes", graph.MaxNodes)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(starts) == 0 {
		return nil, fmt.Errorf("dataset: %s: no nodes: the dataset is empty", files.path("graph_indicator"))
	}
	return append(starts, n), nil
}

// readTUEdges reads name_A.txt into one graph per graph of the indicator.
func readTUEdges(files tuFiles, starts []int64) ([]*graph.Graph, error) {
	numGraphs := len(starts) - 1
	n := starts[numGraphs]
	src := make([][]int32, numGraphs)
	dst := make([][]int32, numGraphs)
	_, err := eachLine(files, "A", false, func(line []byte) error {
		a, b, ok := bytes.Cut(line, []byte(","))
		if !ok {
			return fmt.Errorf("%q: want \"i, j\"", line)
		}
		var ids [2]int64
		for k, text := range [2][]byte{a, b} {
			text = bytes.TrimSpace(text)
			v, err := strconv.ParseInt(string(text), 10, 64)
			if err != nil {
				return fmt.Errorf("node %q is not an integer", text)
			}
			if v < 1 || v > n {
				return fmt.Errorf("node %d out of range [1, %d]", v, n)
			}
			ids[k] = v - 1
		}
		gi := graphOf(starts, ids[0])
		if gj := graphOf(starts, ids[1]); gi != gj {
			return fmt.Errorf("edge %d, %d joins graph %d and graph %d", ids[0]+1, ids[1]+1, gi+1, gj+1)
		}
		if len(src[gi]) == graph.MaxEdges {
			return fmt.Errorf("graph %d has more than %d edges", gi+1, graph.MaxEdges)
		}
		src[gi] = append(src[gi], int32(ids[0]-starts[gi]))
		dst[gi] = append(dst[gi], int32(ids[1]-starts[gi]))
		return nil
	})
	if err != nil {
		return nil, err
	}
	gs := make([]*graph.Graph, numGraphs)
	for g := range gs {
		size := int(starts[g+1] - starts[g])
		if gs[g], err = graph.FromCOO(size, size, src[g], dst[g]); err != nil {
			return nil, fmt.Errorf("dataset: graph %d: %w", g+1, err)
		}
	}
	return gs, nil
}

// graphOf returns the graph holding node v < starts[len(starts)-1]; starts
// increase strictly, since every graph has a node.
func graphOf(starts []int64, v int64) int {
	g, found := slices.BinarySearch(starts, v)
	if !found {
		g--
	}
	return g
}

// readTUInts reads a file of one integer per line that must have want
// lines (what names them); it returns nil for a missing optional file.
func readTUInts(files tuFiles, suffix string, want int, what string, required bool) ([]int64, error) {
	out := make([]int64, 0, allocHint(want))
	found, err := eachLine(files, suffix, !required, func(line []byte) error {
		if len(out) == want {
			return fmt.Errorf("more lines than the %d %s of the graph indicator", want, what)
		}
		v, err := strconv.ParseInt(string(line), 10, 64)
		if err != nil {
			return fmt.Errorf("label %q is not an integer", line)
		}
		out = append(out, v)
		return nil
	})
	if err != nil || !found {
		return nil, err
	}
	if len(out) != want {
		return nil, fmt.Errorf("dataset: %s: %d lines, want one for each of the %d %s of the graph indicator", files.path(suffix), len(out), want, what)
	}
	return out, nil
}

// categories numbers the distinct values of v in increasing order and
// returns the number of every element and the values as text.
func categories(v []int64) ([]int32, []string) {
	distinct := slices.Compact(slices.Sorted(slices.Values(v)))
	idx := make([]int32, len(v))
	for i, x := range v {
		k, _ := slices.BinarySearch(distinct, x)
		idx[i] = int32(k)
	}
	names := make([]string, len(distinct))
	for k, x := range distinct {
		names[k] = strconv.FormatInt(x, 10)
	}
	return idx, names
}

// readTUAttributes reads the optional node attributes, numNodes rows of
// the same number of columns; nil when the file is missing.
func readTUAttributes(files tuFiles, numNodes int) (*Features, error) {
	f := &Features{Rows: numNodes}
	rows := 0
	found, err := eachLine(files, "node_attributes", true, func(line []byte) error {
		if rows == numNodes {
			return fmt.Errorf("more lines than the %d nodes of the graph indicator", numNodes)
		}
		cols := 0
		for field := range bytes.SplitSeq(line, []byte(",")) {
			field = bytes.TrimSpace(field)
			v, err := strconv.ParseFloat(string(field), 32)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return fmt.Errorf("attribute %d %q is not a number", cols+1, field)
			}
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				return fmt.Errorf("attribute %d %q is not a finite float32", cols+1, field)
			}
			f.Dense = append(f.Dense, float32(v))
			cols++
		}
		if rows == 0 {
			f.Cols = cols
		} else if cols != f.Cols {
			return fmt.Errorf("%d attributes, but line 1 has %d", cols, f.Cols)
		}
		rows++
		return nil
	})
	if err != nil || !found {
		return nil, err
	}
	if rows != numNodes {
		return nil, fmt.Errorf("dataset: %s: %d lines, want one for each of the %d nodes of the graph indicator", files.path("node_attributes"), rows, numNodes)
	}
	return f, nil
}
