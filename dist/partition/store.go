package partition

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/internal/atomicfile"
)

// The partition format, version 2: a directory holding manifest.json and
// one self-describing directory per rank.
//
//	manifest.json         the job: parts, global sizes, how it was
//	                      partitioned, the edge cut, and for each rank its
//	                      directory, sizes and part.json's size and checksum
//	part-000/part.json    the rank: global and local sizes, dataset fields
//	                      present, and the size and body digest of each
//	                      file below
//	part-000/nodes.bin    role, nodes (int64, global IDs in local order: the
//	                      local-to-global map, increasing, so also the
//	                      global-to-local one), in_deg, out_deg (int32,
//	                      global degrees)
//	part-000/shard-001.bin  role, src, dst (int32 local IDs in rank 1 and
//	                      here), eid (int64): the edges from rank 1's nodes
//	                      to this rank's, one file per source rank
//	part-000/features.bin role, values (float32, rows x cols) when dense, or
//	                      role, indptr (int64), indices (int32), values
//	                      (float32) when CSR; absent without features
//	part-000/labels.bin   role, labels (int32, may be empty), train, val,
//	                      test (int32 local IDs); absent without a dataset
//
// The .bin files are array files (see arrays.go), each ending in a CRC-32C
// of its body (every byte before the CRC). Each begins with an int32 array
// "role" holding the file's rank and, for a shard file, its source rank
// (-1 otherwise), and part.json records each file's body CRC-32C, which
// differs from file to file, so a file moved or copied to another rank's
// or shard's place is reported naming both places. (Version 1 recorded the
// CRC of the whole file, trailer included, which is one constant for every
// file: its part.json bound only sizes. Version 1 directories are refused
// with an error asking to partition again.) The JSON files carry a
// "crc32c" field: the CRC-32C of the file as written with that field zero.
// Every file is written atomically (temporary file, sync, rename), the
// manifest last, so a directory whose write was interrupted has no
// manifest. Read checks every size and checksum and every ID range, so
// corruption and truncation are reported as errors naming the file.
const (
	manifestName    = "manifest.json"
	partMetaName    = "part.json"
	manifestFormat  = "gnn-partitions"
	partMetaFormat  = "gnn-partition"
	formatVersion   = 2
	nodesFile       = "nodes.bin"
	featuresFile    = "features.bin"
	labelsFile      = "labels.bin"
	layoutDense     = "dense"
	layoutCSR       = "csr"
	maxManifestSize = 64 << 20
)

// Manifest describes a partitioned graph on disk.
type Manifest struct {
	Format      string `json:"format"`
	Version     int    `json:"version"`
	Parts       int    `json:"parts"`
	NumNodes    int    `json:"num_nodes"`
	NumEdges    int64  `json:"num_edges"`
	Name        string `json:"name,omitempty"`
	NumClasses  int    `json:"num_classes,omitempty"`
	FeatureCols int    `json:"feature_cols,omitempty"`
	// Method and Seed record how the owners were chosen (Info).
	Method string `json:"method,omitempty"`
	Seed   int64  `json:"seed"`
	// EdgeCut is the number of edges between different ranks.
	EdgeCut int64          `json:"edge_cut"`
	Ranks   []ManifestRank `json:"ranks"`
	CRC32C  uint32         `json:"crc32c"`
}

// ManifestRank is one rank's entry in the manifest.
type ManifestRank struct {
	Dir   string   `json:"dir"`
	Nodes int      `json:"nodes"`
	Edges int64    `json:"edges"`
	Meta  FileInfo `json:"meta"`
}

// FileInfo is the size and CRC-32C (Castagnoli) of one file: of its body
// (every byte before its own CRC trailer) for an array file, of the whole
// file for part.json.
type FileInfo struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	CRC32C uint32 `json:"crc32c"`
}

// Info is what Write records about how the parts were made.
type Info struct {
	Method string // e.g. "multilevel", "metis", "random"
	Seed   int64
}

