// Package kernels holds gnn's CUDA C kernels (*.cu), their build products,
// and the emulator that runs them on the host.
//
// Kernels are written once, in CUDA C, and built two ways:
//
//   - For the GPU, `go generate ./gpu/kernels` runs nvcc -ptx
//     -arch=compute_80 on every *.cu file (a glob: adding a file needs no
//     change to the generator) and writes one PTX module per file, which
//     the gnncuda build embeds with go:embed (Modules). PTX is a virtual
//     ISA: the driver JIT-compiles it for the GPU it finds, so PTX from
//     the CUDA 11.8 nvcc of Debian runs on the H100 and H200 under a CUDA
//     13 driver, and nothing here links against a CUDA library.
//   - For the emulator, the generator also writes one C++ translation unit
//     per *.cu (emu_NAME_gen.cc), which includes emu.h and the .cu file and
//     defines a trampoline per kernel that unpacks a parameter array and
//     runs the grid as loops, block by block and thread by thread; cgo
//     compiles them with g++ in the gnncuda build. The driver layer
//     (gpu/internal/cuda) offers the emulator behind the same API as a
//     real device, so every kernel is tested on machines without a GPU
//     against the CPU kernels of package ops.
//
// Rules for kernels, so that both builds run them: declare every entry
// point `extern "C" __global__ void name(type a, type b, ...)` with value
// and pointer parameters; use no __syncthreads, shared-memory cooperation or
// warp shuffles (the emulator runs one thread at a time, to completion);
// no float atomics, so that sums are deterministic. Kernel names are global
// across files.
//
// sources_gen.go records, for every .cu, the SHA-256 of the sources its
// PTX was built from and of the PTX itself; TestGeneratedCurrent fails when
// a .cu or header changed without regenerating, on any machine, and CI
// also regenerates with nvcc and diffs.
package kernels
