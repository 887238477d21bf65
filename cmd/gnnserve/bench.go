package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnngo/gnn/serve"
)

// benchResult is what a load test measured.
type benchResult struct {
	Requests, Errors int
	Codes            map[int]int
	Wall             time.Duration
	Latencies        []time.Duration // sorted, of the answered requests
	Heap             []float64       // the server's heap (bytes) before, at every tenth of the run, and after
	Sys              []float64       // bytes the server obtained from the system, at the same points
	BatchNodes       float64         // mean nodes per forward pass during the run
	BatchRequests    float64         // mean requests per forward pass
}

// runBench runs the load test of the flags against -bench and prints its
// result.
func runBench(o *options, w io.Writer) error {
	r, err := bench(o.Bench, o.BenchRequests, o.BenchClients, o.BenchNodes, o.BenchEndpoint, o.BenchDuration, o.SampleSeed)
	if err != nil {
		return err
	}
	r.print(w, o.BenchClients, o.BenchNodes, o.BenchEndpoint)
	return nil
}

// bench sends requests requests of nodes random nodes each to the server
// at url from clients concurrent clients (a seeded generator per client)
// and measures every request's latency. It reads the server's /metrics
// before, at every tenth of the requests and after.
func bench(url string, requests, clients, nodes int, endpoint string, limit time.Duration, seed uint64) (*benchResult, error) {
	url = strings.TrimRight(url, "/")
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients}, Timeout: time.Minute}
	defer client.CloseIdleConnections()
	var h serve.Health
	resp, err := client.Get(url + "/healthz")
	if err != nil {
		return nil, err
	}
	err = json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || h.Nodes < 1 {
		return nil, fmt.Errorf("%s/healthz: status %d (%s), want 200 with the graph's size", url, resp.StatusCode, h.Status)
	}
	before, err := scrape(client, url)
	if err != nil {
		return nil, err
	}
	r := &benchResult{Codes: map[int]int{}}
	r.Heap, r.Sys = []float64{before["go_memstats_heap_alloc_bytes"]}, []float64{before["go_memstats_sys_bytes"]}
	lat := make([][]time.Duration, clients)
	codes := make([]map[int]int, clients)
	var next atomic.Int64
	var sampleMu sync.Mutex
	deadline := time.Time{}
	if limit > 0 {
		deadline = time.Now().Add(limit)
	}
	t0 := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		codes[c] = map[int]int{}
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(c)))
			req := serve.PredictRequest{Nodes: make([]int64, nodes)}
			for {
				i := next.Add(1)
				if i > int64(requests) || (!deadline.IsZero() && time.Now().After(deadline)) {
					return
				}
				for k := range req.Nodes {
					req.Nodes[k] = rng.Int64N(int64(h.Nodes))
				}
				body, _ := json.Marshal(req)
				start := time.Now()
				resp, err := client.Post(url+"/v1/"+endpoint, "application/json", bytes.NewReader(body))
				code := 0
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					code = resp.StatusCode
				}
				d := time.Since(start)
				codes[c][code]++
				if code == 200 {
					lat[c] = append(lat[c], d)
				}
				if i%int64(max(requests/10, 1)) == 0 && i < int64(requests) {
					if m, err := scrape(client, url); err == nil {
						sampleMu.Lock()
						r.Heap, r.Sys = append(r.Heap, m["go_memstats_heap_alloc_bytes"]), append(r.Sys, m["go_memstats_sys_bytes"])
						sampleMu.Unlock()
					}
				}
			}
		}()
	}
	wg.Wait()
	r.Wall = time.Since(t0)
	after, err := scrape(client, url)
	if err != nil {
		return nil, err
	}
	r.Heap, r.Sys = append(r.Heap, after["go_memstats_heap_alloc_bytes"]), append(r.Sys, after["go_memstats_sys_bytes"])
	for c := range clients {
		r.Latencies = append(r.Latencies, lat[c]...)
		for code, n := range codes[c] {
			r.Codes[code] += n
			r.Requests += n
			if code != 200 {
				r.Errors += n
			}
		}
	}
	slices.Sort(r.Latencies)
	if n := after["gnnserve_batch_nodes_count"] - before["gnnserve_batch_nodes_count"]; n > 0 {
		r.BatchNodes = (after["gnnserve_batch_nodes_sum"] - before["gnnserve_batch_nodes_sum"]) / n
		r.BatchRequests = (after["gnnserve_batch_requests_sum"] - before["gnnserve_batch_requests_sum"]) / n
	}
	return r, nil
}

// scrape reads the unlabelled metrics of url's /metrics.
func scrape(client *http.Client, url string) (map[string]float64, error) {
	resp, err := client.Get(url + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	m := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") || strings.Contains(name, "{") {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			m[name] = v
		}
	}
	return m, sc.Err()
}

// percentile returns the p-th percentile (0 to 100) of sorted latencies,
// the nearest rank.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	k := int(p/100*float64(len(sorted))+0.5) - 1
	return sorted[min(max(k, 0), len(sorted)-1)]
}

// print writes the result in two lines, then the server's memory.
func (r *benchResult) print(w io.Writer, clients, nodes int, endpoint string) {
	ok := len(r.Latencies)
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 2, 64) }
	fmt.Fprintf(w, "bench %s: %d requests (%d errors %v), %d clients, %d nodes/request, %.2f s\n", endpoint, r.Requests, r.Errors, r.Codes, clients, nodes, r.Wall.Seconds())
	fmt.Fprintf(w, "latency ms: p50 %s  p90 %s  p99 %s  max %s;  throughput %.0f requests/s, %.0f nodes/s;  mean batch %.1f nodes, %.1f requests\n",
		ms(percentile(r.Latencies, 50)), ms(percentile(r.Latencies, 90)), ms(percentile(r.Latencies, 99)), ms(percentile(r.Latencies, 100)),
		float64(ok)/r.Wall.Seconds(), float64(ok*nodes)/r.Wall.Seconds(), r.BatchNodes, r.BatchRequests)
	mb := func(xs []float64) string {
		var b strings.Builder
		for i, x := range xs {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%.0f", x/(1<<20))
		}
		return b.String()
	}
	fmt.Fprintf(w, "server heap MiB (before, every tenth, after): %s\nserver sys MiB: %s\n", mb(r.Heap), mb(r.Sys))
}
