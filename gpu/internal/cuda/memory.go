//go:build gnncuda

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Ptr is a device address: memory that the host cannot read or write but
// through the copies of a Context. The zero Ptr is no memory, which an
// allocation of 0 bytes returns.
type Ptr uintptr

// Add returns p advanced by bytes.
func (p Ptr) Add(bytes int) Ptr { return p + Ptr(bytes) }

// Alloc returns bytes of uninitialised device memory, aligned to 256
// bytes; 0 bytes give the zero Ptr.
func (c *Context) Alloc(bytes int) (Ptr, error) {
	if bytes < 0 {
		return 0, fmt.Errorf("cuda: Alloc of %d bytes", bytes)
	}
	if bytes == 0 {
		return 0, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return 0, err
	}
	if c.emu != nil {
		return c.emu.alloc(bytes)
	}
	var p C.uint64_t
	if r := C.gnn_cu_alloc(c.ctx, C.size_t(bytes), &p); r != 0 {
		return 0, fmt.Errorf("cuda: allocating %d bytes on %s: %w", bytes, c.name, driverError(r))
	}
	return Ptr(p), nil
}

// Free releases memory that Alloc returned; freeing the zero Ptr does
// nothing.
func (c *Context) Free(p Ptr) error {
	if p == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	if c.emu != nil {
		return c.emu.free(p)
	}
	if r := C.gnn_cu_free(c.ctx, C.uint64_t(p)); r != 0 {
		return fmt.Errorf("cuda: freeing %#x: %w", uintptr(p), driverError(r))
	}
	return nil
}

// CopyToDevice copies bytes from host memory src, which must hold no Go
// pointers, to dst. It returns once src may be reused.
func (c *Context) CopyToDevice(dst Ptr, src unsafe.Pointer, bytes int) error {
	return c.transfer("CopyToDevice", "cuMemcpyHtoD", bytes, &c.stats.HostToDevice,
		[]access{{dst, "CopyToDevice destination"}},
		func() { C.gnn_emu_h2d(c.emu.host(dst), src, C.size_t(bytes)) },
		func() C.int { return C.gnn_cu_htod(c.ctx, C.uint64_t(dst), src, C.size_t(bytes)) })
}

// CopyToHost copies bytes from src to host memory dst, which must hold no
// Go pointers, after every operation issued before it.
func (c *Context) CopyToHost(dst unsafe.Pointer, src Ptr, bytes int) error {
	return c.transfer("CopyToHost", "cuMemcpyDtoH", bytes, &c.stats.DeviceToHost,
		[]access{{src, "CopyToHost source"}},
		func() { C.gnn_emu_d2h(dst, c.emu.host(src), C.size_t(bytes)) },
		func() C.int { return C.gnn_cu_dtoh(c.ctx, dst, C.uint64_t(src), C.size_t(bytes)) })
}

// CopyDevice copies bytes from src to dst, both on the device; the ranges
// must not overlap.
func (c *Context) CopyDevice(dst, src Ptr, bytes int) error {
	return c.transfer("CopyDevice", "cuMemcpyDtoD", bytes, &c.stats.DeviceToDevice,
		[]access{{dst, "CopyDevice destination"}, {src, "CopyDevice source"}},
		func() { C.gnn_emu_copy(c.emu.host(dst), c.emu.host(src), C.size_t(bytes)) },
		func() C.int { return C.gnn_cu_dtod(c.ctx, C.uint64_t(dst), C.uint64_t(src), C.size_t(bytes)) })
}

// Zero sets bytes of device memory at p to 0.
func (c *Context) Zero(p Ptr, bytes int) error {
	return c.transfer("Zero", "cuMemsetD8", bytes, nil,
		[]access{{p, "Zero"}},
		func() { C.gnn_emu_zero(c.emu.host(p), C.size_t(bytes)) },
		func() C.int { return C.gnn_cu_memset(c.ctx, C.uint64_t(p), C.size_t(bytes)) })
}

// access is device memory that a transfer reads or writes, with the words
// that name it in the emulator's errors.
type access struct {
	p    Ptr
	what string
}

// transfer runs a copy or memset op of bytes over the device memory in
// mem: it checks the size and pointers, then, holding the lock, either
// checks on the emulator that each range of mem is emulated memory and
// calls emu, or calls driver, whose failure it reports as a failed
// driverOp. Once done it adds bytes to *count, when count is not nil.
// 0 bytes do nothing.
func (c *Context) transfer(op, driverOp string, bytes int, count *int64, mem []access, emu func(), driver func() C.int) error {
	if bytes < 0 {
		return fmt.Errorf("cuda: %s of %d bytes", op, bytes)
	}
	if bytes == 0 {
		return nil
	}
	for _, m := range mem {
		if m.p == 0 {
			return fmt.Errorf("cuda: %s of %d bytes at the zero Ptr", op, bytes)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	if c.emu != nil {
		for _, m := range mem {
			if err := c.emu.check(m.p, bytes, m.what); err != nil {
				return err
			}
		}
		emu()
	} else if r := c.timed(driverOp, driver); r != 0 {
		return fmt.Errorf("cuda: %s: %w", driverOp, driverError(r))
	}
	if count != nil {
		*count += int64(bytes)
	}
	return nil
}
