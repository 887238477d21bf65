// Package cpu reports the x86 vector extensions that gnn's assembly kernels
// use. The variables are set once, at package initialisation, and are false
// on other architectures and in builds with the purego tag, where every
// kernel runs in pure Go.
package cpu
