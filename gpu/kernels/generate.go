package kernels

//go:generate go run ./internal/kgen/cmd/kgen
