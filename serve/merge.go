package serve

import (
	"github.com/gnngo/gnn/graph"
)

// merged is several requests' neighbourhoods as one: the disjoint union of
// their blocks, layer by layer, numbered so that every block's
// destinations are again its first sources and the sources of the block
// above, and the last block's destinations are the requests' seeds, request
// after request.
type merged struct {
	blocks []*graph.Graph
	// input[i] is (request, position in its inputs) of merged input row i.
	inputReq, inputPos []int32
	// offsets[r] is request r's first output row.
	offsets []int
}

// merge builds the union of hoods, all of the same depth. Every
// destination keeps its own in-edges in their own order (edges are listed
// request by request, each request's in its order), so each output row is
// computed from the same rows and edges as the request alone would be.
func merge(hoods []*hood) (*merged, error) {
	depth := len(hoods[0].layers)
	mg := &merged{blocks: make([]*graph.Graph, depth), offsets: make([]int, len(hoods))}
	// dstPos[r][j]: merged index of request r's destination j in the
	// current layer; the top layer's destinations go request by request.
	dstPos := make([][]int32, len(hoods))
	next := 0
	for r, h := range hoods {
		mg.offsets[r] = next
		top := h.layers[depth-1]
		dstPos[r] = make([]int32, top.ndst)
		for j := range dstPos[r] {
			dstPos[r][j] = int32(next)
			next++
		}
	}
	for l := depth - 1; l >= 0; l-- {
		numDst, numSrc, edges := 0, 0, 0
		for _, h := range hoods {
			numDst += h.layers[l].ndst
			numSrc += h.layers[l].nsrc
			edges += len(h.layers[l].src)
		}
		// Sources: the destinations keep their places, the other sources
		// follow, request by request.
		srcPos := make([][]int32, len(hoods))
		extra := numDst
		for r, h := range hoods {
			hp := h.layers[l]
			sp := make([]int32, hp.nsrc)
			copy(sp, dstPos[r])
			for i := hp.ndst; i < hp.nsrc; i++ {
				sp[i] = int32(extra)
				extra++
			}
			srcPos[r] = sp
		}
		src := make([]int32, 0, edges)
		dst := make([]int32, 0, edges)
		for r, h := range hoods {
			hp := h.layers[l]
			for k := range hp.src {
				src = append(src, srcPos[r][hp.src[k]])
				dst = append(dst, dstPos[r][hp.dst[k]])
			}
		}
		g, err := graph.FromCOO(numSrc, numDst, src, dst)
		if err != nil {
			return nil, err
		}
		mg.blocks[l] = g
		dstPos = srcPos
	}
	n := 0
	for _, h := range hoods {
		n += len(h.inputs)
	}
	mg.inputReq, mg.inputPos = make([]int32, n), make([]int32, n)
	for r, sp := range dstPos {
		for i, p := range sp {
			mg.inputReq[p], mg.inputPos[p] = int32(r), int32(i)
		}
	}
	return mg, nil
}
