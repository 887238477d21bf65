package sddmm

//go:generate go run ./internal/gengatv2
