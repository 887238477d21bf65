package serve

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/sampling"
)

// Config sets the server's limits, batching and cache. The zero value of a
// field takes the default named in its comment.
type Config struct {
	// Window is how long the batcher waits for more requests after the
	// first of a batch (0: it takes only those already queued, which under
	// load are those that arrived during the previous forward pass).
	Window time.Duration
	// MaxBatch is the most nodes (seeds) one forward pass takes (256: a
	// 3-layer SAGE with fan-outs 15,10,5 and hidden 256 allocates about
	// 0.5 MB per node in a pass); a request larger than it runs alone.
	MaxBatch int
	// MaxNodes is the most nodes, listed or new, a request may name
	// (10000); MaxNewNodes the most new nodes (1000).
	MaxNodes, MaxNewNodes int
	// MaxInputs is the most nodes a request's neighbourhood may reach
	// (the input rows of its first layer, 1,000,000); a request reaching
	// more is answered 400, so that no request can exhaust memory.
	MaxInputs int
	// MaxBodyBytes limits a request body (8 MiB); a longer one is answered
	// 413.
	MaxBodyBytes int64
	// Timeout limits the time a request may wait for its answer (30 s);
	// one that runs out is answered 503.
	Timeout time.Duration
	// Queue is the most requests waiting for the batcher (4096); beyond
	// it requests are answered 503.
	Queue int
	// Cache computes the last layer's outputs for the whole graph at
	// start (and on Refresh) and answers the graph's nodes from them.
	Cache bool
	// Chunk is the number of destination nodes per step of the cache's
	// layer-wise inference (4096).
	Chunk int
	// Fanouts, when not nil, replaces the model's fan-outs: one per layer,
	// -1 for every neighbour; an empty non-nil slice reads every
	// neighbour.
	Fanouts []int
	// Seed is the sampling seed of requests that give none.
	Seed uint64
}

// withDefaults returns c with its zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.MaxBatch <= 0 {
		c.MaxBatch = 256
	}
	if c.MaxNodes <= 0 {
		c.MaxNodes = 10000
	}
	if c.MaxNewNodes <= 0 {
		c.MaxNewNodes = 1000
	}
	if c.MaxInputs <= 0 {
		c.MaxInputs = 1_000_000
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 8 << 20
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.Queue <= 0 {
		c.Queue = 4096
	}
	if c.Chunk <= 0 {
		c.Chunk = 4096
	}
	return c
}

// Server answers queries about one graph with one model. Build it with
// New, serve HTTP with it from the start (it answers 503 until Start has
// loaded the model) and stop it with Close after the http.Server's
// Shutdown, so that requests in flight get their answers.
type Server struct {
	cfg     Config
	metrics *metrics

	// Set by Start, then read only.
	ready    atomic.Bool
	model    *Model
	data     *Data
	graph    *graph.Graph           // the graph served: data's, with self-loops when the model asks
	features *tensor.Dense          // the model's dtype
	samplers []*sampling.MultiLayer // samplers[d-1] samples d layers
	classes  int

	inputs    any       // the input rows' buffer of forward passes, []float32 or []float64
	rows      sync.Pool // jobs' gathered rows, []float32 or []float64
	cache     atomic.Pointer[cached]
	refreshMu sync.Mutex
	// modelMu serialises the runs of the model: Gorgonia's machines write
	// to the values of the graphs they run (their engine), and the
	// parameter tensors are shared by every graph the model is built on.
	modelMu sync.Mutex

	queue    chan *job
	stop     chan struct{} // closed by Close
	stopped  chan struct{} // closed when the batcher has exited
	stopOnce sync.Once
	lifeMu   sync.Mutex // guards starting and started
	starting bool       // Start is running
	started  bool       // Start has succeeded: the batcher runs
}

// cached is the whole graph's last-layer outputs, and every layer's for a
// WholeGraph model.
type cached struct {
	out        *tensor.Dense
	layers     []*tensor.Dense
	generation int
}

