package mp

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops/fn"
)

func TestNewFrame(t *testing.T) {
	t.Parallel()
	if _, err := NewFrame(nil); err == nil {
		t.Error("NewFrame(nil): no error")
	}
	if _, err := NewBipartiteFrame(nil); err == nil {
		t.Error("NewBipartiteFrame(nil): no error")
	}
	fx := gradcheck.Fixtures(t)
	homo, err := NewFrame(fx["homo"])
	if err != nil {
		t.Fatal(err)
	}
	if homo.Bipartite() || homo.NodeData() != homo.SrcData() || homo.SrcData() != homo.DstData() {
		t.Error("a homogeneous frame has separate node stores")
	}
	bip, err := NewFrame(fx["bipartite"])
	if err != nil {
		t.Fatal(err)
	}
	if !bip.Bipartite() || bip.SrcData().Rows() != 5 || bip.DstData().Rows() != 4 || bip.EdgeData().Rows() != 8 {
		t.Error("bipartite frame: wrong sides")
	}
	block, err := NewBipartiteFrame(fx["homo"])
	if err != nil {
		t.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(7, 2), gorgonia.WithName("x"))
	if err := block.SrcData().Set("x", x); err != nil {
		t.Fatal(err)
	}
	if block.DstData().Has("x") {
		t.Error("a block's source field is visible on its destination side")
	}
	for _, err := range []error{block.NodeData().Set("x", x), func() error { _, err := block.NodeData().Get("x"); return err }()} {
		if err == nil || !strings.Contains(err.Error(), "ambiguous") {
			t.Errorf("NodeData on a bipartite frame: %v", err)
		}
	}
	if block.NodeData().Names() != nil || block.NodeData().Has("x") {
		t.Error("NodeData on a bipartite frame has fields")
	}
	block.NodeData().Delete("x") // must not panic
}

func TestDataSet(t *testing.T) {
	t.Parallel()
	f, err := NewFrame(gradcheck.Fixtures(t)["bipartite"])
	if err != nil {
		t.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	ok := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(5, 3), gorgonia.WithName("ok"))
	for _, c := range []struct {
		name string
		x    *gorgonia.Node
		want string
	}{
		{"", ok, "empty field name"},
		{"x", nil, `field "x" of source node data is nil`},
		{"x", gorgonia.NewMatrix(eg, tensor.Int, gorgonia.WithShape(5, 3), gorgonia.WithName("i")), "dtype int"},
		{"x", gorgonia.NewScalar(eg, tensor.Float64, gorgonia.WithName("s")), "is a scalar"},
		{"x", gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(4, 3), gorgonia.WithName("short")),
			`field "x" of source node data has 4 rows; want one per source node (5)`},
	} {
		err := f.SrcData().Set(c.name, c.x)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "mp: ") {
			t.Errorf("Set(%q): %v, want an error containing %q", c.name, err, c.want)
		}
	}
	if len(f.SrcData().Names()) != 0 {
		t.Error("a failed Set stored a field")
	}
	if err := f.SrcData().Set("b", ok); err != nil {
		t.Fatal(err)
	}
	if err := f.SrcData().Set("a", ok); err != nil {
		t.Fatal(err)
	}
	if got := f.SrcData().Names(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Names() = %v", got)
	}
	_, err = f.SrcData().Get("c")
	if want := `mp: field "c" not found in source node data (it has a, b)`; err == nil || err.Error() != want {
		t.Errorf("Get(c): %v, want %s", err, want)
	}
	f.SrcData().Delete("a")
	f.SrcData().Delete("a")
	if f.SrcData().Has("a") || !f.SrcData().Has("b") {
		t.Error("Delete removed the wrong field")
	}
}

// TestLocal checks that Local discards what its function sets, deletes and
// changes (DGL's test_local_scope), including message-passing results, and
// returns its error.
func TestLocal(t *testing.T) {
	t.Parallel()
	g := gradcheck.Fixtures(t)["homo"]
	f, err := NewFrame(g)
	if err != nil {
		t.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(7, 2), gorgonia.WithName("x"))
	w := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(14, 2), gorgonia.WithName("w"))
	f.NodeData().Set("x", x)
	f.EdgeData().Set("w", w)
	boom := errors.New("boom")
	var inner *gorgonia.Node
	err = f.Local(func(l *Frame) error {
		if err := l.UpdateAll(fn.UMulE("x", "w", "m"), fn.Sum("m", "h"), nil); err != nil {
			return err
		}
		l.EdgeData().Delete("w")
		l.SetInitial(3)
		if err := l.SetBatching(Batching{Pad: true}); err != nil {
			return err
		}
		if err := l.Local(func(ll *Frame) error {
			return ll.NodeData().Set("deeper", x)
		}); err != nil {
			return err
		}
		if l.NodeData().Has("deeper") {
			t.Error("a nested local field leaked")
		}
		if !l.SrcData().Has("h") || !l.DstData().Has("h") {
			t.Error("local homogeneous frame: h not on both sides")
		}
		inner, _ = l.NodeData().Get("h")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("Local returned %v, want boom", err)
	}
	if inner == nil {
		t.Fatal("no result inside Local")
	}
	if f.NodeData().Has("h") || !f.EdgeData().Has("w") || f.Initial() != 0 || f.Batching().Pad {
		t.Error("Local leaked changes into the frame")
	}
}
