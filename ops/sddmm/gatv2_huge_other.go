//go:build !linux

package sddmm

import "github.com/gnngo/gnn/internal/num"

// hugePages returns a slice of n elements (huge pages are asked for on
// Linux only).
func hugePages[T num.Float](n int) []T { return make([]T, n) }
