package dataset

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gnngo/gnn/internal/atomicfile"
)

// WriteTU writes ds into dir as the TU dataset name, the files LoadTU
// reads: name_A.txt, name_graph_indicator.txt, name_graph_labels.txt, and
// name_node_labels.txt and name_node_attributes.txt when ds has node labels
// or features. Each file is written whole or not at all.
//
// Graph labels are written as ClassNames when every name is an integer
// (a loaded dataset's), and as the class numbers 0, 1, ... otherwise (a
// generated dataset's names, such as MiniGC's), and node labels likewise.
// LoadTU then gives back the same graphs and features, and the same labels
// when every class and node label occurs (it numbers the labels that do).
// The split is not written. It returns an error when ds is inconsistent (a label
// out of range, per-node data of the wrong length, a graph that is not
// homogeneous or has no node).
func WriteTU(dir, name string, ds *GraphDataset) error {
	if name == "" || filepath.Base(name) != name {
		return fmt.Errorf("dataset: TU dataset name %q is not a file name prefix", name)
	}
	if err := checkGraphDataset(ds); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	return writeTU(ds, func(suffix string, write func(io.Writer) error) error {
		path := filepath.Join(dir, name+"_"+suffix+".txt")
		err := atomicfile.Write(path, func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			if err := write(bw); err != nil {
				return err
			}
			return bw.Flush()
		})
		if err != nil {
			return fmt.Errorf("dataset: %s: %w", path, err)
		}
		return nil
	})
}

// writeTU checks ds and writes its TU files with put, by suffix.
func writeTU(ds *GraphDataset, put func(suffix string, write func(io.Writer) error) error) error {
	if err := checkGraphDataset(ds); err != nil {
		return err
	}
	files := []struct {
		suffix string
		write  func(w io.Writer) error
	}{
		{"graph_indicator", func(w io.Writer) error {
			for g, gr := range ds.Graphs {
				for range gr.NumSrc() {
					if _, err := fmt.Fprintln(w, g+1); err != nil {
						return err
					}
				}
			}
			return nil
		}},
		{"A", func(w io.Writer) error {
			base := 0
			for _, gr := range ds.Graphs {
				src, dst := gr.COO()
				for e := range src {
					if _, err := fmt.Fprintf(w, "%d, %d\n", int(src[e])+base+1, int(dst[e])+base+1); err != nil {
						return err
					}
				}
				base += gr.NumSrc()
			}
			return nil
		}},
		{"graph_labels", func(w io.Writer) error { return writeLabels(w, ds.Labels, ds.ClassNames) }},
	}
	if ds.NodeLabels != nil {
		files = append(files, struct {
			suffix string
			write  func(w io.Writer) error
		}{"node_labels", func(w io.Writer) error { return writeLabels(w, ds.NodeLabels, ds.NodeLabelNames) }})
	}
	if f := ds.Features; f != nil {
		files = append(files, struct {
			suffix string
			write  func(w io.Writer) error
		}{"node_attributes", func(w io.Writer) error {
			dense := f.ToDense()
			var line []byte
			for i := range f.Rows {
				line = line[:0]
				for j := range f.Cols {
					if j > 0 {
						line = append(line, ", "...)
					}
					line = strconv.AppendFloat(line, float64(dense[i*f.Cols+j]), 'g', -1, 32)
				}
				line = append(line, '\n')
				if _, err := w.Write(line); err != nil {
					return err
				}
			}
			return nil
		}})
	}
	for _, f := range files {
		if err := put(f.suffix, f.write); err != nil {
			return err
		}
	}
	return nil
}

// writeLabels writes one label per line: its name when every name is an
// integer, its number otherwise.
func writeLabels(w io.Writer, labels []int32, names []string) error {
	numeric := true
	for _, s := range names {
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			numeric = false
		}
	}
	for _, l := range labels {
		text := strconv.Itoa(int(l))
		if numeric {
			text = names[l]
		}
		if _, err := fmt.Fprintln(w, text); err != nil {
			return err
		}
	}
	return nil
}

// checkGraphDataset reports the first inconsistency of ds that WriteTU
// could not write.
func checkGraphDataset(ds *GraphDataset) error {
	if ds == nil || len(ds.Graphs) == 0 {
		return fmt.Errorf("dataset: the dataset is empty (no graphs): nothing to write")
	}
	n := 0
	for g, gr := range ds.Graphs {
		if gr == nil || !gr.Homogeneous() || gr.NumSrc() == 0 {
			return fmt.Errorf("dataset: %s: graph %d is nil, bipartite or without nodes, which the TU format cannot hold", ds.Name, g)
		}
		n += gr.NumSrc()
	}
	if len(ds.Labels) != len(ds.Graphs) {
		return fmt.Errorf("dataset: %s: %d labels for %d graphs", ds.Name, len(ds.Labels), len(ds.Graphs))
	}
	if err := checkLabels(ds.Name, "class", ds.Labels, ds.ClassNames); err != nil {
		return err
	}
	if ds.NodeLabels != nil {
		if len(ds.NodeLabels) != n {
			return fmt.Errorf("dataset: %s: %d node labels for %d nodes", ds.Name, len(ds.NodeLabels), n)
		}
		if err := checkLabels(ds.Name, "node label", ds.NodeLabels, ds.NodeLabelNames); err != nil {
			return err
		}
	}
	if f := ds.Features; f != nil && (f.Rows != n || f.Cols < 1) {
		return fmt.Errorf("dataset: %s: features of %d x %d for %d nodes (the TU format needs at least one column)", ds.Name, f.Rows, f.Cols, n)
	}
	return nil
}

func checkLabels(name, what string, labels []int32, names []string) error {
	for i, l := range labels {
		if l < 0 || int(l) >= len(names) {
			return fmt.Errorf("dataset: %s: %s %d of element %d has no name (%d names)", name, what, l, i, len(names))
		}
	}
	return nil
}
