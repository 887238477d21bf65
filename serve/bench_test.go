package serve

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/graph"
)

// benchData is a planted-partition graph shaped like ogbn-products (mean
// degree 25, 100 features, 47 classes), of n nodes.
func benchData(b *testing.B, n int) *Data {
	b.Helper()
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.MeanDegree, cfg.Features, cfg.Classes, cfg.TrainPerClass, cfg.Val, cfg.Test = n, 25.26, 100, 47, 1, 0, 0
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		b.Fatal(err)
	}
	if ds.Graph, _, err = ds.Graph.ReorderEdges(graph.ByDst); err != nil {
		b.Fatal(err)
	}
	d, err := NewData(ds)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkPredict answers requests of one random node with the issue's
// model (3-layer SAGE, hidden 256, fan-outs 15,10,5) on a 20,000-node
// graph, from 1 or 50 concurrent callers of Server.Predict (no HTTP):
// sampled, and from the cache.
func BenchmarkPredict(b *testing.B) {
	d := benchData(b, 20000)
	for _, mode := range []string{"sampled", "cached"} {
		b.Run("mode="+mode, func(b *testing.B) {
			m := sageModel(b, d, []int{100, 256, 256, 47}, []int{15, 10, 5})
			s, err := New(Config{Cache: mode == "cached"})
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Start(d, m); err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for _, callers := range []int{1, 50} {
				b.Run(fmt.Sprintf("nodes=1/callers=%d", callers), func(b *testing.B) {
					b.ReportAllocs()
					var next atomic.Int64
					var wg sync.WaitGroup
					for c := range callers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							rng := rand.New(rand.NewPCG(uint64(c), 0))
							for next.Add(1) <= int64(b.N) {
								req := &PredictRequest{Nodes: []int64{rng.Int64N(int64(d.Graph.NumDst()))}}
								if _, err := s.Predict(context.Background(), req); err != nil {
									b.Error(err)
									return
								}
							}
						}()
					}
					wg.Wait()
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "predictions/s")
				})
			}
		})
	}
}

// BenchmarkForward runs one batched forward pass over batch single-node
// requests (the model on a 20,000-node graph), neighbourhoods
// sampled beforehand: the cost per node of the batcher's work as the
// batch grows.
func BenchmarkForward(b *testing.B) {
	d := benchData(b, 20000)
	m := sageModel(b, d, []int{100, 256, 256, 47}, []int{15, 10, 5})
	s, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Start(d, m); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, batch := range []int{1, 4, 16, 64} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			jobs := make([]*job, batch)
			for i := range jobs {
				h, err := s.neighbourhood([]int32{int32(i * 97)}, nil, 3, uint64(i))
				if err != nil {
					b.Fatal(err)
				}
				jobs[i] = &job{ctx: context.Background(), hood: h, x: s.gather(h, nil)}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := s.forwardJobs(jobs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}
