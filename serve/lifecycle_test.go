package serve

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestShutdownDrains serves on a real listener on 127.0.0.1, starts a
// request that the batcher holds for its window, shuts the http.Server
// down meanwhile, and checks that the request gets its answer, that new
// connections are refused, and that no goroutine is left behind.
func TestShutdownDrains(t *testing.T) {
	d := tinyData(t, 40, 4, 7)
	m := sageModel(t, d, []int{4, 8, 3}, []int{3, 3})
	before := runtime.NumGoroutine()
	s, err := New(Config{Window: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(d, m); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	hs := &http.Server{Handler: s}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

	type answer struct {
		code int
		body string
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		resp, err := client.Post(url+"/v1/predict", "application/json", strings.NewReader(`{"nodes":[3,4]}`))
		if err != nil {
			got <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- answer{code: resp.StatusCode, body: string(b), err: err}
	}()
	// Wait until the request is in the handler (held by the batcher's
	// window), then shut down.
	for s.metrics.inFlight.Load() == 0 {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	a := <-got
	if a.err != nil || a.code != 200 || !strings.Contains(a.body, `"predictions"`) {
		t.Errorf("the request in flight during shutdown got %d %q %v, want 200 and its predictions", a.code, a.body, a.err)
	}
	if err := <-served; err != http.ErrServerClosed {
		t.Errorf("Serve returned %v", err)
	}
	if _, err := client.Get(url + "/healthz"); err == nil {
		t.Errorf("a request after shutdown was answered")
	}
	s.Close()
	noLeak(t, before)
}

// TestTimeout checks that a request held longer than Config.Timeout is
// answered 503 naming the limit, and that a request whose client went away
// does not stop the batch.
func TestTimeout(t *testing.T) {
	d := tinyData(t, 40, 4, 8)
	m := sageModel(t, d, []int{4, 8, 3}, nil)
	_, ts := start(t, Config{Window: 300 * time.Millisecond, Timeout: time.Millisecond}, d, m)
	code, body := post(t, ts.URL+"/v1/predict", PredictRequest{Nodes: []int64{1}}, nil)
	if code != 503 || !strings.Contains(body, "longer than the limit of 1ms") {
		t.Errorf("got %d %s, want 503 naming the limit", code, body)
	}
}

// TestBatchEqualsAlone runs several jobs of different depths, with and
// without new nodes, as one batch and each alone, and checks that the
// answers are the same to the bit.
func TestBatchEqualsAlone(t *testing.T) {
	d := tinyData(t, 50, 5, 9)
	m := sageModel(t, d, []int{5, 9, 7, 3}, []int{4, 3, 2})
	s, _ := start(t, Config{}, d, m)
	newNodes := []NewNode{{Features: []float64{1, 0, 0.5, 0.25, 0}, InEdges: []int64{3, 4, 5, 6, 7}, OutEdges: []int64{3}}}
	var jobs []*job
	var nns [][]NewNode
	for i, q := range []struct {
		nodes []int32
		nn    []NewNode
		layer int
	}{{[]int32{1, 2, 3}, nil, 2}, {[]int32{3, 9}, nil, 2}, {[]int32{4}, newNodes, 2}, {[]int32{7, 8}, nil, 0}, {nil, newNodes, 1}, {[]int32{1, 2, 3}, nil, 2}} {
		h, err := s.neighbourhood(q.nodes, q.nn, q.layer+1, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, &job{ctx: context.Background(), hood: h, x: s.gather(h, q.nn), done: make(chan result, 1)})
		nns = append(nns, q.nn)
	}
	s.runBatch(jobs)
	for i, j := range jobs {
		together := <-j.done
		j.x = s.gather(j.hood, nns[i]) // runBatch released the rows
		s.runBatch([]*job{j})
		alone := <-j.done
		if together.err != nil || alone.err != nil {
			t.Fatalf("job %d: %v, %v", i, together.err, alone.err)
		}
		for k := range alone.rows {
			if err := sameRow(together.rows[k], alone.rows[k]); err != nil {
				t.Errorf("job %d, row %d: %v", i, k, err)
			}
		}
	}
}

// TestDeterministicGOMAXPROCS checks that sampled answers do not depend on
// the number of threads.
func TestDeterministicGOMAXPROCS(t *testing.T) {
	d := tinyData(t, 60, 6, 10)
	m := sageModel(t, d, []int{6, 8, 3}, []int{3, 2})
	s, _ := start(t, Config{}, d, m)
	req := &PredictRequest{Nodes: []int64{0, 5, 17, 42, 5}, NewNodes: []NewNode{{Features: []float64{1, 2, 3, 4, 5, 6}, InEdges: []int64{1, 2, 3, 4, 5, 6, 7}}}}
	var answers []string
	for _, procs := range []int{1, 2, 1} {
		old := runtime.GOMAXPROCS(procs)
		r, err := s.Predict(context.Background(), req)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, fmt.Sprint(r))
	}
	if answers[0] != answers[1] || answers[1] != answers[2] {
		t.Errorf("GOMAXPROCS 1, 2, 1 gave\n%s\n%s\n%s", answers[0], answers[1], answers[2])
	}
}

// TestMetrics checks the Prometheus text after a few requests.
func TestMetrics(t *testing.T) {
	d := tinyData(t, 40, 4, 11)
	m := sageModel(t, d, []int{4, 8, 3}, nil)
	_, ts := start(t, Config{Cache: true}, d, m)
	post(t, ts.URL+"/v1/predict", PredictRequest{Nodes: []int64{1, 2}}, nil)
	post(t, ts.URL+"/v1/predict", `{"nodes":[99]}`, nil)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			post(t, ts.URL+"/v1/embed", EmbedRequest{PredictRequest: PredictRequest{Nodes: []int64{3}}, Layer: Layer(0)}, nil)
		}()
	}
	wg.Wait()
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		`gnnserve_requests_total{endpoint="/v1/predict",code="200"} 1`,
		`gnnserve_requests_total{endpoint="/v1/predict",code="400"} 1`,
		`gnnserve_requests_total{endpoint="/v1/embed",code="200"} 4`,
		`gnnserve_request_duration_seconds_bucket{endpoint="/v1/predict",le="+Inf"} 2`,
		`gnnserve_request_duration_seconds_count{endpoint="/v1/embed"} 4`,
		`gnnserve_predictions_total 2`,
		`gnnserve_cache_lookups_total 2`,
		`gnnserve_cache_generation 1`,
		"# TYPE gnnserve_batch_nodes histogram",
		`gnnserve_batch_requests_bucket{le="+Inf"} `,
		"go_goroutines ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if resp.Header.Get("Content-Type") != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("content type %q", resp.Header.Get("Content-Type"))
	}
}

