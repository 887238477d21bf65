package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnngo/gnn/dist/partition"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/limits"
)

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(args, &out, &errb); err != nil {
		t.Fatalf("gnnpart %v: %v\n%s", args, err, errb.String())
	}
	return out.String()
}

func TestGenerated(t *testing.T) {
	for _, c := range []struct {
		gen    string
		method string
	}{{"rmat:10:8000", "multilevel"}, {"uniform:500:3000", "random"}, {"planted:400", "multilevel"}} {
		dir := filepath.Join(t.TempDir(), "parts")
		out := runOK(t, "-gen", c.gen, "-parts", "3", "-out", dir, "-method", c.method)
		if !strings.Contains(out, "-> 3 parts in "+dir) || !strings.Contains(out, "edge cut") {
			t.Fatalf("output %q", out)
		}
		parts, err := partition.ReadAll(dir)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := partition.ReadManifest(dir)
		if len(parts) != 3 || m.Method != c.method {
			t.Fatalf("%d parts, method %q", len(parts), m.Method)
		}
		if c.gen == "planted:400" && (parts[0].Features == nil || parts[0].Labels == nil || m.NumNodes != 400) {
			t.Fatal("the planted dataset lost its features or labels")
		}
	}
}

func TestFiles(t *testing.T) {
	g, err := generate.RMAT(8, 1500, 0.57, 0.19, 0.19, 3)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "g.bin")
	if err := g.Save(bin); err != nil {
		t.Fatal(err)
	}
	var txt strings.Builder
	src, dst := g.COO()
	for e := range src {
		fmt.Fprintf(&txt, "%d %d\n", src[e], dst[e])
	}
	el := filepath.Join(tmp, "g.txt")
	if err := os.WriteFile(el, []byte(txt.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{bin, el} {
		dir := filepath.Join(tmp, filepath.Base(in)+".parts")
		args := []string{"-data", in, "-parts", "2", "-out", dir}
		if in == el {
			args = append(args, "-nodes", "256")
		}
		runOK(t, args...)
		m, err := partition.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if m.NumNodes != 256 || m.NumEdges != int64(g.NumEdges()) {
			t.Fatalf("%s: %d nodes, %d edges", in, m.NumNodes, m.NumEdges)
		}
	}
}

func TestPlanetoid(t *testing.T) {
	root := "../../../shared/data/planetoid/cora"
	if env := os.Getenv("GNN_PLANETOID_DIR"); env != "" {
		root = filepath.Join(env, "cora")
	}
	if _, err := os.Stat(filepath.Join(root, "meta.txt")); err != nil {
		t.Skipf("Planetoid cora not found at %s; set GNN_PLANETOID_DIR", root)
	}
	dir := filepath.Join(t.TempDir(), "cora4")
	out := runOK(t, "-data", root, "-parts", "4", "-out", dir)
	t.Log(out)
	p, err := partition.Read(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "cora" || p.NumClasses != 7 || p.Features.Cols != 1433 || len(p.Train) == 0 {
		t.Fatalf("part 1: %q %d classes %d cols %d train", p.Name, p.NumClasses, p.Features.Cols, len(p.Train))
	}
}

func TestErrors(t *testing.T) {
	tmp := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-parts", "2", "-out", tmp}, "exactly one of -data and -gen"},
		{[]string{"-gen", "rmat:5:10", "-out", tmp}, "-parts must be at least 1, got 0"},
		{[]string{"-gen", "rmat:5:10", "-parts", "2"}, "-out is required"},
		{[]string{"-gen", "rmat:5", "-parts", "2", "-out", tmp}, "want rmat:SCALE:EDGES"},
		{[]string{"-gen", "rmat:5:x", "-parts", "2", "-out", tmp}, `"x" is not a non-negative integer`},
		{[]string{"-gen", "rmat:5:10", "-parts", "2", "-out", tmp, "-method", "kl"}, `unknown -method "kl"`},
		{[]string{"-data", tmp, "-parts", "2", "-out", tmp}, "without meta.txt"},
		{[]string{"-data", filepath.Join(tmp, "none"), "-parts", "2", "-out", tmp}, "no such file"},
	}
	if !partition.METISBuilt {
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"-gen", "rmat:5:10", "-parts", "2", "-out", tmp, "-method", "metis"}, "build with -tags metis"})
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		err := run(c.args, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
	}
}

// TestHugeSizes: sizes that cannot be held are refused, naming the flag,
// before anything is generated or allocated (they used to panic in
// graph/generate, or run into the out-of-memory killer).
func TestHugeSizes(t *testing.T) {
	tmp := t.TempDir()
	edges := filepath.Join(tmp, "three.txt")
	if err := os.WriteFile(edges, []byte("0 1\n1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-gen", "rmat:10:99999999999999", "-parts", "2"}, `-gen rmat:10:99999999999999: edges 99999999999999: more than the 2147483647`},
		{[]string{"-gen", "rmat:10:3000000000", "-parts", "2"}, `edges 3000000000: more than the 2147483647`},
		{[]string{"-gen", "rmat:31:10", "-parts", "2"}, `R-MAT scale 31 outside [0, 30]`},
		{[]string{"-gen", "uniform:3000000000:5", "-parts", "2"}, `nodes 3000000000: more than`},
		{[]string{"-gen", "planted:200000000", "-parts", "2", "-balance", "nodes"}, `-gen planted:200000000 with -parts 2 needs about`},
		{[]string{"-gen", "uniform:3:2", "-parts", "100000"}, "-parts 100000: more parts than the 3 nodes of -gen uniform:3:2"},
		{[]string{"-data", edges, "-parts", "100000"}, "-parts 100000: more parts than the 3 nodes of -data " + edges},
		{[]string{"-gen", "uniform:3:2", "-parts", "3000000000"}, "-parts 3000000000: more than"},
		{[]string{"-gen", "uniform:2000000000:5", "-parts", "2"}, "2000000000 nodes and 5 edges weigh 80000000005 in all with -balance edges"},
	}
	if limits.Memory() < 2000000000*bytesPerNode {
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"-gen", "uniform:2000000000:5", "-parts", "2", "-balance", "nodes"}, "more than the"})
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		err := run(append(c.args, "-out", filepath.Join(tmp, "out")), &out, &errb)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
	}
}
