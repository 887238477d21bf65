package rgcn

// SetOrder forces SegmentMatMul's order for every relation (1: product
// first, 2: sum first, 0: by cost) and returns a function restoring it.
func SetOrder(o int) func() {
	old := forceOrder
	forceOrder = o
	return func() { forceOrder = old }
}
