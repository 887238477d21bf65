package serve

import (
	"context"
	"fmt"
	"time"

	"gorgonia.org/tensor"
)

// job is one request's neighbourhood waiting for a forward pass.
type job struct {
	ctx  context.Context
	hood *hood
	x    any         // the input nodes' features, gathered: []float32 or []float64
	done chan result // buffered: the batcher never blocks on it
}

// result is a job's output rows, one per seed, or its error.
type result struct {
	rows [][]float64
	err  error
}

// run computes the outputs of layer layer for the distinct graph nodes
// nodes followed by the new nodes, through the batcher.
func (s *Server) run(ctx context.Context, nodes []int32, newNodes []NewNode, layer int, seed uint64) ([][]float64, error) {
	h, err := s.neighbourhood(nodes, newNodes, layer+1, seed)
	if err != nil {
		return nil, err
	}
	if len(h.inputs) > s.cfg.MaxInputs {
		return nil, badRequest("the request's %d nodes reach %d nodes through their %d-layer neighbourhood, the limit is %d: ask for fewer nodes at a time",
			h.seeds(), len(h.inputs), len(h.layers), s.cfg.MaxInputs)
	}
	j := &job{ctx: ctx, hood: h, x: s.gather(h, newNodes), done: make(chan result, 1)}
	select {
	case s.queue <- j:
	case <-s.stop:
		return nil, errStopping
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
		return nil, &requestError{status: 503, msg: fmt.Sprintf("the server is overloaded: %d requests are waiting", cap(s.queue))}
	}
	select {
	case r := <-j.done:
		return r.rows, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.stopped:
		// The batcher answered or failed every job it took before exiting.
		select {
		case r := <-j.done:
			return r.rows, r.err
		default:
			return nil, errStopping
		}
	}
}

// neighbourhood samples the neighbourhood of the query over depth layers:
// with sampling.MultiLayer when it has no new nodes, on the graph with the
// request's edges added otherwise.
func (s *Server) neighbourhood(nodes []int32, newNodes []NewNode, depth int, seed uint64) (*hood, error) {
	if len(newNodes) == 0 {
		mb, err := s.samplers[depth-1].Sample(nodes, seed)
		if err != nil {
			return nil, err
		}
		return fromMiniBatch(mb), nil
	}
	n := s.data.Graph.NumDst()
	ov := &overlay{g: s.data.Graph, n: n, extra: map[int32][]int32{}, selfLoops: s.model.SelfLoops}
	seeds := append(make([]int32, 0, len(nodes)+len(newNodes)), nodes...)
	for k, nn := range newNodes {
		v := int32(n + k)
		seeds = append(seeds, v)
		for _, u := range nn.InEdges {
			ov.extra[v] = append(ov.extra[v], int32(u))
		}
		for _, w := range nn.OutEdges {
			ov.extra[int32(w)] = append(ov.extra[int32(w)], v)
		}
	}
	return ov.sample(seeds, s.model.fanouts(depth), seed), nil
}

// loop is the batcher: it takes the first waiting job, then those already
// waiting (and, with a window, those arriving within it) up to MaxBatch
// seeds, and runs them, grouped by depth, one forward pass per group.
func (s *Server) loop() {
	defer close(s.stopped)
	var carry *job
	for {
		var batch []*job
		if carry != nil {
			batch, carry = []*job{carry}, nil
		} else {
			select {
			case j := <-s.queue:
				batch = []*job{j}
			case <-s.stop:
				s.drain()
				return
			}
		}
		seeds := batch[0].hood.seeds()
		var timeout <-chan time.Time
		var timer *time.Timer
		if s.cfg.Window > 0 {
			timer = time.NewTimer(s.cfg.Window)
			timeout = timer.C
		}
	collect:
		for seeds < s.cfg.MaxBatch {
			var j *job
			if timeout == nil {
				select {
				case j = <-s.queue:
				default:
					break collect
				}
			} else {
				select {
				case j = <-s.queue:
				case <-timeout:
					break collect
				case <-s.stop:
					break collect
				}
			}
			if seeds+j.hood.seeds() > s.cfg.MaxBatch {
				carry = j
				break
			}
			batch = append(batch, j)
			seeds += j.hood.seeds()
		}
		if timer != nil {
			timer.Stop()
		}
		s.runBatch(batch)
	}
}

// drain fails the jobs still queued when the server stops.
func (s *Server) drain() {
	for {
		select {
		case j := <-s.queue:
			j.done <- result{err: errStopping}
		default:
			return
		}
	}
}

