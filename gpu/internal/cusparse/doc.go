// Package cusparse calls cuSPARSE's generic SpMM (cusparseCreateCsr,
// cusparseCreateDnMat, cusparseSpMM_bufferSize, cusparseSpMM) on device
// memory of package cuda, for comparison with gnn's own SpMM kernel and
// wherever it is faster. Like the driver, the library is opened at run
// time with dlopen (libcusparse.so.12, .so.13 or .so.11, whichever loads
// first), so the gnncuda build needs no CUDA toolkit; New returns an error
// where none is installed or for the emulator, and tests and benchmarks
// skip. It is built only with the gnncuda build tag.
//
// cuSPARSE's SpMM computes A·X for a CSR matrix with explicit values: for
// a graph's copy_u + sum it reads a values array of ones next to the
// indices (4 more bytes per edge than gnn's kernel), and it covers only
// that message and reducer; u_mul_e with a scalar per edge is the same
// call with the edge weights as values, when edge IDs follow the view's
// order.
package cusparse
