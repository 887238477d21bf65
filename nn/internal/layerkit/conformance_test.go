package layerkit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/layertest"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/cheb"
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/gatv2"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/gin"
	"github.com/gnngo/gnn/nn/link"
	"github.com/gnngo/gnn/nn/rgcn"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/nn/sgc"
	"github.com/gnngo/gnn/nn/tag"
)

// nnDir is the nn directory, whose subdirectories the conformance test
// walks.
const nnDir = "../.."

// conformer is what the conformance test knows of a package under nn/
// that builds layers on the kit.
type conformer struct {
	// layer: the package's layers are nn.Layers, asserted in its source.
	layer bool
	// draws: the layer draws something at random (an initialisation, a
	// dropout mask), so it has WithSeed.
	draws bool
	// params: the layer has parameters, so it has WithDtype and
	// WithValues; build then builds one with all of them, from the
	// given seed and values, and returns its parameters and its output
	// on a fixed graph and input.
	params bool
	build  func(t *testing.T, eg *gorgonia.ExprGraph, seed uint64, values nn.Values) (gorgonia.Nodes, *gorgonia.Node)
}

// conformers are the packages under nn/ held to the layer contract.
var conformers = map[string]conformer{
	"gcn": {layer: true, draws: true, params: true, build: func(t *testing.T, eg *gorgonia.ExprGraph, seed uint64, values nn.Values) (gorgonia.Nodes, *gorgonia.Node) {
		l := must(gcn.New(eg, 5, 4, gcn.WithSeed(seed), gcn.WithValues(values)))
		return l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float32, 6, 5)))
	}},
	"gat": {layer: true, draws: true, params: true, build: func(t *testing.T, eg *gorgonia.ExprGraph, seed uint64, values nn.Values) (gorgonia.Nodes, *gorgonia.Node) {
		// Edge features and a destination projection of its own do not go
		// together: two layers have every parameter between them.
		e := must(gat.New(eg, 5, 3, gat.WithHeads(2), gat.WithResidual(true), gat.WithEdgeFeatures(2), gat.WithSeed(seed), gat.WithValues(values)))
		b := must(gat.New(eg, 5, 3, gat.WithHeads(2), gat.WithResidual(true), gat.WithDstIn(4), gat.WithSeed(seed+10), gat.WithValues(values)))
		g := goldenGraph(t)
		x := goldenInput(eg, tensor.Float32, 6, 5)
		oe, _, err := e.ForwardEdges(g, x, goldenInput(eg, tensor.Float32, g.NumEdges(), 2))
		ob := must(b.ForwardBipartite(g, x, goldenInput(eg, tensor.Float32, 6, 4)))
		return append(e.Learnables(), b.Learnables()...), must(gorgonia.Concat(0, must(oe, err), ob))
	}},
	"gatv2": {layer: true, draws: true, params: true, build: func(t *testing.T, eg *gorgonia.ExprGraph, seed uint64, values nn.Values) (gorgonia.Nodes, *gorgonia.Node) {
		l := must(gatv2.New(eg, 5, 3, gatv2.WithHeads(2), gatv2.WithResidual(true), gatv2.WithEdgeFeatures(2), gatv2.WithSeed(seed), gatv2.WithValues(values)))
		g := goldenGraph(t)
		out, _, err := l.ForwardEdges(g, goldenInput(eg, tensor.Float32, 6, 5), goldenInput(eg, tensor.Float32, g.NumEdges(), 2))
		return l.Learnables(), must(out, err)
	}},
	"sage": {layer: true, draws: true, params: true, build: func(t *testing.T, eg *gorgonia.ExprGraph, seed uint64, values nn.Values) (gorgonia.Nodes, *gorgonia.Node) {
		l := must(sage.New(eg, 5, 4, sage.WithAggregator(sage.Pool), sage.WithSeed(seed), sage.WithValues(values)))
		return l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float32, 6, 5)))
	}},
	"gin": {layer: true, params: true, build: func(t *testing.T, eg *gorgonia.ExprGraph, seed uint64, values nn.Values) (gorgonia.Nodes, *gorgonia.Node) {
		// ε is the only parameter gin draws itself, from WithEps: the seed
		// sets it here so that the two builds differ.
		l := must(gin.New(eg, 5, 5, gin.WithLearnEps(true), gin.WithEps(float64(seed)/4), gin.WithValues(values)))
		return l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float32, 6, 5)))
	}},
	"appnp": {layer: true, draws: true},
	"sgc": {layer: true, draws: true, params: true, build: func(t *testing.T, eg *gorgonia.ExprGraph, seed uint64, values nn.Values) (gorgonia.Nodes, *gorgonia.Node) {
		l := must(sgc.New(eg, 5, 3, sgc.WithK(2), sgc.WithSeed(seed), sgc.WithValues(values)))
		return l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float32, 6, 5)))
	}},
	"tag": {layer: true, draws: true, params: true, build: func(t *testing.T, eg *gorgonia.ExprGraph, seed uint64, values nn.Values) (gorgonia.Nodes, *gorgonia.Node) {
		l := must(tag.New(eg, 5, 3, tag.WithSeed(seed), tag.WithValues(values)))
		return l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float32, 6, 5)))
	}},
	"cheb": {layer: true, draws: true, params: true, build: func(t *testing.T, eg *gorgonia.ExprGraph, seed uint64, values nn.Values) (gorgonia.Nodes, *gorgonia.Node) {
		l := must(cheb.New(eg, 5, 3, 3, cheb.WithSeed(seed), cheb.WithValues(values)))
		return l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float32, 6, 5)))
	}},
	"rgcn": {layer: true, draws: true, params: true, build: func(t *testing.T, eg *gorgonia.ExprGraph, seed uint64, values nn.Values) (gorgonia.Nodes, *gorgonia.Node) {
		g := goldenGraph(t)
		et := make([]int32, g.NumEdges())
		for e := range et {
			et[e] = int32(e % 3)
		}
		rel := must(rgcn.Group(g, et, 3, nil))
		l := must(rgcn.New(eg, 5, 4, 3, rgcn.WithBasis(2), rgcn.WithSeed(seed), rgcn.WithValues(values)))
		return l.Learnables(), must(l.Forward(rel, goldenInput(eg, tensor.Float32, 6, 5)))
	}},
	// link's decoders score node pairs: they are not nn.Layers, but they
	// are built on the kit and rebuilt with values as the layers are.
	"link": {draws: true, params: true, build: func(t *testing.T, eg *gorgonia.ExprGraph, seed uint64, values nn.Values) (gorgonia.Nodes, *gorgonia.Node) {
		pairs := gradcheck.Graph(t, 6, 6, []int32{0, 1, 2, 5}, []int32{3, 4, 5, 0})
		h := goldenInput(eg, tensor.Float32, 6, 5)
		m := must(link.NewMLP(eg, 5, []int{4, 3}, link.WithSeed(seed), link.WithValues(values)))
		d := must(link.NewDistMult(eg, 1, 5, link.WithSeed(seed), link.WithValues(values)))
		out := must(gorgonia.Concat(0, must(m.Score(pairs, h)), must(d.Score(pairs, h))))
		return append(m.Learnables(), d.Learnables()...), out
	}},
}

