package sddmm

import (
	"syscall"
	"unsafe"

	"github.com/gnngo/gnn/internal/num"
)

// hugePage is the size of a transparent huge page.
const hugePage = 2 << 20

// hugePages returns a slice of n elements of fresh memory, asking the
// kernel (madvise MADV_HUGEPAGE) to back the huge pages that it spans with
// huge pages, which it does where transparent huge pages are enabled for
// madvised memory. Small slices are plain.
func hugePages[T num.Float](n int) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if n*size < 4*hugePage {
		return make([]T, n)
	}
	// Fresh memory of a large allocation is not yet touched: the advice
	// applies when it is first written.
	pad := hugePage / size
	b := make([]T, n+pad)
	start := uintptr(unsafe.Pointer(&b[0]))
	skip := int((hugePage-start%hugePage)%hugePage) / size
	s := b[skip : skip+n]
	whole := (n * size) &^ (hugePage - 1)
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), whole), syscall.MADV_HUGEPAGE) // advice only
	return s
}
