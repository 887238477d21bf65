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

func TestLoadDataset(t *testing.T) {
	d, err := LoadDataset("testdata/small")
	if err != nil {
		t.Fatal(err)
	}
	if d.Graph.NumNodeTypes() != 3 || len(d.Features) != 2 {
		t.Errorf("%v with features for %d types", d.Graph, len(d.Features))
	}
	if len(d.Labels) != 1 || !slices.Equal(d.Labels["user"], []int32{0, 1, 1}) {
		t.Errorf("labels %v, want user: [0 1 1]", d.Labels)
	}
	if s, ok := d.Splits["user"]; len(d.Splits) != 1 || !ok || !slices.Equal(s[0], []int32{0}) || !slices.Equal(s[1], []int32{1}) || !slices.Equal(s[2], []int32{2}) {
		t.Errorf("splits %v, want user: train [0] val [1] test [2]", d.Splits)
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
		{"label a l.txt\nnode a 1", `line 1: "label a l.txt": node type "a" is not declared on an earlier line`},
		{"node a 1\nlabel a", `"label TYPE FILE"`},
		{"node a 1\nlabel a l\nlabel a m", `node type "a" already has labels`},
		{"node a 1\nlabel a ../l", "path separator"},
		{"node a 1\nsplit a train t", `line 2: "split a train t": node type "a" has no labels declared on an earlier line`},
		{"node a 1\nlabel a l\nsplit a dev t", `split "dev" is not train, val or test`},
		{"node a 1\nlabel a l\nsplit a val t\nsplit a val u", `line 4: "split a val u": node type "a" already has a val split`},
		{"node a 1\nlabel a l\nsplit a val", `"split TYPE train|val|test FILE", got 3 fields`},
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
		{"user.label", "0\n1\n", "user.label: hetero: 2 labels for 3 nodes"},
		{"user.label", "0\n-1\n1\n", `user.label: hetero: labels line 2: "-1" is not a class`},
		{"user_val.txt", "3\n", `user_val.txt: hetero: node IDs line 1: "3" is not a node ID in [0, 3)`},
		{"user_val.txt", "1\n# again\n1\n", "user_val.txt: hetero: node IDs line 3: node 1 is also on line 1"},
		{"user_test.txt", "2\n0\n", `node 0 of type "user" is in both the train split (user_train.txt) and the test split (user_test.txt)`},
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
			if n.Labels == "" && n.Splits != [3]string{} {
				t.Fatalf("accepted splits without labels: %+v", n)
			}
		}
		for _, e := range s.Edges {
			if !nodes[e.Type.Src] || !nodes[e.Type.Dst] || strings.ContainsAny(e.File, "/\\") {
				t.Fatalf("accepted edge %+v", e)
			}
		}
	})
}

func FuzzReadLabels(f *testing.F) {
	f.Add("0\n1 # c\n\n2\n", 3)
	f.Add("-1\n", 1)
	f.Fuzz(func(t *testing.T, in string, rows int) {
		if rows < 0 || rows > 1000 {
			return
		}
		l, err := ReadLabels(strings.NewReader(in), rows)
		if err != nil {
			return
		}
		if len(l) != rows || slices.ContainsFunc(l, func(c int32) bool { return c < 0 }) {
			t.Fatalf("labels %v for %d rows", l, rows)
		}
	})
}

func FuzzReadNodeIDs(f *testing.F) {
	f.Add("0\n2 # c\n", 3)
	f.Add("1\n1\n", 2)
	f.Fuzz(func(t *testing.T, in string, count int) {
		if count < 0 || count > 1000 {
			return
		}
		ids, err := ReadNodeIDs(strings.NewReader(in), count)
		if err != nil {
			return
		}
		seen := map[int32]bool{}
		for _, v := range ids {
			if v < 0 || int(v) >= count || seen[v] {
				t.Fatalf("ids %v for %d nodes", ids, count)
			}
			seen[v] = true
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
