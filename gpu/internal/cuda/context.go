//go:build gnncuda

package cuda

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"sort"
	"sync"
	"unsafe"

	"github.com/gnngo/gnn/gpu/kernels"
)

// Context is one device, real or emulated, with one stream: every
// operation is ordered after the previous ones. Its methods are safe for
// concurrent use. Copies to and from the host return once the host memory
// may be reused; launches and device copies may run on after they return,
// until Sync or the next copy to the host.
type Context struct {
	mu     sync.Mutex
	closed bool
	name   string
	sms    int
	cc     [2]int

	// Real device: the driver's handles.
	dev     C.int
	ctx     C.uintptr_t
	modules []C.uintptr_t
	funcs   map[string]C.uintptr_t

	// Emulator: the arena holding device memory.
	emu *arena

	kernels map[string]kernels.Kernel // every kernel, with its parameter sizes
	stats   Stats
	prof    profiler // per-kernel times under ProfileEnv; nil otherwise
}

// Stats counts a context's traffic since it was opened or last reset.
type Stats struct {
	HostToDevice   int64 // bytes copied from the host
	DeviceToHost   int64 // bytes copied to the host
	DeviceToDevice int64 // bytes copied within the device
	Launches       int64 // kernels launched (a library call, such as a cuBLAS product, counts as one)
}

var (
	loadOnce sync.Once
	loadErr  error
)

// load opens the driver library, once per process.
func load() error {
	loadOnce.Do(func() {
		if msg := C.gnn_cu_load(); msg != nil {
			loadErr = fmt.Errorf("cuda: cannot load the NVIDIA driver library: %s (is an NVIDIA GPU driver installed?)", C.GoString(msg))
			return
		}
		if r := C.gnn_cu_init(); r != 0 {
			loadErr = fmt.Errorf("cuda: cuInit: %w (no usable NVIDIA GPU?)", driverError(r))
		}
	})
	return loadErr
}

// Open returns a context on the GPU of the given ordinal (0 is the first),
// with its primary context and every PTX module of package kernels loaded.
// It returns an error naming why when there is no driver, no such device,
// or the PTX does not load.
func Open(ordinal int) (*Context, error) {
	if err := load(); err != nil {
		return nil, err
	}
	var n C.int
	if r := C.gnn_cu_device_count(&n); r != 0 {
		return nil, fmt.Errorf("cuda: cuDeviceGetCount: %w", driverError(r))
	}
	if ordinal < 0 || ordinal >= int(n) {
		return nil, fmt.Errorf("cuda: device %d requested but the driver sees %d", ordinal, n)
	}
	c := &Context{funcs: map[string]C.uintptr_t{}, kernels: kernels.EmuKernels(), prof: profiling()}
	var name [256]C.char
	var major, minor, sms C.int
	if r := C.gnn_cu_device(C.int(ordinal), &c.dev, &name[0], C.int(len(name)), &major, &minor, &sms); r != 0 {
		return nil, fmt.Errorf("cuda: device %d: %w", ordinal, driverError(r))
	}
	c.name, c.cc, c.sms = C.GoString(&name[0]), [2]int{int(major), int(minor)}, int(sms)
	if r := C.gnn_cu_ctx_retain(c.dev, &c.ctx); r != 0 {
		return nil, fmt.Errorf("cuda: primary context of device %d: %w", ordinal, driverError(r))
	}
	mods := kernels.Modules()
	names := make([]string, 0, len(mods))
	for m := range mods {
		names = append(names, m)
	}
	sort.Strings(names)
	for _, m := range names {
		ptx := mods[m]
		var log [4096]C.char
		var mod C.uintptr_t
		r := C.gnn_cu_module_load(c.ctx, (*C.char)(unsafe.Pointer(&ptx[0])), &mod, &log[0], C.int(len(log)))
		if r != 0 {
			c.Close()
			return nil, fmt.Errorf("cuda: loading the PTX of %s.cu on %s (compute %d.%d): %w: %s", m, c.name, c.cc[0], c.cc[1], driverError(r), C.GoString(&log[0]))
		}
		c.modules = append(c.modules, mod)
	}
	return c, nil
}