// errStopping is the error of requests the server cannot answer because it
// is stopping.
var errStopping = errors.New("the server is shutting down")

// New returns a server that answers 503 until Start.
func New(cfg Config) (*Server, error) {
	if cfg.Window < 0 || cfg.Timeout < 0 || cfg.MaxBodyBytes < 0 {
		return nil, fmt.Errorf("serve: negative window, timeout or body limit")
	}
	for l, f := range cfg.Fanouts {
		if f < -1 {
			return nil, fmt.Errorf("serve: fan-out %d of layer %d, want -1 (all) or at least 0", f, l)
		}
	}
	cfg = cfg.withDefaults()
	return &Server{cfg: cfg, metrics: newMetrics(), queue: make(chan *job, cfg.Queue),
		stop: make(chan struct{}), stopped: make(chan struct{})}, nil
}

// Start loads the model and the data: it checks them, switches the model
// to evaluation, runs one query to learn the number of classes, computes
// the cache when asked, and starts the batcher. After an error nothing is
// kept and Start may be called again; after a success, never.
func (s *Server) Start(d *Data, m *Model) error {
	s.lifeMu.Lock()
	if s.started || s.starting {
		s.lifeMu.Unlock()
		return fmt.Errorf("serve: Start called twice")
	}
	s.starting = true
	s.lifeMu.Unlock()
	defer func() {
		s.lifeMu.Lock()
		s.starting = false
		s.lifeMu.Unlock()
	}()
	if err := s.load(d, m); err != nil {
		s.model, s.data, s.features, s.graph, s.samplers, s.classes = nil, nil, nil, nil, nil, 0
		s.cache.Store(nil)
		return err
	}
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	select {
	case <-s.stop:
		return errStopping
	default:
	}
	s.started = true
	go s.loop()
	s.ready.Store(true)
	return nil
}

// load checks and installs the data and the model, and computes what
// serving needs before the batcher starts.
func (s *Server) load(d *Data, m *Model) error {
	if err := m.check(); err != nil {
		return err
	}
	mm := *m
	if mm.WholeGraph {
		mm.Fanouts = nil
	} else if s.cfg.Fanouts != nil {
		if len(s.cfg.Fanouts) != 0 && len(s.cfg.Fanouts) != mm.Stack.NumLayers() {
			return fmt.Errorf("serve: %d fan-outs given for a model of %d layers", len(s.cfg.Fanouts), mm.Stack.NumLayers())
		}
		mm.Fanouts = s.cfg.Fanouts
	}
	x, err := d.check(&mm)
	if err != nil {
		return err
	}
	if d.Graph.NumDst() == 0 {
		return fmt.Errorf("serve: the graph has no nodes")
	}
	if mm.Mode != nil {
		mm.Mode.Eval()
	}
	s.model, s.data, s.features, s.graph = &mm, d, x, d.Graph
	if mm.SelfLoops {
		if s.graph, err = d.Graph.AddSelfLoops(); err != nil {
			return fmt.Errorf("serve: adding self-loops: %w", err)
		}
	}
	for depth := 1; depth <= mm.Stack.NumLayers(); depth++ {
		smp, err := sampling.NewMultiLayer(s.graph, mm.fanouts(depth), sampling.Options{})
		if err != nil {
			return err
		}
		s.samplers = append(s.samplers, smp)
	}
	if !mm.WholeGraph {
		// One query through the model, directly (the batcher is not running
		// yet): it must run on this data, and its output width is the
		// number of classes.
		h, err := s.neighbourhood([]int32{0}, nil, mm.Stack.NumLayers(), s.cfg.Seed)
		if err != nil {
			return err
		}
		out, err := s.forwardJobs([]*job{{ctx: context.Background(), hood: h, x: s.gather(h, nil)}})
		if err != nil {
			return fmt.Errorf("serve: the model does not run on the data: %w", err)
		}
		s.classes = len(out[0][0])
	}
	if s.caching() {
		if _, err := s.refresh(); err != nil {
			return err
		}
	}
	return nil
}

