package dataset

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
)

// OGBLinkWriteOptions configures WriteOGBLink.
type OGBLinkWriteOptions struct {
	// Split is the splitting scheme, the folder name under split/; empty
	// means "random".
	Split string

	// Undirected writes each pair of a symmetric graph once, as OGB stores
	// ogbl-collab: the edges u -> v with u < v, in edge-ID order, with
	// their weights and years. The files are then read with
	// OGBLinkOptions.AddInverseEdges. WriteOGBLink returns an error when
	// the graph is not symmetric or has a self-loop.
	Undirected bool
}

// WriteOGBLink writes ds into dir (created when missing) in the layout
// LoadOGBLink reads: raw/num-node-list.csv.gz, raw/num-edge-list.csv.gz,
// raw/edge.csv.gz, raw/node-feat.csv.gz when ds has features,
// raw/edge_weight.csv.gz and raw/edge_year.csv.gz when it has them, and
// split/<scheme>/<set>/<key>.csv.gz for train, valid and test. A set whose
// negatives are per positive (NegPerPositive > 0) is written as
// source_node, target_node and target_node_neg, as ogbl-citation2's;
// any other as edge and edge_neg (when it has negatives), as
// ogbl-collab's; weight and year when present. Values are written in the
// shortest form that reads back to the same float32, so LoadOGBLink gives
// back ds exactly (with Undirected, the graph's edges interleaved with
// their inverses as OGB orders them). Each file is written to a temporary
// name and renamed, so a failure leaves no half-written file behind.
//
// It returns an error naming what is wrong when ds is inconsistent: a
// graph that is not homogeneous, features of the wrong row count or no
// columns, per-edge or per-pair columns of the wrong length, a weight
// that is not finite, a negative year, a node out of range, or
// per-positive negatives whose count or sources do not match the
// positives.
func WriteOGBLink(dir string, ds *LinkDataset, opts OGBLinkWriteOptions) error {
	if err := checkLinkWritable(ds); err != nil {
		return err
	}
	l, err := newOGBLayout(dir, ds.Graph, opts.Split, opts.Undirected)
	if err != nil {
		return err
	}
	n := ds.Graph.NumNodes()
	src := l.src
	files := l.graphFiles()
	if ds.Features != nil {
		files = append(files, gzipRows{filepath.Join(l.raw, "node-feat.csv.gz"), n, featureRowWriter(ds.Features)})
	}
	if ds.EdgeWeight != nil {
		files = append(files, gzipRows{filepath.Join(l.raw, "edge_weight.csv.gz"), len(src), l.kept(floatRow(ds.EdgeWeight))})
	}
	if ds.EdgeYear != nil {
		files = append(files, gzipRows{filepath.Join(l.raw, "edge_year.csv.gz"), len(src), l.kept(intRow(ds.EdgeYear))})
	}
	for k, s := range []*LinkSplit{&ds.Train, &ds.Valid, &ds.Test} {
		setDir := filepath.Join(dir, "split", l.scheme, ogbSplitNames[k])
		if err := os.MkdirAll(setDir, 0o755); err != nil {
			return fmt.Errorf("dataset: %w", err)
		}
		file := func(key string, rows int, row func(b []byte, i int) []byte) {
			files = append(files, gzipRows{filepath.Join(setDir, key+".csv.gz"), rows, row})
		}
		p := len(s.Src)
		if s.NegPerPositive > 0 {
			file("source_node", p, intRow(s.Src))
			file("target_node", p, intRow(s.Dst))
			k := s.NegPerPositive
			file("target_node_neg", p, func(b []byte, i int) []byte {
				for j, v := range s.NegDst[i*k : (i+1)*k] {
					if j > 0 {
						b = append(b, ',')
					}
					b = strconv.AppendInt(b, int64(v), 10)
				}
				return b
			})
		} else {
			file("edge", p, pairRow(s.Src, s.Dst))
			if s.NegSrc != nil {
				file("edge_neg", len(s.NegSrc), pairRow(s.NegSrc, s.NegDst))
			}
		}
		if s.Weight != nil {
			file("weight", p, floatRow(s.Weight))
		}
		if s.Year != nil {
			file("year", p, intRow(s.Year))
		}
	}
	for _, f := range files {
		if err := f.write(); err != nil {
			return err
		}
	}
	return nil
}