// partMeta is part.json.
type partMeta struct {
	Format         string     `json:"format"`
	Version        int        `json:"version"`
	Rank           int        `json:"rank"`
	Parts          int        `json:"parts"`
	NumGlobalNodes int        `json:"num_global_nodes"`
	NumGlobalEdges int64      `json:"num_global_edges"`
	NumNodes       int        `json:"num_nodes"`
	ShardEdges     []int64    `json:"shard_edges"`
	Name           string     `json:"name,omitempty"`
	NumClasses     int        `json:"num_classes,omitempty"`
	Features       *featMeta  `json:"features,omitempty"`
	Labels         bool       `json:"labels"`
	Split          [3]int     `json:"split"` // train, val, test sizes
	Dataset        bool       `json:"dataset"`
	Files          []FileInfo `json:"files"`
	CRC32C         uint32     `json:"crc32c"`
}

type featMeta struct {
	Rows   int    `json:"rows"`
	Cols   int    `json:"cols"`
	Layout string `json:"layout"`
	NNZ    int64  `json:"nnz"`
}

func shardFile(j int) string { return fmt.Sprintf("shard-%03d.bin", j) }
func rankDir(r int) string   { return fmt.Sprintf("part-%03d", r) }

// Write stores parts (all ranks of one split) under dir in the partition
// format, creating dir if needed. The manifest is removed first and
// written last: until Write returns nil, dir holds no readable partition.
func Write(dir string, parts []*Part, info Info) error {
	if err := validateParts(parts); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("partition: %w", err)
	}
	if err := os.Remove(filepath.Join(dir, manifestName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("partition: %w", err)
	}
	p0 := parts[0]
	m := &Manifest{Format: manifestFormat, Version: formatVersion, Parts: len(parts),
		NumNodes: p0.NumGlobalNodes, NumEdges: p0.NumGlobalEdges, Name: p0.Name, NumClasses: p0.NumClasses,
		Method: info.Method, Seed: info.Seed}
	if p0.Features != nil {
		m.FeatureCols = p0.Features.Cols
	}
	for _, p := range parts {
		meta, err := writePart(filepath.Join(dir, rankDir(p.Rank)), p)
		if err != nil {
			return err
		}
		m.Ranks = append(m.Ranks, ManifestRank{Dir: rankDir(p.Rank), Nodes: len(p.Nodes), Edges: int64(p.NumEdges()), Meta: meta})
		for j, s := range p.Shards {
			if j != p.Rank {
				m.EdgeCut += int64(len(s.Src))
			}
		}
	}
	if _, err := writeJSON(filepath.Join(dir, manifestName), m, &m.CRC32C); err != nil {
		return err
	}
	return nil
}

// validateParts checks what Write is given.
func validateParts(parts []*Part) error {
	if len(parts) == 0 {
		return fmt.Errorf("partition: Write of no parts")
	}
	p0 := parts[0]
	for r, p := range parts {
		if p == nil {
			return fmt.Errorf("partition: part %d is nil", r)
		}
		if p.Rank != r || p.Parts != len(parts) || len(p.Shards) != len(parts) {
			return fmt.Errorf("partition: part %d says rank %d of %d with %d shards; want rank %d of %d", r, p.Rank, p.Parts, len(p.Shards), r, len(parts))
		}
		if p.NumGlobalNodes != p0.NumGlobalNodes || p.NumGlobalEdges != p0.NumGlobalEdges || p.Name != p0.Name || p.NumClasses != p0.NumClasses {
			return fmt.Errorf("partition: part %d disagrees with part 0 on the global sizes or dataset", r)
		}
		if len(p.InDeg) != len(p.Nodes) || len(p.OutDeg) != len(p.Nodes) {
			return fmt.Errorf("partition: part %d has %d nodes but %d in- and %d out-degrees", r, len(p.Nodes), len(p.InDeg), len(p.OutDeg))
		}
		for j, s := range p.Shards {
			if s.SrcRank != j || len(s.Dst) != len(s.Src) || len(s.EID) != len(s.Src) {
				return fmt.Errorf("partition: part %d shard %d is malformed (source rank %d, %d/%d/%d src/dst/eid)", r, j, s.SrcRank, len(s.Src), len(s.Dst), len(s.EID))
			}
		}
		if (p.Features == nil) != (p0.Features == nil) || p.Features != nil && p.Features.Cols != p0.Features.Cols {
			return fmt.Errorf("partition: part %d's features do not match part 0's", r)
		}
		if f := p.Features; f != nil && f.Rows != len(p.Nodes) {
			return fmt.Errorf("partition: part %d has %d feature rows for %d nodes", r, f.Rows, len(p.Nodes))
		}
		if p.Labels != nil && len(p.Labels) != len(p.Nodes) {
			return fmt.Errorf("partition: part %d has %d labels for %d nodes", r, len(p.Labels), len(p.Nodes))
		}
	}
	return nil
}

