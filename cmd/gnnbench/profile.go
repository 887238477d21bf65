package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"

	"github.com/gnngo/gnn/cmd/gnnbench/internal/bench"
)

// startProfiles starts a CPU profile of the run of spec in dir and returns
// the function that stops it and writes a heap profile (live objects after
// the last epoch, and everything allocated since the start). An empty dir
// profiles nothing. Files are named after the run:
// <model>_<path>_<dataset>_n<nodes>_e<edges>.{cpu,heap}.pprof, the model
// followed by -<op>-<heads>x<feat> for kernels.
func startProfiles(dir string, spec bench.Spec) (stop func() error, err error) {
	if dir == "" {
		return func() error { return nil }, nil
	}
	base, err := profileBase(dir, spec)
	if err != nil {
		return nil, err
	}
	cpu, err := os.Create(base + ".cpu.pprof")
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		cpu.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := cpu.Close(); err != nil {
			return err
		}
		heap, err := os.Create(base + ".heap.pprof")
		if err != nil {
			return err
		}
		runtime.GC()
		if err := pprof.WriteHeapProfile(heap); err != nil {
			heap.Close()
			return err
		}
		return heap.Close()
	}, nil
}

// profileBase creates dir and returns the path of spec's profiles in it
// without the extension.
func profileBase(dir string, spec bench.Spec) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	name := spec.Model
	if spec.Op != "" {
		name += fmt.Sprintf("-%s-%dx%d", spec.Op, spec.Heads, spec.Feat)
	}
	return filepath.Join(dir, fmt.Sprintf("%s_%s_%s_n%d_e%d", name, spec.Path, spec.Dataset, spec.Nodes, spec.Edges)), nil
}

// memProfile creates the file of spec's -memprofile heap profile in dir
// (<base>.mem.pprof, named as startProfiles names its files); nil and no
// error for an empty dir.
func memProfile(dir string, spec bench.Spec) (*os.File, error) {
	if dir == "" {
		return nil, nil
	}
	base, err := profileBase(dir, spec)
	if err != nil {
		return nil, err
	}
	return os.Create(base + ".mem.pprof")
}
