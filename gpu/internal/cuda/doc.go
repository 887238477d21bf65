// Package cuda is gnn's layer over the CUDA driver: one device (or the
// emulator) per Context, with one stream, device memory, copies counted in
// bytes, and launches of the kernels of package kernels by name. It is
// built only with the gnncuda build tag; without it the package is empty.
//
// # Why dlopen and not gorgonia.org/cu
//
// gorgonia.org/cu links libcuda at build time, and its package init exits
// the process on a machine without a GPU; it does not wrap cuSPARSE; and a
// binary linked here against Debian's CUDA 11.8 libraries would not load
// next to the CUDA 13 driver of the GPU machines. Instead a small C shim
// (shim.c) dlopens libcuda.so.1 at run time and declares the dozen driver
// types and functions it calls itself, so that `go build -tags gnncuda`
// needs gcc and nothing of CUDA, and the same binary runs wherever a
// driver is installed. Open returns an error naming why when there is
// none (no library, cuInit failing, no such device), and tests that need
// a GPU skip with that message. Driver entry points are those of the
// CUDA 11+ driver ABI (the _v2 names), which later drivers keep.
//
// Kernels are PTX for compute_80, embedded by package kernels; Open loads
// every module into the device's primary context and the driver
// JIT-compiles them for the GPU at hand (and caches the result). Launch
// checks the number and byte sizes of its arguments against the kernels'
// C signatures, which the generator records, so a mismatch between a Go
// launcher and a .cu file is an error on both backends rather than
// garbage read on the GPU.
//
// # The emulator
//
// OpenEmulator returns a Context with the same API whose kernels are the
// same .cu files compiled by g++ for the host and run one thread at a time
// (package kernels), and whose device memory is a reserved mmap arena that
// is PROT_NONE except during copies and kernels: host code that reads
// device memory without a copy faults, as it would with a real GPU, so the
// whole device path (kernels, launch arguments, copies, byte counters) is
// tested on machines without one. The emulator runs kernels synchronously;
// it has no notion of timing and its speed says nothing about a GPU's.
//
// Every call makes the context current on the calling OS thread, since Go
// moves goroutines between threads; a Context serialises its calls with a
// mutex and is safe for concurrent use.
package cuda
