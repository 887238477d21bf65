package setup

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/train"
)

// Flags are the options both examples share.
type Flags struct {
	Data        string
	Epochs      int
	LR          float64
	Hidden      int
	Heads       int
	Dropout     float64
	WeightDecay float64
	Patience    int
	Seed        uint64
	Dense       bool
	Save        string
	Plot        string
	CPUProfile  string
}

// Register adds the shared flags to fs with the given defaults.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Data, "data", f.Data, "Planetoid or OGB `dir` (e.g. ../shared/data/planetoid/cora, dataset/ogbn_arxiv); empty trains on a generated planted-partition graph")
	fs.IntVar(&f.Epochs, "epochs", f.Epochs, "training epochs")
	fs.Float64Var(&f.LR, "lr", f.LR, "Adam learning rate")
	fs.IntVar(&f.Hidden, "hidden", f.Hidden, "hidden features (per head for GAT)")
	fs.IntVar(&f.Heads, "heads", f.Heads, "attention heads of the hidden layer (GAT)")
	fs.Float64Var(&f.Dropout, "dropout", f.Dropout, "dropout probability")
	fs.Float64Var(&f.WeightDecay, "weight-decay", f.WeightDecay, "L2 weight decay")
	fs.IntVar(&f.Patience, "patience", f.Patience, "stop after this many epochs without better validation accuracy (0: never)")
	fs.Uint64Var(&f.Seed, "seed", f.Seed, "random seed (initialisation, dropout, generated data)")
	fs.BoolVar(&f.Dense, "dense", f.Dense, "multiply sparse input features as a dense matrix")
	fs.StringVar(&f.Save, "save", f.Save, "write the trained parameters to this `file`")
	fs.StringVar(&f.Plot, "plot", f.Plot, "write loss and accuracy curves to this PNG `file`")
	fs.StringVar(&f.CPUProfile, "cpuprofile", f.CPUProfile, "write a CPU profile of the training to this `file`")
}

// Finish trains the task, prints the epochs and the result to w, and saves
// the parameters and the plot when asked.
func (f *Flags) Finish(w io.Writer, title string, task *train.Task) error {
	if f.CPUProfile != "" {
		pf, err := os.Create(f.CPUProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	res, err := train.Fit(task, train.Config{Epochs: f.Epochs, LearningRate: f.LR, Patience: f.Patience}, PrintEpoch(w))
	if err != nil {
		return err
	}
	if f.Save != "" {
		var params gorgonia.Nodes
		for _, g := range task.Groups {
			params = append(params, g.Params...)
		}
		if err := nn.SaveParams(f.Save, params); err != nil {
			return err
		}
		fmt.Fprintf(w, "saved parameters to %s\n", f.Save)
	}
	if f.Plot != "" {
		if err := Plot(f.Plot, title, res.History); err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		fmt.Fprintf(w, "wrote %s\n", f.Plot)
	}
	PrintResult(w, res)
	return nil
}
