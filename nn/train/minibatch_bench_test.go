package train

import (
	"fmt"
	"testing"
	"time"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/sampling"
)

// BenchmarkBatchStep measures one mini-batch training step of a two-layer
// GraphSAGE (100 features, hidden 256, 47 classes, fan-outs 10,10) on a
// planted-partition graph, for batches of about 1,000 and 100,000 sampled
// edges, and reports the share of the step spent rebuilding the model on
// the batch's graph (building, binding, differentiating, compiling).
func BenchmarkBatchStep(b *testing.B) {
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Classes, cfg.Features, cfg.MeanDegree = 50000, 47, 100, 20
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		b.Fatal(err)
	}
	feats := tensor.New(tensor.WithShape(ds.Features.Rows, ds.Features.Cols), tensor.WithBacking(ds.Features.ToDense()))
	sampler, err := sampling.NewMultiLayer(ds.Graph, []int{10, 10}, sampling.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, seeds := range []int{9, 900} {
		ids := make([]int32, seeds)
		for i := range ids {
			ids[i] = int32(i * 50)
		}
		mb, err := sampler.Sample(ids, 1)
		if err != nil {
			b.Fatal(err)
		}
		edges := mb.NumEdges()
		b.Run(fmt.Sprintf("edges=%d", edges), func(b *testing.B) {
			s, err := NewShared(0.003, 0)
			if err != nil {
				b.Fatal(err)
			}
			m := &sage.Stack{Widths: []int{cfg.Features, 256, cfg.Classes}, Values: s.Value}
			// The input rows and labels are gathered once, as FitBatches
			// gathers them ahead of the step in a goroutine.
			x, err := Rows(feats, mb.InputNodes)
			if err != nil {
				b.Fatal(err)
			}
			y, err := Labels(ds.Labels, mb.OutputNodes)
			if err != nil {
				b.Fatal(err)
			}
			in := batchInput{mb: mb, x: x, y: y}
			var build time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, _, err := s.trainBatch(m, in, nil, &build); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(edges)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
			b.ReportMetric(float64(build.Microseconds())/float64(b.N), "rebuild-µs/op")
			b.ReportMetric(100*build.Seconds()/b.Elapsed().Seconds(), "rebuild-%")
		})
	}
}
