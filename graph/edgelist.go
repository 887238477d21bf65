package graph

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
)

// EdgeListOptions configures ReadEdgeList and ReadWeightedEdgeList. The zero
// value reads a homogeneous graph whose node count is inferred, from a file
// without a header.
type EdgeListOptions struct {
	// NumNodes is the node count of a homogeneous graph. Zero means infer it
	// as the largest ID in the file plus one, so nodes above the largest ID
	// (isolated trailing nodes) are lost unless NumNodes is given. A
	// declared count makes any ID >= NumNodes an error. It must be zero
	// when Bipartite is set.
	NumNodes int

	// Bipartite makes sources and destinations separate node sets: the
	// first column holds source IDs in [0, NumSrc), the second destination
	// IDs in [0, NumDst).
	Bipartite bool

	// NumSrc and NumDst are the node counts of a bipartite graph; each one
	// that is zero is inferred as the largest ID of its column plus one.
	// They must be zero unless Bipartite is set.
	NumSrc, NumDst int

	// Header skips the first line that is neither blank nor a comment,
	// such as "src,dst" in a CSV export.
	Header bool

	// MaxNodes is the largest node count that may be inferred from the
	// IDs (on either side); zero means DefaultNodeLimit of the edge count.
	// Declared counts are not limited by it.
	MaxNodes int
}

// maxLine is the longest line, comment included, that the edge-list reader
// accepts.
const maxLine = 1 << 20

// ReadEdgeList reads a graph from a text edge list: one edge "src dst" per
// line, in edge-ID order. Columns are separated by spaces or tabs, or by one
// comma with optional spaces around it, so CSV and the whitespace lists of
// SNAP, DGL and PyG all read. A '#' starts a comment that runs to the end of
// the line; blank lines are skipped. IDs are decimal integers in
// [0, MaxNodes).
//
// Node counts come from opts: declared, or inferred as the largest ID plus
// one (see EdgeListOptions). A line with a third column is an error, never
// a column silently dropped; use ReadWeightedEdgeList for "src dst weight".
//
// Errors name the line and quote it, e.g.
//
//	graph: line 12: "3 x": destination "x" is not an integer
func ReadEdgeList(r io.Reader, opts EdgeListOptions) (*Graph, error) {
	g, _, err := readEdgeList(r, opts, false)
	return g, err
}

// ReadWeightedEdgeList reads a text edge list whose lines have a third
// column, the edge weight: "src dst weight". It accepts the syntax and
// options of ReadEdgeList and returns the weights indexed by edge ID. Every
// line must have exactly three columns; weights must be finite numbers
// (they are rounded to float32).
func ReadWeightedEdgeList(r io.Reader, opts EdgeListOptions) (*Graph, []float32, error) {
	return readEdgeList(r, opts, true)
}

// LoadEdgeList reads the edge-list file at path with ReadEdgeList.
func LoadEdgeList(path string, opts EdgeListOptions) (*Graph, error) {
	g, _, err := loadEdgeList(path, opts, false)
	return g, err
}

// LoadWeightedEdgeList reads the weighted edge-list file at path with
// ReadWeightedEdgeList.
func LoadWeightedEdgeList(path string, opts EdgeListOptions) (*Graph, []float32, error) {
	return loadEdgeList(path, opts, true)
}

func loadEdgeList(path string, opts EdgeListOptions, weighted bool) (*Graph, []float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("graph: %w", err)
	}
	defer f.Close()
	g, w, err := readEdgeList(f, opts, weighted)
	if err != nil {
		// "graph: line 3: ..." becomes "graph: path: line 3: ...".
		var le *lineError
		if errors.As(err, &le) {
			return nil, nil, fmt.Errorf("graph: %s: %w", path, le)
		}
		var se *sizeError
		if errors.As(err, &se) {
			return nil, nil, fmt.Errorf("graph: %s: %w", path, se)
		}
		return nil, nil, err
	}
	return g, w, nil
}

