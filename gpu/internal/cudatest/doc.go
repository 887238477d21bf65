// Package cudatest holds what the gnncuda tests of gpu/internal share:
// the contexts a kernel test runs on. It is built only with the gnncuda
// build tag.
package cudatest
