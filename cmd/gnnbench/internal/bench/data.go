package bench

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
)

// Data is what a model trains on: a graph with self-loops, features in one
// input form, labels and the training nodes.
type Data struct {
	Name  string
	Graph *graph.Graph // self-loops included
	Feat  int
	// Exactly one of Dense (row-major N x Feat) and Sparse is set.
	Dense   []float32
	Sparse  *dataset.Features
	Labels  []int32
	Train   []int32
	Classes int
}

// Input returns the form of the features: InputDense or InputSparse.
func (d *Data) Input() string {
	if d.Sparse != nil {
		return InputSparse
	}
	return InputDense
}

// LoadData loads or generates the data of a model Spec.
func LoadData(s *Spec) (*Data, error) {
	if s.Dataset == "synth" {
		d, err := Synth(s.Nodes, s.Edges-int64(s.Nodes), s.Feat, s.Classes, s.Seed)
		if err != nil {
			return nil, err
		}
		d.Graph, err = orderEdges(d.Graph, s.EdgeOrder)
		return d, err
	}
	return LoadPlanetoid(s.DataDir, s.Input)
}

// LoadPlanetoid loads a Planetoid folder (dataset.LoadPlanetoid), row
// normalises the features as the examples do and adds self-loops. input
// selects the features' form: InputSparse keeps them CSR (an error if the
// folder stores them dense), InputDense densifies them (N x F).
func LoadPlanetoid(dir, input string) (*Data, error) {
	ds, err := dataset.LoadPlanetoid(dir)
	if err != nil {
		return nil, err
	}
	ds.Features.RowNormalize()
	g, err := ds.Graph.AddSelfLoops()
	if err != nil {
		return nil, err
	}
	d := &Data{Name: ds.Name, Graph: g, Feat: ds.Features.Cols, Labels: ds.Labels, Train: ds.Train, Classes: ds.NumClasses}
	switch input {
	case InputSparse:
		if !ds.Features.IsSparse() {
			return nil, fmt.Errorf("bench: %s: features are stored dense, sparse input asked for", ds.Name)
		}
		d.Sparse = ds.Features
	case InputDense:
		d.Dense = ds.Features.ToDense()
	default:
		return nil, fmt.Errorf("bench: unknown input form %q", input)
	}
	return d, nil
}

// Synth returns a uniform random graph (generate.Uniform) on n nodes with
// edges edges plus a self-loop on every node, standard normal dense
// features, and uniformly random labels in [0, classes); every node is a
// training node. Everything is drawn from seed.
func Synth(n int, edges int64, feat, classes int, seed uint64) (*Data, error) {
	if feat <= 0 || classes <= 0 {
		return nil, fmt.Errorf("bench: synthetic data needs positive feat and classes, got %d and %d", feat, classes)
	}
	g, err := generate.Uniform(n, edges, seed)
	if err != nil {
		return nil, err
	}
	if g, err = g.AddSelfLoops(); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	x := make([]float32, n*feat)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	labels := make([]int32, n)
	train := make([]int32, n)
	for i := range labels {
		labels[i] = int32(r.IntN(classes))
		train[i] = int32(i)
	}
	return &Data{Name: "synth", Graph: g, Feat: feat, Dense: x, Labels: labels, Train: train, Classes: classes}, nil
}

// orderEdges renumbers g's edges as order says: by destination for
// OrderDst, unchanged otherwise.
func orderEdges(g *graph.Graph, order string) (*graph.Graph, error) {
	if order != OrderDst {
		return g, nil
	}
	r, _, err := g.ReorderEdges(graph.ByDst)
	return r, err
}

// DensityEdges returns the edge count of a uniform random graph of the
// given density on n nodes: round(density * n^2), as
// generate.UniformDensity draws.
func DensityEdges(n int, density float64) int64 {
	return int64(math.Round(density * float64(n) * float64(n)))
}

// PlanetoidMeta is what a Planetoid folder's meta.txt says about it.
type PlanetoidMeta struct {
	Name         string
	Nodes, Edges int
	Features     int
	Classes      int
}

// ReadPlanetoidMeta reads dir/meta.txt, without loading the data: the
// harness uses it to describe runs before they start.
func ReadPlanetoidMeta(dir string) (PlanetoidMeta, error) {
	f, err := os.Open(filepath.Join(dir, "meta.txt"))
	if err != nil {
		return PlanetoidMeta{}, err
	}
	defer f.Close()
	var m PlanetoidMeta
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok {
			continue
		}
		if k == "name" {
			m.Name = v
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			continue
		}
		switch k {
		case "num_nodes":
			m.Nodes = n
		case "num_edges":
			m.Edges = n
		case "num_features":
			m.Features = n
		case "num_classes":
			m.Classes = n
		}
	}
	if err := sc.Err(); err != nil {
		return m, err
	}
	if m.Nodes <= 0 || m.Features <= 0 || m.Classes <= 0 {
		return m, fmt.Errorf("bench: %s: meta.txt lacks node, feature or class counts", dir)
	}
	return m, nil
}
