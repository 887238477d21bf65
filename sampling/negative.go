package sampling

// NegativeSampler draws negative pairs for positive pairs (DGL's
// dgl.dataloading.negative_sampler, PyG's negative_sampling): node pairs
// that a link predictor should score low. EdgeLoader calls it once per batch
// with the batch's seed edges; package linkpred implements it (uniform,
// degree-weighted, with exclusion of existing edges). A NegativeSampler used
// by an EdgeLoader may be called from several goroutines at once (one per
// epoch being iterated) and must be safe for that.
type NegativeSampler interface {
	// Negatives returns k negatives for every positive pair (src[i],
	// dst[i]), in order: pairs i*k..i*k+k-1 belong to positive i, so
	// len(negSrc) == len(negDst) == k*len(src) for one k >= 0. The result is
	// deterministic for (inputs, seed). src and dst must not be modified or
	// kept.
	Negatives(src, dst []int32, seed uint64) (negSrc, negDst []int32, err error)
}
