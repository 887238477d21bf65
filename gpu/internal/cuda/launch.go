//go:build gnncuda

package cuda

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/gnngo/gnn/gpu/kernels"
)

// Dim3 is a grid size in blocks or a block size in threads.
type Dim3 struct{ X, Y, Z uint32 }

// Threads is the block size of one-dimensional launches.
const Threads = 256

// Grid returns a one-dimensional grid of blocks of threads threads for n
// work items, for kernels written as grid-stride loops (GNN_FOR): enough
// blocks to give each item a thread, at most 32 per multiprocessor. It
// returns at least one block.
func (c *Context) Grid(n int64, threads int) Dim3 {
	b := (n + int64(threads) - 1) / int64(threads)
	b = min(b, int64(max(c.sms, 1))*32, math.MaxInt32)
	return Dim3{uint32(max(b, 1)), 1, 1}
}

// Launch runs kernel name of package kernels over grid blocks of block
// threads, with args as its parameters, in order. An argument is a Ptr,
// int32, uint32, int64, uint64, float32 or float64, or an []int32 passed
// by value as a C struct of int32 fields. Launch checks the number and
// sizes of the arguments against the kernel's C signature and returns an
// error when they differ. On a GPU the kernel runs asynchronously; errors
// it raises surface at the next Sync or copy to the host.
func (c *Context) Launch(name string, grid, block Dim3, args ...any) error {
	k, ok := c.kernels[name]
	if !ok {
		return fmt.Errorf("cuda: no kernel %q in package kernels", name)
	}
	if len(args) != len(k.Params) {
		return fmt.Errorf("cuda: kernel %s takes %d parameters, launched with %d", name, len(k.Params), len(args))
	}
	if len(args) > kernels.MaxParams {
		return fmt.Errorf("cuda: kernel %s has %d parameters, at most %d", name, len(args), kernels.MaxParams)
	}
	if grid.X == 0 || grid.Y == 0 || grid.Z == 0 || block.X == 0 || block.Y == 0 || block.Z == 0 {
		return fmt.Errorf("cuda: kernel %s launched on an empty grid %v of blocks %v", name, grid, block)
	}
	if uint64(block.X)*uint64(block.Y)*uint64(block.Z) > 1024 {
		// The limit of every GPU since compute capability 2.0; the
		// emulator enforces it too, so that it fails where a GPU would.
		return fmt.Errorf("cuda: kernel %s launched with blocks %v of more than 1024 threads", name, block)
	}
	var stack [512]byte
	buf := stack[:0]
	var offs [kernels.MaxParams]int32
	for i, a := range args {
		if p, ok := a.(Ptr); ok && c.emu != nil {
			// The emulator's kernels use the read-write alias of device
			// memory (c.emu's mappings do not change after OpenEmulator).
			// A pointer outside it would make the kernel write host
			// memory: an error here, a fault or corruption on a GPU.
			if p != 0 && !c.emu.contains(p) {
				return fmt.Errorf("cuda: kernel %s parameter %d: %#x is not emulated device memory", name, i, uintptr(p))
			}
			a = c.emu.kernelPtr(p)
		}
		var err error
		var size int
		buf, size, err = pack(buf, a)
		if err != nil {
			return fmt.Errorf("cuda: kernel %s parameter %d: %w", name, i, err)
		}
		if size != k.Params[i] {
			return fmt.Errorf("cuda: kernel %s parameter %d is %d bytes in C, got %T of %d bytes", name, i, k.Params[i], a, size)
		}
		offs[i] = int32(len(buf) - size)
	}
	g := [3]uint32{grid.X, grid.Y, grid.Z}
	b := [3]uint32{block.X, block.Y, block.Z}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	c.stats.Launches++
	if c.emu != nil {
		return kernels.EmuLaunch(k.Fn, g, b, buf, offs[:len(args)])
	}
	fn, err := c.function(name)
	if err != nil {
		return err
	}
	var bp *C.char
	if len(buf) > 0 {
		bp = (*C.char)(unsafe.Pointer(&buf[0]))
	}
	r := c.timed(name, func() C.int {
		return C.gnn_cu_launch(c.ctx, fn, (*C.uint)(unsafe.Pointer(&g[0])), (*C.uint)(unsafe.Pointer(&b[0])), bp, (*C.int)(unsafe.Pointer(&offs[0])), C.int(len(args)))
	})
	if r != 0 {
		return fmt.Errorf("cuda: launching %s on grid %v, block %v: %w", name, grid, block, driverError(r))
	}
	return nil
}

// function returns the driver's handle of a kernel, looking it up in the
// loaded modules on first use. The caller holds c.mu.
func (c *Context) function(name string) (C.uintptr_t, error) {
	if fn, ok := c.funcs[name]; ok {
		return fn, nil
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	for _, m := range c.modules {
		var fn C.uintptr_t
		if C.gnn_cu_function(c.ctx, m, cname, &fn) == 0 {
			c.funcs[name] = fn
			return fn, nil
		}
	}
	return 0, fmt.Errorf("cuda: kernel %s is in no loaded PTX module (regenerate gpu/kernels)", name)
}

// pack appends the bytes of one kernel argument to buf, aligned to its
// natural alignment, and returns the buffer and the argument's size.
func pack(buf []byte, a any) ([]byte, int, error) {
	le := binary.LittleEndian
	align := func(n int) {
		for len(buf)%n != 0 {
			buf = append(buf, 0)
		}
	}
	switch v := a.(type) {
	case Ptr:
		align(8)
		return le.AppendUint64(buf, uint64(v)), 8, nil
	case int64:
		align(8)
		return le.AppendUint64(buf, uint64(v)), 8, nil
	case uint64:
		align(8)
		return le.AppendUint64(buf, v), 8, nil
	case float64:
		align(8)
		return le.AppendUint64(buf, math.Float64bits(v)), 8, nil
	case int32:
		align(4)
		return le.AppendUint32(buf, uint32(v)), 4, nil
	case uint32:
		align(4)
		return le.AppendUint32(buf, v), 4, nil
	case float32:
		align(4)
		return le.AppendUint32(buf, math.Float32bits(v)), 4, nil
	case []int32:
		align(4)
		for _, x := range v {
			buf = le.AppendUint32(buf, uint32(x))
		}
		return buf, 4 * len(v), nil
	}
	return buf, 0, fmt.Errorf("unsupported argument type %T (use Ptr, int32, uint32, int64, uint64, float32, float64 or []int32)", a)
}
