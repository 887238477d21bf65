// Command kgen regenerates the PTX modules, emulator translation units and
// sources_gen.go of package kernels; go generate runs it in that directory.
// It uses nvcc from $NVCC or PATH; without one it regenerates the emulator
// files and fails, naming the PTX modules whose sources changed.
package main
