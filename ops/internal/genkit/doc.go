// Package genkit is the plumbing the code generators under ops share
// (gensugar, genfn, gengatv2, run by go generate): writing what they
// generated, gofmt'ed when it is Go.
package genkit
