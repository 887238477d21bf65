package train

import (
	"runtime"
	rtmetrics "runtime/metrics"
)

// heapGuard bounds the garbage a long loop leaves behind between
// collections. Go collects when the heap reaches twice the data live at
// the last collection (GOGC=100); a loop that holds a few GB of live data
// (layer-wise inference's N x F layer outputs) and drops a few MB each step
// (a chunk's values and block) thus runs at twice its live data. check,
// called once a step, collects when the heap holds more than
// max(guardMin, live/32) bytes beyond the data live at the last
// collection: the peak stays near the live data, and a small graph, whose
// garbage never reaches guardMin, is never collected by it. Most of such a
// heap is float and int32 slices, which the collector marks without
// scanning, so a collection costs little next to the steps between two.
type heapGuard struct {
	samples []rtmetrics.Sample
}

// guardMin is the least garbage heapGuard lets build up.
const guardMin = 256 << 20

func newHeapGuard() *heapGuard {
	return &heapGuard{samples: []rtmetrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"}, // live and not yet freed
		{Name: "/gc/heap/live:bytes"},                // live at the last collection
	}}
}

// check collects the heap when the garbage since the last collection
// passes the guard's budget.
func (g *heapGuard) check() {
	rtmetrics.Read(g.samples)
	if g.samples[0].Value.Kind() != rtmetrics.KindUint64 || g.samples[1].Value.Kind() != rtmetrics.KindUint64 {
		return // a runtime without these metrics
	}
	heap, live := g.samples[0].Value.Uint64(), g.samples[1].Value.Uint64()
	if heap > live+max(guardMin, live/32) {
		runtime.GC()
	}
}
