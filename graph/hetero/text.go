package hetero

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/gnngo/gnn/graph"
)

// Schema is the text description of a heterograph (the file schema.txt
// of a directory Load reads): node types with their counts and optional
// feature files, and one edge file per canonical edge type. One entry a
// line, fields separated by spaces or tabs, '#' starting a comment:
//
//	node paper 736389 paper.feat    # type, count, optional feature file
//	node author 1134649
//	edge author writes paper writes.txt
//	label paper paper.label           # type, label file (ReadLabels)
//	split paper train train.txt       # type, train|val|test, ID file (ReadNodeIDs)
//
// A label or split line names a node type declared on an earlier line, a
// split one whose labels are declared on an earlier line. File names are
// plain names in the schema's directory.
type Schema struct {
	Nodes []NodeSpec
	Edges []EdgeSpec
}

// NodeSpec is a node type of a Schema.
type NodeSpec struct {
	Name     string
	Count    int
	Features string // "" when the type has no features
	Labels   string // "" when the type has no labels
	// Splits holds the train, val and test ID files, "" for none.
	Splits [3]string
}

// SplitNames are the names of the splits of a schema's split lines, in
// the order of NodeSpec.Splits.
var SplitNames = [3]string{"train", "val", "test"}

// EdgeSpec is an edge type of a Schema and its edge file.
type EdgeSpec struct {
	Type EdgeType
	File string
}

// maxSchemaLine and maxFeatureLine bound a line of the text formats.
const (
	maxSchemaLine  = 1 << 12
	maxFeatureLine = 1 << 24
)