// WriteEdgeList writes g as a text edge list, one "src dst" line per edge in
// edge-ID order, which ReadEdgeList reads back into the same COO lists
// (given the node counts, which the text does not record).
func (g *Graph) WriteEdgeList(w io.Writer) error {
	src, dst := g.COO()
	bw := bufio.NewWriterSize(w, 1<<16)
	var line []byte
	for e := range src {
		line = strconv.AppendInt(line[:0], int64(src[e]), 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(dst[e]), 10)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return fmt.Errorf("graph: writing edge list: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("graph: writing edge list: %w", err)
	}
	return nil
}

// lineError is a syntax or range error on one line of a text file. Its
// message lacks the "graph: " prefix so that callers can insert the file
// name; ReadEdgeList wraps it.
type lineError struct {
	line int
	text string // the offending line, shortened
	msg  string
}

func (e *lineError) Error() string {
	return fmt.Sprintf("line %d: %q: %s", e.line, e.text, e.msg)
}

func newLineError(line int, text []byte, format string, args ...any) *lineError {
	const maxQuote = 80
	t := string(text)
	if len(t) > maxQuote {
		t = t[:maxQuote] + "..."
	}
	return &lineError{line: line, text: t, msg: fmt.Sprintf(format, args...)}
}

func checkEdgeListOptions(o EdgeListOptions) error {
	if o.NumNodes < 0 || o.NumSrc < 0 || o.NumDst < 0 {
		return fmt.Errorf("graph: negative node count in EdgeListOptions (nodes %d, src %d, dst %d)", o.NumNodes, o.NumSrc, o.NumDst)
	}
	if o.NumNodes > MaxNodes || o.NumSrc > MaxNodes || o.NumDst > MaxNodes {
		return fmt.Errorf("graph: node count in EdgeListOptions exceeds %d", MaxNodes)
	}
	if o.MaxNodes < 0 || o.MaxNodes > MaxNodes {
		return fmt.Errorf("graph: EdgeListOptions.MaxNodes %d is outside [0, %d]", o.MaxNodes, MaxNodes)
	}
	if o.Bipartite && o.NumNodes != 0 {
		return errors.New("graph: EdgeListOptions.NumNodes is set for a bipartite graph; use NumSrc and NumDst")
	}
	if !o.Bipartite && (o.NumSrc != 0 || o.NumDst != 0) {
		return errors.New("graph: EdgeListOptions.NumSrc and NumDst need Bipartite")
	}
	return nil
}

// edgeListReader holds the state of one ReadEdgeList call.
type edgeListReader struct {
	opts     EdgeListOptions
	weighted bool

	// limSrc and limDst are the declared node counts, or 0 when inferred.
	limSrc, limDst int
	// maxSrc and maxDst are the largest IDs seen, -1 before any edge.
	maxSrc, maxDst int32

	src, dst column[int32]
	weights  column[float32]
}

// column accumulates values in blocks, so that growing never copies the
// values already read; flatten copies them once into an exact-size slice.
type column[T any] struct {
	blocks [][]T
	cur    []T
}

// maxColumnBlock is the largest block of a column, in values.
const maxColumnBlock = 1 << 16

func (c *column[T]) add(v T) {
	if len(c.cur) == cap(c.cur) {
		if c.cur != nil {
			c.blocks = append(c.blocks, c.cur)
		}
		c.cur = make([]T, 0, min(maxColumnBlock, max(1024, 2*cap(c.cur))))
	}
	c.cur = append(c.cur, v)
}

// len returns the number of values added.
func (c *column[T]) len() int {
	n := len(c.cur)
	for _, b := range c.blocks {
		n += len(b)
	}
	return n
}

func (c *column[T]) flatten() []T {
	n := len(c.cur)
	for _, b := range c.blocks {
		n += len(b)
	}
	out := make([]T, 0, n)
	for _, b := range c.blocks {
		out = append(out, b...)
	}
	return append(out, c.cur...)
}

func readEdgeList(r io.Reader, opts EdgeListOptions, weighted bool) (*Graph, []float32, error) {
	if err := checkEdgeListOptions(opts); err != nil {
		return nil, nil, err
	}
	p := &edgeListReader{opts: opts, weighted: weighted, maxSrc: -1, maxDst: -1}
	if opts.Bipartite {
		p.limSrc, p.limDst = opts.NumSrc, opts.NumDst
	} else {
		p.limSrc, p.limDst = opts.NumNodes, opts.NumNodes
	}
	if err := p.read(r); err != nil {
		var le *lineError
		if errors.As(err, &le) {
			return nil, nil, fmt.Errorf("graph: %w", le)
		}
		return nil, nil, err
	}

	numSrc, numDst := p.limSrc, p.limDst
	if numSrc == 0 {
		numSrc = int(p.maxSrc) + 1
		if err := p.checkInferred("source", numSrc, p.src.flatten); err != nil {
			return nil, nil, fmt.Errorf("graph: %w", err)
		}
	}
	if numDst == 0 {
		numDst = int(p.maxDst) + 1
		if err := p.checkInferred("destination", numDst, p.dst.flatten); err != nil {
			return nil, nil, fmt.Errorf("graph: %w", err)
		}
	}
	if !opts.Bipartite {
		n := max(numSrc, numDst)
		if opts.NumNodes != 0 {
			n = opts.NumNodes
		}
		numSrc, numDst = n, n
	}
	var weights []float32
	if weighted {
		weights = p.weights.flatten()
	}
	// Every ID was checked against the declared or inferred counts while
	// parsing.
	return newGraph(numSrc, numDst, p.src.flatten(), p.dst.flatten()), weights, nil
}

// checkInferred checks a node count n inferred from the largest ID of one
// side against the node limit; ids returns that side's IDs, to name the
// first edge holding the largest one.
func (p *edgeListReader) checkInferred(side string, n int, ids func() []int32) *sizeError {
	edges := p.src.len()
	lim := nodeLimit(p.opts.MaxNodes, edges)
	if n <= lim {
		return nil
	}
	e := slices.Index(ids(), int32(n-1))
	return &sizeError{fmt.Sprintf("%s ID %d (edge %d) gives %d nodes for %d edges, more than the limit of %d (graph.DefaultNodeLimit); declare the node count, or raise the limit with EdgeListOptions.MaxNodes", side, n-1, e, n, edges, lim)}
}

// sizeError is a node count beyond the limit; like lineError its message
// lacks the "graph: " prefix so that callers can insert the file name.
type sizeError struct{ msg string }

func (e *sizeError) Error() string { return e.msg }

func (p *edgeListReader) read(r io.Reader) error {
	br := bufio.NewReaderSize(r, 1<<16)
	var long []byte // a line longer than br's buffer
	headerDone := !p.opts.Header
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
				if len(long) > maxLine {
					return newLineError(lineNo, long, "line is longer than %d bytes", maxLine)
				}
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("graph: reading edge list: line %d: %w", lineNo, err)
		}
		if len(line) == 0 && err == io.EOF {
			return nil
		}
		if perr := p.parseLine(lineNo, line, &headerDone); perr != nil {
			return perr
		}
		if err == io.EOF {
			return nil
		}
	}
}