// exempt are the packages under nn/ that build no layer on the kit, and
// why.
var exempt = map[string]string{
	"heteroconv": "wraps other packages' layers, one per relation; it has no options or parameters of its own",
	"readout":    "pools a batch of graphs into one row per graph with the caller's gate and feature functions; no parameters of its own",
	"train":      "the training loops",
	"vm":         "the machine that runs expression graphs, not a layer",
	"internal":   "the kit and the kernels layers share",
}

// TestConformance walks every package directory under nn/ and holds each
// to the layer contract: a doc.go, the nn.Layer assertion, the common
// options made by the kit, and rebuilding with values giving the same
// parameters and outputs. A new directory must join conformers or exempt.
func TestConformance(t *testing.T) {
	entries, err := os.ReadDir(nnDir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "testdata" {
			continue
		}
		name := e.Name()
		seen[name] = true
		if _, ok := exempt[name]; ok {
			continue
		}
		c, ok := conformers[name]
		if !ok {
			t.Errorf("nn/%s: a package the conformance test does not know: add it to conformers (a layer) or exempt (with the reason)", name)
			continue
		}
		t.Run(name, func(t *testing.T) { conform(t, name, c) })
	}
	for name := range conformers {
		if !seen[name] {
			t.Errorf("conformers names nn/%s, which is not there", name)
		}
	}
}