// writePart writes one rank's directory and returns part.json's FileInfo.
func writePart(dir string, p *Part) (FileInfo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return FileInfo{}, fmt.Errorf("partition: %w", err)
	}
	meta := &partMeta{Format: partMetaFormat, Version: formatVersion, Rank: p.Rank, Parts: p.Parts,
		NumGlobalNodes: p.NumGlobalNodes, NumGlobalEdges: p.NumGlobalEdges, NumNodes: len(p.Nodes),
		Name: p.Name, NumClasses: p.NumClasses, Labels: p.Labels != nil,
		Split: [3]int{len(p.Train), len(p.Val), len(p.Test)}}
	meta.Dataset = p.Labels != nil || p.Train != nil || p.Val != nil || p.Test != nil
	put := func(name string, arrays ...array) error {
		shard := int32(-1)
		if name != nodesFile && name != featuresFile && name != labelsFile {
			shard = int32(len(meta.ShardEdges) - 1)
		}
		arrays = append([]array{i32Array(roleArray, []int32{int32(p.Rank), shard})}, arrays...)
		fi, err := writeArrayFile(filepath.Join(dir, name), arrays)
		if err != nil {
			return err
		}
		fi.Name = name
		meta.Files = append(meta.Files, fi)
		return nil
	}
	if err := put(nodesFile, i64Array("nodes", p.Nodes), i32Array("in_deg", p.InDeg), i32Array("out_deg", p.OutDeg)); err != nil {
		return FileInfo{}, err
	}
	for j, s := range p.Shards {
		meta.ShardEdges = append(meta.ShardEdges, int64(len(s.Src)))
		if err := put(shardFile(j), i32Array("src", s.Src), i32Array("dst", s.Dst), i64Array("eid", s.EID)); err != nil {
			return FileInfo{}, err
		}
	}
	if f := p.Features; f != nil {
		fm := &featMeta{Rows: f.Rows, Cols: f.Cols, NNZ: int64(f.NNZ())}
		var err error
		if f.IsSparse() {
			fm.Layout = layoutCSR
			err = put(featuresFile, i64Array("indptr", f.Indptr), i32Array("indices", f.Indices), f32Array("values", f.Values))
		} else {
			fm.Layout = layoutDense
			err = put(featuresFile, f32Array("values", f.Dense))
		}
		if err != nil {
			return FileInfo{}, err
		}
		meta.Features = fm
	}
	if meta.Dataset {
		if err := put(labelsFile, i32Array("labels", p.Labels), i32Array("train", p.Train), i32Array("val", p.Val), i32Array("test", p.Test)); err != nil {
			return FileInfo{}, err
		}
	}
	fi, err := writeJSON(filepath.Join(dir, partMetaName), meta, &meta.CRC32C)
	fi.Name = partMetaName
	return fi, err
}

// writeArrayFile writes an array file atomically.
func writeArrayFile(path string, arrays []array) (FileInfo, error) {
	var fi FileInfo
	err := atomicfile.Write(path, func(w io.Writer) error {
		var err error
		fi.Bytes, fi.CRC32C, err = writeArrays(w, arrays)
		return err
	})
	if err != nil {
		return fi, fmt.Errorf("partition: writing %s: %w", path, err)
	}
	return fi, nil
}

