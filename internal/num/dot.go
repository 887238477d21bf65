package num

// Dot8 returns the dot product of two 8-element vectors, the products added
// one after the other from the first: the order of a plain loop over the
// elements, so an unrolled kernel of 8-element heads gives what its general
// loop gives.
func Dot8[T Float](a, b *[8]T) T {
	return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3] +
		a[4]*b[4] + a[5]*b[5] + a[6]*b[6] + a[7]*b[7]
}