// TestRefreshWhileServing refreshes the cache while requests run forward
// passes and read it (for the race detector), and checks that the answers
// stay those of the whole graph.
func TestRefreshWhileServing(t *testing.T) {
	d := tinyData(t, 40, 4, 12)
	m := sageModel(t, d, []int{4, 8, 3}, nil)
	s, ts := start(t, Config{Cache: true}, d, m) // switches the model to evaluation
	want, err := wholeForward(m, d.Graph, d.Features, 2)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%4 == 0 {
				if _, err := s.Refresh(context.Background()); err != nil {
					t.Error(err)
				}
				return
			}
			var got EmbedResponse
			req := EmbedRequest{PredictRequest: PredictRequest{Nodes: []int64{int64(i)}, NewNodes: []NewNode{{Features: []float64{1, 2, 3, 4}, InEdges: []int64{0}}}}}
			if code, body := post(t, ts.URL+"/v1/embed", req, &got); code != 200 {
				t.Errorf("%d %s", code, body)
				return
			}
			if err := sameRow(got.Embeddings[0].Embedding, row(want, i)); err != nil {
				t.Errorf("node %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if c := s.cache.Load(); c.generation != 4 {
		t.Errorf("cache generation %d after 3 refreshes, want 4", c.generation)
	}
}

// TestStartClose checks Start twice, Start after Close, and Close racing
// with Start (for the race detector), without goroutines left behind.
func TestStartClose(t *testing.T) {
	d := tinyData(t, 40, 4, 17)
	m := sageModel(t, d, []int{4, 5, 3}, nil)
	before := runtime.NumGoroutine()
	s, _ := New(Config{})
	if err := s.Start(d, m); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(d, m); err == nil || !strings.Contains(err.Error(), "Start called twice") {
		t.Errorf("second Start: %v", err)
	}
	s.Close()
	s2, _ := New(Config{})
	s2.Close()
	if err := s2.Start(d, m); err != errStopping {
		t.Errorf("Start after Close: %v", err)
	}
	s3, _ := New(Config{Cache: true})
	done := make(chan error, 1)
	go func() { done <- s3.Start(d, m) }()
	s3.Close()
	if err := <-done; err != nil && err != errStopping {
		t.Errorf("Start racing Close: %v", err)
	}
	s3.Close()
	noLeak(t, before)
}
