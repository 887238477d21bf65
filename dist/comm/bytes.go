package comm

import (
	"fmt"
	"unsafe"
)

// number is an element type the typed helpers and all-reduces handle.
type number interface {
	~float32 | ~float64 | ~int32 | ~int64
}

// asBytes views s as bytes in the host's byte order, without copying.
func asBytes[T number](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// fromBytes views b as a slice of T when b is suitably aligned and copies it
// otherwise. It fails when len(b) is not a multiple of the element size.
func fromBytes[T number](b []byte, name string) ([]T, error) {
	var z T
	size := int(unsafe.Sizeof(z))
	if len(b)%size != 0 {
		return nil, fmt.Errorf("comm: %d bytes are not a whole number of %s (%d bytes each)", len(b), name, size)
	}
	if len(b) == 0 {
		return nil, nil
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%unsafe.Alignof(z) == 0 {
		return unsafe.Slice((*T)(p), len(b)/size), nil
	}
	out := make([]T, len(b)/size)
	copy(asBytes(out), b)
	return out, nil
}

// Float32sToBytes returns s's memory as bytes in the host's byte order. It
// does not copy: the result shares s's memory.
func Float32sToBytes(s []float32) []byte { return asBytes(s) }

// Float64sToBytes returns s's memory as bytes, without copying.
func Float64sToBytes(s []float64) []byte { return asBytes(s) }

// Int32sToBytes returns s's memory as bytes, without copying.
func Int32sToBytes(s []int32) []byte { return asBytes(s) }

// Int64sToBytes returns s's memory as bytes, without copying.
func Int64sToBytes(s []int64) []byte { return asBytes(s) }

// BytesToFloat32s returns b as float32s in the host's byte order. The result
// shares b's memory when b is 4-byte aligned (every slice a Comm returns is)
// and is a copy otherwise. It fails when len(b) is not a multiple of 4.
func BytesToFloat32s(b []byte) ([]float32, error) { return fromBytes[float32](b, "float32s") }

// BytesToFloat64s is BytesToFloat32s for float64s (8 bytes each).
func BytesToFloat64s(b []byte) ([]float64, error) { return fromBytes[float64](b, "float64s") }

// BytesToInt32s is BytesToFloat32s for int32s (4 bytes each).
func BytesToInt32s(b []byte) ([]int32, error) { return fromBytes[int32](b, "int32s") }

// BytesToInt64s is BytesToFloat32s for int64s (8 bytes each).
func BytesToInt64s(b []byte) ([]int64, error) { return fromBytes[int64](b, "int64s") }
