// Package kerneltest holds what the tests of the pure-Go message-passing
// kernels (ops/spmm) and of their device versions (gpu/internal/sparse)
// share: the broadcast shape pairs and copy widths every op is checked on,
// a skewed test graph, random operands and the tolerance against an
// oracle.
//
// It is a normal package, not a test file, so that the tests of several
// packages can share it; it is for tests only.
package kerneltest
