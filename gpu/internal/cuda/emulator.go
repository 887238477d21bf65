//go:build gnncuda

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"math/bits"

	"github.com/gnngo/gnn/gpu/kernels"
)

// EmulatorMemory is the device memory an emulator context reserves
// (virtual address space; pages are committed as they are written).
const EmulatorMemory = 16 << 30

// OpenEmulator returns a context whose kernels are the .cu files of
// package kernels compiled for the host, run one thread at a time on the
// calling goroutine, and whose device memory is host memory that the host
// cannot read: its device pointers point into a PROT_NONE mapping, so a
// host read or write through one faults, as it would on a GPU. Copies and
// kernels reach the same memory through a second, read-write mapping (the
// launch translates each Ptr argument), so no call changes protections.
func OpenEmulator() (*Context, error) {
	a, err := newArena(EmulatorMemory)
	if err != nil {
		return nil, err
	}
	return &Context{name: "emulator", sms: 1, emu: a, kernels: kernels.EmuKernels()}, nil
}

// arena is the emulator's device memory: one shared memory object mapped
// at base (PROT_NONE; device pointers) and at alias (read-write), carved
// into blocks of power-of-two sizes of at least minBlock bytes, reused
// through free lists per size. [base, base+top) has been handed out.
type arena struct {
	base, alias, size, top C.size_t
	freeList               map[int][]C.size_t // block size class -> offsets
	live                   map[C.size_t]int   // offset -> size class
	asked                  map[C.size_t]int   // offset -> bytes requested
}

// minBlock is the smallest block, and the alignment of every block.
const minBlock = 256

func newArena(size int) (*arena, error) {
	var alias C.uintptr_t
	base := C.gnn_emu_reserve(C.size_t(size), &alias)
	if base == 0 {
		return nil, fmt.Errorf("cuda: the emulator cannot map %d bytes of shared memory", size)
	}
	return &arena{base: C.size_t(base), alias: C.size_t(alias), size: C.size_t(size), freeList: map[int][]C.size_t{}, live: map[C.size_t]int{}, asked: map[C.size_t]int{}}, nil
}

func (a *arena) release() {
	C.gnn_emu_release(C.uintptr_t(a.base), C.uintptr_t(a.alias), a.size)
}

// host returns the read-write alias of device address p, which check has
// accepted.
func (a *arena) host(p Ptr) C.uintptr_t { return C.uintptr_t(C.size_t(p) - a.base + a.alias) }

// contains reports whether p lies in the arena's reserved range.
func (a *arena) contains(p Ptr) bool {
	return C.size_t(p) >= a.base && C.size_t(p) < a.base+a.size
}

// kernelPtr returns the address a kernel uses for device address p: its
// alias when p lies in the arena, p itself otherwise (the zero Ptr).
func (a *arena) kernelPtr(p Ptr) Ptr {
	if a.contains(p) {
		return Ptr(a.host(p))
	}
	return p
}

// class returns the size class (log2 of the block size) of n bytes.
func class(n int) int {
	if n <= minBlock {
		return bits.Len(minBlock - 1)
	}
	return bits.Len(uint(n - 1))
}

func (a *arena) alloc(n int) (Ptr, error) {
	k := class(n)
	var off C.size_t
	if l := a.freeList[k]; len(l) > 0 {
		off = l[len(l)-1]
		a.freeList[k] = l[:len(l)-1]
	} else {
		sz := C.size_t(1) << k
		if a.top+sz > a.size {
			return 0, fmt.Errorf("cuda: emulator out of device memory allocating %d bytes (%d of %d in use)", n, a.top, a.size)
		}
		off = a.top
		a.top += sz
	}
	a.live[off] = k
	a.asked[off] = n
	return Ptr(a.base + off), nil
}

func (a *arena) free(p Ptr) error {
	off := C.size_t(p) - a.base
	k, ok := a.live[off]
	if C.size_t(p) < a.base || !ok {
		return fmt.Errorf("cuda: Free of %#x, which the emulator did not allocate or already freed", uintptr(p))
	}
	delete(a.live, off)
	delete(a.asked, off)
	a.freeList[k] = append(a.freeList[k], off)
	return nil
}

// check returns an error unless [p, p+n) lies within the arena's used
// part: copies out of range would otherwise corrupt the host.
func (a *arena) check(p Ptr, n int, what string) error {
	lo := C.size_t(p)
	if lo < a.base || lo+C.size_t(n) > a.base+a.top {
		return fmt.Errorf("cuda: emulator %s [%#x, +%d) is outside device memory", what, uintptr(p), n)
	}
	return nil
}
