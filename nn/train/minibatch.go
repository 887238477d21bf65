package train

import (
	"fmt"
	"iter"
	"time"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/sampling"
)

// Stack is a model of layers applied one after the other, layer l on the
// block of layer l of a mini-batch (or on the whole graph). It is built
// afresh on every batch's expression graph: Layer adds layer l to eg,
// applies it to x on g and returns its output and its parameters, named
// the same way on every graph (see Shared).
type Stack interface {
	NumLayers() int
	Layer(eg *gorgonia.ExprGraph, l int, g nn.Graph, x *gorgonia.Node) (out *gorgonia.Node, params gorgonia.Nodes, err error)
}

// Batch is one mini-batch's model on its own expression graph.
type Batch struct {
	X      *gorgonia.Node // the input nodes' features
	Logits *gorgonia.Node // one row per output node
	Params gorgonia.Nodes // bound to the shared values
}

// BuildBatch builds m on a new expression graph over mb's blocks, with the
// rows of features (N x F) of mb's input nodes as input, and binds its
// parameters to s.
func BuildBatch(m Stack, s *Shared, mb *sampling.MiniBatch, features *tensor.Dense) (*Batch, error) {
	if m.NumLayers() != len(mb.Blocks) {
		return nil, fmt.Errorf("train: the model has %d layers but the mini-batch %d blocks", m.NumLayers(), len(mb.Blocks))
	}
	x, err := Rows(features, mb.InputNodes)
	if err != nil {
		return nil, err
	}
	return buildOn(m, s, mb, x)
}

// buildOn is BuildBatch on the input rows x, already gathered.
func buildOn(m Stack, s *Shared, mb *sampling.MiniBatch, x *tensor.Dense) (*Batch, error) {
	if m.NumLayers() != len(mb.Blocks) {
		return nil, fmt.Errorf("train: the model has %d layers but the mini-batch %d blocks", m.NumLayers(), len(mb.Blocks))
	}
	eg := gorgonia.NewGraph()
	b := &Batch{X: gorgonia.NodeFromAny(eg, x, gorgonia.WithName("x"))}
	h := b.X
	for l, blk := range mb.Blocks {
		var ps gorgonia.Nodes
		var err error
		if h, ps, err = m.Layer(eg, l, blk.Graph, h); err != nil {
			return nil, fmt.Errorf("train: layer %d: %w", l, err)
		}
		b.Params = append(b.Params, ps...)
	}
	b.Logits = h
	if err := s.Bind(b.Params); err != nil {
		return nil, err
	}
	return b, nil
}

// BatchEpoch is what one epoch of mini-batch training measured.
type BatchEpoch struct {
	Epoch    int
	Batches  int
	Loss     float64 // mean training loss over the epoch's output nodes
	TrainAcc float64 // accuracy on the batches' output nodes, before each step
	Time     time.Duration
	// Build is the share of Time spent building the batches' expression
	// graphs, binding the shared parameters, differentiating and compiling
	// (the per-batch overhead of rebuilding the model); Sample is the time
	// spent waiting for the next batch, sampled and with its input rows
	// and labels gathered, which goroutines prepare while the current
	// batch trains.
	Build, Sample time.Duration
}

