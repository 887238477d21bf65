package rgcn

// SetOrder forces SegmentMatMul's order for every relation (1: product
// first, 2: sum first, 0: by cost) and returns a function restoring it.
func SetOrder(o int) func() {
	old := forceOrder
	forceOrder = o
	return func() { forceOrder = old }
}

// SetChunkRows sets how many rows SegmentMatMul multiplies at a time when
// it sums first, and returns a function restoring it.
func SetChunkRows(n int) func() {
	old := chunkRows
	chunkRows = n
	return func() { chunkRows = old }
}