// writeJSON writes v atomically as indented JSON whose checksum field (sum,
// inside v) holds the CRC-32C of the encoding with that field zero.
func writeJSON(path string, v any, sum *uint32) (FileInfo, error) {
	*sum = 0
	b, err := json.MarshalIndent(v, "", "\t")
	if err != nil {
		return FileInfo{}, fmt.Errorf("partition: %s: %w", path, err)
	}
	*sum = crc32.Checksum(b, castagnoli)
	if b, err = json.MarshalIndent(v, "", "\t"); err != nil {
		return FileInfo{}, fmt.Errorf("partition: %s: %w", path, err)
	}
	b = append(b, '\n')
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return FileInfo{}, fmt.Errorf("partition: writing %s: %w", path, err)
	}
	return FileInfo{Bytes: int64(len(b)), CRC32C: crc32.Checksum(b, castagnoli)}, nil
}

// decodeJSON parses data into v (unknown fields rejected) and checks its
// checksum field.
func decodeJSON(data []byte, v any, sum *uint32) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("malformed JSON: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("unexpected data after the JSON object")
	}
	want := *sum
	*sum = 0
	b, err := json.MarshalIndent(v, "", "\t")
	*sum = want
	if err != nil {
		return err
	}
	if crc32.Checksum(b, castagnoli) != want {
		return errChecksum
	}
	return nil
}

// ReadManifest reads and checks dir's manifest.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, manifestName)
	data, err := readLimited(path, maxManifestSize)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("partition: %s has no %s: not a partitioned graph, or its writing did not finish", dir, manifestName)
		}
		return nil, fmt.Errorf("partition: %w", err)
	}
	m, err := parseManifest(data)
	if err != nil {
		return nil, fmt.Errorf("partition: %s: %w", path, err)
	}
	return m, nil
}

// parseManifest decodes and validates a manifest.
func parseManifest(data []byte) (*Manifest, error) {
	m := &Manifest{}
	if err := decodeJSON(data, m, &m.CRC32C); err != nil {
		return nil, err
	}
	if err := checkFormat(m.Format, m.Version, manifestFormat); err != nil {
		return nil, err
	}
	if m.Parts < 1 || len(m.Ranks) != m.Parts {
		return nil, fmt.Errorf("%d parts but %d rank entries", m.Parts, len(m.Ranks))
	}
	if m.NumNodes < 0 || m.NumEdges < 0 || m.NumClasses < 0 || m.FeatureCols < 0 {
		return nil, fmt.Errorf("negative size")
	}
	nodes := 0
	for r, e := range m.Ranks {
		if e.Dir != rankDir(r) || e.Nodes < 0 || e.Edges < 0 || e.Meta.Name != partMetaName {
			return nil, fmt.Errorf("rank %d's entry is malformed", r)
		}
		nodes += e.Nodes
	}
	if nodes != m.NumNodes {
		return nil, fmt.Errorf("the ranks hold %d nodes, the graph has %d", nodes, m.NumNodes)
	}
	return m, nil
}

// readLimited reads a file of at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d expected", path, st.Size(), limit)
	}
	return os.ReadFile(path)
}