// runBatch runs the jobs of a batch, one forward pass per depth.
func (s *Server) runBatch(batch []*job) {
	groups := map[int][]*job{}
	var depths []int
	for _, j := range batch {
		if err := j.ctx.Err(); err != nil {
			j.done <- result{err: err}
			continue
		}
		d := len(j.hood.layers)
		if groups[d] == nil {
			depths = append(depths, d)
		}
		groups[d] = append(groups[d], j)
	}
	for _, d := range depths {
		jobs := groups[d]
		t0 := time.Now()
		outs, err := s.forwardJobs(jobs)
		s.metrics.batch(jobs, time.Since(t0))
		for _, j := range jobs {
			s.rows.Put(j.x) // assembled into the batch's rows: free again
			j.x = nil
		}
		for r, j := range jobs {
			if err != nil {
				j.done <- result{err: fmt.Errorf("serve: forward pass: %w", err)}
			} else {
				j.done <- result{rows: outs[r]}
			}
		}
	}
}

// forwardJobs runs the union of the jobs' neighbourhoods through the model
// and returns each job's output rows.
func (s *Server) forwardJobs(jobs []*job) ([][][]float64, error) {
	hoods := make([]*hood, len(jobs))
	for r, j := range jobs {
		hoods[r] = j.hood
	}
	mg, err := merge(hoods)
	if err != nil {
		return nil, err
	}
	x := s.inputRows(jobs, mg)
	s.modelMu.Lock()
	out, err := s.model.forward(mg.blocks, x)
	s.modelMu.Unlock()
	if err != nil {
		return nil, err
	}
	outs := make([][][]float64, len(jobs))
	for r, h := range hoods {
		ids := make([]int32, h.seeds())
		for i := range ids {
			ids[i] = int32(mg.offsets[r] + i)
		}
		outs[r] = rowsOf(out, ids)
	}
	return outs, nil
}

// gather returns the features of a neighbourhood's input nodes, rows of
// the graph's table or of the request's new nodes, in a buffer from
// s.rows: the random reads of the table happen in the request's goroutine,
// concurrently with the batcher's forward passes.
func (s *Server) gather(h *hood, newNodes []NewNode) any {
	n, f := s.data.Graph.NumDst(), s.model.InFeatures
	switch table := s.features.Data().(type) {
	case []float32:
		buf, _ := s.rows.Get().([]float32)
		return gatherRows(table, f, n, h.inputs, newNodes, buf)
	default:
		buf, _ := s.rows.Get().([]float64)
		return gatherRows(table.([]float64), f, n, h.inputs, newNodes, buf)
	}
}

// gatherRows copies the rows ids of table (rows of f; ids from n on are
// the new nodes) into buf, grown when too small.
func gatherRows[T float32 | float64](table []T, f, n int, ids []int32, newNodes []NewNode, buf []T) []T {
	if cap(buf) < len(ids)*f {
		buf = make([]T, len(ids)*f, len(ids)*f+len(ids)*f/4)
	}
	buf = buf[:len(ids)*f]
	for i, id := range ids {
		if int(id) < n {
			copy(buf[i*f:(i+1)*f], table[int(id)*f:])
			continue
		}
		for c, v := range newNodes[int(id)-n].Features {
			buf[i*f+c] = T(v)
		}
	}
	return buf
}

// inputRows assembles the merged input rows from the jobs' gathered rows
// into s.inputs' memory, which the previous forward pass no longer reads
// (forward passes run one after the other, in the batcher or before it
// starts), grown when it is too small.
func (s *Server) inputRows(jobs []*job, mg *merged) *tensor.Dense {
	f, rows := s.model.InFeatures, len(mg.inputReq)
	if s.features.Dtype() == tensor.Float32 {
		x, _ := s.inputs.([]float32)
		x = assemble(x, jobs, mg, f, func(j *job) []float32 { return j.x.([]float32) })
		s.inputs = x
		return tensor.New(tensor.WithShape(rows, f), tensor.WithBacking(x))
	}
	x, _ := s.inputs.([]float64)
	x = assemble(x, jobs, mg, f, func(j *job) []float64 { return j.x.([]float64) })
	s.inputs = x
	return tensor.New(tensor.WithShape(rows, f), tensor.WithBacking(x))
}

// assemble copies merged input row i from its job's rows into x, grown
// when too small, and returns it.
func assemble[T float32 | float64](x []T, jobs []*job, mg *merged, f int, rowsOf func(*job) []T) []T {
	n := len(mg.inputReq) * f
	if cap(x) < n {
		x = make([]T, n, n+n/4)
	}
	x = x[:n]
	for i, r := range mg.inputReq {
		src := rowsOf(jobs[r])
		p := int(mg.inputPos[i])
		copy(x[i*f:(i+1)*f], src[p*f:(p+1)*f])
	}
	return x
}
