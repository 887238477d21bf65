package dataset

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/atomicfile"
)

// OGBWriteOptions configures WriteOGB.
type OGBWriteOptions struct {
	// Split is the splitting scheme, the folder name under split/; empty
	// means "random".
	Split string

	// Undirected writes each pair of a symmetric graph once, as OGB stores
	// ogbn-products: the edges u -> v with u < v, in edge-ID order. The
	// files are then read with OGBOptions.AddInverseEdges. WriteOGB returns
	// an error when the graph is not symmetric or has a self-loop (which
	// OGB's inverse edges would duplicate).
	Undirected bool
}

// WriteOGB writes ds into dir (created when missing) in OGB's raw layout for
// node-property prediction, which LoadOGB reads: raw/num-node-list.csv.gz,
// raw/num-edge-list.csv.gz, raw/edge.csv.gz, raw/node-feat.csv.gz (dense
// rows, also for sparse features), raw/node-label.csv.gz and
// split/<scheme>/{train,valid,test}.csv.gz. Values are written in the
// shortest form that reads back to the same float32, so loading the files
// gives back ds exactly (the graph's edges in the same order, except that
// Undirected interleaves each edge with its inverse as OGB does). The
// graph must be homogeneous. Each file is written to a temporary name and
// renamed, so a failure leaves no half-written file behind; nothing is
// read back whole into memory.
func WriteOGB(dir string, ds *Dataset, opts OGBWriteOptions) error {
	if err := checkWritable(ds); err != nil {
		return err
	}
	l, err := newOGBLayout(dir, ds.Graph, opts.Split, opts.Undirected)
	if err != nil {
		return err
	}
	splitDir := filepath.Join(dir, "split", l.scheme)
	if err := os.MkdirAll(splitDir, 0o755); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	n := ds.Graph.NumNodes()
	files := append(l.graphFiles(),
		gzipRows{filepath.Join(l.raw, "node-feat.csv.gz"), n, featureRowWriter(ds.Features)},
		gzipRows{filepath.Join(l.raw, "node-label.csv.gz"), n, func(b []byte, v int) []byte { return strconv.AppendInt(b, int64(ds.Labels[v]), 10) }})
	for k, ids := range [3][]int32{ds.Train, ds.Val, ds.Test} {
		files = append(files, gzipRows{filepath.Join(splitDir, ogbSplitNames[k]+".csv.gz"), len(ids), func(b []byte, i int) []byte { return strconv.AppendInt(b, int64(ids[i]), 10) }})
	}
	for _, f := range files {
		if err := f.write(); err != nil {
			return err
		}
	}
	return nil
}

// ogbLayout is what WriteOGB and WriteOGBLink share: the split scheme's
// folder name, the raw folder (created), and the graph's edges, each pair
// once when written undirected (keep says which edge IDs are written, rows
// how many).
type ogbLayout struct {
	scheme, raw string
	n           int
	src, dst    []int32
	keep        func(e int) bool
	rows        int
}

// newOGBLayout checks the split scheme (empty: "random") and, with
// undirected, that g is symmetric, and creates dir/raw.
func newOGBLayout(dir string, g *graph.Graph, split string, undirected bool) (*ogbLayout, error) {
	l := &ogbLayout{scheme: split, raw: filepath.Join(dir, "raw"), n: g.NumNodes(), keep: func(int) bool { return true }}
	if l.scheme == "" {
		l.scheme = "random"
	}
	if l.scheme != filepath.Base(l.scheme) || l.scheme == "." || l.scheme == ".." {
		return nil, fmt.Errorf("dataset: ogb: split scheme %q is not a folder name", l.scheme)
	}
	l.src, l.dst = g.COO()
	l.rows = len(l.src)
	if undirected {
		if err := checkSymmetric(l.src, l.dst); err != nil {
			return nil, err
		}
		src, dst := l.src, l.dst
		l.keep = func(e int) bool { return src[e] < dst[e] }
		l.rows /= 2
	}
	if err := os.MkdirAll(l.raw, 0o755); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	return l, nil
}

// kept returns row for the edges the layout writes and nothing (no line)
// for the others.
func (l *ogbLayout) kept(row func(b []byte, e int) []byte) func(b []byte, e int) []byte {
	return func(b []byte, e int) []byte {
		if !l.keep(e) {
			return nil
		}
		return row(b, e)
	}
}