// ReadSchema reads a Schema. It returns an error naming the line and
// quoting it when a line is not a node or edge entry with the right number
// of fields, a count is not an integer in [0, graph.MaxNodes], a name is
// empty or holds a path separator, a file name is "." or "..", a type,
// label file or split is declared twice, an edge type names a node type
// the schema does not declare, a label line one not declared before it,
// or a split line one without labels or a split other than train, val or
// test.
func ReadSchema(r io.Reader) (*Schema, error) {
	s := &Schema{}
	nodes := map[string]int{}
	nodeIndex := map[string]int{}
	edges := map[EdgeType]int{}
	edgeLines := []int{}
	err := scanLines(r, maxSchemaLine, func(line int, text []byte) error {
		f := bytes.Fields(text)
		bad := func(format string, args ...any) error {
			return fmt.Errorf("hetero: schema line %d: %q: %s", line, quote(text), fmt.Sprintf(format, args...))
		}
		switch string(f[0]) {
		case "node":
			if len(f) != 3 && len(f) != 4 {
				return bad("a node entry is \"node TYPE COUNT [FEATURE_FILE]\", got %d fields", len(f))
			}
			n := NodeSpec{Name: string(f[1])}
			if err := checkName("node type", n.Name); err != nil {
				return bad("%v", err)
			}
			c, err := strconv.ParseInt(string(f[2]), 10, 64)
			if err != nil || c < 0 || c > graph.MaxNodes {
				return bad("node count %q is not an integer in [0, %d]", f[2], graph.MaxNodes)
			}
			n.Count = int(c)
			if len(f) == 4 {
				if n.Features, err = fileName(f[3]); err != nil {
					return bad("%v", err)
				}
			}
			if j, dup := nodes[n.Name]; dup {
				return bad("node type %q was declared on line %d", n.Name, j)
			}
			nodes[n.Name] = line
			nodeIndex[n.Name] = len(s.Nodes)
			s.Nodes = append(s.Nodes, n)
		case "edge":
			if len(f) != 5 {
				return bad("an edge entry is \"edge SRC_TYPE RELATION DST_TYPE FILE\", got %d fields", len(f))
			}
			e := EdgeSpec{Type: EdgeType{Src: string(f[1]), Rel: string(f[2]), Dst: string(f[3])}}
			if err := checkName("relation", e.Type.Rel); err != nil {
				return bad("%v", err)
			}
			var err error
			if e.File, err = fileName(f[4]); err != nil {
				return bad("%v", err)
			}
			if j, dup := edges[e.Type]; dup {
				return bad("edge type %s was declared on line %d", e.Type, j)
			}
			edges[e.Type] = line
			s.Edges = append(s.Edges, e)
			edgeLines = append(edgeLines, line)
		case "label", "split":
			want := 3
			if string(f[0]) == "split" {
				want = 4
			}
			if len(f) != want {
				return bad("entries are \"label TYPE FILE\" and \"split TYPE train|val|test FILE\", got %d fields", len(f))
			}
			i, ok := nodeIndex[string(f[1])]
			if !ok {
				return bad("node type %q is not declared on an earlier line", quote(f[1]))
			}
			n := &s.Nodes[i]
			file, err := fileName(f[len(f)-1])
			if err != nil {
				return bad("%v", err)
			}
			if want == 3 {
				if n.Labels != "" {
					return bad("node type %q already has labels", n.Name)
				}
				n.Labels = file
				return nil
			}
			if n.Labels == "" {
				return bad("node type %q has no labels declared on an earlier line", n.Name)
			}
			k := slices.Index(SplitNames[:], string(f[2]))
			if k < 0 {
				return bad("split %q is not train, val or test", quote(f[2]))
			}
			if n.Splits[k] != "" {
				return bad("node type %q already has a %s split", n.Name, SplitNames[k])
			}
			n.Splits[k] = file
		default:
			return bad("unknown entry %q; want node, edge, label or split", quote(f[0]))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, e := range s.Edges {
		for _, nt := range []string{e.Type.Src, e.Type.Dst} {
			if _, ok := nodes[nt]; !ok {
				return nil, fmt.Errorf("hetero: schema line %d: edge type %s names node type %q, which no node line declares", edgeLines[i], e.Type, nt)
			}
		}
	}
	return s, nil
}

// fileName checks a file name of the schema: a plain name in its
// directory.
func fileName(b []byte) (string, error) {
	name := string(b)
	if err := checkName("file", name); err != nil {
		return "", err
	}
	if name == "." || name == ".." {
		return "", fmt.Errorf("file name %q is not a file", name)
	}
	return name, nil
}

// quote shortens a line for an error message.
func quote(b []byte) string {
	const maxQuote = 80
	if len(b) > maxQuote {
		return string(b[:maxQuote]) + "..."
	}
	return string(b)
}

// scanLines calls fn with every line of r that is not blank once its
// comment is cut, numbered from 1.
func scanLines(r io.Reader, maxLen int, fn func(line int, text []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(64<<10, maxLen)), maxLen)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if i := bytes.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 {
			continue
		}
		if err := fn(line, text); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("hetero: line %d is longer than %d bytes", line+1, maxLen)
		}
		return fmt.Errorf("hetero: %w", err)
	}
	return nil
}

// Features is a dense float32 feature matrix, row-major.
type Features struct {
	Rows, Cols int
	Data       []float32
}

