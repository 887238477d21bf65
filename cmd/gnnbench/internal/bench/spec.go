package bench

import (
	"fmt"
	"strings"
)

// Paths: how a model's message passing is computed.
const (
	Fused   = "fused"   // gnn's fused ops (nn/gcn, nn/gat)
	Unfused = "unfused" // mp user-defined functions: per-edge messages, degree-bucketed reduce
	Dense   = "dense"   // a dense N x N adjacency or attention matrix
)

// Paths lists the paths in the order the harness runs and prints them.
var Paths = []string{Fused, Unfused, Dense}

// Models and kernels a Spec can name.
const (
	GCN         = "gcn"
	GAT         = "gat"
	GATv2       = "gatv2"
	SpMM        = "spmm"
	SDDMM       = "sddmm"
	EdgeSoftmax = "edgesoftmax"
)

// Statuses of a Result.
const (
	StatusOK      = "ok"
	StatusOOM     = "oom"     // over the memory cap, killed by the kernel, or the Go runtime ran out
	StatusTimeout = "timeout" // over the time cap
	StatusError   = "error"   // anything else; Result.Error says what
)

// Input forms of the node features.
const (
	InputDense  = "dense"  // an N x F dense matrix
	InputSparse = "sparse" // CSR, multiplied by an SpMM over the non-zeros (nn.Sparse)
)

// Spec describes one run: a model or kernel, a path and the data. It is
// what the harness passes to a child process, as JSON.
type Spec struct {
	Suite   string `json:"suite"`
	Sweep   string `json:"sweep,omitempty"` // synth: density, nodes or hidden; scale: the series
	Model   string `json:"model"`           // gcn, gat, or a kernel: spmm, sddmm, edgesoftmax
	Op      string `json:"op,omitempty"`    // kernels: the operation (see Kernel ops)
	Path    string `json:"path"`            // fused, unfused or dense
	Dataset string `json:"dataset"`         // cora, citeseer, pubmed or synth
	DataDir string `json:"data_dir,omitempty"`
	Input   string `json:"input"` // dense or sparse features
	Dropout bool   `json:"dropout"`
	// Device is where a model trains: "" or "cpu", "gpu" (the first GPU)
	// or "emu" (the GPU emulator), the last two for the fused path only.
	Device string `json:"device,omitempty"`

	Nodes int `json:"nodes"`
	// Edges is the number of edges the model runs on: for models, the
	// graph's edges plus one self-loop per node; for kernels, the graph's.
	Edges   int64   `json:"edges"`
	Density float64 `json:"density,omitempty"` // synth: edges before self-loops / nodes^2
	Feat    int     `json:"feat"`              // input features (kernels: features per head)
	Hidden  int     `json:"hidden"`            // hidden features (GAT: per head)
	Heads   int     `json:"heads"`             // attention heads of the hidden layer (1 for GCN)
	// OutHeads is the number of attention heads of GAT's output layer,
	// averaged (1 in the GAT paper for Cora and CiteSeer, 8 for PubMed).
	OutHeads int `json:"out_heads,omitempty"`
	Classes  int `json:"classes"`

	Epochs int    `json:"epochs"` // timed epochs (kernels: calls)
	Warmup int    `json:"warmup"` // untimed epochs before them
	Seed   uint64 `json:"seed"`
	// EdgeOrder is the numbering of a generated graph's edges: "random"
	// (or "") as generate.Uniform draws them, or "dst", renumbered by
	// destination with graph.ReorderEdges so that per-edge rows are read
	// in order through the CSC view.
	EdgeOrder string `json:"edge_order,omitempty"`
	// Recompute makes the fused GAT's layers recompute the attention in
	// the backward instead of keeping it (gat.WithRecompute).
	Recompute bool `json:"recompute,omitempty"`
}

// Result is a Spec with what its run measured.
type Result struct {
	Spec
	// EpochMS is the median of the timed epochs in milliseconds (of the
	// epochs completed before a cap, or of the warm-up when no timed
	// epoch completed; Note says so); 0 when none completed.
	EpochMS    float64 `json:"epoch_ms"`
	EpochMSMin float64 `json:"epoch_ms_min,omitempty"`
	EpochMSMax float64 `json:"epoch_ms_max,omitempty"`
	Timed      int     `json:"timed_epochs"`
	// PeakRSS is the peak resident set size of the process that ran the
	// Spec (its rusage maxrss, or VmHWM as the process saw it), data
	// loading and graph building included: the harness runs every Spec in
	// a process of its own, so it is the run's.
	PeakRSS int64 `json:"peak_rss_bytes"`
	// AllocPerEpoch is the mean of the bytes the timed epochs allocated
	// on the Go heap (runtime.MemStats.TotalAlloc deltas): what the
	// steady state re-allocates every epoch.
	AllocPerEpoch int64 `json:"alloc_bytes_per_epoch"`
	// LiveHeap is the Go heap still in use after the last epoch and a
	// forced garbage collection (runtime.MemStats.HeapAlloc), with the
	// model and its machine live: the data, the parameters, the
	// optimiser's state and every value the machine keeps between epochs.
	LiveHeap int64  `json:"live_heap_bytes"`
	Status   string `json:"status"`
	Error    string `json:"error,omitempty"`
	Note     string `json:"note,omitempty"`
	// SetupMS is the time to load or generate the data and build the
	// model, before the first epoch.
	SetupMS float64 `json:"setup_ms,omitempty"`
	// Loss is the training loss of the first and the last epoch, a
	// check that the paths computed the same thing.
	LossFirst float64 `json:"loss_first,omitempty"`
	LossLast  float64 `json:"loss_last,omitempty"`
	// MemCap and TimeCapS are the caps the run was under (set by the
	// harness that supervised it; 0 when none).
	MemCap   int64   `json:"mem_cap_bytes,omitempty"`
	TimeCapS float64 `json:"time_cap_s,omitempty"`
	// Skipped is set when the run was not started (an estimate or a
	// smaller case of the same series already failed); Note says why.
	Skipped bool `json:"skipped,omitempty"`
}