// graphFiles returns the files of the graph itself: the node and edge
// counts and the edges.
func (l *ogbLayout) graphFiles() []gzipRows {
	return []gzipRows{
		{filepath.Join(l.raw, "num-node-list.csv.gz"), 1, func(b []byte, _ int) []byte { return strconv.AppendInt(b, int64(l.n), 10) }},
		{filepath.Join(l.raw, "num-edge-list.csv.gz"), 1, func(b []byte, _ int) []byte { return strconv.AppendInt(b, int64(l.rows), 10) }},
		{filepath.Join(l.raw, "edge.csv.gz"), len(l.src), l.kept(pairRow(l.src, l.dst))},
	}
}

// checkWritable returns an error unless ds is complete and consistent.
func checkWritable(ds *Dataset) error {
	switch {
	case ds == nil || ds.Graph == nil || ds.Features == nil:
		return fmt.Errorf("dataset: ogb: writing needs a graph and features")
	case !ds.Graph.Homogeneous():
		return fmt.Errorf("dataset: ogb: graph %v is not homogeneous", ds.Graph)
	}
	n := ds.Graph.NumNodes()
	if ds.Features.Rows != n || len(ds.Labels) != n {
		return fmt.Errorf("dataset: ogb: %d nodes but %d feature rows and %d labels", n, ds.Features.Rows, len(ds.Labels))
	}
	if ds.Features.Cols < 1 {
		return fmt.Errorf("dataset: ogb: features have no columns, which the CSV layout cannot hold")
	}
	for v, y := range ds.Labels {
		if y < 0 || int(y) >= ds.NumClasses {
			return fmt.Errorf("dataset: ogb: node %d has label %d outside [0, %d)", v, y, ds.NumClasses)
		}
	}
	seen := make([]bool, n)
	for k, ids := range [3][]int32{ds.Train, ds.Val, ds.Test} {
		for _, v := range ids {
			if v < 0 || int(v) >= n || seen[v] {
				return fmt.Errorf("dataset: ogb: %s node %d is out of range [0, %d) or in two sets", ogbSplitNames[k], v, n)
			}
			seen[v] = true
		}
	}
	return nil
}

// checkSymmetric returns an error unless every edge u -> v has a matching
// v -> u and there are no self-loops, pairs counted with multiplicity.
func checkSymmetric(src, dst []int32) error {
	var fwd, back []uint64
	for e := range src {
		u, v := uint64(src[e]), uint64(dst[e])
		switch {
		case u < v:
			fwd = append(fwd, u<<32|v)
		case u > v:
			back = append(back, v<<32|u)
		default:
			return fmt.Errorf("dataset: ogb: undirected writing: edge %d is a self-loop on node %d", e, u)
		}
	}
	slices.Sort(fwd)
	slices.Sort(back)
	if !slices.Equal(fwd, back) {
		return fmt.Errorf("dataset: ogb: undirected writing: the graph is not symmetric (%d edges u->v with u<v, %d with u>v, or unmatched pairs)",
			len(fwd), len(back))
	}
	return nil
}

// featureRowWriter returns the function appending row v of f as CSV.
func featureRowWriter(f *Features) func(b []byte, v int) []byte {
	var dense []float32
	if f.IsSparse() {
		dense = make([]float32, f.Cols)
	}
	return func(b []byte, v int) []byte {
		row := dense
		if f.IsSparse() {
			clear(row)
			for p := f.Indptr[v]; p < f.Indptr[v+1]; p++ {
				row[f.Indices[p]] = f.Values[p]
			}
		} else {
			row = f.Dense[v*f.Cols : (v+1)*f.Cols]
		}
		for j, x := range row {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
		}
		return b
	}
}

// gzipRows is a gzip'd text file to write: rows lines, line i appended to
// buf by row (which returns nil to write no line for i).
type gzipRows struct {
	path string
	rows int
	row  func(buf []byte, i int) []byte
}

func (f gzipRows) write() error {
	err := atomicfile.Write(f.path, func(w io.Writer) error {
		zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(zw, 1<<16)
		var buf []byte
		for i := range f.rows {
			line := f.row(buf[:0], i)
			if line == nil {
				continue
			}
			buf = append(line, '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		return zw.Close()
	})
	if err != nil {
		return fmt.Errorf("dataset: writing %s: %w", f.path, err)
	}
	return nil
}
