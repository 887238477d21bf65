// Package cublas computes gnn's dense products on a GPU with cuBLAS's
// gemm (cublasSgemm_v2, cublasDgemm_v2), on device memory of package
// cuda, with the modes and row-major layouts of package dense's MatMul,
// which it replaces on a GPU where a library loads. Like the driver and
// cuSPARSE, the library is opened at run time with dlopen
// (libcublas.so.13, .so.12 or .so.11, whichever loads first) and a small
// C shim declares the few functions it calls, so the gnncuda build needs
// no CUDA toolkit; New returns an error where none is installed or for the
// emulator, and tests and benchmarks skip. It is built only with the
// gnncuda build tag.
//
// cuBLAS is column-major and gnn row-major: each product is computed as
// its transpose, Cᵀ = Bᵀ·Aᵀ, which needs no copy (see gemmArgs for the
// three modes' arguments). Handles run in CUBLAS_PEDANTIC_MATH, so float32
// products are float32 products (no TF32 tensor cores), and on the
// default stream, which gnn's launches use too. cuBLAS sums in an order of
// its own, not dense's kernel's index order: results agree with the
// kernel to rounding, and are the same from run to run on one GPU model
// and library version (cuBLAS's reproducibility guarantee on one stream),
// not bit for bit across them.
package cublas
