package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/limits"
	"github.com/gnngo/gnn/internal/parallel"
)

// PlantedConfig configures PlantedPartition. Start from DefaultPlantedConfig
// and change fields: every field is used as given, a zero value does not mean
// a default.
type PlantedConfig struct {
	// Nodes is the number of nodes, at least 1.
	Nodes int

	// Classes is the number of classes, in [1, Nodes]. Nodes are spread over
	// the classes as evenly as possible: class sizes differ by at most one.
	Classes int

	// Features is the number of feature columns, at least 1.
	Features int

	// MeanDegree is the average number of neighbours of a node. The graph has
	// round(Nodes*MeanDegree/2) distinct undirected edges, each stored in both
	// directions, so it has about Nodes*MeanDegree directed edges. Degrees
	// are close to Poisson: a few nodes may be isolated. It may be zero.
	MeanDegree float64

	// Homophily is the fraction of undirected edges whose two ends share a
	// class (edge homophily), in [0, 1]. It holds exactly, up to rounding.
	// 1/Classes gives a graph that carries no class information.
	Homophily float64

	// Signal is the length of each class's mean feature vector, in units of
	// the feature noise's standard deviation; zero gives features that carry
	// no class information.
	Signal float64

	// TrainPerClass, Val and Test size the split: TrainPerClass training
	// nodes of every class, then Val validation and Test test nodes. When
	// they need more than Nodes nodes all three are scaled down by the same
	// factor, keeping at least one training node per class (and taking the
	// nodes this costs from Val first, then Test). Each may be zero.
	TrainPerClass, Val, Test int

	// Seed selects the random graph, features and split.
	Seed uint64
}

// Override returns c with every field that o sets (not zero) in place of
// c's: how a command applies its size flags, whose 0 means "the default",
// to DefaultPlantedConfig. A field o leaves at zero keeps c's value; to set
// one to zero, assign it on the result.
func (c PlantedConfig) Override(o PlantedConfig) PlantedConfig {
	setNonZero(&c.Nodes, o.Nodes)
	setNonZero(&c.Classes, o.Classes)
	setNonZero(&c.Features, o.Features)
	setNonZero(&c.MeanDegree, o.MeanDegree)
	setNonZero(&c.Homophily, o.Homophily)
	setNonZero(&c.Signal, o.Signal)
	setNonZero(&c.TrainPerClass, o.TrainPerClass)
	setNonZero(&c.Val, o.Val)
	setNonZero(&c.Test, o.Test)
	setNonZero(&c.Seed, o.Seed)
	return c
}

// setNonZero sets *dst to v unless v is zero.
func setNonZero[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

// DefaultPlantedConfig returns the configuration of a task shaped like the
// Cora citation graph: 2708 nodes in 7 classes, mean degree 3.9 and edge
// homophily 0.81, with the Planetoid split of 20 training nodes per class,
// 500 validation and 1000 test nodes. Its 128 features are weak enough that
// the graph matters: trained as in Kipf and Welling (16 hidden units,
// dropout 0.5, Adam at 0.01, 200 epochs), a two-layer GCN reaches about 92%
// test accuracy and a two-layer MLP on the features alone about 54%.
func DefaultPlantedConfig() PlantedConfig {
	return PlantedConfig{
		Nodes:         2708,
		Classes:       7,
		Features:      128,
		MeanDegree:    3.9,
		Homophily:     0.81,
		Signal:        2.25,
		TrainPerClass: 20,
		Val:           500,
		Test:          1000,
		Seed:          1,
	}
}

// Random streams of PlantedPartition, one per part of the dataset, so that
// changing the features does not change the graph and vice versa.
const (
	streamLabels = iota
	streamEdges
	streamMeans
	streamSplit
	streamFeatures // one stream per block of rows from here on
)

// featureBlock is the number of feature rows drawn from one random stream.
const featureBlock = 1024

// PlantedPartition generates a node-classification dataset named "planted"
// from the planted-partition model (a stochastic block model in which every
// class is a block), the default training data of the examples.
//
// Nodes get balanced random labels. The graph is symmetric (every edge u -> v
// comes with v -> u), simple (no parallel edges) and has no self-loops; its
// edges are listed in increasing (source, destination) order. It is drawn in
// O(edges) time: round(Homophily*edges) undirected edges join a random node
// to a random other node of its class, the rest join a random node to a
// random node of another class, and repeated pairs are drawn again.
//
// Node v's features are Signal*m[label(v)] + noise, dense float32, where the
// class means m[c] are random unit vectors, orthonormal when Features >=
// Classes, and the noise is standard normal. The features are often negative,
// so they must not be row-normalised as Cora's bag-of-words features are.
//
// The split is drawn like Planetoid's: nodes are shuffled, the first
// TrainPerClass of every class are the training set, and the next Val and
// Test nodes of the shuffled order are the validation and test sets. The sets
// are disjoint and sorted.
//
// The dataset depends only on cfg, whatever GOMAXPROCS is. The graph, labels
// and split do not depend on Features or Signal, nor the labels and split on
// MeanDegree or Homophily. PlantedPartition returns an error for a
// configuration outside the ranges documented on PlantedConfig, and when
// MeanDegree asks for more than half of the same-class or cross-class node
// pairs there are.
func PlantedPartition(cfg PlantedConfig) (*Dataset, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	n, c := cfg.Nodes, cfg.Classes

	labels := make([]int32, n)
	for v := range labels {
		labels[v] = int32(v % c)
	}
	rng := newStream(cfg.Seed, streamLabels)
	rng.Shuffle(n, func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })
	members := make([][]int32, c)
	for v, y := range labels {
		members[y] = append(members[y], int32(v))
	}

	g, err := plantedGraph(cfg, labels, members)
	if err != nil {
		return nil, err
	}
	train, val, test := plantedSplit(cfg, labels)
	return &Dataset{
		Name:       "planted",
		Graph:      g,
		Features:   plantedFeatures(cfg, labels),
		Labels:     labels,
		NumClasses: c,
		Train:      train,
		Val:        val,
		Test:       test,
	}, nil
}

