package ops

//go:generate go run ./internal/gensugar
