// Package kgen generates the build products of package kernels from its
// CUDA C sources: one PTX module per .cu file (by nvcc), the emulator's
// translation units with a trampoline per kernel (by parsing the kernels'
// signatures), the emulator's kernel table, and sources_gen.go, which
// records the hash of the sources each PTX module was built from so that a
// test can tell when the PTX is stale on a machine without nvcc.
//
// Every *.cu file of the directory is taken (a glob), so adding a file of
// kernels needs no change here: run go generate ./gpu/kernels.
package kgen
