// Command gnnpart partitions a graph for distributed training: it assigns
// every node to one of -parts ranks and writes the partition format of
// package dist/partition (one self-describing, checksummed directory per
// rank plus a manifest) to -out, which each rank of a distributed job then
// reads its own part from.
//
//	gnnpart -data ../shared/data/planetoid/cora -parts 4 -out parts/
//	gnnpart -data edges.txt -nodes 1000 -parts 8 -out parts/
//	gnnpart -data graph.bin -parts 2 -method metis -out parts/   # -tags metis
//	gnnpart -gen rmat:20:50000000 -parts 4 -out parts/
//	gnnpart -gen planted:100000 -parts 4 -out parts/
//
// -data is a Planetoid directory (holding meta.txt; its features, labels
// and split go with the graph), a file in the binary graph format
// (graph.Save; recognised by its magic), or a text edge list ("src dst"
// per line, read with graph.ReadEdgeList; -nodes declares the node count
// when trailing nodes have no edges). -gen makes a graph instead:
// rmat:SCALE:EDGES (graph/generate.RMAT with Graph500's parameters),
// uniform:NODES:EDGES (generate.Uniform), or planted:NODES (a planted-
// partition node-classification dataset shaped like Cora, with features,
// labels and split; dataset.PlantedPartition). -seed seeds both the
// generator and the partitioner.
//
// -method picks the partitioner: multilevel (the default, pure Go,
// edge-cut minimising), metis (METIS 5 through cgo; build with -tags metis)
// or random (a balanced random assignment, the baseline). gnnpart prints
// the edge cut and the balance it reached.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/dist/partition"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/limits"
)

func main() {
	// The multilevel partitioner keeps every coarsening level alive and
	// makes short-lived heaps: a tighter garbage collector target cuts the
	// peak memory on a large graph by a third (50M-edge R-MAT: 12.5 GB
	// at GOGC=100, 7.9 GB at 25). GOGC in the environment wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(25)
	}
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "gnnpart:", err)
		}
		os.Exit(2)
	}
}

// run is the command with its arguments and output streams.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gnnpart", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "input: a Planetoid directory, a binary graph file or a text edge list")
	gen := fs.String("gen", "", "generate the input instead: rmat:SCALE:EDGES, uniform:NODES:EDGES or planted:NODES")
	nodes := fs.Int("nodes", 0, "node count of a text edge list (0: the largest ID plus one)")
	parts := fs.Int("parts", 0, "number of partitions (ranks), at least 1")
	out := fs.String("out", "", "output directory")
	method := fs.String("method", "multilevel", "partitioner: multilevel, metis or random")
	seed := fs.Int64("seed", 1, "seed of the partitioner and the generator")
	balanceName := fs.String("balance", "edges", "what the parts hold in equal shares: nodes, or edges (nodes and incoming edges, what a worker's memory follows)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if (*data == "") == (*gen == "") {
		return fmt.Errorf("give exactly one of -data and -gen")
	}
	if *parts < 1 {
		return fmt.Errorf("-parts must be at least 1, got %d", *parts)
	}
	if *out == "" {
		return fmt.Errorf("-out is required")
	}
	balance, err := partition.ParseBalance(*balanceName)
	if err != nil {
		return fmt.Errorf("-balance: %w", err)
	}
	partitioner, err := pickMethod(*method, balance)
	if err != nil {
		return err
	}
	if err := limits.Count("-parts", int64(*parts)); err != nil {
		return err
	}
	if err := limits.Count("-nodes", int64(*nodes)); err != nil {
		return err
	}
	weighted := balance == partition.BalanceNodesEdges && *method != "random"
	start := time.Now()
	var ds *dataset.Dataset
	if *gen != "" {
		ds, err = generated(*gen, *seed, *parts, weighted)
	} else {
		ds, err = load(*data, *nodes)
	}
	if err != nil {
		return err
	}
	g := ds.Graph
	if *data != "" {
		if err := checkSize("-data "+*data, int64(g.NumNodes()), int64(g.NumEdges()), 0, *parts, weighted); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "gnnpart: loaded %d nodes, %d edges in %v\n", g.NumNodes(), g.NumEdges(), time.Since(start).Round(time.Millisecond))
	start = time.Now()
	owner, err := partitioner(g, *parts, *seed)
	if err != nil {
		return err
	}
	took := time.Since(start)
	parted, err := partition.SplitDataset(ds, owner, *parts)
	if err != nil {
		return err
	}
	if err := partition.Write(*out, parted, partition.Info{Method: *method, Seed: *seed}); err != nil {
		return err
	}
	cut, err := partition.EdgeCut(g, owner)
	if err != nil {
		return err
	}
	imb, err := partition.Imbalance(owner, *parts)
	if err != nil {
		return err
	}
	loads, err := partition.InEdgeLoads(g, owner, *parts)
	if err != nil {
		return err
	}
	share := 0.0
	if g.NumEdges() > 0 {
		share = 100 * float64(cut) / float64(g.NumEdges())
	}
	fmt.Fprintf(stdout, "%s: %d nodes, %d edges -> %d parts in %s (%s, balancing %v, %v): edge cut %d (%.2f%% of edges), largest part %.3fx the average in nodes, %.3fx in in-edges\n",
		name(ds), g.NumNodes(), g.NumEdges(), *parts, *out, *method, balance, took.Round(time.Millisecond), cut, share, imb, partition.MaxOverMean(loads))
	return nil
}