// ReadFeatures reads a feature matrix of rows rows: one row per line,
// values separated by spaces, tabs or commas, '#' starting a comment. It
// returns an error naming the line when a value is not a finite number, a
// row has another number of values than the first, or there are not
// exactly rows rows.
func ReadFeatures(r io.Reader, rows int) (*Features, error) {
	f := &Features{Cols: -1}
	err := scanLines(r, maxFeatureLine, func(line int, text []byte) error {
		if f.Rows == rows {
			return fmt.Errorf("hetero: features line %d: more than %d rows", line, rows)
		}
		n := 0
		for _, tok := range bytes.FieldsFunc(text, func(c rune) bool { return c == ' ' || c == '\t' || c == ',' }) {
			v, err := strconv.ParseFloat(string(tok), 32)
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				return fmt.Errorf("hetero: features line %d, value %d: %q is not a finite float32", line, n+1, quote(tok))
			}
			f.Data = append(f.Data, float32(v))
			n++
		}
		if f.Cols < 0 {
			f.Cols = n
		} else if n != f.Cols {
			return fmt.Errorf("hetero: features line %d has %d values but the first row has %d", line, n, f.Cols)
		}
		f.Rows++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if f.Rows != rows {
		return nil, fmt.Errorf("hetero: %d feature rows for %d nodes", f.Rows, rows)
	}
	if f.Cols < 0 {
		f.Cols = 0
	}
	if f.Data == nil {
		f.Data = []float32{}
	}
	return f, nil
}

// Dataset is a heterograph read by LoadDataset with its features, labels
// and splits, each by node type; a type without them has no entry.
type Dataset struct {
	Graph    *Graph
	Features map[string]*Features
	Labels   map[string][]int32
	// Splits holds each type's train, val and test node IDs (nil for a
	// split the schema does not give), in the order of SplitNames.
	Splits map[string][3][]int32
}

// Load reads the heterograph in dir and its features; see LoadDataset.
func Load(dir string) (*Graph, map[string]*Features, error) {
	d, err := LoadDataset(dir)
	if err != nil {
		return nil, nil, err
	}
	return d.Graph, d.Features, nil
}

// LoadDataset reads the heterograph in dir: its schema.txt (see Schema),
// each relation's edge file (graph.ReadEdgeList's format, "src dst" a
// line, IDs per type, the counts declared in the schema), each node
// type's feature file (ReadFeatures), label file (ReadLabels) and split
// files (ReadNodeIDs). It returns an error naming the file, and the line,
// at fault, or the node when two splits of a type share it.
func LoadDataset(dir string) (*Dataset, error) {
	s, err := withFile(filepath.Join(dir, "schema.txt"), func(r io.Reader) (*Schema, error) { return ReadSchema(r) })
	if err != nil {
		return nil, err
	}
	if err := s.checkSize(dir); err != nil {
		return nil, err
	}
	d := &Dataset{Features: map[string]*Features{}, Labels: map[string][]int32{}, Splits: map[string][3][]int32{}}
	counts := map[string]int{}
	for _, n := range s.Nodes {
		counts[n.Name] = n.Count
		if n.Features != "" {
			f, err := withFile(filepath.Join(dir, n.Features), func(r io.Reader) (*Features, error) { return ReadFeatures(r, n.Count) })
			if err != nil {
				return nil, err
			}
			d.Features[n.Name] = f
		}
		if n.Labels == "" {
			continue
		}
		l, err := withFile(filepath.Join(dir, n.Labels), func(r io.Reader) ([]int32, error) { return ReadLabels(r, n.Count) })
		if err != nil {
			return nil, err
		}
		d.Labels[n.Name] = l
		var splits [3][]int32
		in := map[int32]int{}
		for k, file := range n.Splits {
			if file == "" {
				continue
			}
			ids, err := withFile(filepath.Join(dir, file), func(r io.Reader) ([]int32, error) { return ReadNodeIDs(r, n.Count) })
			if err != nil {
				return nil, err
			}
			for _, v := range ids {
				if j, dup := in[v]; dup {
					return nil, fmt.Errorf("%s: node %d of type %q is in both the %s split (%s) and the %s split (%s)",
						dir, v, n.Name, SplitNames[j], n.Splits[j], SplitNames[k], file)
				}
				in[v] = k
			}
			splits[k] = ids
		}
		d.Splits[n.Name] = splits
	}
	rels := map[EdgeType]*graph.Graph{}
	for _, e := range s.Edges {
		opts := graph.EdgeListOptions{Bipartite: true, NumSrc: counts[e.Type.Src], NumDst: counts[e.Type.Dst]}
		g, err := withFile(filepath.Join(dir, e.File), func(r io.Reader) (*graph.Graph, error) { return graph.ReadEdgeList(r, opts) })
		if err != nil {
			return nil, fmt.Errorf("%w (edge type %s)", err, e.Type)
		}
		rels[e.Type] = g
	}
	if d.Graph, err = New(counts, rels); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return d, nil
}

// withFile opens path and reads it with read, prefixing errors with the
// path.
func withFile[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	v, err := read(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