// parseLine parses one raw line, newline included.
func (p *edgeListReader) parseLine(lineNo int, raw []byte, headerDone *bool) error {
	if !p.weighted && *headerDone {
		if s, d, ok := parseSimpleEdge(raw); ok && p.inRange(s, d) {
			p.src.add(s)
			p.dst.add(d)
			p.maxSrc = max(p.maxSrc, s)
			p.maxDst = max(p.maxDst, d)
			return nil
		}
	}
	text := trimSpace(raw)
	line := text
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = trimSpace(line[:i])
	}
	if len(line) == 0 {
		return nil
	}
	if !*headerDone {
		*headerDone = true
		return nil
	}
	var cols [3][]byte
	n, ok := splitColumns(line, &cols)
	if !ok {
		return newLineError(lineNo, text, "empty column (stray comma)")
	}
	if want := 2 + b2i(p.weighted); n != want {
		switch {
		case p.weighted:
			return newLineError(lineNo, text, "%d columns, want 3 (src dst weight)", n)
		case n == 3:
			return newLineError(lineNo, text, "3 columns, want 2 (src dst); read weighted lists with ReadWeightedEdgeList")
		default:
			return newLineError(lineNo, text, "%d columns, want 2 (src dst)", n)
		}
	}
	s, err := p.parseID(cols[0], "source", p.limSrc)
	if err != "" {
		return newLineError(lineNo, text, "%s", err)
	}
	d, err := p.parseID(cols[1], "destination", p.limDst)
	if err != "" {
		return newLineError(lineNo, text, "%s", err)
	}
	if p.weighted {
		w, perr := strconv.ParseFloat(string(cols[2]), 32)
		if errors.Is(perr, strconv.ErrRange) {
			return newLineError(lineNo, text, "weight %q is out of the float32 range", cols[2])
		}
		if perr != nil {
			return newLineError(lineNo, text, "weight %q is not a number", cols[2])
		}
		if math.IsInf(w, 0) || math.IsNaN(w) {
			return newLineError(lineNo, text, "weight %q is not finite", cols[2])
		}
		p.weights.add(float32(w))
	}
	p.src.add(s)
	p.dst.add(d)
	p.maxSrc = max(p.maxSrc, s)
	p.maxDst = max(p.maxDst, d)
	return nil
}