// pairRow appends "src[i],dst[i]".
func pairRow(src, dst []int32) func(b []byte, i int) []byte {
	return func(b []byte, i int) []byte {
		b = strconv.AppendInt(b, int64(src[i]), 10)
		b = append(b, ',')
		return strconv.AppendInt(b, int64(dst[i]), 10)
	}
}

// intRow appends v[i].
func intRow(v []int32) func(b []byte, i int) []byte {
	return func(b []byte, i int) []byte { return strconv.AppendInt(b, int64(v[i]), 10) }
}

// floatRow appends v[i] in the shortest form that reads back the same.
func floatRow(v []float32) func(b []byte, i int) []byte {
	return func(b []byte, i int) []byte { return strconv.AppendFloat(b, float64(v[i]), 'g', -1, 32) }
}

// checkLinkWritable returns an error unless ds is complete and consistent.
func checkLinkWritable(ds *LinkDataset) error {
	switch {
	case ds == nil || ds.Graph == nil:
		return fmt.Errorf("dataset: ogb: writing needs a graph")
	case !ds.Graph.Homogeneous():
		return fmt.Errorf("dataset: ogb: graph %v is not homogeneous", ds.Graph)
	}
	n, e := ds.Graph.NumNodes(), ds.Graph.NumEdges()
	if f := ds.Features; f != nil && (f.Rows != n || f.Cols < 1) {
		return fmt.Errorf("dataset: ogb: %d nodes but features of %d rows and %d columns (the CSV layout needs at least one)", n, f.Rows, f.Cols)
	}
	if err := checkColumns("graph edge", e, ds.EdgeWeight, ds.EdgeYear); err != nil {
		return err
	}
	for k, s := range []*LinkSplit{&ds.Train, &ds.Valid, &ds.Test} {
		name := ogbSplitNames[k]
		p := len(s.Src)
		if len(s.Dst) != p || len(s.NegSrc) != len(s.NegDst) {
			return fmt.Errorf("dataset: ogb: %s has %d sources, %d destinations, %d negative sources and %d negative destinations",
				name, p, len(s.Dst), len(s.NegSrc), len(s.NegDst))
		}
		if err := checkColumns(name+" pair", p, s.Weight, s.Year); err != nil {
			return err
		}
		for _, ids := range [][]int32{s.Src, s.Dst, s.NegSrc, s.NegDst} {
			for i, v := range ids {
				if v < 0 || int(v) >= n {
					return fmt.Errorf("dataset: ogb: %s pair %d has node %d out of range [0, %d)", name, i, v, n)
				}
			}
		}
		switch k := s.NegPerPositive; {
		case k < 0:
			return fmt.Errorf("dataset: ogb: %s has %d negatives per positive", name, k)
		case k > 0:
			if len(s.NegDst) != k*p {
				return fmt.Errorf("dataset: ogb: %s has %d negatives for %d positives, %d each", name, len(s.NegDst), p, k)
			}
			for i, v := range s.NegSrc {
				if v != s.Src[i/k] {
					return fmt.Errorf("dataset: ogb: %s negative %d has source %d, not its positive %d's %d: per-positive negatives must keep the source",
						name, i, v, i/k, s.Src[i/k])
				}
			}
		}
	}
	return nil
}

// checkColumns checks a weight and a year column (either nil) of rows
// entries.
func checkColumns(what string, rows int, weight []float32, year []int32) error {
	if weight != nil && len(weight) != rows || year != nil && len(year) != rows {
		return fmt.Errorf("dataset: ogb: %d %ss but %d weights and %d years", rows, what, len(weight), len(year))
	}
	for i, w := range weight {
		if math.IsNaN(float64(w)) || math.IsInf(float64(w), 0) {
			return fmt.Errorf("dataset: ogb: %s %d has weight %v, want a finite number", what, i, w)
		}
	}
	for i, y := range year {
		if y < 0 {
			return fmt.Errorf("dataset: ogb: %s %d has year %d, want a non-negative integer", what, i, y)
		}
	}
	return nil
}
