package hetero

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	h, feats, err := Load("testdata/small")
	if err != nil {
		t.Fatal(err)
	}
	want := small(t)
	sub, err := h.RelationSubgraph(want.EdgeTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, "loaded", want, sub)
	if n, _ := h.NumNodes("studio"); n != 1 || h.NumEdgeTypes() != 3 {
		t.Errorf("studio %d, %d edge types", n, h.NumEdgeTypes())
	}
	u := feats["user"]
	if u == nil || u.Rows != 3 || u.Cols != 3 || !slices.Equal(u.Data, []float32{1, 0, 0.5, 0, 1, -1, 0.25, 0.25, 0}) {
		t.Errorf("user features %+v", u)
	}
	if g := feats["game"]; g == nil || g.Cols != 2 {
		t.Errorf("game features %+v", g)
	}
	if _, ok := feats["studio"]; ok {
		t.Error("studio has features but declares none")
	}
}

func TestReadSchemaErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"node a", `line 1: "node a": a node entry`},
		{"node a x", `node count "x" is not an integer`},
		{"node a -1", `node count "-1"`},
		{"node a 1\nnode a 2", `line 2: "node a 2": node type "a" was declared on line 1`},
		{"node a 1 ../x", "path separator"},
		{"node a 1 ..", `file name ".." is not a file`},
		{"node a 1\nedge a r a", "an edge entry"},
		{"node a 1\nedge a r b f.txt", `line 2: edge type (a, r, b) names node type "b"`},
		{"node a 1\nedge a r a f\nedge a r a g", "edge type (a, r, a) was declared on line 2"},
		{"vertex a 1", `unknown entry "vertex"`},
		{"node a 1\n" + strings.Repeat("x", maxSchemaLine+1), "line 2 is longer than"},
	}
	for _, c := range cases {
		_, err := ReadSchema(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want it to contain %q", c.in, err, c.want)
		}
	}
}

func TestReadFeaturesErrors(t *testing.T) {
	cases := []struct {
		in   string
		rows int
		want string
	}{
		{"1 2\n3", 2, "features line 2 has 1 values but the first row has 2"},
		{"1 x", 1, `features line 1, value 2: "x" is not a finite float32`},
		{"1 NaN", 1, `"NaN" is not a finite`},
		{"1e39", 1, `"1e39" is not a finite`},
		{"1\n2", 1, "features line 2: more than 1 rows"},
		{"1", 2, "1 feature rows for 2 nodes"},
	}
	for _, c := range cases {
		_, err := ReadFeatures(strings.NewReader(c.in), c.rows)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want it to contain %q", c.in, err, c.want)
		}
	}
}

// TestLoadErrors: each broken copy of testdata/small fails naming its file.
func TestLoadErrors(t *testing.T) {
	cases := []struct{ file, content, want string }{
		{"plays.txt", "0 1\n3 0\n", "plays.txt: graph: line 2"},
		{"user.feat", "1 2 3\n", "user.feat: hetero: 1 feature rows for 3 nodes"},
		{"schema.txt", "node a 1 missing.feat\n", "missing.feat"},
		{"makes.txt", "0 0 0\n", "makes.txt"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		entries, _ := os.ReadDir("testdata/small")
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join("testdata/small", e.Name()))
			if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, c.file), []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := Load(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.file, err, c.want)
		}
	}
	if _, _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "schema.txt") {
		t.Errorf("empty dir: %v", err)
	}
}

func FuzzReadSchema(f *testing.F) {
	b, _ := os.ReadFile("testdata/small/schema.txt")
	f.Add(string(b))
	f.Add("node a 1\nedge a r a f # x\n")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ReadSchema(strings.NewReader(in))
		if err != nil {
			return
		}
		nodes := map[string]bool{}
		for _, n := range s.Nodes {
			if n.Count < 0 || checkName("node type", n.Name) != nil || nodes[n.Name] {
				t.Fatalf("accepted node %+v", n)
			}
			nodes[n.Name] = true
		}
		for _, e := range s.Edges {
			if !nodes[e.Type.Src] || !nodes[e.Type.Dst] || strings.ContainsAny(e.File, "/\\") {
				t.Fatalf("accepted edge %+v", e)
			}
		}
	})
}

func FuzzReadFeatures(f *testing.F) {
	f.Add("1 2\n3 4\n", 2)
	f.Add("0.5,1e-3 # c\n", 1)
	f.Fuzz(func(t *testing.T, in string, rows int) {
		if rows < 0 || rows > 1000 {
			return
		}
		x, err := ReadFeatures(strings.NewReader(in), rows)
		if err != nil {
			return
		}
		if x.Rows != rows || len(x.Data) != x.Rows*x.Cols {
			t.Fatalf("%d x %d with %d values", x.Rows, x.Cols, len(x.Data))
		}
	})
}
