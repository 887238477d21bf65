package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gnngo/gnn/serve"
)

// once writes the predictions of -ids (all nodes when empty) as CSV, in
// requests of at most -max-nodes nodes through the started server s: the
// same answers the server gives.
func once(o *options, s *serve.Server, stdout io.Writer) error {
	ids, err := o.ids(s)
	if err != nil {
		return err
	}
	w := stdout
	var f *os.File
	if o.Out != "" {
		if f, err = os.Create(o.Out); err != nil {
			return fmt.Errorf("-out: %w", err)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	if err := writeCSV(context.Background(), bw, s, ids, o.MaxNodes); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if f != nil {
		return f.Close()
	}
	return nil
}

// writeCSV writes the header node,class,p0,...,p{C-1} and one line per node
// of ids, asking s for at most chunk nodes at a time.
func writeCSV(ctx context.Context, w io.Writer, s *serve.Server, ids []int64, chunk int) error {
	header := false
	for lo := 0; lo < len(ids); lo += chunk {
		resp, err := s.Predict(ctx, &serve.PredictRequest{Nodes: ids[lo:min(lo+chunk, len(ids))]})
		if err != nil {
			return err
		}
		var line []byte
		for _, p := range resp.Predictions {
			if !header {
				line = append(line[:0], "node,class"...)
				for c := range p.Probabilities {
					line = append(line, ",p"...)
					line = strconv.AppendInt(line, int64(c), 10)
				}
				if _, err := w.Write(append(line, '\n')); err != nil {
					return err
				}
				header = true
			}
			line = strconv.AppendInt(line[:0], p.Node, 10)
			line = append(line, ',')
			line = strconv.AppendInt(line, int64(p.Class), 10)
			for _, v := range p.Probabilities {
				line = append(line, ',')
				line = strconv.AppendFloat(line, v, 'g', -1, 64)
			}
			if _, err := w.Write(append(line, '\n')); err != nil {
				return err
			}
		}
	}
	return nil
}

// ids returns -ids' nodes: all of the graph's when empty, else the
// comma-separated list or the file after @ (one per line, blank lines and
// lines starting with # skipped).
func (o *options) ids(s *serve.Server) ([]int64, error) {
	if o.IDs == "" {
		n := s.NumNodes()
		ids := make([]int64, n)
		for i := range ids {
			ids[i] = int64(i)
		}
		return ids, nil
	}
	var fields []string
	where := "-ids"
	if path, ok := strings.CutPrefix(o.IDs, "@"); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("-ids: %w", err)
		}
		where = path
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				fields = append(fields, l)
			}
		}
	} else {
		fields = strings.Split(o.IDs, ",")
	}
	ids := make([]int64, len(fields))
	for i, f := range fields {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: entry %d, %q, is not a node ID", where, i+1, f)
		}
		ids[i] = v
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s: no node IDs", where)
	}
	return ids, nil
}
