package dataset

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"

	"github.com/gnngo/gnn/graph"
)

// LinkDataset is a link-prediction dataset: a message-passing graph, node
// features, and the positive (and, for evaluation, negative) node pairs of
// the train, validation and test sets.
type LinkDataset struct {
	Name string

	// Graph is the graph messages pass over: OGB's raw/edge.csv.gz, which
	// in every ogbl dataset holds the training edges only (validation and
	// test edges are not in it), with each row's inverse edge interleaved
	// when the options add inverse edges, as OGB's loaders do.
	Graph *graph.Graph

	// Features holds one row per node; nil when the dataset has none
	// (ogbl-ddi).
	Features *Features

	// EdgeWeight and EdgeYear hold a weight and a year per edge of Graph
	// (ogbl-collab's raw/edge_weight.csv.gz and raw/edge_year.csv.gz; an
	// inverse edge has its row's values); nil when absent.
	EdgeWeight []float32
	EdgeYear   []int32

	Train, Valid, Test LinkSplit
}

// LinkSplit is one set of node pairs of a LinkDataset. Positive pair i is
// Src[i] -> Dst[i]. Negatives come in one of two forms:
//
//   - shared: NegPerPositive is 0 and NegSrc[j] -> NegDst[j] are negative
//     pairs ranked against all positives (ogbl-collab's and ogbl-ppa's
//     edge_neg, evaluated by Hits@K);
//   - per positive: NegPerPositive is k > 0, and NegSrc[i*k+j] ->
//     NegDst[i*k+j], j < k, are positive i's negatives, with NegSrc equal
//     to Src[i] (ogbl-citation2's target_node_neg of k = 1000 corrupted
//     destinations, evaluated by MRR).
//
// A set without negatives (a training set) has NegSrc and NegDst nil.
type LinkSplit struct {
	Src, Dst []int32

	// Weight and Year hold a value per positive pair (ogbl-collab); nil
	// when absent.
	Weight []float32
	Year   []int32

	NegSrc, NegDst []int32
	NegPerPositive int
}

// Len returns the number of positive pairs.
func (s *LinkSplit) Len() int { return len(s.Src) }

// OGBLinkOptions configures LoadOGBLink with what OGB keeps in its
// package's master.csv. OGBLinkOptionsFor returns them for the datasets it
// knows.
type OGBLinkOptions struct {
	// Name is the dataset's name; empty means the directory's base name.
	Name string

	// Split is the splitting scheme, the folder under split/ ("time" for
	// ogbl-collab and ogbl-citation2). Empty means the only folder there.
	Split string

	// AddInverseEdges reads raw/edge.csv.gz as OGB does for undirected
	// graphs (master.csv's add_inverse_edge: ogbl-collab, ogbl-ppa,
	// ogbl-ddi): row i becomes edges 2i (src -> dst) and 2i+1 (dst ->
	// src), so edge e's reverse is e^1 (the ReverseEdgeIDs an
	// EdgeLoader in package sampling needs to exclude both). The split
	// files are read as they are: their pairs are stored once.
	AddInverseEdges bool
}

// ogbLinkDatasets holds master.csv's settings of the link-property
// datasets LoadOGBLink reads.
var ogbLinkDatasets = map[string]OGBLinkOptions{
	"ogbl-collab":    {Name: "ogbl-collab", Split: "time", AddInverseEdges: true},
	"ogbl-ppa":       {Name: "ogbl-ppa", Split: "throughput", AddInverseEdges: true},
	"ogbl-ddi":       {Name: "ogbl-ddi", Split: "target", AddInverseEdges: true},
	"ogbl-citation2": {Name: "ogbl-citation2", Split: "time"},
}

// OGBLinkOptionsFor returns the options of the OGB link-property dataset
// stored in dir, recognised by the directory's base name (ogbl_collab,
// ogbl-collab or collab; ppa, ddi, citation2 likewise). For any other name
// it returns zero options with the Name set to the base name, and false.
func OGBLinkOptionsFor(dir string) (OGBLinkOptions, bool) {
	base, name := ogbName(dir, "ogbl-")
	if o, ok := ogbLinkDatasets[name]; ok {
		return o, true
	}
	return OGBLinkOptions{Name: base}, false
}

