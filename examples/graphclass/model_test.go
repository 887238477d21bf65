package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn"
)

// TestModelFile checks that -save writes a model file that runs without
// this program (model.Load, then PredictGraphs on the batch of all graphs
// gives the test accuracy training printed), and that a parameter file
// under the names the program used before model files (pred0.w, ...)
// still loads with -load.
func TestModelFile(t *testing.T) {
	for _, readout := range []string{"sum", "attention"} {
		t.Run(readout, func(t *testing.T) {
			dir := t.TempDir()
			o := quick(48, 6)
			o.Readout, o.Save = readout, filepath.Join(dir, "gin.gnnmodel")
			var out bytes.Buffer
			if err := run(&out, &o); err != nil {
				t.Fatal(err)
			}
			acc := testLine.FindStringSubmatch(out.String())
			if acc == nil {
				t.Fatalf("no test accuracy line:\n%s", out.String())
			}
			trained, _ := strconv.ParseFloat(acc[1], 64)

			ds, err := load(&o)
			if err != nil {
				t.Fatal(err)
			}
			b, err := graph.Batch(ds.Graphs)
			if err != nil {
				t.Fatal(err)
			}
			m, err := model.Load(o.Save)
			if err != nil {
				t.Fatal(err)
			}
			labels, attrs, err := inputParts(o.Input, ds)
			if err != nil {
				t.Fatal(err)
			}
			xn, _ := input(gorgonia.NewGraph(), ds, labels, attrs)
			x := xn.Value().(*tensor.Dense)
			logits, err := m.PredictGraphs(b, x)
			if err != nil {
				t.Fatal(err)
			}
			got, err := nn.Accuracy(logits, ds.Labels, ds.Test)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%.4f", got) != fmt.Sprintf("%.4f", trained) {
				t.Errorf("the model file predicts test accuracy %.4f, training printed %.4f", got, trained)
			}

			old := filepath.Join(dir, "gin.params")
			if err := nn.SaveParams(old, legacyParams(m)); err != nil {
				t.Fatal(err)
			}
			ev := quick(48, 0)
			ev.Readout, ev.Load = readout, old
			out.Reset()
			if err := run(&out, &ev); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "(a parameter file)") || !strings.Contains(out.String(), "test accuracy: "+acc[1]) {
				t.Errorf("the parameter file under the old names, loaded:\n%s\nwant test accuracy %s", out.String(), acc[1])
			}
		})
	}
}
