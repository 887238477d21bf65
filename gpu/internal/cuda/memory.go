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
	if err := c.copyArgs("CopyToDevice", bytes, dst); err != nil || bytes == 0 {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	var r C.int
	if c.emu != nil {
		if err := c.emu.check(dst, bytes, "CopyToDevice destination"); err != nil {
			return err
		}
		C.gnn_emu_h2d(c.emu.host(dst), src, C.size_t(bytes))
	} else {
		r = C.gnn_cu_htod(c.ctx, C.uint64_t(dst), src, C.size_t(bytes))
	}
	if r != 0 {
		return c.opError("cuMemcpyHtoD", r)
	}
	c.stats.HostToDevice += int64(bytes)
	return nil
}

// CopyToHost copies bytes from src to host memory dst, which must hold no
// Go pointers, after every operation issued before it.
func (c *Context) CopyToHost(dst unsafe.Pointer, src Ptr, bytes int) error {
	if err := c.copyArgs("CopyToHost", bytes, src); err != nil || bytes == 0 {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	var r C.int
	if c.emu != nil {
		if err := c.emu.check(src, bytes, "CopyToHost source"); err != nil {
			return err
		}
		C.gnn_emu_d2h(dst, c.emu.host(src), C.size_t(bytes))
	} else {
		r = C.gnn_cu_dtoh(c.ctx, dst, C.uint64_t(src), C.size_t(bytes))
	}
	if r != 0 {
		return c.opError("cuMemcpyDtoH", r)
	}
	c.stats.DeviceToHost += int64(bytes)
	return nil
}

// CopyDevice copies bytes from src to dst, both on the device; the ranges
// must not overlap.
func (c *Context) CopyDevice(dst, src Ptr, bytes int) error {
	if err := c.copyArgs("CopyDevice", bytes, dst, src); err != nil || bytes == 0 {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	var r C.int
	if c.emu != nil {
		if err := c.emu.check(dst, bytes, "CopyDevice destination"); err != nil {
			return err
		}
		if err := c.emu.check(src, bytes, "CopyDevice source"); err != nil {
			return err
		}
		C.gnn_emu_copy(c.emu.host(dst), c.emu.host(src), C.size_t(bytes))
	} else {
		r = C.gnn_cu_dtod(c.ctx, C.uint64_t(dst), C.uint64_t(src), C.size_t(bytes))
	}
	if r != 0 {
		return c.opError("cuMemcpyDtoD", r)
	}
	c.stats.DeviceToDevice += int64(bytes)
	return nil
}

// Zero sets bytes of device memory at p to 0.
func (c *Context) Zero(p Ptr, bytes int) error {
	if err := c.copyArgs("Zero", bytes, p); err != nil || bytes == 0 {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	var r C.int
	if c.emu != nil {
		if err := c.emu.check(p, bytes, "Zero"); err != nil {
			return err
		}
		C.gnn_emu_zero(c.emu.host(p), C.size_t(bytes))
	} else {
		r = C.gnn_cu_memset(c.ctx, C.uint64_t(p), C.size_t(bytes))
	}
	if r != 0 {
		return c.opError("cuMemsetD8", r)
	}
	return nil
}

// copyArgs checks the size and device pointers of a copy.
func (c *Context) copyArgs(op string, bytes int, ps ...Ptr) error {
	if bytes < 0 {
		return fmt.Errorf("cuda: %s of %d bytes", op, bytes)
	}
	for _, p := range ps {
		if p == 0 && bytes > 0 {
			return fmt.Errorf("cuda: %s of %d bytes at the zero Ptr", op, bytes)
		}
	}
	return nil
}

// opError describes a failed driver call.
func (c *Context) opError(op string, r C.int) error {
	return fmt.Errorf("cuda: %s: %w", op, driverError(r))
}