// readChecked reads a file and checks it against its FileInfo: the CRC of
// its body (all but the 4-byte trailer) when body is set, of the whole file
// otherwise. On a checksum mismatch it returns the data read and an error
// wrapping errChecksum.
func readChecked(path string, fi FileInfo, body bool) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() != fi.Bytes {
		return nil, fmt.Errorf("%s: %d bytes, want %d: the file is truncated or was replaced", path, st.Size(), fi.Bytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != fi.Bytes {
		return nil, fmt.Errorf("%s: changed while being read", path)
	}
	sum := data
	if body && len(sum) >= 4 {
		sum = sum[:len(sum)-4]
	}
	if crc32.Checksum(sum, castagnoli) != fi.CRC32C {
		return data, fmt.Errorf("%s: %w", path, errChecksum)
	}
	return data, nil
}

// Read loads rank's part from dir, reading only the manifest and that
// rank's directory. Every file's size and checksum and every ID range is
// checked; an error names the file at fault.
func Read(dir string, rank int) (*Part, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	if rank < 0 || rank >= m.Parts {
		return nil, fmt.Errorf("partition: %s holds %d parts; there is no rank %d", dir, m.Parts, rank)
	}
	p, err := readPart(dir, m, rank)
	if err != nil {
		return nil, fmt.Errorf("partition: %w", err)
	}
	return p, nil
}

// ReadAll loads every rank's part from dir.
func ReadAll(dir string) ([]*Part, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	parts := make([]*Part, m.Parts)
	for r := range parts {
		if parts[r], err = readPart(dir, m, r); err != nil {
			return nil, fmt.Errorf("partition: %w", err)
		}
	}
	return parts, nil
}

func readPart(dir string, m *Manifest, rank int) (*Part, error) {
	e := m.Ranks[rank]
	pdir := filepath.Join(dir, e.Dir)
	metaPath := filepath.Join(pdir, partMetaName)
	data, err := readChecked(metaPath, e.Meta, false)
	if err != nil {
		return nil, err
	}
	meta, err := parsePartMeta(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", metaPath, err)
	}
	if meta.Rank != rank || meta.Parts != m.Parts || meta.NumGlobalNodes != m.NumNodes || meta.NumGlobalEdges != m.NumEdges ||
		meta.NumNodes != e.Nodes || meta.Name != m.Name || meta.NumClasses != m.NumClasses {
		return nil, fmt.Errorf("%s does not match %s", metaPath, manifestName)
	}
	if meta.Features != nil && meta.Features.Cols != m.FeatureCols || meta.Features == nil && m.FeatureCols != 0 {
		return nil, fmt.Errorf("%s: feature columns do not match %s", metaPath, manifestName)
	}
	files := map[string]FileInfo{}
	for _, f := range meta.Files {
		files[f.Name] = f
	}
	// load reads one array file: shard is its source rank for a shard
	// file, -1 otherwise.
	load := func(name string, shard int, want ...arraySpec) ([]array, error) {
		fi, ok := files[name]
		if !ok {
			return nil, fmt.Errorf("%s lists no %s", metaPath, name)
		}
		path := filepath.Join(pdir, name)
		data, err := readChecked(path, fi, true)
		if errors.Is(err, errChecksum) {
			return nil, misplaced(path, data, name, rank, shard, err)
		}
		if err != nil {
			return nil, err
		}
		arrays, err := decodeArrays(data)
		if err == nil {
			err = match(arrays, append([]arraySpec{{roleArray, dtInt32, 2}}, want...))
		}
		if err == nil {
			if r := arrays[0].i32; r[0] != int32(rank) || r[1] != int32(shard) {
				err = fmt.Errorf("role %v, want [%d %d]", r, rank, shard)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return arrays[1:], nil
	}
	n := meta.NumNodes
	p := &Part{Rank: rank, Parts: m.Parts, NumGlobalNodes: m.NumNodes, NumGlobalEdges: m.NumEdges,
		Name: m.Name, NumClasses: m.NumClasses, Shards: make([]Shard, m.Parts)}
	a, err := load(nodesFile, -1, arraySpec{"nodes", dtInt64, n}, arraySpec{"in_deg", dtInt32, n}, arraySpec{"out_deg", dtInt32, n})
	if err != nil {
		return nil, err
	}
	p.Nodes, p.InDeg, p.OutDeg = a[0].i64, a[1].i32, a[2].i32
	if err := checkNodes(p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(pdir, nodesFile), err)
	}
	var edges int64
	for j := range m.Parts {
		k := int(meta.ShardEdges[j])
		a, err := load(shardFile(j), j, arraySpec{"src", dtInt32, k}, arraySpec{"dst", dtInt32, k}, arraySpec{"eid", dtInt64, k})
		if err != nil {
			return nil, err
		}
		s := Shard{SrcRank: j, Src: a[0].i32, Dst: a[1].i32, EID: a[2].i64}
		if err := checkShard(s, m.Ranks[j].Nodes, n, m.NumEdges); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(pdir, shardFile(j)), err)
		}
		p.Shards[j] = s
		edges += int64(k)
	}
	if edges != e.Edges {
		return nil, fmt.Errorf("%s: the shards hold %d edges, %s says %d", pdir, edges, manifestName, e.Edges)
	}
	if fm := meta.Features; fm != nil {
		f := &dataset.Features{Rows: fm.Rows, Cols: fm.Cols}
		path := filepath.Join(pdir, featuresFile)
		if fm.Layout == layoutDense {
			a, err := load(featuresFile, -1, arraySpec{"values", dtFloat32, n * fm.Cols})
			if err != nil {
				return nil, err
			}
			f.Dense = a[0].f32
		} else {
			nnz := int(fm.NNZ)
			a, err := load(featuresFile, -1, arraySpec{"indptr", dtInt64, n + 1}, arraySpec{"indices", dtInt32, nnz}, arraySpec{"values", dtFloat32, nnz})
			if err != nil {
				return nil, err
			}
			f.Indptr, f.Indices, f.Values = a[0].i64, a[1].i32, a[2].f32
			if err := checkCSR(f); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		p.Features = f
	}
	if meta.Dataset {
		nl := 0
		if meta.Labels {
			nl = n
		}
		a, err := load(labelsFile, -1, arraySpec{"labels", dtInt32, nl}, arraySpec{"train", dtInt32, meta.Split[0]},
			arraySpec{"val", dtInt32, meta.Split[1]}, arraySpec{"test", dtInt32, meta.Split[2]})
		if err != nil {
			return nil, err
		}
		path := filepath.Join(pdir, labelsFile)
		if meta.Labels {
			p.Labels = a[0].i32
			for i, c := range p.Labels {
				if c < 0 || int(c) >= max(m.NumClasses, 1) {
					return nil, fmt.Errorf("%s: node %d has label %d, outside [0, %d)", path, i, c, m.NumClasses)
				}
			}
		}
		p.Train, p.Val, p.Test = a[1].i32, a[2].i32, a[3].i32
		for k, ids := range [][]int32{p.Train, p.Val, p.Test} {
			for i, v := range ids {
				if v < 0 || int(v) >= n || i > 0 && ids[i-1] >= v {
					return nil, fmt.Errorf("%s: %s node %d at position %d is out of range [0, %d) or out of order", path, [3]string{"train", "val", "test"}[k], v, i, n)
				}
			}
		}
	}
	return p, nil
}

// roleArray names the array each array file begins with: its rank and,
// for a shard file, its source rank (-1 otherwise).
const roleArray = "role"

// checkFormat checks a JSON file's format and version, telling the user to
// partition again when the version is an older one.
func checkFormat(format string, version int, want string) error {
	if format != want {
		return fmt.Errorf("format %q, want %q: not a file of a partitioned graph", format, want)
	}
	if version != formatVersion {
		hint := ""
		if version >= 1 && version < formatVersion {
			hint = ": partition the graph again (gnnpart, or partition.Write) to read it with this build"
		}
		return fmt.Errorf("format %q version %d; this build reads version %d%s", format, version, formatVersion, hint)
	}
	return nil
}

// misplaced explains a checksum mismatch of the array file at path,
// expected to hold rank's file name (shard >= 0 for shard files): if the
// file is intact and says it belongs elsewhere, the error names both
// places, as a swap or a copy from another rank leaves them.
func misplaced(path string, data []byte, name string, rank, shard int, err error) error {
	arrays, derr := decodeArrays(data)
	if derr != nil || len(arrays) == 0 || arrays[0].name != roleArray || len(arrays[0].i32) != 2 {
		return err
	}
	r, s := int(arrays[0].i32[0]), int(arrays[0].i32[1])
	if r == rank && s == shard {
		return err
	}
	if s >= 0 {
		name = shardFile(s)
	} else if shard >= 0 {
		return fmt.Errorf("%s holds one of rank %d's non-shard files, not shard %d: files were swapped or copied between ranks; partition again or restore them", path, r, shard)
	}
	return fmt.Errorf("%s holds the file written as %s: files were swapped or copied between ranks or shards; partition again or restore them", path, filepath.Join(rankDir(r), name))
}

// parsePartMeta decodes and validates part.json.
func parsePartMeta(data []byte) (*partMeta, error) {
	meta := &partMeta{}
	if err := decodeJSON(data, meta, &meta.CRC32C); err != nil {
		return nil, err
	}
	if err := checkFormat(meta.Format, meta.Version, partMetaFormat); err != nil {
		return nil, err
	}
	if meta.Parts < 1 || len(meta.ShardEdges) != meta.Parts || meta.NumNodes < 0 || meta.NumNodes > meta.NumGlobalNodes {
		return nil, fmt.Errorf("inconsistent sizes")
	}
	for _, k := range meta.ShardEdges {
		if k < 0 || k > meta.NumGlobalEdges {
			return nil, fmt.Errorf("a shard of %d edges in a graph of %d", k, meta.NumGlobalEdges)
		}
	}
	for _, k := range meta.Split {
		if k < 0 || k > meta.NumNodes {
			return nil, fmt.Errorf("a split of %d nodes on a rank of %d", k, meta.NumNodes)
		}
	}
	if f := meta.Features; f != nil {
		if f.Rows != meta.NumNodes || f.Cols < 0 || f.NNZ < 0 || f.Layout != layoutDense && f.Layout != layoutCSR ||
			f.Layout == layoutDense && f.NNZ != int64(f.Rows)*int64(f.Cols) || f.Cols > 0 && f.Rows > 0 && int64(f.Rows) > (1<<62)/int64(f.Cols) {
			return nil, fmt.Errorf("malformed features entry")
		}
	}
	return meta, nil
}

// arraySpec is what a reader expects of one array.
type arraySpec struct {
	name string
	typ  dtype
	n    int
}

// match checks that arrays are exactly the expected ones, in order.
func match(arrays []array, want []arraySpec) error {
	if len(arrays) != len(want) {
		return fmt.Errorf("%d arrays, want %d", len(arrays), len(want))
	}
	for i, w := range want {
		a := arrays[i]
		if a.name != w.name || a.typ != w.typ || a.len() != w.n {
			return fmt.Errorf("array %d is %s %q of %d elements, want %s %q of %d", i, a.typ, a.name, a.len(), w.typ, w.name, w.n)
		}
	}
	return nil
}

func checkNodes(p *Part) error {
	for i, v := range p.Nodes {
		if v < 0 || v >= int64(p.NumGlobalNodes) || i > 0 && p.Nodes[i-1] >= v {
			return fmt.Errorf("node %d (local %d) is out of range [0, %d) or out of order", v, i, p.NumGlobalNodes)
		}
	}
	for i := range p.InDeg {
		if p.InDeg[i] < 0 || p.OutDeg[i] < 0 || int64(p.InDeg[i]) > p.NumGlobalEdges || int64(p.OutDeg[i]) > p.NumGlobalEdges {
			return fmt.Errorf("local node %d has degrees %d/%d in a graph of %d edges", i, p.InDeg[i], p.OutDeg[i], p.NumGlobalEdges)
		}
	}
	return nil
}

func checkShard(s Shard, numSrc, numDst int, numEdges int64) error {
	for k := range s.Src {
		if s.Src[k] < 0 || int(s.Src[k]) >= numSrc {
			return fmt.Errorf("edge %d has source %d, but rank %d has %d nodes", k, s.Src[k], s.SrcRank, numSrc)
		}
		if s.Dst[k] < 0 || int(s.Dst[k]) >= numDst {
			return fmt.Errorf("edge %d has destination %d, but this rank has %d nodes", k, s.Dst[k], numDst)
		}
		if e := s.EID[k]; e < 0 || e >= numEdges || k > 0 && s.EID[k-1] >= e {
			return fmt.Errorf("edge %d has global ID %d, out of range [0, %d) or out of order", k, e, numEdges)
		}
	}
	return nil
}

func checkCSR(f *dataset.Features) error {
	if f.Indptr[0] != 0 || f.Indptr[f.Rows] != int64(len(f.Values)) {
		return fmt.Errorf("row pointers start at %d and end at %d for %d values", f.Indptr[0], f.Indptr[f.Rows], len(f.Values))
	}
	for r := range f.Rows {
		lo, hi := f.Indptr[r], f.Indptr[r+1]
		if hi < lo || hi > int64(len(f.Values)) {
			return fmt.Errorf("row %d has pointers %d..%d", r, lo, hi)
		}
		if !slices.IsSorted(f.Indices[lo:hi]) {
			return fmt.Errorf("row %d's columns are not increasing", r)
		}
		for _, c := range f.Indices[lo:hi] {
			if c < 0 || int(c) >= f.Cols {
				return fmt.Errorf("row %d has column %d, outside [0, %d)", r, c, f.Cols)
			}
		}
	}
	return nil
}