// parseSimpleEdge parses the common line shape "src dst\n": two unsigned
// decimal IDs of at most 9 digits separated by one space, tab or comma,
// and an optional "\r" before the newline. Any other line, valid or not,
// gives ok false and takes the general path.
func parseSimpleEdge(line []byte) (src, dst int32, ok bool) {
	i := 0
	src, i = parseDigits(line, i)
	if i <= 0 || i > 9 || i >= len(line) || (line[i] != ' ' && line[i] != '\t' && line[i] != ',') {
		return 0, 0, false
	}
	j := i + 1
	dst, i = parseDigits(line, j)
	if i == j || i-j > 9 {
		return 0, 0, false
	}
	if i < len(line) && line[i] == '\r' {
		i++
	}
	if i < len(line) && line[i] == '\n' {
		i++
	}
	return src, dst, i == len(line)
}

// parseDigits parses the decimal digits of line from position i on; it
// returns the value (meaningful for up to 9 digits) and the position after
// the last digit.
func parseDigits(line []byte, i int) (int32, int) {
	var v int32
	for ; i < len(line) && line[i]-'0' <= 9; i++ {
		v = v*10 + int32(line[i]-'0')
	}
	return v, i
}

// inRange reports whether an edge lies within the declared node counts.
func (p *edgeListReader) inRange(s, d int32) bool {
	return (p.limSrc == 0 || int(s) < p.limSrc) && (p.limDst == 0 || int(d) < p.limDst)
}

// parseID parses a node ID and checks it against the declared count lim (0
// when inferred). It returns a message instead of an error so that the
// common path does not allocate.
func (p *edgeListReader) parseID(b []byte, side string, lim int) (int32, string) {
	v, ok := parseInt(b)
	switch {
	case !ok:
		return 0, fmt.Sprintf("%s %q is not an integer", side, b)
	case v < 0:
		return 0, fmt.Sprintf("%s %s is negative", side, b)
	case v >= MaxNodes:
		return 0, fmt.Sprintf("%s %s exceeds the largest node ID %d", side, b, MaxNodes-1)
	case lim > 0 && v >= int64(lim):
		if p.opts.Bipartite {
			return 0, fmt.Sprintf("%s %d is out of range: the graph has %d %s nodes", side, v, lim, side)
		}
		return 0, fmt.Sprintf("%s %d is out of range: the graph has %d nodes", side, v, lim)
	}
	return int32(v), ""
}

// parseInt parses an optionally signed decimal integer. Values beyond the
// int32 range saturate (keeping their sign), which is enough to reject them.
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
		if v > math.MaxInt32 {
			v = math.MaxInt32 + 1
		}
	}
	if neg {
		v = -v
	}
	return v, true
}

// splitColumns splits a trimmed, non-empty line into columns separated by
// runs of spaces and tabs or by one comma with optional spaces around it.
// It stores up to len(cols) columns and returns the total count; ok is false
// when a comma leaves a column empty.
func splitColumns(line []byte, cols *[3][]byte) (n int, ok bool) {
	i := 0
	for {
		j := i
		for j < len(line) && !isSpace(line[j]) && line[j] != ',' {
			j++
		}
		if j == i {
			return n, false
		}
		if n < len(cols) {
			cols[n] = line[i:j]
		}
		n++
		k := j
		for k < len(line) && isSpace(line[k]) {
			k++
		}
		if k < len(line) && line[k] == ',' {
			k++
			for k < len(line) && isSpace(line[k]) {
				k++
			}
			if k == len(line) {
				return n, false
			}
		}
		if k == len(line) {
			return n, true
		}
		i = k
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