// Close releases the context's modules and device; memory not freed is
// lost with it. Using a closed context returns an error.
func (c *Context) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if c.emu != nil {
		c.emu.release()
		return nil
	}
	var err error
	for _, m := range c.modules {
		if r := C.gnn_cu_module_unload(c.ctx, m); r != 0 && err == nil {
			err = fmt.Errorf("cuda: cuModuleUnload: %w", driverError(r))
		}
	}
	if r := C.gnn_cu_ctx_release(c.dev); r != 0 && err == nil {
		err = fmt.Errorf("cuda: cuDevicePrimaryCtxRelease: %w", driverError(r))
	}
	return err
}

// Emulated reports whether the context is the emulator.
func (c *Context) Emulated() bool { return c.emu != nil }

// Name returns the device's name, or "emulator".
func (c *Context) Name() string { return c.name }

// ComputeCapability returns the device's compute capability (8, 0 for an
// A100, 9, 0 for an H100); the emulator returns 0, 0.
func (c *Context) ComputeCapability() (major, minor int) { return c.cc[0], c.cc[1] }

// Multiprocessors returns the device's number of streaming
// multiprocessors; the emulator returns 1.
func (c *Context) Multiprocessors() int { return c.sms }

// MemInfo returns the device's free and total memory in bytes; the
// emulator returns its arena's unused and reserved sizes.
func (c *Context) MemInfo() (free, total int64, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return 0, 0, err
	}
	if c.emu != nil {
		return int64(c.emu.size - c.emu.top), int64(c.emu.size), nil
	}
	var f, t C.size_t
	if r := C.gnn_cu_mem_info(c.ctx, &f, &t); r != 0 {
		return 0, 0, fmt.Errorf("cuda: cuMemGetInfo: %w", driverError(r))
	}
	return int64(f), int64(t), nil
}

// Sync waits until every operation issued so far has finished, and
// returns the first error a kernel raised.
func (c *Context) Sync() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	if c.emu != nil {
		return nil
	}
	if r := C.gnn_cu_sync(c.ctx); r != 0 {
		return fmt.Errorf("cuda: cuCtxSynchronize: %w", driverError(r))
	}
	return nil
}

// Stats returns the traffic counted since Open or ResetStats.
func (c *Context) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// ResetStats sets the counters of Stats, and the times of Profile, to
// zero.
func (c *Context) ResetStats() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats = Stats{}
	if c.prof != nil {
		c.prof = profiler{}
	}
}

// usable returns an error when c is closed. The caller holds c.mu.
func (c *Context) usable() error {
	if c.closed {
		return fmt.Errorf("cuda: use of a closed context (%s)", c.name)
	}
	return nil
}

// DriverError is an error the CUDA driver returned.
type DriverError struct {
	Code int    // the CUresult
	Name string // for example CUDA_ERROR_OUT_OF_MEMORY
	Desc string // the driver's description
}

func (e *DriverError) Error() string {
	return fmt.Sprintf("%s (%d): %s", e.Name, e.Code, e.Desc)
}

// driverError describes a CUresult.
func driverError(r C.int) error {
	var name, desc *C.char
	C.gnn_cu_error(r, &name, &desc)
	e := &DriverError{Code: int(r), Name: "CUDA error", Desc: "unknown"}
	if name != nil {
		e.Name = C.GoString(name)
	}
	if desc != nil {
		e.Desc = C.GoString(desc)
	}
	return e
}

// SetCurrent makes the device's context current on the calling OS thread,
// for libraries such as cuSPARSE that work in the current context. The
// caller locks its goroutine to the thread (runtime.LockOSThread) for as
// long as it relies on it. It does nothing for the emulator.
func (c *Context) SetCurrent() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil || c.emu != nil {
		return err
	}
	if r := C.gnn_cu_set_current(c.ctx); r != 0 {
		return fmt.Errorf("cuda: cuCtxSetCurrent: %w", driverError(r))
	}
	return nil
}
