package sampling_test

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gnngo/gnn/sampling"
)

func TestLoader(t *testing.T) {
	g := uniformGraph(t, 1000, 8000)
	m, err := sampling.NewMultiLayer(g, []int{4, 3}, sampling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	train := make([]int32, 103)
	for i := range train {
		train[i] = int32(3 * i)
	}
	for _, tc := range []struct {
		opts    sampling.LoaderOptions
		batches int
		last    int
	}{
		{sampling.LoaderOptions{BatchSize: 10, Shuffle: true, Seed: 5}, 11, 3},
		{sampling.LoaderOptions{BatchSize: 10, Shuffle: true, Seed: 5, DropLast: true}, 10, 10},
		{sampling.LoaderOptions{BatchSize: 200}, 1, 103},
		{sampling.LoaderOptions{BatchSize: 200, DropLast: true}, 0, 0},
	} {
		l, err := sampling.NewLoader(m, train, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if l.NumBatches() != tc.batches {
			t.Errorf("%+v: %d batches, want %d", tc.opts, l.NumBatches(), tc.batches)
		}
		var epochs [2][]int32
		var firstBlocks [2][]int64
		for e := range 2 {
			order := l.Order(e)
			n := 0
			for mb, err := range l.Epoch(e) {
				if err != nil {
					t.Fatal(err)
				}
				size := tc.opts.BatchSize
				if n == tc.batches-1 {
					size = tc.last
				}
				if want := order[n*tc.opts.BatchSize : n*tc.opts.BatchSize+size]; !slices.Equal(mb.OutputNodes, want) {
					t.Fatalf("%+v epoch %d batch %d: output nodes %v, want %v", tc.opts, e, n, mb.OutputNodes, want)
				}
				if n == 0 {
					firstBlocks[e] = mb.Blocks[0].EdgeIDs
				}
				epochs[e] = append(epochs[e], mb.OutputNodes...)
				n++
			}
			if n != tc.batches {
				t.Errorf("%+v: epoch %d gave %d batches, want %d", tc.opts, e, n, tc.batches)
			}
		}
		if !tc.opts.DropLast {
			sorted := slices.Clone(epochs[0])
			slices.Sort(sorted)
			if !slices.Equal(sorted, train) {
				t.Errorf("%+v: epoch 0 does not cover the seeds once each", tc.opts)
			}
		}
		if tc.opts.Shuffle && slices.Equal(epochs[0], epochs[1]) {
			t.Errorf("%+v: epochs 0 and 1 in the same order", tc.opts)
		}
		if !tc.opts.Shuffle && tc.batches > 0 && (!slices.Equal(epochs[0], train) || slices.Equal(firstBlocks[0], firstBlocks[1])) {
			t.Errorf("%+v: unshuffled epochs not in seed order, or the same draws in both", tc.opts)
		}
	}

	// Same seed, same batches; another loader with the same options agrees.
	opts := sampling.LoaderOptions{BatchSize: 16, Shuffle: true, Seed: 9}
	a, _ := sampling.NewLoader(m, train, opts)
	b, _ := sampling.NewLoader(m, train, opts)
	var ea, eb [][]int64
	for mb := range a.Epoch(3) {
		ea = append(ea, mb.Blocks[0].EdgeIDs)
	}
	for mb := range b.Epoch(3) {
		eb = append(eb, mb.Blocks[0].EdgeIDs)
	}
	if !slices.EqualFunc(ea, eb, slices.Equal) {
		t.Errorf("two loaders of the same seed disagree")
	}
}

// TestLoaderEarlyStop checks that leaving the loop stops the prefetching
// goroutine.
func TestLoaderEarlyStop(t *testing.T) {
	g := uniformGraph(t, 1000, 8000)
	m, _ := sampling.NewMultiLayer(g, []int{4}, sampling.Options{})
	train := make([]int32, 500)
	for i := range train {
		train[i] = int32(i)
	}
	l, err := sampling.NewLoader(m, train, sampling.LoaderOptions{BatchSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	for range 20 {
		for range l.Epoch(0) {
			break
		}
	}
	time.Sleep(10 * time.Millisecond)
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines after 20 early stops, %d before", after, before)
	}
}

func TestLoaderErrors(t *testing.T) {
	t.Parallel()
	g := uniformGraph(t, 100, 400)
	m, _ := sampling.NewMultiLayer(g, []int{4}, sampling.Options{})
	for name, tc := range map[string]struct {
		seeds []int32
		opts  sampling.LoaderOptions
	}{
		"batch":  {[]int32{1}, sampling.LoaderOptions{}},
		"range":  {[]int32{1, 100}, sampling.LoaderOptions{BatchSize: 1}},
		"repeat": {[]int32{1, 2, 1}, sampling.LoaderOptions{BatchSize: 1}},
	} {
		if _, err := sampling.NewLoader(m, tc.seeds, tc.opts); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := sampling.NewLoader(nil, nil, sampling.LoaderOptions{BatchSize: 1}); err == nil {
		t.Errorf("nil sampler accepted")
	}
	// The scratch is clean after a refused seed list.
	if l, err := sampling.NewLoader(m, []int32{1, 2}, sampling.LoaderOptions{BatchSize: 2}); err != nil {
		t.Error(err)
	} else {
		for _, err := range l.Epoch(0) {
			if err != nil {
				t.Error(err)
			}
		}
	}
}
