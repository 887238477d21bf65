// Package devicetest checks an example's training on the GPU emulator
// (-device emu) against the same training on the CPU. It imports package
// testing and is for the examples' tests only.
package devicetest