// conform checks one package against c.
func conform(t *testing.T, name string, c conformer) {
	dir := filepath.Join(nnDir, name)
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = f
	}
	if doc, ok := files["doc.go"]; !ok || doc.Doc == nil {
		t.Errorf("nn/%s has no doc.go with the package comment", name)
	}
	if c.layer && !assertsLayer(files) {
		t.Errorf("nn/%s asserts none of its types to be an nn.Layer (var _ nn.Layer = ...)", name)
	}
	funcs := map[string]*ast.FuncDecl{}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				funcs[fd.Name.Name] = fd
			}
		}
	}
	want := map[string]string{"WithName": "Name"}
	if c.draws {
		want["WithSeed"] = "Seed"
	}
	if c.params {
		want["WithDtype"], want["WithValues"] = "Dtype", "Values"
	}
	// The dropout options, where a package has them, are the kit's too.
	for opt, kit := range map[string]string{"WithMode": "Mode", "WithFeatDropout": "Dropout"} {
		if _, ok := funcs[opt]; ok {
			want[opt] = kit
		}
	}
	for opt, kit := range want {
		fd, ok := funcs[opt]
		if !ok {
			t.Errorf("nn/%s has no %s", name, opt)
			continue
		}
		if !madeByKit(fd, kit) {
			t.Errorf("nn/%s: %s is not the kit's (want its body to be return kit.%s(...))", name, opt, kit)
		}
	}
	if c.params {
		rebuild(t, c)
		layertest.Values(t, func(eg *gorgonia.ExprGraph, values nn.Values) (ps gorgonia.Nodes, err error) {
			// The builds panic with their error (must): turn it back.
			defer func() {
				if r := recover(); r != nil {
					if err, _ = r.(error); err == nil {
						panic(r)
					}
				}
			}()
			ps, _ = c.build(t, eg, 1, values)
			return ps, nil
		})
	}
}

// assertsLayer reports whether files hold var _ nn.Layer = ... (or one of
// the interfaces that embed nn.Layer).
func assertsLayer(files map[string]*ast.File) bool {
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				sel, ok := vs.Type.(*ast.SelectorExpr)
				if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "_" {
					continue
				}
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "nn" && slices.Contains([]string{"Layer", "WeightedLayer", "BipartiteLayer"}, sel.Sel.Name) {
					return true
				}
			}
		}
	}
	return false
}

// madeByKit reports whether fd's body is return kit.<method>(...).
func madeByKit(fd *ast.FuncDecl, method string) bool {
	if fd.Body == nil || len(fd.Body.List) != 1 {
		return false
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "kit" && sel.Sel.Name == method
}

// rebuild builds c's layer from seed 1, then again from seed 2 with the
// first one's values: the second must hold the first one's tensors and give
// the same output, bit for bit.
func rebuild(t *testing.T, c conformer) {
	first := runBuild(t, c, 1, nil)
	byName := map[string]*tensor.Dense{}
	for _, p := range first.params {
		byName[p.Name()] = p.Value().(*tensor.Dense)
	}
	drawn := runBuild(t, c, 2, nil)
	if sameBits(first.out.Value().(*tensor.Dense), drawn.out.Value().(*tensor.Dense)) {
		t.Fatal("seeds 1 and 2 give the same output: the test cannot tell values from draws")
	}
	again := runBuild(t, c, 2, func(name string) *tensor.Dense { return byName[name] })
	if len(again.params) != len(first.params) {
		t.Fatalf("rebuilt with values: %d parameters, %d before", len(again.params), len(first.params))
	}
	for i, p := range again.params {
		if p.Name() != first.params[i].Name() {
			t.Errorf("parameter %d: %q rebuilt, %q before", i, p.Name(), first.params[i].Name())
		}
		if p.Value() != gorgonia.Value(byName[p.Name()]) {
			t.Errorf("parameter %q does not hold the tensor the values gave", p.Name())
		}
	}
	if !sameBits(first.out.Value().(*tensor.Dense), again.out.Value().(*tensor.Dense)) {
		t.Error("rebuilt with the values of a first build, the layer gives another output")
	}
}

// runBuild builds c in a new expression graph and runs it.
func runBuild(t *testing.T, c conformer, seed uint64, values nn.Values) built {
	t.Helper()
	eg := gorgonia.NewGraph()
	ps, out := c.build(t, eg, seed, values)
	vm := gorgonia.NewTapeMachine(eg)
	defer nn.CloseVM(vm)
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return built{ps, out}
}
