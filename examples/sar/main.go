// Command sar trains a two-layer GCN or GAT on a graph split across
// processes, as SAR does (sequential aggregation and rematerialisation,
// package dist/sar): each rank loads only its own partition of a
// directory written by cmd/gnnpart, aggregates over the other ranks' nodes
// shard by shard, and keeps a replica of the parameters, whose gradients
// the ranks sum before every step. The result is the training of one
// process on the whole graph.
//
// Under Open MPI (build with -tags mpi):
//
//	go run ./cmd/gnnpart -data ../shared/data/planetoid/cora -parts 4 -out parts/
//	go build -tags mpi -o sar-example ./examples/sar
//	mpirun --oversubscribe -np 4 ./sar-example -parts parts/ -model gat
//
// (--oversubscribe lets the 4 ranks share fewer cores, as on a 2-core
// host; as root, in a container for example, Open MPI also wants
// --allow-run-as-root.)
//
// A Planetoid dataset's features are row-normalised, as examples/gcn and
// gat do (-normalize auto; row or none force either way).
//
// In one process, one goroutine per rank (any build): -inproc 4. Only rank
// 0 prints and saves. The last line is "test accuracy: 0.xxxx" (a format, not a promised figure).
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"slices"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/dist/comm"
	"github.com/gnngo/gnn/dist/partition"
	"github.com/gnngo/gnn/dist/sar"
	"github.com/gnngo/gnn/examples/internal/setup"
	"github.com/gnngo/gnn/internal/limits"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/train"
)

// options are the command's flags.
type options struct {
	parts       string
	model       string
	inproc      int
	mode        string
	epochs      int
	lr          float64
	hidden      int
	heads       int
	dropout     float64
	attnDropout float64
	weightDecay float64
	patience    int
	seed        uint64
	save        string
	features    int
	classes     int
	stats       bool
	memprofile  string
	normalize   string // auto, row or none
	rowNorm     bool   // normalize resolved against the partition's dataset
}

// planetoidNames are the datasets whose features -normalize auto
// row-normalises, as examples/gcn and gat do (setup.Load).
var planetoidNames = map[string]bool{"cora": true, "citeseer": true, "pubmed": true}

func main() {
	log.SetFlags(0)
	log.SetPrefix("sar: ")
	o := options{model: "gcn", mode: "sequential", epochs: 200, hidden: 16, heads: 8, weightDecay: 5e-4, seed: 1}
	flag.StringVar(&o.parts, "parts", "", "partition `dir` written by cmd/gnnpart (one part per rank)")
	flag.StringVar(&o.model, "model", o.model, "gcn or gat")
	flag.IntVar(&o.inproc, "inproc", 0, "run this many ranks as goroutines of this process (0: one rank per process under mpirun, -tags mpi)")
	flag.StringVar(&o.mode, "mode", o.mode, "aggregation: sequential (SAR) or one-shot (fetch all remote rows at once)")
	flag.IntVar(&o.epochs, "epochs", o.epochs, "training epochs")
	flag.Float64Var(&o.lr, "lr", 0, "Adam learning rate (default 0.01 for gcn, 0.005 for gat)")
	flag.IntVar(&o.hidden, "hidden", 0, "hidden features, per head for gat (default 16 for gcn, 8 for gat)")
	flag.IntVar(&o.heads, "heads", o.heads, "attention heads of gat's hidden layer")
	flag.Float64Var(&o.dropout, "dropout", 0.5, "dropout of the input and hidden features (the masks of one process on the whole graph)")
	flag.Float64Var(&o.attnDropout, "attn-dropout", 0.5, "gat: dropout of the attention (the masks of one process on the whole graph)")
	flag.Float64Var(&o.weightDecay, "weight-decay", o.weightDecay, "L2 weight decay of the first layer")
	flag.IntVar(&o.patience, "patience", 0, "stop after this many epochs without better validation accuracy or loss (0: never)")
	flag.Uint64Var(&o.seed, "seed", o.seed, "seed of the initialisation (rank 0's is used everywhere) and the dropout")
	flag.StringVar(&o.save, "save", "", "rank 0 writes the trained parameters to this `file`")
	flag.IntVar(&o.features, "features", 64, "for partitions of a bare graph (gnnpart -gen): random features per node")
	flag.IntVar(&o.classes, "classes", 8, "for partitions of a bare graph: random labels in this many classes")
	flag.BoolVar(&o.stats, "stats", false, "every rank prints its peak RSS, largest live heap at the end of an epoch, median epoch time and bytes sent (a \"stats\" line)")
	flag.StringVar(&o.memprofile, "memprofile", "", "every rank writes a heap profile at the end of every epoch to `file`.RANK, the last epoch's kept (what training holds between epochs: graph, features, model values, the machine's buffers)")
	flag.StringVar(&o.normalize, "normalize", "auto", "input features: row (row-normalised, as PyG's NormalizeFeatures), none, or auto (row for a Planetoid dataset, as examples/gcn and gat do; none otherwise)")
	flag.Parse()
	if err := run(os.Stdout, &o); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer, o *options) error {
	if err := o.defaults(); err != nil {
		return err
	}
	m, err := partition.ReadManifest(o.parts)
	if err != nil {
		return fmt.Errorf("-parts: %w", err)
	}
	o.rowNorm = o.normalize == "row" || o.normalize == "auto" && planetoidNames[m.Name]
	job := func(c comm.Comm) error {
		_, err := rank(w, c, o)
		return err
	}
	if o.inproc > 0 {
		return comm.RunInProcess(o.inproc, job)
	}
	return comm.RunMPI(job)
}

