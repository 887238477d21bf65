package setup

import (
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/gnngo/gnn/internal/atomicfile"
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
	img := vgimg.New(10*vg.Inch, 4*vg.Inch)
	plots := [][]*plot.Plot{{loss, acc}}
	canvases := plot.Align(plots, draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Millimeter * 4}, draw.New(img))
	loss.Draw(canvases[0][0])
	acc.Draw(canvases[0][1])
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
		return err
	})
}
