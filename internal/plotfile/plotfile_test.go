package plotfile

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// TestWritePNG writes a grid of two rows of two plots and checks that the
// file is a PNG of the canvas' size, and that an empty grid is an error.
func TestWritePNG(t *testing.T) {
	grid := make([][]*plot.Plot, 2)
	for i := range grid {
		for j := range 2 {
			p := plot.New()
			if err := plotutil.AddLines(p, "line", plotter.XYs{{X: 0, Y: float64(i)}, {X: 1, Y: float64(j)}}); err != nil {
				t.Fatal(err)
			}
			grid[i] = append(grid[i], p)
		}
	}
	path := filepath.Join(t.TempDir(), "grid.png")
	if err := WritePNG(path, grid, 4*vg.Inch, 3*vg.Inch, 2*vg.Millimeter); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if w, h := cfg.Width, cfg.Height; w != 4*vgimgDPI || h != 3*vgimgDPI {
		t.Errorf("image is %d x %d pixels, want %d x %d", w, h, 4*vgimgDPI, 3*vgimgDPI)
	}
	if err := WritePNG(filepath.Join(t.TempDir(), "none.png"), nil, vg.Inch, vg.Inch, 0); err == nil {
		t.Error("WritePNG of no plots succeeded")
	}
}

// vgimgDPI is vgimg's default resolution, dots per inch.
const vgimgDPI = 96
