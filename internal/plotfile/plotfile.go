package plotfile

import (
	"errors"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/gnngo/gnn/internal/atomicfile"
)

// WritePNG draws grid, rows of plots of one length, as tiles pad apart on
// a width x height canvas and writes it to path as a PNG image, replacing
// path atomically (atomicfile.Write).
func WritePNG(path string, grid [][]*plot.Plot, width, height, pad vg.Length) error {
	if len(grid) == 0 || len(grid[0]) == 0 {
		return errors.New("plotfile: no plots")
	}
	img := vgimg.New(width, height)
	tiles := draw.Tiles{Rows: len(grid), Cols: len(grid[0]), PadX: pad, PadY: pad}
	canvases := plot.Align(grid, tiles, draw.New(img))
	for i := range grid {
		for j, p := range grid[i] {
			p.Draw(canvases[i][j])
		}
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
		return err
	})
}
