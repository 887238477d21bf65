package mp

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
	"github.com/gnngo/gnn/ops/fn"
)

var errUser = errors.New("user failure")

// errorFrame returns a frame over the homogeneous fixture with node fields
// x (7, 3), x2 (7, 2), x32 (float32), h (7, 3) and edge fields w (14, 3),
// w2 (14, 2).
func errorFrame(t *testing.T) *Frame {
	t.Helper()
	f, err := NewFrame(gradcheck.Fixtures(t)["homo"])
	if err != nil {
		t.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	mat := func(dt tensor.Dtype, name string, r, c int) *gorgonia.Node {
		return gorgonia.NewMatrix(eg, dt, gorgonia.WithShape(r, c), gorgonia.WithName(name))
	}
	for _, s := range []struct {
		d    *Data
		name string
		x    *gorgonia.Node
	}{
		{f.NodeData(), "x", mat(tensor.Float64, "x", 7, 3)},
		{f.NodeData(), "x2", mat(tensor.Float64, "x2", 7, 2)},
		{f.NodeData(), "x32", mat(tensor.Float32, "x32", 7, 3)},
		{f.NodeData(), "h", mat(tensor.Float64, "h", 7, 3)},
		{f.EdgeData(), "w", mat(tensor.Float64, "w", 14, 3)},
		{f.EdgeData(), "w2", mat(tensor.Float64, "w2", 14, 2)},
	} {
		if err := s.d.Set(s.name, s.x); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// udfReturning is an edge function returning field m read by get.
func udfReturning(get func(b *EdgeBatch) (*gorgonia.Node, error)) EdgeFunc {
	return func(b *EdgeBatch) (Fields, error) {
		x, err := get(b)
		return Fields{"m": x}, err
	}
}

func sumMailbox(name string) NodeFunc {
	return func(b *NodeBatch) (Fields, error) {
		mb, err := b.Mailbox(name)
		if err != nil {
			return nil, err
		}
		s, err := gorgonia.Sum(mb, 1)
		return Fields{"h": s}, err
	}
}

// TestErrors checks that misuse is reported as an error naming what went
// wrong and where, never a panic, and leaves the frame unchanged.
func TestErrors(t *testing.T) {
	t.Parallel()
	src := func(name string) func(b *EdgeBatch) (*gorgonia.Node, error) {
		return func(b *EdgeBatch) (*gorgonia.Node, error) { return b.Src(name) }
	}
	for _, c := range []struct {
		name string
		run  func(f *Frame) error
		want []string
	}{
		{"unknown source field", func(f *Frame) error {
			return f.UpdateAll(fn.CopyU("nope", "m"), fn.Sum("m", "h"), nil)
		}, []string{"mp: UpdateAll(copy_u(nope -> m), sum(m -> h))", `field "nope" not found in node data (it has h, x, x2, x32)`}},
		{"unknown field in a UDF", func(f *Frame) error {
			return f.UpdateAll(udfReturning(src("nope")), fn.Sum("m", "h"), nil)
		}, []string{"UpdateAll(udf, sum(m -> h)): message function: mp: field \"nope\" not found in node data"}},
		{"message shapes do not broadcast", func(f *Frame) error {
			return f.UpdateAll(fn.UMulE("x", "w2", "m"), fn.Sum("m", "h"), nil)
		}, []string{"u_mul_e", "do not broadcast"}},
		{"two-stage shapes do not broadcast", func(f *Frame) error {
			return f.UpdateAll(fn.UAddV("x", "x2", "m"), fn.Max("m", "h"), nil)
		}, []string{"do not broadcast"}},
		{"prod shapes do not broadcast", func(f *Frame) error {
			return f.UpdateAll(fn.UAddE("x", "w2", "m"), fn.Prod("m", "h"), nil)
		}, []string{"u_add_e", "do not broadcast"}},
		{"dtypes differ", func(f *Frame) error {
			return f.UpdateAll(fn.UMulE("x32", "w", "m"), fn.Sum("m", "h"), nil)
		}, []string{"dtype"}},
		{"message UDF returns node rows", func(f *Frame) error {
			return f.UpdateAll(udfReturning(func(b *EdgeBatch) (*gorgonia.Node, error) { return f.NodeData().Get("x") }), fn.Sum("m", "h"), nil)
		}, []string{`field "m" of the message function's result has 7 rows; want one per edge (14)`}},
		{"message UDF returns nil", func(f *Frame) error {
			return f.UpdateAll(udfReturning(func(*EdgeBatch) (*gorgonia.Node, error) { return nil, nil }), fn.Sum("m", "h"), nil)
		}, []string{`field "m" of the message function's result is nil`}},
		{"reduce UDF returns the mailbox", func(f *Frame) error {
			return f.UpdateAll(fn.CopyU("x", "m"), NodeFunc(func(b *NodeBatch) (Fields, error) {
				mb, err := b.Mailbox("m")
				if err != nil {
					return nil, err
				}
				flat, err := gorgonia.Reshape(mb, tensor.Shape{b.NumNodes() * b.Degree(), 3})
				return Fields{"h": flat}, err
			}), nil)
		}, []string{`field "h" of the reduce function's result on the 4 nodes of in-degree 2 has 8 rows; want one per node of the bucket (4)`}},
		{"apply returns edge rows", func(f *Frame) error {
			return f.UpdateAll(fn.CopyU("x", "m"), fn.Sum("m", "h"), func(b *NodeBatch) (Fields, error) {
				w, err := f.EdgeData().Get("w")
				return Fields{"h": w}, err
			})
		}, []string{`field "h" of the apply function's result has 14 rows; want one per updated node (7)`}},
		{"reducer on missing edge data", func(f *Frame) error {
			return f.UpdateAll(fn.CopyE("nope", "m"), fn.Mean("m", "h"), nil)
		}, []string{`field "nope" not found in edge data (it has w, w2)`}},
		{"reducer on a message not sent", func(f *Frame) error {
			return f.UpdateAll(udfReturning(src("x")), fn.Sum("q", "h"), nil)
		}, []string{`reducer reads message "q", which the message function did not return (it has m)`}},
		{"builtin names disagree", func(f *Frame) error {
			return f.UpdateAll(fn.CopyU("x", "m"), fn.Sum("q", "h"), nil)
		}, []string{`reducer reads message "q" but the message function writes "m"`}},
		{"mailbox without the message", func(f *Frame) error {
			return f.UpdateAll(fn.CopyU("x", "m"), sumMailbox("q"), nil)
		}, []string{`mailbox has no message "q" (it has m)`}},
		{"mailbox in an apply function", func(f *Frame) error {
			return f.ApplyNodes(sumMailbox("m"))
		}, []string{"no mailbox"}},
		{"user error", func(f *Frame) error {
			return f.UpdateAll(fn.CopyU("x", "m"), NodeFunc(func(*NodeBatch) (Fields, error) { return nil, errUser }), nil)
		}, []string{"reduce function on node 5 of in-degree 1: user failure"}},
		{"buckets disagree on fields", func(f *Frame) error {
			return f.UpdateAll(fn.CopyU("x", "m"), NodeFunc(func(b *NodeBatch) (Fields, error) {
				s, err := sumMailbox("m")(b)
				if b.Degree() == 2 {
					s["extra"] = s["h"]
				}
				return s, err
			}), nil)
		}, []string{"returned fields [h] on node 5 of in-degree 1 but [extra h] on the 4 nodes of in-degree 2"}},
		{"buckets disagree on shapes", func(f *Frame) error {
			return f.UpdateAll(fn.CopyU("x", "m"), NodeFunc(func(b *NodeBatch) (Fields, error) {
				mb, err := b.Mailbox("m")
				if err != nil {
					return nil, err
				}
				if b.Degree() == 2 {
					s, err := gorgonia.Sum(mb, 1, 2)
					return Fields{"h": s}, err
				}
				s, err := gorgonia.Sum(mb, 1)
				return Fields{"h": s}, err
			}), nil)
		}, []string{`field "h" with feature shape [3]`}},
		{"nil message function", func(f *Frame) error { return f.UpdateAll(nil, fn.Sum("m", "h"), nil) }, []string{"nil message function"}},
		{"nil edge function", func(f *Frame) error { return f.UpdateAll(EdgeFunc(nil), fn.Sum("m", "h"), nil) }, []string{"nil message function"}},
		{"nil reduce function", func(f *Frame) error { return f.UpdateAll(fn.CopyU("x", "m"), nil, nil) }, []string{"nil reduce function"}},
		{"nil node function", func(f *Frame) error { return f.UpdateAll(fn.CopyU("x", "m"), NodeFunc(nil), nil) }, []string{"nil reduce function"}},
		{"bad operator", func(f *Frame) error {
			return f.UpdateAll(fn.Binary(ops.Binary(42), ops.U, "x", ops.E, "w", "m"), fn.Sum("m", "h"), nil)
		}, []string{"unsupported operator"}},
		{"bad target", func(f *Frame) error {
			return f.ApplyEdges(fn.Binary(ops.Add, ops.Target(9), "x", ops.E, "w", "m"))
		}, []string{"unknown operand target"}},
		{"bad reduction", func(f *Frame) error {
			return f.UpdateAll(fn.CopyU("x", "m"), fn.Reducer{Op: 9, Msg: "m", Out: "h"}, nil)
		}, []string{"unknown reduction"}},
		{"empty field name", func(f *Frame) error { return f.UpdateAll(fn.CopyU("", "m"), fn.Sum("m", "h"), nil) }, []string{"empty field name"}},
		{"edge out of range", func(f *Frame) error {
			return f.SendAndRecv([]int64{3, 14}, fn.CopyU("x", "m"), fn.Sum("m", "h"), nil)
		}, []string{"mp: SendAndRecv: eids[1] = 14 but the graph has 14 edges"}},
		{"repeated edge", func(f *Frame) error {
			return f.ApplyEdgesOn([]int64{3, 1, 3}, fn.CopyU("x", "m"))
		}, []string{"mp: ApplyEdgesOn: eids[2] = 3 repeats an earlier entry"}},
		{"node out of range", func(f *Frame) error {
			return f.Pull([]int32{-1}, fn.CopyU("x", "m"), fn.Sum("m", "h"), nil)
		}, []string{"mp: Pull: nodes[0] = -1 but the graph has 7 destination nodes"}},
		{"repeated node", func(f *Frame) error {
			return f.Push([]int32{1, 1}, fn.CopyU("x", "m"), fn.Sum("m", "h"), nil)
		}, []string{"mp: Push: nodes[1] = 1 repeats an earlier entry"}},
		{"partial result does not fit the field", func(f *Frame) error {
			return f.Pull([]int32{1}, fn.CopyU("x2", "m"), fn.Sum("m", "h"), nil)
		}, []string{`field "h" was computed with feature shape [2] (float64) but node data has [3] (float64)`}},
		{"nil apply function", func(f *Frame) error { return f.ApplyNodes(nil) }, []string{"mp: ApplyNodes: nil node function"}},
		{"unsupported function type", func(f *Frame) error {
			return f.UpdateAll(fn.CopyU("x", "m"), otherReducer{}, nil)
		}, []string{"unsupported reduce function type mp.otherReducer"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := errorFrame(t)
			nodes, edges := maps.Clone(f.NodeData().fields), maps.Clone(f.EdgeData().fields)
			err := c.run(f)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "mp: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			if !maps.Equal(nodes, f.NodeData().fields) || !maps.Equal(edges, f.EdgeData().fields) {
				t.Errorf("the frame changed: nodes %v, edges %v", f.NodeData().Names(), f.EdgeData().Names())
			}
		})
	}
}

type otherReducer struct{}

func (otherReducer) ReduceName() string { return "other" }

func TestUserErrorIsWrapped(t *testing.T) {
	t.Parallel()
	f := errorFrame(t)
	err := f.UpdateAll(EdgeFunc(func(*EdgeBatch) (Fields, error) { return nil, errUser }), fn.Sum("m", "h"), nil)
	if !errors.Is(err, errUser) {
		t.Errorf("UpdateAll returned %v, which does not wrap the function's error", err)
	}
	if names := f.NodeData().Names(); !slices.Equal(names, []string{"h", "x", "x2", "x32"}) {
		t.Errorf("fields %v after a failed UpdateAll", names)
	}
}