// caching reports whether the server keeps a cache: asked for, or implied
// by a WholeGraph model.
func (s *Server) caching() bool { return s.cfg.Cache || s.model.WholeGraph }

// Ready reports whether Start has succeeded and Close has not been called.
func (s *Server) Ready() bool {
	if !s.ready.Load() {
		return false
	}
	select {
	case <-s.stop:
		return false
	default:
		return true
	}
}

// NumNodes returns the number of nodes of the graph served (0 before
// Start).
func (s *Server) NumNodes() int {
	if s.data == nil || !s.ready.Load() {
		return 0
	}
	return s.data.Graph.NumDst()
}

// mode names how queries are answered.
func (s *Server) mode() string {
	switch {
	case s.model.WholeGraph:
		return "whole"
	case s.caching():
		return "cached"
	case s.model.sampled():
		return "sampled"
	}
	return "full"
}

// Close stops the batcher: queued requests are answered 503. Requests in
// flight in an http.Server should be drained first (http.Server.Shutdown).
// Close waits for the batcher to exit and may be called more than once.
func (s *Server) Close() error {
	s.lifeMu.Lock()
	s.stopOnce.Do(func() { close(s.stop) })
	started := s.started
	s.lifeMu.Unlock()
	if started {
		<-s.stopped
	}
	return nil
}

// Refresh computes the cache of the whole graph's outputs again (the
// model's Whole, or train.Inference), and returns its generation and the
// time it took. Queries of the graph's nodes keep using the previous cache
// until it is done; those that need a forward pass (new nodes, inner
// layers) wait for it, as the model runs one pass at a time.
// It fails on a server without Config.Cache.
func (s *Server) Refresh(ctx context.Context) (RefreshResponse, error) {
	if !s.Ready() {
		return RefreshResponse{}, s.notReady()
	}
	if !s.caching() {
		return RefreshResponse{}, badRequest("the server runs without a cache (-cache): there is nothing to refresh")
	}
	type result struct {
		r   RefreshResponse
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := s.refresh()
		done <- result{r, err}
	}()
	select {
	case res := <-done:
		return res.r, res.err
	case <-ctx.Done():
		return RefreshResponse{}, ctx.Err()
	}
}

// refresh computes the cache, one refresh at a time.
func (s *Server) refresh() (RefreshResponse, error) {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	t0 := time.Now()
	s.modelMu.Lock()
	var layers []*tensor.Dense
	var out *tensor.Dense
	var err error
	if s.model.WholeGraph {
		if layers, err = s.model.wholeLayers(s.graph, s.features, s.model.Stack.NumLayers()); err == nil {
			out = layers[len(layers)-1]
		}
	} else {
		out, err = s.whole()
	}
	s.modelMu.Unlock()
	if err != nil {
		return RefreshResponse{}, fmt.Errorf("serve: computing the cache: %w", err)
	}
	if s.classes == 0 {
		s.classes = out.Shape()[1]
	}
	n := s.data.Graph.NumDst()
	if out.Dims() != 2 || out.Shape()[0] != n {
		return RefreshResponse{}, fmt.Errorf("serve: the whole graph's output is %v, want %d rows", out.Shape(), n)
	}
	if s.classes != 0 && out.Shape()[1] != s.classes {
		return RefreshResponse{}, fmt.Errorf("serve: the whole graph's output has %d columns, queries give %d", out.Shape()[1], s.classes)
	}
	gen := 1
	if old := s.cache.Load(); old != nil {
		gen = old.generation + 1
	}
	s.cache.Store(&cached{out: out, layers: layers, generation: gen})
	dt := time.Since(t0)
	s.metrics.refreshed(gen, dt)
	return RefreshResponse{Generation: gen, Seconds: dt.Seconds()}, nil
}