// defaults fills in the model's learning rate and hidden size, then checks
// every flag (check).
func (o *options) defaults() error {
	lr, hidden := map[string]float64{"gcn": 0.01, "gat": 0.005}, map[string]int{"gcn": 16, "gat": 8}
	if _, ok := lr[o.model]; !ok {
		return fmt.Errorf("-model %q: want gcn or gat", o.model)
	}
	if o.lr == 0 {
		o.lr = lr[o.model]
	}
	if o.hidden == 0 {
		o.hidden = hidden[o.model]
	}
	if o.mode != "sequential" && o.mode != "one-shot" {
		return fmt.Errorf("-mode %q: want sequential or one-shot", o.mode)
	}
	return o.check()
}

// check rejects, naming the flag, values no run can use, and checks that
// -save can be written: all before any rank starts, as the other examples
// do (setup.Flags.Check), so that a bad flag neither fails inside every
// rank nor throws a whole training away.
func (o *options) check() error {
	switch {
	case o.normalize != "" && o.normalize != "auto" && o.normalize != "row" && o.normalize != "none":
		return fmt.Errorf("-normalize %q: want auto, row or none", o.normalize)
	case o.parts == "":
		return fmt.Errorf("-parts is required: a directory written by cmd/gnnpart")
	case o.inproc < 0:
		return fmt.Errorf("-inproc %d: want a number of in-process ranks >= 1 (0: one rank per process under mpirun)", o.inproc)
	case o.epochs < 1:
		return fmt.Errorf("-epochs %d: want at least 1", o.epochs)
	case !(o.lr > 0) || math.IsInf(o.lr, 0):
		return fmt.Errorf("-lr %v: want a positive, finite learning rate", o.lr)
	case o.hidden < 1 || o.hidden > limits.MaxCount:
		return fmt.Errorf("-hidden %d: want a positive number of features, at most %d", o.hidden, limits.MaxCount)
	case o.model == "gat" && (o.heads < 1 || o.heads > limits.MaxCount):
		return fmt.Errorf("-heads %d: want at least 1 attention head", o.heads)
	case !(o.dropout >= 0 && o.dropout < 1):
		return fmt.Errorf("-dropout %v: want a probability in [0, 1)", o.dropout)
	case !(o.attnDropout >= 0 && o.attnDropout < 1):
		return fmt.Errorf("-attn-dropout %v: want a probability in [0, 1)", o.attnDropout)
	case !(o.weightDecay >= 0) || math.IsInf(o.weightDecay, 0):
		return fmt.Errorf("-weight-decay %v: want a finite number >= 0", o.weightDecay)
	case o.patience < 0:
		return fmt.Errorf("-patience %d: want a number of epochs >= 0 (0: never stop early)", o.patience)
	case o.features < 0 || o.features > limits.MaxCount:
		return fmt.Errorf("-features %d: want a positive number of features", o.features)
	case o.classes < 0 || o.classes > limits.MaxCount:
		return fmt.Errorf("-classes %d: want a positive number of classes", o.classes)
	}
	if o.save != "" {
		if err := setup.Writable(o.save); err != nil {
			return fmt.Errorf("-save: %w", err)
		}
	}
	if o.memprofile != "" {
		if err := setup.Writable(o.memprofile + ".0"); err != nil {
			return fmt.Errorf("-memprofile: %w", err)
		}
	}
	return nil
}

