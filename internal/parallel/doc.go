// Package parallel splits index ranges over goroutines for the kernels of
// gnn. Work is divided into contiguous chunks whose boundaries depend only on
// the range and the grain, never on timing, so kernels that write disjoint
// rows produce identical results for any GOMAXPROCS.
package parallel
