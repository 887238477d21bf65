// Package testsets finds the data sets tests use outside the repository,
// and skips a test when they are absent.
package testsets
