package setup

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/gpu"
	"github.com/gnngo/gnn/internal/limits"
	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/train"
)

// Flags are the options both examples share.
type Flags struct {
	Data        string
	Epochs      int
	LR          float64
	Hidden      int
	Dropout     float64
	WeightDecay float64
	Patience    int
	Select      string // "acc" or "loss"
	Seed        uint64
	Dense       bool
	Load        string
	Save        string
	Plot        string
	CPUProfile  string
	Device      string // cpu, gpu or emu
	Split       string // OGB split scheme (-split, for the examples that call RegisterSplit)

	// LegacyParams, when set, are a model's parameters under the names an
	// earlier version of the program saved them with, holding the same
	// tensors: FinishModel's -load reads a parameter file into them.
	LegacyParams gorgonia.Nodes

	set map[string]bool // flags given on the command line
	dev *gpu.Device     // opened by Place
}

// Register adds the shared flags to fs with the given defaults.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Data, "data", f.Data, "Planetoid or OGB `dir` (e.g. ../shared/data/planetoid/cora, dataset/ogbn_arxiv); empty trains on a generated planted-partition graph")
	fs.IntVar(&f.Epochs, "epochs", f.Epochs, "training epochs (0 with -load: evaluate the loaded model only)")
	fs.Float64Var(&f.LR, "lr", f.LR, "Adam learning rate")
	fs.IntVar(&f.Hidden, "hidden", f.Hidden, "hidden features (per head for GAT)")
	fs.Float64Var(&f.Dropout, "dropout", f.Dropout, "dropout probability")
	fs.Float64Var(&f.WeightDecay, "weight-decay", f.WeightDecay, "L2 weight decay")
	fs.IntVar(&f.Patience, "patience", f.Patience, "stop after this many epochs in a row without a new best validation accuracy (ties: lower validation loss) or a new lowest validation loss (0: never)")
	stringVar(fs, &f.Select, "select", "acc", "the epoch whose weights and test accuracy are kept: acc (best validation accuracy, ties: lower validation loss) or loss (lowest validation loss)")
	fs.Uint64Var(&f.Seed, "seed", f.Seed, "random seed (initialisation, dropout, generated data)")
	fs.BoolVar(&f.Dense, "dense", f.Dense, "multiply sparse input features as a dense matrix")
	fs.StringVar(&f.Load, "load", f.Load, "start from the parameters in this `file`: a model file written by -save for the same model (or a parameter file of nn.SaveParams)")
	fs.StringVar(&f.Save, "save", f.Save, "write the model (architecture and the parameters of the best epoch) to this model `file` (package model's format)")
	fs.StringVar(&f.Plot, "plot", f.Plot, "write loss and accuracy curves to this PNG `file`")
	fs.StringVar(&f.CPUProfile, "cpuprofile", f.CPUProfile, "write a CPU profile of the training to this `file`")
	stringVar(fs, &f.Device, "device", "cpu", "where to train: cpu, gpu (the first GPU) or emu (the GPU emulator, for tests); gpu and emu need a binary built with -tags gnncuda")
}

// stringVar is fs.StringVar for *p, with def in *p first when it is empty
// (a Flags literal that leaves the field out).
func stringVar(fs *flag.FlagSet, p *string, name, def, usage string) {
	if *p == "" {
		*p = def
	}
	fs.StringVar(p, name, *p, usage)
}

// Parse parses args into fs (where Register added f's flags) and records
// which flags were given, for Given.
func (f *Flags) Parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	return nil
}

// Given reports whether the flag called name was given on the command line.
func (f *Flags) Given(name string) bool { return f.set[name] }

// Check rejects values no run can use, naming the flag, checks that the
// output files can be created, and opens the device of -device (kept for
// Place): all before any data is loaded, so that a wrong directory or a
// missing GPU driver does not throw a whole run away. An example that
// refuses -device (Refuse) calls Refuse first.
func (f *Flags) Check() error {
	switch {
	case f.Epochs < 0 || (f.Epochs == 0 && f.Load == ""):
		return fmt.Errorf("-epochs %d: want a positive number (0 only with -load, to evaluate)", f.Epochs)
	case !(f.LR > 0) || math.IsInf(f.LR, 0):
		return fmt.Errorf("-lr %v: want a positive, finite learning rate", f.LR)
	case f.Hidden <= 0:
		return fmt.Errorf("-hidden %d: want a positive number of features", f.Hidden)
	case f.Hidden > limits.MaxCount:
		return fmt.Errorf("-hidden %d: more than %d features", f.Hidden, limits.MaxCount)
	case !(f.Dropout >= 0 && f.Dropout < 1):
		return fmt.Errorf("-dropout %v: want a probability in [0, 1)", f.Dropout)
	case !(f.WeightDecay >= 0) || math.IsInf(f.WeightDecay, 0):
		return fmt.Errorf("-weight-decay %v: want a finite number >= 0", f.WeightDecay)
	case f.Patience < 0:
		return fmt.Errorf("-patience %d: want a number of epochs >= 0 (0: never stop early)", f.Patience)
	case f.Select != "" && f.Select != "acc" && f.Select != "loss":
		return fmt.Errorf("-select %q: want acc or loss", f.Select)
	case f.Device != "" && f.Device != "cpu" && f.Device != "gpu" && f.Device != "emu":
		return fmt.Errorf("-device %q: want cpu, gpu or emu", f.Device)
	}
	if f.Epochs == 0 && f.Save+f.Plot+f.CPUProfile != "" {
		return fmt.Errorf("-epochs 0 evaluates the model given by -load: -save, -plot and -cpuprofile do not apply")
	}
	if f.Load != "" {
		if st, err := os.Stat(f.Load); err != nil {
			return fmt.Errorf("-load: %w", err)
		} else if st.IsDir() {
			return fmt.Errorf("-load %s: is a directory", f.Load)
		}
	}
	for _, o := range []struct{ flag, path string }{{"save", f.Save}, {"plot", f.Plot}, {"cpuprofile", f.CPUProfile}} {
		if o.path == "" {
			continue
		}
		if err := writable(o.path); err != nil {
			return fmt.Errorf("-%s: %w", o.flag, err)
		}
	}
	if f.Plot != "" && !strings.EqualFold(filepath.Ext(f.Plot), ".png") {
		return fmt.Errorf("-plot %s: the plot is a PNG image; give a file name ending in .png", f.Plot)
	}
	// Last, as it may take a while: a device that cannot be opened (no
	// driver, a build without gnncuda) is reported before data is loaded.
	if err := f.openDevice(); err != nil {
		return err
	}
	return nil
}