// validate reports the first field outside its documented range.
func (cfg PlantedConfig) validate() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case cfg.Nodes < 1 || cfg.Nodes > graph.MaxNodes:
		return fmt.Errorf("dataset: planted: %d nodes outside [1, %d]", cfg.Nodes, graph.MaxNodes)
	case cfg.Classes < 1 || cfg.Classes > cfg.Nodes:
		return fmt.Errorf("dataset: planted: %d classes outside [1, %d nodes]", cfg.Classes, cfg.Nodes)
	case cfg.Features < 1:
		return fmt.Errorf("dataset: planted: %d features, want at least 1", cfg.Features)
	case cfg.Features > math.MaxInt/cfg.Nodes:
		return fmt.Errorf("dataset: planted: %d nodes x %d features overflow int", cfg.Nodes, cfg.Features)
	case !finite(cfg.MeanDegree) || cfg.MeanDegree < 0:
		return fmt.Errorf("dataset: planted: mean degree %v is not a finite non-negative number", cfg.MeanDegree)
	case !(cfg.Homophily >= 0 && cfg.Homophily <= 1):
		return fmt.Errorf("dataset: planted: homophily %v outside [0, 1]", cfg.Homophily)
	case !finite(cfg.Signal) || cfg.Signal < 0:
		return fmt.Errorf("dataset: planted: signal %v is not a finite non-negative number", cfg.Signal)
	case cfg.TrainPerClass < 0 || cfg.Val < 0 || cfg.Test < 0:
		return fmt.Errorf("dataset: planted: negative split size (train per class %d, val %d, test %d)",
			cfg.TrainPerClass, cfg.Val, cfg.Test)
	}
	edges := float64(cfg.Nodes) * cfg.MeanDegree
	if edges > graph.MaxEdges {
		return fmt.Errorf("dataset: planted: %d nodes of mean degree %v make %.0f edges, more than %d", cfg.Nodes, cfg.MeanDegree, edges, graph.MaxEdges)
	}
	// The features (float32) and the graph (about 24 bytes an edge) must
	// fit in memory.
	return limits.Bytes(fmt.Sprintf("dataset: planted: %d nodes x %d features and %.0f edges", cfg.Nodes, cfg.Features, edges),
		4*float64(cfg.Nodes)*float64(cfg.Features)+24*edges)
}

// newStream returns random stream number stream of seed. Both are mixed by
// the SplitMix64 finaliser so that nearby seeds and streams start far apart
// in the generator's cycle.
func newStream(seed, stream uint64) *rand.Rand {
	mix := func(x uint64) uint64 {
		x += 0x9e3779b97f4a7c15
		x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
		x = (x ^ x>>27) * 0x94d049bb133111eb
		return x ^ x>>31
	}
	return rand.New(rand.NewPCG(mix(seed), mix(stream^0x6a09e667f3bcc909)))
}

// plantedGraph draws the symmetric graph: round(Nodes*MeanDegree/2) distinct
// undirected edges, round(Homophily*that) of them within a class.
func plantedGraph(cfg PlantedConfig, labels []int32, members [][]int32) (*graph.Graph, error) {
	n := cfg.Nodes
	edges := math.Round(float64(n) * cfg.MeanDegree / 2)
	var samePairs float64
	for _, m := range members {
		s := float64(len(m))
		samePairs += s * (s - 1) / 2
	}
	crossPairs := float64(n)*float64(n-1)/2 - samePairs
	same := math.Round(cfg.Homophily * edges)
	cross := edges - same
	// Rejection of repeated pairs stays cheap while at most half are taken.
	if same > samePairs/2 || cross > crossPairs/2 {
		return nil, fmt.Errorf("dataset: planted: mean degree %v with homophily %v needs %.0f same-class and %.0f cross-class edges, "+
			"more than half of the %.0f and %.0f pairs available", cfg.MeanDegree, cfg.Homophily, same, cross, samePairs, crossPairs)
	}

	rng := newStream(cfg.Seed, streamEdges)
	seen := make(map[uint64]struct{}, int(edges))
	keys := make([]uint64, 0, 2*int(edges))
	add := func(u, v int32) {
		if u == v {
			return
		}
		k := uint64(min(u, v))<<32 | uint64(max(u, v))
		if _, dup := seen[k]; dup {
			return
		}
		seen[k] = struct{}{}
		keys = append(keys, uint64(u)<<32|uint64(v), uint64(v)<<32|uint64(u))
	}
	for len(seen) < int(same) {
		u := int32(rng.IntN(n))
		m := members[labels[u]]
		add(u, m[rng.IntN(len(m))])
	}
	for len(seen) < int(edges) {
		u := int32(rng.IntN(n))
		add(u, otherClass(members, labels[u], rng.IntN(n-len(members[labels[u]]))))
	}

	slices.Sort(keys)
	src, dst := make([]int32, len(keys)), make([]int32, len(keys))
	for i, k := range keys {
		src[i], dst[i] = int32(k>>32), int32(uint32(k))
	}
	return graph.FromCOO(n, n, src, dst)
}