func name(ds *dataset.Dataset) string {
	if ds.Name == "" {
		return "graph"
	}
	return ds.Name
}

// pickMethod returns the partitioner named by -method.
func pickMethod(method string, b partition.Balance) (func(*graph.Graph, int, int64) ([]int32, error), error) {
	switch method {
	case "multilevel":
		return func(g *graph.Graph, parts int, seed int64) ([]int32, error) {
			return partition.PartitionBalanced(g, parts, seed, b)
		}, nil
	case "metis":
		if !partition.METISBuilt {
			return nil, partition.ErrMETISNotBuilt
		}
		return func(g *graph.Graph, parts int, seed int64) ([]int32, error) {
			return partition.METISBalanced(g, parts, seed, b)
		}, nil
	case "random":
		return func(g *graph.Graph, parts int, seed int64) ([]int32, error) {
			return partition.Random(g.NumNodes(), parts, seed)
		}, nil
	}
	return nil, fmt.Errorf("unknown -method %q (want multilevel, metis or random)", method)
}

// load reads -data: a Planetoid directory, a binary graph or an edge list.
func load(path string, nodes int) (*dataset.Dataset, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, "meta.txt")); err != nil {
			return nil, fmt.Errorf("%s is a directory without meta.txt, not a Planetoid dataset", path)
		}
		return dataset.LoadPlanetoid(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	magic := make([]byte, 8)
	n, _ := io.ReadFull(f, magic)
	var g *graph.Graph
	if bytes.Equal(magic[:n], []byte("GNNGRAPH")) {
		if nodes != 0 {
			return nil, fmt.Errorf("-nodes applies to text edge lists; %s is a binary graph", path)
		}
		g, err = graph.Load(path)
	} else {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		g, err = graph.ReadEdgeList(f, graph.EdgeListOptions{NumNodes: nodes})
	}
	if err != nil {
		return nil, err
	}
	if !g.Homogeneous() {
		return nil, fmt.Errorf("%s: a bipartite graph (%d source, %d destination nodes) cannot be partitioned", path, g.NumSrc(), g.NumDst())
	}
	return &dataset.Dataset{Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), Graph: g}, nil
}

// Bytes per node and per edge that partitioning and writing a graph take
// at least: measured peaks (GOGC 25, gnnpart's setting) were 57 B a node
// for uniform:4000000:5 and 115 B an edge for rmat:16:2000000 (160 for a
// 50M-edge R-MAT), so an estimate from these is a lower bound.
const (
	bytesPerNode  = 48
	bytesPerEdge  = 100
	bytesPerShard = 256 // a shard's Part entry and file: parts^2 of them
)

