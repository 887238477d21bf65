package main

import (
	"fmt"

	"github.com/gnngo/gnn/serve"
)

// loadModelFile reads a self-describing model file (package model) into a
// serve.Model.
func loadModelFile(path string) (*serve.Model, error) {
	return nil, fmt.Errorf("-model %s: this build cannot read model files yet (package model is not merged); use -arch sage -params FILE", path)
}