// otherClass returns the k-th node, in class order, of the classes other
// than skip.
func otherClass(members [][]int32, skip int32, k int) int32 {
	for c, m := range members {
		if int32(c) == skip {
			continue
		}
		if k < len(m) {
			return m[k]
		}
		k -= len(m)
	}
	panic("dataset: planted: node index beyond the other classes")
}

// plantedFeatures draws Signal*m[label] + standard normal noise for every
// node, in parallel over blocks of rows with one random stream per block.
func plantedFeatures(cfg PlantedConfig, labels []int32) *Features {
	f := cfg.Features
	means := classMeans(cfg.Classes, f, newStream(cfg.Seed, streamMeans))
	for i := range means {
		means[i] *= cfg.Signal
	}
	x := make([]float32, cfg.Nodes*f)
	blocks := (cfg.Nodes + featureBlock - 1) / featureBlock
	parallel.For(blocks, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			rng := newStream(cfg.Seed, streamFeatures+uint64(b))
			for v := b * featureBlock; v < min((b+1)*featureBlock, cfg.Nodes); v++ {
				mean := means[int(labels[v])*f : (int(labels[v])+1)*f]
				row := x[v*f : (v+1)*f]
				for j := range row {
					row[j] = float32(mean[j] + rng.NormFloat64())
				}
			}
		}
	})
	return &Features{Rows: cfg.Nodes, Cols: f, Dense: x}
}

// classMeans returns c unit vectors of length f, row-major: orthonormal
// (Gram-Schmidt on Gaussian vectors) when f >= c, otherwise independent
// random directions.
func classMeans(c, f int, rng *rand.Rand) []float64 {
	m := make([]float64, c*f)
	for i := range c {
		row := m[i*f : (i+1)*f]
		for {
			for j := range row {
				row[j] = rng.NormFloat64()
			}
			if f >= c {
				for k := range i {
					prev := m[k*f : (k+1)*f]
					var dot float64
					for j := range row {
						dot += row[j] * prev[j]
					}
					for j := range row {
						row[j] -= dot * prev[j]
					}
				}
			}
			var norm float64
			for _, x := range row {
				norm += x * x
			}
			// A (near) zero vector has no direction; draw again.
			if norm > 1e-12 {
				norm = math.Sqrt(norm)
				for j := range row {
					row[j] /= norm
				}
				break
			}
		}
	}
	return m
}

// plantedSplit draws the Planetoid-style split from a shuffle of the nodes.
func plantedSplit(cfg PlantedConfig, labels []int32) (train, val, test []int32) {
	perClass, nVal, nTest := splitSizes(cfg)
	order := newStream(cfg.Seed, streamSplit).Perm(cfg.Nodes)
	taken := make([]int, cfg.Classes)
	rest := make([]int32, 0, cfg.Nodes)
	for _, v := range order {
		if y := labels[v]; taken[y] < perClass {
			taken[y]++
			train = append(train, int32(v))
		} else {
			rest = append(rest, int32(v))
		}
	}
	val = slices.Clone(rest[:nVal])
	test = slices.Clone(rest[nVal : nVal+nTest])
	for _, s := range [][]int32{train, val, test} {
		slices.Sort(s)
	}
	if train == nil {
		train = []int32{}
	}
	return train, val, test
}

// splitSizes returns the configured split sizes, scaled down in proportion
// when they need more than Nodes nodes.
func splitSizes(cfg PlantedConfig) (perClass, val, test int) {
	n, c := cfg.Nodes, cfg.Classes
	perClass, val, test = cfg.TrainPerClass, cfg.Val, cfg.Test
	need := float64(perClass)*float64(c) + float64(val) + float64(test)
	if need <= float64(n) {
		return perClass, val, test
	}
	scale := float64(n) / need
	perClass = max(int(float64(perClass)*scale), min(perClass, 1))
	val = int(float64(val) * scale)
	test = int(float64(test) * scale)
	// Keeping one training node per class may overshoot; take the excess
	// from the validation set, then the test set.
	over := perClass*c + val + test - n
	if over > 0 {
		d := min(over, val)
		val -= d
		test -= over - d
	}
	return perClass, val, test
}
