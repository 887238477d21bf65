// Package dense launches the kernels of gpu/kernels/dense.cu, the device
// side of gnn's dense ops (package nn and the layers' own ops), on device
// buffers of a cuda.Context: one function per kernel, float32 or float64
// by a Dtype argument, sizes checked before the launch. It is built only
// with the gnncuda tag.
package dense
