package bench

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/gnngo/gnn/internal/limits"
)

// Epoch is one epoch (or kernel call) that Run reports as it goes.
type Epoch struct {
	Index  int     `json:"epoch"` // 0-based, warm-up included
	Warmup bool    `json:"warmup,omitempty"`
	MS     float64 `json:"ms"`
	Loss   float64 `json:"loss,omitempty"`
	// AllocBytes is what the epoch allocated on the Go heap
	// (runtime.MemStats.TotalAlloc after it minus before it).
	AllocBytes int64 `json:"alloc_bytes,omitempty"`
}

// Options are the optional parts of a run.
type Options struct {
	// OnEpoch, if not nil, is called after every epoch, warm-up included.
	OnEpoch func(Epoch)
	// HeapProfile, if not nil, receives a heap profile (pprof's format)
	// taken after the last epoch and a garbage collection, while the
	// model, its machine and every value the machine holds are still
	// live: inuse_space is what an epoch leaves held, alloc_space
	// everything allocated since the process started.
	HeapProfile io.Writer
}

// Run executes s in the calling process: it loads or generates the data,
// builds the model or kernel, runs s.Warmup untimed and s.Epochs timed
// epochs, and returns the median. onEpoch, if not nil, is called after
// every epoch, warm-up included. Failures come back as a Result with
// status error. It is RunWith with only OnEpoch set.
func Run(s Spec, onEpoch func(Epoch)) Result {
	return RunWith(s, Options{OnEpoch: onEpoch})
}

// RunWith is Run with options. Besides the times, it measures the memory
// of the run: the bytes each epoch allocates (averaged over the timed
// epochs in Result.AllocPerEpoch), the heap still live after the last
// epoch and a forced garbage collection (Result.LiveHeap), and the
// process's peak resident set so far (Result.PeakRSS, VmHWM of
// /proc/self/status, 0 where there is none). The memory statistics are
// read between epochs, outside the timed span, and the collection runs
// after the last one, so the times are as without them.
func RunWith(s Spec, o Options) Result {
	onEpoch := o.OnEpoch
	r := Result{Spec: s}
	fail := func(err error) Result {
		r.Status, r.Error = StatusError, err.Error()
		return r
	}
	if err := s.Validate(); err != nil {
		return fail(err)
	}
	start := time.Now()
	step, closeFn, err := build(&s)
	if err != nil {
		return fail(err)
	}
	defer closeFn()
	r.SetupMS = ms(time.Since(start))
	var (
		times       []float64
		steadyAlloc int64
		mem         runtime.MemStats
	)
	runtime.ReadMemStats(&mem)
	for i := range s.Warmup + s.Epochs {
		before := mem.TotalAlloc
		t0 := time.Now()
		loss, err := step()
		dt := ms(time.Since(t0))
		runtime.ReadMemStats(&mem)
		alloc := int64(mem.TotalAlloc - before)
		if err != nil {
			return fail(fmt.Errorf("epoch %d: %w", i, err))
		}
		if i == 0 {
			r.LossFirst = loss
		}
		r.LossLast = loss
		warm := i < s.Warmup
		if !warm {
			times = append(times, dt)
			steadyAlloc += alloc
		}
		if onEpoch != nil {
			onEpoch(Epoch{Index: i, Warmup: warm, MS: dt, Loss: loss, AllocBytes: alloc})
		}
	}
	r.Status = StatusOK
	r.Timed = len(times)
	r.EpochMS, r.EpochMSMin, r.EpochMSMax = Summary(times)
	if r.Timed > 0 {
		r.AllocPerEpoch = steadyAlloc / int64(r.Timed)
	}
	runtime.GC()
	runtime.ReadMemStats(&mem)
	r.LiveHeap = int64(mem.HeapAlloc)
	r.PeakRSS = limits.PeakRSS()
	if o.HeapProfile != nil {
		if err := pprof.WriteHeapProfile(o.HeapProfile); err != nil {
			r.Note = fmt.Sprintf("heap profile: %v", err)
		}
	}
	if math.IsNaN(r.LossLast) || math.IsInf(r.LossLast, 0) {
		r.Note = "loss is not finite"
	}
	return r
}

// build returns the step function of s (an epoch or a kernel call,
// returning the loss or 0) and a function releasing its resources.
func build(s *Spec) (step func() (float64, error), closeFn func(), err error) {
	if s.IsKernel() {
		k, err := BuildKernel(s)
		if err != nil {
			return nil, nil, err
		}
		return func() (float64, error) { k(); return 0, nil }, func() {}, nil
	}
	d, err := LoadData(s)
	if err != nil {
		return nil, nil, err
	}
	if d.Feat != s.Feat && s.Feat > 0 {
		return nil, nil, fmt.Errorf("bench: data has %d features, the spec %d", d.Feat, s.Feat)
	}
	var t *Task
	switch s.Model {
	case GCN:
		c := DefaultGCNConfig(s.Hidden, s.Dropout)
		c.Seed = s.Seed
		t, err = BuildGCN(s.Path, d, c)
	case GAT:
		c := DefaultGATConfig(s.Hidden, s.Heads, s.OutHeads, s.Dropout)
		c.Seed, c.Recompute = s.Seed, s.Recompute
		t, err = BuildGAT(s.Path, d, c)
	case GATv2:
		c := DefaultGATConfig(s.Hidden, s.Heads, s.OutHeads, s.Dropout)
		c.Seed = s.Seed
		t, err = BuildGATv2(s.Path, d, c)
	default:
		err = fmt.Errorf("bench: unknown model %q", s.Model)
	}
	if err != nil {
		return nil, nil, err
	}
	if s.Device == "gpu" || s.Device == "emu" {
		return deviceStep(s, t)
	}
	tr, err := NewTrainer(t)
	if err != nil {
		return nil, nil, err
	}
	return tr.Epoch, func() { tr.Close() }, nil
}

// Summary returns the median, minimum and maximum of xs (zeros when xs is
// empty). The median of an even count is the mean of the middle two.
func Summary(xs []float64) (median, lo, hi float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	median = s[m]
	if len(s)%2 == 0 {
		median = (s[m-1] + s[m]) / 2
	}
	return median, s[0], s[len(s)-1]
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
