package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"

	"github.com/gnngo/gnn/gpu/kernels/internal/kgen"
)

func main() {
	dir := flag.String("dir", ".", "directory of the .cu sources")
	flag.Parse()
	nvcc := os.Getenv("NVCC")
	if nvcc == "" {
		nvcc, _ = exec.LookPath("nvcc")
	}
	old, err := readRecords(*dir)
	if err == nil {
		err = kgen.Generate(*dir, nvcc, old)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kgen:", err)
		os.Exit(1)
	}
}

var recordRE = regexp.MustCompile(`"([^"]+\.cu)": \{"([0-9a-f]*)", "([0-9a-f]*)"\}`)

// readRecords reads the records of the existing sources_gen.go, if any: the
// generator cannot import the package it generates.
func readRecords(dir string) (map[string][2]string, error) {
	b, err := os.ReadFile(dir + "/sources_gen.go")
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	recs := map[string][2]string{}
	for _, m := range recordRE.FindAllSubmatch(b, -1) {
		recs[string(m[1])] = [2]string{string(m[2]), string(m[3])}
	}
	return recs, nil
}