// writable checks that a file can be written at path: it is not a
// directory, and a file can be created in its directory (created and
// removed again), without touching path itself.
func writable(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("cannot write %s: %s is not a directory", path, dir)
	}
	probe, err := os.CreateTemp(dir, ".gnn-write-check-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, errors.Unwrap(err))
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// Finish loads the parameters given by -load, then trains the task and
// prints the epochs and the result to w, or, with -epochs 0, evaluates the
// loaded model; then it saves the parameters (those of the best epoch) and
// the plot when asked. The result is printed before any file is written.
func (f *Flags) Finish(w io.Writer, title string, task *train.Task) error {
	return f.FinishModel(w, title, task, nil)
}

// FinishModel is Finish for a task built from m (its layers, through
// m.Layer): -save writes a model file (m's spec with the parameters of the
// best epoch), and -load reads a model file of m's architecture or a
// parameter file (LoadModel).
func (f *Flags) FinishModel(w io.Writer, title string, task *train.Task, m *model.Model) error {
	defer f.closeDevice()
	var params gorgonia.Nodes
	for _, g := range task.Groups {
		params = append(params, g.Params...)
	}
	if f.Load != "" {
		what := ""
		var err error
		if m != nil {
			what, err = LoadModel(f.Load, m, params, f.LegacyParams)
			what = " (" + what + ")"
		} else {
			err = nn.LoadParams(f.Load, params)
		}
		if err != nil {
			return fmt.Errorf("-load: %w", err)
		}
		fmt.Fprintf(w, "loaded parameters from %s%s\n", f.Load, what)
	}
	if err := f.placeParams(params); err != nil {
		return err
	}
	defer f.paramsToHost(params)
	if f.Epochs == 0 {
		e, err := train.Evaluate(task)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "evaluation: train %.4f  val %.4f  val loss %.4f\n", e.TrainAcc, e.ValAcc, e.ValLoss)
		fmt.Fprintf(w, "test accuracy: %.4f\n", e.TestAcc)
		return nil
	}
	cfg := train.Config{Epochs: f.Epochs, LearningRate: f.LR, Patience: f.Patience}
	if f.Select == "loss" {
		cfg.Select = train.LowestLoss
	}
	res, err := f.fit(w, task, cfg)
	if err != nil {
		return err
	}
	PrintResult(w, res, cfg.Select)
	if err := f.paramsToHost(params); err != nil {
		return err
	}
	if f.Save != "" {
		what := ""
		if m != nil {
			err = SaveModel(f.Save, m, params)
			what = " (a model file, with the architecture)"
		} else {
			err = nn.SaveParams(f.Save, params)
		}
		if err != nil {
			return fmt.Errorf("-save: %w", err)
		}
		fmt.Fprintf(w, "saved the parameters of epoch %d to %s%s\n", res.BestEpoch, f.Save, what)
	}
	if f.Plot != "" {
		if err := Plot(f.Plot, title, res.History); err != nil {
			return fmt.Errorf("-plot: %w", err)
		}
		fmt.Fprintf(w, "wrote %s\n", f.Plot)
	}
	return nil
}

// fit runs train.Fit, under the CPU profiler when asked.
func (f *Flags) fit(w io.Writer, task *train.Task, cfg train.Config) (*train.Result, error) {
	if f.CPUProfile != "" {
		pf, err := os.Create(f.CPUProfile)
		if err != nil {
			return nil, fmt.Errorf("-cpuprofile: %w", err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return nil, fmt.Errorf("-cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	if f.dev == nil {
		return train.Fit(task, cfg, PrintEpoch(w))
	}
	t := &traffic{dev: f.dev}
	res, err := train.Fit(task, cfg, t.wrap(PrintEpoch(w)))
	t.report(w)
	return res, err
}

// Main runs a command's run function and, on error, prints Message(name,
// err) to standard error and exits 1.
func Main(name string, run func() error) {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, Message(name, err))
		os.Exit(1)
	}
}

// ParseAndRun is Main for a command whose flags f (and the command's own)
// are registered on fs: it parses the command line into them, then runs run
// on standard output.
func ParseAndRun(name string, f *Flags, fs *flag.FlagSet, run func(w io.Writer) error) {
	Main(name, func() error {
		if err := f.Parse(fs, os.Args[1:]); err != nil {
			return err
		}
		return run(os.Stdout)
	})
}

// Message is err prefixed once with the command's name: "gcn: -lr -1: ...",
// but "gcn: gcn1: ..." for an error of package gcn, not "gcn: gcn: gcn1: ...".
func Message(name string, err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, name+": ") {
		return msg
	}
	return name + ": " + msg
}