// checkSize refuses, naming what (the flag), a graph of nodes nodes and
// edges edges with featureBytes of features that cannot be partitioned
// into parts: more parts than nodes, more than 2^31-1 nodes or edges, a
// total node weight the partitioner cannot hold (weighted: -balance edges
// with multilevel or metis), or more memory than the machine has. It runs
// before anything is made.
func checkSize(what string, nodes, edges, featureBytes int64, parts int, weighted bool) error {
	if err := limits.Count(what+": nodes", nodes); err != nil {
		return err
	}
	if err := limits.Count(what+": edges", edges); err != nil {
		return err
	}
	if int64(parts) > max(nodes, 1) {
		return fmt.Errorf("-parts %d: more parts than the %d nodes of %s", parts, nodes, what)
	}
	if w := nodes*partition.NodeWeight + edges; weighted && w > math.MaxInt32 {
		return fmt.Errorf("%s: %d nodes and %d edges weigh %d in all with -balance edges, more than the partitioner's 32-bit weights hold; give -balance nodes", what, nodes, edges, w)
	}
	est := float64(nodes)*bytesPerNode + float64(edges)*bytesPerEdge + 2*float64(featureBytes) + float64(parts)*float64(parts)*bytesPerShard
	return limits.Bytes(fmt.Sprintf("%s with -parts %d", what, parts), est)
}

// generated makes the -gen input, after checking its sizes with checkSize.
func generated(spec string, seed int64, parts int, weighted bool) (*dataset.Dataset, error) {
	kind, rest, _ := strings.Cut(spec, ":")
	var nums []int64
	if rest != "" {
		for _, f := range strings.Split(rest, ":") {
			x, err := strconv.ParseInt(f, 10, 64)
			if err != nil || x < 0 {
				return nil, fmt.Errorf("-gen %q: %q is not a non-negative integer", spec, f)
			}
			nums = append(nums, x)
		}
	}
	want := map[string]int{"rmat": 2, "uniform": 2, "planted": 1}
	if n, ok := want[kind]; !ok || len(nums) != n {
		return nil, fmt.Errorf("-gen %q: want rmat:SCALE:EDGES, uniform:NODES:EDGES or planted:NODES", spec)
	}
	var nodes, edges, featureBytes int64
	switch kind {
	case "rmat":
		if nums[0] > 30 {
			return nil, fmt.Errorf("-gen %q: R-MAT scale %d outside [0, 30]", spec, nums[0])
		}
		nodes, edges = 1<<nums[0], nums[1]
	case "uniform":
		nodes, edges = nums[0], nums[1]
	case "planted":
		cfg := dataset.DefaultPlantedConfig()
		nodes = nums[0]
		edges = int64(float64(nums[0]) * cfg.MeanDegree * 2)
		featureBytes = nums[0] * int64(cfg.Features) * 4
	}
	if err := checkSize("-gen "+spec, nodes, edges, featureBytes, parts, weighted); err != nil {
		return nil, err
	}
	var g *graph.Graph
	var err error
	switch kind {
	case "rmat":
		g, err = generate.RMAT(int(nums[0]), nums[1], 0.57, 0.19, 0.19, uint64(seed))
	case "uniform":
		g, err = generate.Uniform(int(nums[0]), nums[1], uint64(seed))
	case "planted":
		cfg := dataset.DefaultPlantedConfig()
		cfg.Nodes, cfg.Seed = int(nums[0]), uint64(seed)
		ds, err := dataset.PlantedPartition(cfg)
		if err != nil {
			return nil, err
		}
		ds.Name = "planted"
		return ds, nil
	}
	if err != nil {
		return nil, err
	}
	return &dataset.Dataset{Name: kind, Graph: g}, nil
}
