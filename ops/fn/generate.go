package fn

//go:generate go run ./internal/genfn