// rank is one rank's whole run; it returns the training's result.
func rank(w io.Writer, c comm.Comm, o *options) (*train.Result, error) {
	p, err := partition.Read(o.parts, c.Rank())
	if err != nil {
		return nil, err
	}
	if p.Parts != c.Size() {
		return nil, fmt.Errorf("%s holds %d parts but the job has %d ranks", o.parts, p.Parts, c.Size())
	}
	if p.Features == nil || p.Labels == nil {
		if err := limits.Bytes(fmt.Sprintf("-features %d on %d nodes", o.features, p.NumNodes()), 8*float64(p.NumNodes())*float64(o.features)); err != nil {
			return nil, err
		}
		if err := synthesise(p, o.features, o.classes, o.seed); err != nil {
			return nil, fmt.Errorf("%s: %w", o.parts, err)
		}
	}
	heads := 1
	if o.model == "gat" {
		heads = o.heads
	}
	// Each rank holds its own nodes' rows (and one shard's remote rows at a
	// time), so the estimate is of its nodes, not the graph's.
	if err := setup.CheckModelSize("-hidden and -heads", p.NumNodes(), p.Features.Cols, o.hidden, heads, 2); err != nil {
		return nil, err
	}
	mode := sar.Sequential
	if o.mode == "one-shot" {
		mode = sar.OneShot
	}
	g, err := sar.New(p, c, sar.WithMode(mode), sar.WithSelfLoops(true))
	if err != nil {
		return nil, err
	}
	p.Shards = nil // the graph copied what it needs of them
	if c.Rank() != 0 {
		w = io.Discard
	}
	norm := "raw"
	if o.rowNorm {
		norm = "row-normalised"
	}
	fmt.Fprintf(w, "%s on %s: %d nodes on %d ranks (rank 0: %d nodes, %d in-edges), %s aggregation, %s features\n",
		o.model, p.Name, p.NumGlobalNodes, c.Size(), p.NumNodes(), g.NumEdges(), mode, norm)
	eg := gorgonia.NewGraph()
	loss := func(logits *gorgonia.Node) (*gorgonia.Node, error) {
		return sar.CrossEntropy(g, logits, p.Labels, p.Train)
	}
	// The engines prefix a rank's error with "rank R: ", so none is added
	// here.
	task, err := newTask(eg, g, p.Features, p.NumClasses, o, loss)
	if err != nil {
		return nil, err
	}
	task.Labels, task.Train, task.Val, task.Test = p.Labels, p.Train, p.Val, p.Test
	cfg := train.Config{Epochs: o.epochs, LearningRate: o.lr, Patience: o.patience, Sync: sar.NewSync(c)}
	heap := &heapWatch{stats: o.stats}
	if o.memprofile != "" {
		heap.profile = fmt.Sprintf("%s.%d", o.memprofile, c.Rank())
	}
	printEpoch := setup.PrintEpoch(w)
	res, err := train.Fit(task, cfg, func(e train.Epoch) {
		printEpoch(e)
		heap.epoch()
	})
	if err == nil {
		err = heap.err
	}
	if err != nil {
		return nil, err
	}
	if o.stats {
		printStats(os.Stdout, c.Rank(), p, g, res, heap.live)
	}
	if o.save != "" && c.Rank() == 0 {
		if err := nn.SaveParams(o.save, params(task)); err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "saved parameters to %s\n", o.save)
	}
	setup.PrintResult(w, res, cfg.Select)
	return res, nil
}

