package setup

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckModelSize(t *testing.T) {
	if err := CheckModelSize("-hidden", 2708, 1433, 16, 1, 2); err != nil {
		t.Fatalf("Cora's GCN refused: %v", err)
	}
	for _, c := range []struct {
		hidden, heads int
		want          string
	}{
		{100000000, 1, "-hidden (2 layers of 100000000 features on 2708 nodes, 1433 inputs) needs about"},
		{8, 1000000000, "-hidden: 8 x 1000000000 = 8000000000 features a node, more than 2147483647"},
	} {
		err := CheckModelSize("-hidden", 2708, 1433, c.hidden, c.heads, 2)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("hidden %d heads %d: got %v, want %q", c.hidden, c.heads, err, c.want)
		}
	}
}

// TestPlotNeedsPNGName: -plot writes a PNG, so a name that says otherwise
// is refused up front.
func TestPlotNeedsPNGName(t *testing.T) {
	dir := t.TempDir()
	for name, ok := range map[string]bool{"out.txt": false, "out": false, "out.png": true, "OUT.PNG": true} {
		f := Flags{Epochs: 1, LR: 0.01, Hidden: 4, Plot: filepath.Join(dir, name)}
		err := f.Check()
		if ok != (err == nil) || !ok && !strings.Contains(err.Error(), "-plot "+f.Plot+": the plot is a PNG image") {
			t.Errorf("-plot %s: got %v", name, err)
		}
	}
}