// FitBatches trains m for epochs epochs over the loader's batches of
// training nodes: for every batch, the model built on the batch's blocks
// (BuildBatch), the mean cross-entropy of its output nodes against labels
// (one per node of the whole graph) and one step of s. mode, if not nil, is
// switched to training and advanced once per batch (for dropout). onEpoch,
// if not nil, is called after every epoch.
//
// While a batch trains, the loader samples the next one and a goroutine
// gathers its input rows of features into one of two buffers that are
// reused from batch to batch, so that the rows are copied once per batch
// and no batch allocates them anew.
func FitBatches(m Stack, s *Shared, loader *sampling.Loader, features *tensor.Dense, labels []int32, epochs int, mode *nn.Mode, onEpoch func(BatchEpoch)) ([]BatchEpoch, error) {
	if epochs <= 0 {
		return nil, fmt.Errorf("train: %d epochs, want at least 1", epochs)
	}
	if mode != nil {
		mode.Train()
	}
	bufs := &rowBuffers{free: make(chan any, 2)}
	bufs.free <- nil
	bufs.free <- nil
	var hist []BatchEpoch
	for ep := range epochs {
		e := BatchEpoch{Epoch: ep + 1}
		start := time.Now()
		var lossSum float64
		var correct, seen int
		wait := time.Now()
		for in := range bufs.inputs(loader, ep, features, labels) {
			if in.err != nil {
				return hist, fmt.Errorf("train: epoch %d: %w", ep+1, in.err)
			}
			e.Sample += time.Since(wait)
			loss, ok, err := s.trainBatch(m, in, mode, &e.Build)
			bufs.free <- in.buf // the batch's graph, which read it, is dropped
			if err != nil {
				return hist, fmt.Errorf("train: epoch %d, batch %d: %w", ep+1, e.Batches, err)
			}
			n := len(in.mb.OutputNodes)
			lossSum += loss * float64(n)
			correct += ok
			seen += n
			e.Batches++
			wait = time.Now()
		}
		e.Time = time.Since(start)
		if seen > 0 {
			e.Loss, e.TrainAcc = lossSum/float64(seen), float64(correct)/float64(seen)
		}
		hist = append(hist, e)
		if onEpoch != nil {
			onEpoch(e)
		}
	}
	return hist, nil
}

// batchInput is a mini-batch with its input rows and labels gathered.
type batchInput struct {
	mb  *sampling.MiniBatch
	x   *tensor.Dense
	y   []int32
	buf any // x's backing, to hand back to rowBuffers.free
	err error
}

// rowBuffers recycles the backing slices of batches' input rows: free
// holds those not in use (nil before the first batch).
type rowBuffers struct{ free chan any }

// inputs returns epoch ep's batches with their rows gathered, one batch
// ahead of the loop body. Every batch's buf must go back to r.free before
// the next but one is received. An error ends the sequence.
func (r *rowBuffers) inputs(loader *sampling.Loader, ep int, features *tensor.Dense, labels []int32) iter.Seq[batchInput] {
	return func(yield func(batchInput) bool) {
		next := make(chan batchInput)
		done := make(chan struct{})
		exited := make(chan struct{})
		go func() {
			defer close(exited)
			defer close(next)
			for mb, err := range loader.Epoch(ep) {
				in := batchInput{mb: mb, err: err}
				if err == nil {
					var buf any
					select {
					case buf = <-r.free:
					case <-done:
						return
					}
					in.x, in.buf, in.err = rowsInto(features, mb.InputNodes, buf)
					if in.err == nil {
						in.y, in.err = Labels(labels, mb.OutputNodes)
					}
					if in.err != nil {
						r.free <- buf
					}
				}
				select {
				case next <- in:
				case <-done:
					if in.err == nil {
						r.free <- in.buf
					}
					return
				}
				if in.err != nil {
					return
				}
			}
		}()
		defer func() {
			close(done)
			<-exited
		}()
		for in := range next {
			if !yield(in) {
				return
			}
		}
	}
}

// trainBatch builds, runs and steps one batch, adding its build time to
// build, and returns the loss and the number of correctly classified
// output nodes.
func (s *Shared) trainBatch(m Stack, in batchInput, mode *nn.Mode, build *time.Duration) (float64, int, error) {
	t0 := time.Now()
	b, err := buildOn(m, s, in.mb, in.x)
	if err != nil {
		return 0, 0, err
	}
	y := in.y
	loss, err := nn.CrossEntropy(b.Logits, y, all(len(y)))
	if err != nil {
		return 0, 0, err
	}
	*build += time.Since(t0)
	if mode != nil {
		mode.Next()
	}
	l, err := s.step(loss, b.Params, gorgonia.Nodes{b.Logits}, build)
	if err != nil {
		return 0, 0, err
	}
	acc, err := nn.Accuracy(b.Logits.Value(), y, all(len(y)))
	if err != nil {
		return 0, 0, err
	}
	return l, int(acc*float64(len(y)) + 0.5), nil
}

// all returns 0, 1, ..., n-1.
func all(n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(i)
	}
	return v
}
