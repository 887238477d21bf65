//go:build gnncuda

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"io"
	"os"
	"sort"
	"time"
)

// ProfileEnv is the environment variable that turns on per-kernel timing
// on a real device: with GNN_CUDA_PROFILE=1 in the environment when a
// context is opened, every launch and copy waits for the device to finish
// and its wall time is added to its kernel's (or copy's) total. It makes
// the work synchronous, so epochs run slower, but the totals say where a
// device's time goes without a profiler. The emulator ignores it.
const ProfileEnv = "GNN_CUDA_PROFILE"

// KernelTime is the time a kernel or a kind of copy took, summed over its
// calls, as timed under ProfileEnv.
type KernelTime struct {
	Name  string
	Calls int64
	Total time.Duration
}

// profiler sums KernelTimes by name; nil when profiling is off.
type profiler map[string]*KernelTime

// profiling returns a profiler when ProfileEnv is set to 1, else nil.
func profiling() profiler {
	if os.Getenv(ProfileEnv) != "1" {
		return nil
	}
	return profiler{}
}

// timed runs the driver call f, waits for the device and adds the time to
// name. The caller holds c.mu. Without a profiler it only runs f.
func (c *Context) timed(name string, f func() C.int) C.int {
	if c.prof == nil {
		return f()
	}
	start := time.Now()
	r := f()
	if r == 0 {
		r = C.gnn_cu_sync(c.ctx)
	}
	c.prof.add(name, time.Since(start))
	return r
}

// add counts one call of name that took d.
func (p profiler) add(name string, d time.Duration) {
	k := p[name]
	if k == nil {
		k = &KernelTime{Name: name}
		p[name] = k
	}
	k.Calls++
	k.Total += d
}

// Timed runs f, a call into a library such as cuBLAS that queues work on
// the device's stream in the context's own way, counts it as one launch
// in Stats, and under ProfileEnv then waits for the device and adds the
// time to name, as for a launch. On the emulator it only runs f. c.mu is
// not held while f runs (f makes the context current itself, with
// SetCurrent), so f may call c's methods; it is taken to count, wait and
// record. An error of f is returned as it is and nothing is recorded.
func (c *Context) Timed(name string, f func() error) error {
	c.mu.Lock()
	on := c.prof != nil && c.emu == nil
	c.mu.Unlock()
	start := time.Now()
	if err := f(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	if c.emu == nil {
		c.stats.Launches++
	}
	if !on {
		return nil
	}
	r := C.gnn_cu_sync(c.ctx)
	if c.prof != nil {
		c.prof.add(name, time.Since(start))
	}
	if r != 0 {
		return fmt.Errorf("cuda: cuCtxSynchronize after %s: %w", name, driverError(r))
	}
	return nil
}

// Profile returns the kernels and copies timed under ProfileEnv since the
// context was opened or its stats reset, the longest total first; nil
// when profiling is off.
func (c *Context) Profile() []KernelTime {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.prof == nil {
		return nil
	}
	ks := make([]KernelTime, 0, len(c.prof))
	for _, k := range c.prof {
		ks = append(ks, *k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].Total != ks[j].Total {
			return ks[i].Total > ks[j].Total
		}
		return ks[i].Name < ks[j].Name
	})
	return ks
}

// WriteProfile writes ks as a table: total, share, calls, mean per call
// and name, one line each.
func WriteProfile(w io.Writer, ks []KernelTime) error {
	var sum time.Duration
	for _, k := range ks {
		sum += k.Total
	}
	if _, err := fmt.Fprintf(w, "%12s %6s %8s %12s  %s\n", "total", "share", "calls", "per call", "kernel or copy"); err != nil {
		return err
	}
	for _, k := range ks {
		share := 0.0
		if sum > 0 {
			share = 100 * float64(k.Total) / float64(sum)
		}
		per := k.Total / time.Duration(max(k.Calls, 1))
		if _, err := fmt.Fprintf(w, "%12v %5.1f%% %8d %12v  %s\n", k.Total.Round(time.Microsecond), share, k.Calls, per.Round(100*time.Nanosecond), k.Name); err != nil {
			return err
		}
	}
	return nil
}
