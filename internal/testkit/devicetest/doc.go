// Package devicetest holds what the gnncuda tests of the device path
// share: opening the emulator (and the first GPU where there is one),
// random inputs, tolerant comparison, and running a graph's forward and
// backward on the CPU and on a device to compare every output and input
// gradient. The tests of package gpu (sparse ops), nn (dense ops) and
// nn/train (Cora epochs) use it, so that the device layer's tests need
// none of the layers.
//
// Everything but this comment is built only with -tags gnncuda.
package devicetest
