package setup

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/gnngo/gnn/internal/plotfile"
	"github.com/gnngo/gnn/nn/train"
)

// Plot writes a PNG with two panels: the training loss, and the training,
// validation and test accuracy, against the epoch.
func Plot(path, title string, hist []train.Epoch) error {
	if len(hist) == 0 {
		return fmt.Errorf("plot: no epochs")
	}
	series := func(f func(train.Epoch) float64) plotter.XYs {
		xy := make(plotter.XYs, len(hist))
		for i, e := range hist {
			xy[i].X, xy[i].Y = float64(e.Epoch), f(e)
		}
		return xy
	}
	loss := plot.New()
	loss.Title.Text = title + ": loss"
	loss.X.Label.Text = "epoch"
	loss.Y.Label.Text = "cross-entropy"
	if err := plotutil.AddLines(loss, "train loss", series(func(e train.Epoch) float64 { return e.Loss })); err != nil {
		return err
	}
	acc := plot.New()
	acc.Title.Text = title + ": accuracy"
	acc.X.Label.Text = "epoch"
	acc.Y.Label.Text = "accuracy"
	acc.Y.Min, acc.Y.Max = 0, 1
	acc.Legend.Top = false
	loss.Legend.Top = true
	if err := plotutil.AddLines(acc,
		"train", series(func(e train.Epoch) float64 { return e.TrainAcc }),
		"validation", series(func(e train.Epoch) float64 { return e.ValAcc }),
		"test", series(func(e train.Epoch) float64 { return e.TestAcc })); err != nil {
		return err
	}
	return plotfile.WritePNG(path, [][]*plot.Plot{{loss, acc}}, 10*vg.Inch, 4*vg.Inch, 4*vg.Millimeter)
}