// Key identifies a Spec's case regardless of its path: the rows of the
// harness's table, with one column per path.
func (s *Spec) Key() string {
	c := *s
	c.Path = ""
	return fmt.Sprintf("%s|%s|%s|%s|%s|%s|%v|%d|%d|%g|%d|%d|%d|%d|%d", c.Suite, c.Sweep, c.Model, c.Op, c.Dataset, c.Input,
		c.Dropout, c.Nodes, c.Edges, c.Density, c.Feat, c.Hidden, c.Heads, c.OutHeads, c.Classes)
}

// IsKernel reports whether the Spec times a kernel rather than a model.
func (s *Spec) IsKernel() bool {
	switch s.Model {
	case SpMM, SDDMM, EdgeSoftmax:
		return true
	}
	return false
}

// Describe returns a short one-line description of the Spec, for progress
// lines.
func (s *Spec) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", s.Model)
	if s.Op != "" {
		fmt.Fprintf(&b, " %s", s.Op)
	}
	fmt.Fprintf(&b, " %s %s", s.Path, s.Dataset)
	if s.Dataset == "synth" || s.IsKernel() {
		fmt.Fprintf(&b, " n=%d e=%d", s.Nodes, s.Edges)
		if s.Density > 0 {
			fmt.Fprintf(&b, " density=%g", s.Density)
		}
	}
	if s.IsKernel() {
		if s.Heads > 1 {
			fmt.Fprintf(&b, " dim=%dx%d", s.Heads, s.Feat)
		} else {
			fmt.Fprintf(&b, " dim=%d", s.Feat)
		}
		return b.String()
	}
	if s.Model == GAT || s.Model == GATv2 {
		fmt.Fprintf(&b, " feat=%d hidden=%dx%d", s.Feat, s.Heads, s.Hidden)
	} else {
		fmt.Fprintf(&b, " feat=%d hidden=%d", s.Feat, s.Hidden)
	}
	if s.Dataset != "synth" {
		fmt.Fprintf(&b, " input=%s", s.Input)
	}
	if s.Dropout {
		b.WriteString(" dropout")
	}
	if s.Device != "" && s.Device != "cpu" {
		fmt.Fprintf(&b, " device=%s", s.Device)
	}
	return b.String()
}

// Edge orders of generated graphs (Spec.EdgeOrder).
const (
	OrderRandom = "random"
	OrderDst    = "dst"
)

// Validate reports a Spec that Run cannot execute.
func (s *Spec) Validate() error {
	switch s.Path {
	case Fused, Unfused, Dense:
	default:
		return fmt.Errorf("bench: unknown path %q", s.Path)
	}
	switch s.Model {
	case GCN, GAT, GATv2:
		if s.Hidden <= 0 || s.Classes <= 0 {
			return fmt.Errorf("bench: %s needs positive hidden and classes, got %d and %d", s.Model, s.Hidden, s.Classes)
		}
		if s.Model != GCN && (s.Heads <= 0 || s.OutHeads <= 0) {
			return fmt.Errorf("bench: %s needs positive heads, got %d and %d", s.Model, s.Heads, s.OutHeads)
		}
		if s.Model == GATv2 && s.Path != Fused {
			return fmt.Errorf("bench: gatv2 has only the %s path, not %q", Fused, s.Path)
		}
	case SpMM, SDDMM, EdgeSoftmax:
		if s.Heads <= 0 || s.Feat <= 0 {
			return fmt.Errorf("bench: kernel %s needs positive heads and feat, got %d and %d", s.Model, s.Heads, s.Feat)
		}
	default:
		return fmt.Errorf("bench: unknown model %q", s.Model)
	}
	switch s.Device {
	case "", "cpu":
	case "gpu", "emu":
		if s.Path != Fused || s.IsKernel() {
			return fmt.Errorf("bench: device %s runs the fused path of the models only, not %s %s", s.Device, s.Model, s.Path)
		}
	default:
		return fmt.Errorf("bench: unknown device %q (want cpu, gpu or emu)", s.Device)
	}
	if s.EdgeOrder != "" && s.EdgeOrder != OrderRandom && s.EdgeOrder != OrderDst {
		return fmt.Errorf("bench: unknown edge order %q (want %s or %s)", s.EdgeOrder, OrderRandom, OrderDst)
	}
	if s.Epochs <= 0 || s.Warmup < 0 {
		return fmt.Errorf("bench: need positive epochs and non-negative warm-up, got %d and %d", s.Epochs, s.Warmup)
	}
	if s.Dataset == "synth" || s.IsKernel() {
		if s.Nodes <= 0 || s.Feat <= 0 {
			return fmt.Errorf("bench: synthetic data needs positive nodes and feat, got %d and %d", s.Nodes, s.Feat)
		}
	} else if s.DataDir == "" {
		return fmt.Errorf("bench: dataset %q needs a data directory", s.Dataset)
	}
	return nil
}
