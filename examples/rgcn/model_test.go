package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn"
)

// TestModelFile checks that -save writes a model file that runs without
// this program: model.Load, then PredictRelational on the heterograph and
// its paper features, gives the test accuracy training printed.
func TestModelFile(t *testing.T) {
	f, o := defaults(), options{Scale: 1}
	f.Epochs, f.Save = 15, filepath.Join(t.TempDir(), "rgcn.gnnmodel")
	var out bytes.Buffer
	if err := run(&out, &f, o); err != nil {
		t.Fatal(err)
	}
	acc := testLine.FindStringSubmatch(out.String())
	if acc == nil {
		t.Fatalf("no test accuracy line in:\n%s", out.String())
	}
	trained, _ := strconv.ParseFloat(acc[1], 64)

	g, err := generateMag(smallMag, f.Seed)
	if err != nil {
		t.Fatal(err)
	}
	d := g.dataset(smallMag.Features)
	m, err := model.Load(f.Save)
	if err != nil {
		t.Fatal(err)
	}
	x := map[string]*tensor.Dense{}
	for nt, feat := range d.Features {
		x[nt] = tensor.New(tensor.WithShape(feat.Rows, feat.Cols), tensor.WithBacking(feat.Data))
	}
	logits, err := m.PredictRelational(d.Graph, x)
	if err != nil {
		t.Fatal(err)
	}
	got, err := nn.Accuracy(logits, d.Labels["paper"], d.Splits["paper"][2])
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%.4f", got) != fmt.Sprintf("%.4f", trained) {
		t.Errorf("the model file predicts test accuracy %.4f, training printed %.4f", got, trained)
	}
}