func params(t *train.Task) gorgonia.Nodes {
	var ps gorgonia.Nodes
	for _, g := range t.Groups {
		ps = append(ps, g.Params...)
	}
	return ps
}

// newTask builds the model of o on g (a *graph.Graph or a rank's
// sar.Graph) from the features of its nodes, with the loss that loss
// builds from the logits. The dropout masks are those of one process on
// the whole graph (nn.DropoutOn), so every rank count trains alike. The
// caller fills in the labels and splits.
func newTask(eg *gorgonia.ExprGraph, g nn.Graph, f *dataset.Features, classes int, o *options, loss func(*gorgonia.Node) (*gorgonia.Node, error)) (*train.Task, error) {
	mode := nn.NewMode()
	dropSeed := o.seed
	if o.rowNorm {
		f = rowNormalized(f)
	}
	x, err := input(eg, g, f, o.dropout, dropSeed, mode)
	if err != nil {
		return nil, err
	}
	var l1, l2 nn.Layer
	if o.model == "gcn" {
		if l1, err = gcn.New(eg, f.Cols, o.hidden, gcn.WithName("gcn1"), gcn.WithSeed(o.seed), gcn.WithActivation(nn.ReLU)); err != nil {
			return nil, err
		}
		l2, err = gcn.New(eg, o.hidden, classes, gcn.WithName("gcn2"), gcn.WithSeed(o.seed+1))
	} else {
		attn := []gat.Option{gat.WithAttnDropout(o.attnDropout), gat.WithMode(mode)}
		if l1, err = gat.New(eg, f.Cols, o.hidden, append(attn, gat.WithName("gat1"), gat.WithHeads(o.heads), gat.WithSeed(o.seed), gat.WithActivation(nn.ELU))...); err != nil {
			return nil, err
		}
		l2, err = gat.New(eg, o.hidden*o.heads, classes, append(attn, gat.WithName("gat2"), gat.WithSeed(o.seed+10))...)
	}
	if err != nil {
		return nil, err
	}
	h, err := l1.Forward(g, x)
	if err != nil {
		return nil, err
	}
	if o.dropout > 0 {
		if h, err = nn.DropoutOn(g, h, o.dropout, dropSeed+1, mode); err != nil {
			return nil, err
		}
	}
	logits, err := l2.Forward(g, h)
	if err != nil {
		return nil, err
	}
	l, err := loss(logits)
	if err != nil {
		return nil, err
	}
	// Weight decay on the first layer only, as in the GCN paper.
	return &train.Task{Logits: logits, Loss: l, Mode: mode,
		Groups: []train.Group{{Params: l1.Learnables(), WeightDecay: o.weightDecay}, {Params: l2.Learnables()}}}, nil
}

// rowNormalized returns a copy of f with every row divided by its sum (a
// row is a node's, so each rank normalises its own rows alone).
func rowNormalized(f *dataset.Features) *dataset.Features {
	c := *f
	c.Dense, c.Values = slices.Clone(f.Dense), slices.Clone(f.Values)
	c.RowNormalize()
	return &c
}

// input is the features as a dense float32 matrix, after dropout.
func input(eg *gorgonia.ExprGraph, g nn.Graph, f *dataset.Features, p float64, seed uint64, mode *nn.Mode) (*gorgonia.Node, error) {
	// Dense features are used in place (nothing writes into an input),
	// not copied: the copy would double the largest table a rank holds.
	back := f.Dense
	if f.IsSparse() || len(back) != f.Rows*f.Cols {
		back = f.ToDense()
	}
	v := tensor.New(tensor.WithShape(f.Rows, f.Cols), tensor.WithBacking(back))
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(f.Rows, f.Cols), gorgonia.WithName("features"), gorgonia.WithValue(v))
	if p == 0 {
		return x, nil
	}
	return nn.DropoutOn(g, x, p, seed, mode)
}