// LoadOGBLink reads a link-property-prediction dataset in the raw layout of
// the Open Graph Benchmark (ogbl-collab, ogbl-citation2, ogbl-ppa,
// ogbl-ddi), with its splits converted from OGB's PyTorch files to CSV.
// dir holds, all files gzip'd CSV without a header, node IDs 0-based:
//
//   - raw/num-node-list.csv.gz, raw/num-edge-list.csv.gz and
//     raw/edge.csv.gz: the node count N, the edge row count E and E rows
//     "src,dst", as for LoadOGB; the graph of the training edges.
//   - raw/node-feat.csv.gz (optional): N rows of D numbers.
//   - raw/edge_weight.csv.gz, raw/edge_year.csv.gz (optional): E rows of
//     one number (a year is an integer).
//   - split/<scheme>/<set>/<key>.csv.gz for set train, valid and test,
//     one file per key of OGB's <set>.pt dictionary, as
//     dataset/tools/ogbl_split_to_csv.py writes them: a 1-D tensor as one
//     value per row, a 2-D tensor as one comma-separated row per tensor
//     row.
//
// The keys read from a set's folder are:
//
//   - edge (P rows "src,dst") or source_node and target_node (P rows of
//     one ID each): the positive pairs, in one of the two forms;
//   - weight, year (optional): P rows of one number;
//   - edge_neg (optional): rows "src,dst", shared negatives;
//   - target_node_neg (optional): P rows of k IDs, positive i's negative
//     destinations.
//
// Other files (raw/node_year.csv.gz, mapping/, processed/, the .pt files,
// other keys such as ogbl-wikikg2's head and relation) are ignored. The
// files are streamed as LoadOGB's, and every error names the file and,
// where there is one, the line. Features are returned dense.
//
// To prepare a dataset downloaded by OGB (which unpacks it to, say,
// dataset/ogbl_collab), convert its splits once:
//
//	python3 dataset/tools/ogbl_split_to_csv.py dataset/ogbl_collab
//
// (PyTorch only; it writes split/<scheme>/<set>/<key>.csv.gz beside each
// <set>.pt), then load it with LoadOGBLink(dir, opts) where opts comes
// from OGBLinkOptionsFor(dir).
func LoadOGBLink(dir string, opts OGBLinkOptions) (*LinkDataset, error) {
	raw := filepath.Join(dir, "raw")
	g, err := readOGBGraph(raw, opts.AddInverseEdges)
	if err != nil {
		return nil, err
	}
	n, e := g.NumNodes(), g.NumEdges() // e: rows of edge.csv.gz
	if opts.AddInverseEdges {
		e /= 2
	}
	ds := &LinkDataset{Name: opts.Name, Graph: g}
	if ds.Name == "" {
		ds.Name = filepath.Base(filepath.Clean(dir))
	}
	featPath := filepath.Join(raw, "node-feat.csv.gz")
	if exists(featPath) {
		if ds.Features, err = readOGBFeatures(featPath, n); err != nil {
			return nil, err
		}
	}
	if path := filepath.Join(raw, "edge_weight.csv.gz"); exists(path) {
		w, err := readColumn(path, e, parseWeight)
		if err != nil {
			return nil, err
		}
		ds.EdgeWeight = inverseRepeat(w, opts.AddInverseEdges)
	}
	if path := filepath.Join(raw, "edge_year.csv.gz"); exists(path) {
		y, err := readColumn(path, e, parseYear)
		if err != nil {
			return nil, err
		}
		ds.EdgeYear = inverseRepeat(y, opts.AddInverseEdges)
	}
	scheme, err := ogbSplitScheme(dir, opts.Split)
	if err != nil {
		return nil, err
	}
	for k, s := range []*LinkSplit{&ds.Train, &ds.Valid, &ds.Test} {
		if *s, err = readLinkSplit(filepath.Join(dir, "split", scheme, ogbSplitNames[k]), n); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// inverseRepeat returns v with every value repeated, for the inverse edges
// interleaved with their rows.
func inverseRepeat[T any](v []T, inverse bool) []T {
	if !inverse {
		return v
	}
	out := make([]T, 2*len(v))
	for i, x := range v {
		out[2*i], out[2*i+1] = x, x
	}
	return out
}

// readLinkSplit reads the key files of one set folder.
func readLinkSplit(dir string, n int) (LinkSplit, error) {
	var s LinkSplit
	path := func(key string) string { return filepath.Join(dir, key+".csv.gz") }
	hasEdge, hasNodes := exists(path("edge")), exists(path("source_node")) || exists(path("target_node"))
	var err error
	switch {
	case hasEdge && hasNodes:
		return s, fmt.Errorf("dataset: %s: both edge.csv.gz and source_node/target_node.csv.gz: want one form of positive pairs", dir)
	case hasEdge:
		if s.Src, s.Dst, err = readPairs(path("edge"), n); err != nil {
			return s, err
		}
	case !hasNodes:
		return s, fmt.Errorf("dataset: ogb: missing %s, or %s and %s: no positive pairs", path("edge"), path("source_node"), path("target_node"))
	default:
		if s.Src, err = readColumn(path("source_node"), -1, nodeParser(n)); err != nil {
			return s, err
		}
		if s.Dst, err = readColumn(path("target_node"), len(s.Src), nodeParser(n)); err != nil {
			return s, err
		}
	}
	p := len(s.Src)
	if path := path("weight"); exists(path) {
		if s.Weight, err = readColumn(path, p, parseWeight); err != nil {
			return s, err
		}
	}
	if path := path("year"); exists(path) {
		if s.Year, err = readColumn(path, p, parseYear); err != nil {
			return s, err
		}
	}
	hasShared, hasPer := exists(path("edge_neg")), exists(path("target_node_neg"))
	switch {
	case hasShared && hasPer:
		return s, fmt.Errorf("dataset: %s: both edge_neg.csv.gz and target_node_neg.csv.gz: want one form of negatives", dir)
	case hasShared:
		if s.NegSrc, s.NegDst, err = readPairs(path("edge_neg"), n); err != nil {
			return s, err
		}
	case hasPer:
		if s.NegDst, s.NegPerPositive, err = readIDRows(path("target_node_neg"), p, n); err != nil {
			return s, err
		}
		s.NegSrc = make([]int32, len(s.NegDst))
		for i := range s.NegSrc {
			s.NegSrc[i] = s.Src[i/s.NegPerPositive] // NegDst is empty when k is 0
		}
	}
	return s, nil
}

// readPairs reads rows "src,dst" of node IDs in [0, n).
func readPairs(path string, n int) (src, dst []int32, err error) {
	o, err := openOGB(path)
	if err != nil {
		return nil, nil, err
	}
	src, dst = []int32{}, []int32{}
	err = o.lines(func(line []byte) error {
		s, d, err := parseCSVEdge(line, n)
		if err != nil {
			return err
		}
		src, dst = append(src, s), append(dst, d)
		return nil
	})
	return src, dst, err
}

// readColumn reads a file of one value per row with parse; rows, when not
// negative, is the number of rows the file must have, named after the
// positive pairs or edges it matches.
func readColumn[T any](path string, rows int, parse func([]byte) (T, error)) ([]T, error) {
	o, err := openOGBRows(path, rows, len("0\n"), fmt.Sprintf("%d rows", rows))
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, max(rows, 0))
	err = o.rows(rows, "expected (one per pair or edge)", func(_ int, line []byte) error {
		v, err := parse(trimCR(line))
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// nodeParser parses a node ID in [0, n), written as an integer or an
// integral number ("3.0", as a float tensor converts).
func nodeParser(n int) func([]byte) (int32, error) {
	return func(b []byte) (int32, error) {
		v, ok := parseCSVInt(b, math.MaxInt32)
		if !ok {
			return 0, fmt.Errorf("%q is not a node ID", shorten(b))
		}
		if v >= n {
			return 0, fmt.Errorf("node %d out of range [0, num_nodes=%d)", v, n)
		}
		return int32(v), nil
	}
}

// parseWeight parses a finite float32.
func parseWeight(b []byte) (float32, error) {
	var w [1]float32
	if err := parseCSVFloats(b, w[:]); err != nil {
		return 0, err
	}
	return w[0], nil
}

// parseYear parses a year, an integer in [0, 2^31-1].
func parseYear(b []byte) (int32, error) {
	v, ok := parseCSVInt(b, math.MaxInt32)
	if !ok {
		return 0, fmt.Errorf("year %q is not a non-negative integer", shorten(b))
	}
	return int32(v), nil
}

// readIDRows reads rows rows of k comma-separated node IDs in [0, n), the
// same k on every row and at least 1, into one flat slice.
func readIDRows(path string, rows, n int) ([]int32, int, error) {
	o, err := openOGBRows(path, rows, len("0\n"), fmt.Sprintf("%d rows (one per positive pair)", rows))
	if err != nil {
		return nil, 0, err
	}
	var out []int32
	k := 0
	parse := nodeParser(n)
	err = o.rows(rows, "expected (one per positive pair)", func(i int, line []byte) error {
		line = trimCR(line)
		cols := bytes.Count(line, []byte(",")) + 1
		if i == 0 {
			if cols > math.MaxInt32/max(rows, 1) {
				return fmt.Errorf("%d rows of %d columns overflow", rows, cols)
			}
			if err := o.holds(rows*cols, len("0,"), fmt.Sprintf("%d rows of %d columns", rows, cols)); err != nil {
				return err
			}
			k = cols
			out = make([]int32, 0, rows*k)
		} else if cols != k {
			return fmt.Errorf("%d columns, want %d as on the first row", cols, k)
		}
		for j, field := range bytes.Split(line, []byte(",")) {
			v, err := parse(field)
			if err != nil {
				return fmt.Errorf("column %d: %w", j+1, err)
			}
			out = append(out, v)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if rows == 0 {
		return []int32{}, 0, nil // no positives: no per-positive count either
	}
	return out, k, nil
}
