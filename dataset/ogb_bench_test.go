package dataset_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gnngo/gnn/dataset"
)

// BenchmarkLoadOGB reads an ogbn-products-shaped generated dataset (100
// features, 47 classes, mean degree 50 stored once per pair) at a 50th of
// its size, reporting edges and uncompressed text read per second.
func BenchmarkLoadOGB(b *testing.B) {
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Classes, cfg.Features, cfg.MeanDegree = 50000, 47, 100, 50
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(b.TempDir(), "products")
	if err := dataset.WriteOGB(dir, ds, dataset.OGBWriteOptions{Split: "sales_ranking", Undirected: true}); err != nil {
		b.Fatal(err)
	}
	var bytes int64
	for _, f := range []string{"edge", "node-feat", "node-label"} {
		st, err := os.Stat(filepath.Join(dir, "raw", f+".csv.gz"))
		if err != nil {
			b.Fatal(err)
		}
		bytes += st.Size()
	}
	opts, _ := dataset.OGBOptionsFor(dir)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		got, err := dataset.LoadOGB(dir, opts)
		if err != nil || got.Graph.NumEdges() != ds.Graph.NumEdges() {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(ds.Graph.NumEdges())*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
	b.ReportMetric(float64(bytes)*float64(b.N)/b.Elapsed().Seconds()/1e6, "gzMB/s")
}
