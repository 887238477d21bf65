package serve

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// metrics counts what the server did, for GET /metrics.
type metrics struct {
	mu             sync.Mutex
	requests       map[[2]string]uint64 // (endpoint, status code)
	latency        map[string]*histogram
	batchNodes     *histogram
	batchRequests  *histogram
	forward        *histogram
	predictions    uint64
	cacheLookups   uint64
	cacheGen       int
	refreshSeconds float64

	inFlight atomic.Int64
}

// Bucket bounds: latencies in seconds, batch sizes in nodes and requests.
var (
	latencyBounds = []float64{0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30}
	sizeBounds    = []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}
)

func newMetrics() *metrics {
	return &metrics{requests: map[[2]string]uint64{}, latency: map[string]*histogram{},
		batchNodes: newHistogram(sizeBounds), batchRequests: newHistogram(sizeBounds), forward: newHistogram(latencyBounds)}
}

// histogram counts observations in buckets of upper bounds.
type histogram struct {
	bounds []float64
	counts []uint64 // per bucket, the last for +Inf
	sum    float64
	n      uint64
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
	i, _ := slices.BinarySearch(h.bounds, v)
	h.counts[i]++
	h.sum += v
	h.n++
}

// write prints h in the Prometheus text format, labels (without braces)
// first on every line.
func (h *histogram) write(w io.Writer, name, labels string) {
	sep := ""
	if labels != "" {
		sep = ","
	}
	var cum uint64
	for i, b := range h.bounds {
		cum += h.counts[i]
		fmt.Fprintf(w, "%s_bucket{%s%sle=\"%s\"} %d\n", name, labels, sep, strconv.FormatFloat(b, 'g', -1, 64), cum)
	}
	cum += h.counts[len(h.bounds)]
	fmt.Fprintf(w, "%s_bucket{%s%sle=\"+Inf\"} %d\n", name, labels, sep, cum)
	braces := ""
	if labels != "" {
		braces = "{" + labels + "}"
	}
	fmt.Fprintf(w, "%s_sum%s %s\n%s_count%s %d\n", name, braces, strconv.FormatFloat(h.sum, 'g', -1, 64), name, braces, h.n)
}

// request records one answered HTTP request.
func (m *metrics) request(endpoint string, code int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[[2]string{endpoint, strconv.Itoa(code)}]++
	h := m.latency[endpoint]
	if h == nil {
		h = newHistogram(latencyBounds)
		m.latency[endpoint] = h
	}
	h.observe(d.Seconds())
}

// batch records one forward pass over jobs.
func (m *metrics) batch(jobs []*job, d time.Duration) {
	nodes := 0
	for _, j := range jobs {
		nodes += j.hood.seeds()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.batchNodes.observe(float64(nodes))
	m.batchRequests.observe(float64(len(jobs)))
	m.forward.observe(d.Seconds())
}

func (m *metrics) predicted(n int) {
	m.mu.Lock()
	m.predictions += uint64(n)
	m.mu.Unlock()
}

func (m *metrics) lookups(n int) {
	m.mu.Lock()
	m.cacheLookups += uint64(n)
	m.mu.Unlock()
}

func (m *metrics) refreshed(gen int, d time.Duration) {
	m.mu.Lock()
	m.cacheGen, m.refreshSeconds = gen, d.Seconds()
	m.mu.Unlock()
}

// write prints every metric in the Prometheus text format (version 0.0.4).
func (m *metrics) write(w io.Writer, queued int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintf(w, "# HELP gnnserve_requests_total HTTP requests answered, by endpoint and status code.\n# TYPE gnnserve_requests_total counter\n")
	keys := make([][2]string, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if a[0] != b[0] {
			return strings.Compare(a[0], b[0])
		}
		return strings.Compare(a[1], b[1])
	})
	for _, k := range keys {
		fmt.Fprintf(w, "gnnserve_requests_total{endpoint=%q,code=%q} %d\n", k[0], k[1], m.requests[k])
	}
	fmt.Fprintf(w, "# HELP gnnserve_request_duration_seconds Time from a request's arrival to its answer, by endpoint.\n# TYPE gnnserve_request_duration_seconds histogram\n")
	eps := make([]string, 0, len(m.latency))
	for e := range m.latency {
		eps = append(eps, e)
	}
	slices.Sort(eps)
	for _, e := range eps {
		m.latency[e].write(w, "gnnserve_request_duration_seconds", fmt.Sprintf("endpoint=%q", e))
	}
	fmt.Fprintf(w, "# HELP gnnserve_batch_nodes Nodes (seeds) per forward pass.\n# TYPE gnnserve_batch_nodes histogram\n")
	m.batchNodes.write(w, "gnnserve_batch_nodes", "")
	fmt.Fprintf(w, "# HELP gnnserve_batch_requests Requests per forward pass.\n# TYPE gnnserve_batch_requests histogram\n")
	m.batchRequests.write(w, "gnnserve_batch_requests", "")
	fmt.Fprintf(w, "# HELP gnnserve_forward_duration_seconds Time of one batched forward pass (merge, gather, build, run).\n# TYPE gnnserve_forward_duration_seconds histogram\n")
	m.forward.write(w, "gnnserve_forward_duration_seconds", "")
	fmt.Fprintf(w, "# HELP gnnserve_predictions_total Node predictions answered.\n# TYPE gnnserve_predictions_total counter\ngnnserve_predictions_total %d\n", m.predictions)
	fmt.Fprintf(w, "# HELP gnnserve_cache_lookups_total Nodes answered from the cache.\n# TYPE gnnserve_cache_lookups_total counter\ngnnserve_cache_lookups_total %d\n", m.cacheLookups)
	fmt.Fprintf(w, "# HELP gnnserve_cache_generation Times the cache was computed (0: no cache).\n# TYPE gnnserve_cache_generation gauge\ngnnserve_cache_generation %d\n", m.cacheGen)
	fmt.Fprintf(w, "# HELP gnnserve_cache_refresh_seconds Time the last cache computation took.\n# TYPE gnnserve_cache_refresh_seconds gauge\ngnnserve_cache_refresh_seconds %s\n", strconv.FormatFloat(m.refreshSeconds, 'g', -1, 64))
	fmt.Fprintf(w, "# HELP gnnserve_in_flight_requests Requests being answered.\n# TYPE gnnserve_in_flight_requests gauge\ngnnserve_in_flight_requests %d\n", m.inFlight.Load())
	fmt.Fprintf(w, "# HELP gnnserve_queued_requests Requests waiting for the batcher.\n# TYPE gnnserve_queued_requests gauge\ngnnserve_queued_requests %d\n", queued)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(w, "# HELP go_goroutines Number of goroutines.\n# TYPE go_goroutines gauge\ngo_goroutines %d\n", runtime.NumGoroutine())
	fmt.Fprintf(w, "# HELP go_memstats_heap_alloc_bytes Bytes of allocated heap objects.\n# TYPE go_memstats_heap_alloc_bytes gauge\ngo_memstats_heap_alloc_bytes %d\n", ms.HeapAlloc)
	fmt.Fprintf(w, "# HELP go_memstats_sys_bytes Bytes obtained from the system.\n# TYPE go_memstats_sys_bytes gauge\ngo_memstats_sys_bytes %d\n", ms.Sys)
}
