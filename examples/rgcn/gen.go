package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/hetero"
)

// magShape sizes a generated heterograph shaped like ogbn-mag: papers,
// authors, institutions and fields of study, with ogbn-mag's four
// relations.
type magShape struct {
	Papers, Authors, Institutions, Fields int
	Features, Classes                     int
	// CitesPer, WritesPer and TopicsPer are the out-edges of each paper
	// (cites, has_topic) and author (writes); AffiliationsPer per author.
	CitesPer, WritesPer, TopicsPer, AffiliationsPer int
	// Homophily is the probability that an edge joins two nodes of the
	// same planted class; Noise the standard deviation of the paper
	// features around their class's centre (of norm 1).
	Homophily, Noise float64
}

// smallMag is the default: small enough to train in seconds.
var smallMag = magShape{
	Papers: 800, Authors: 500, Institutions: 40, Fields: 60,
	Features: 32, Classes: 6,
	CitesPer: 4, WritesPer: 3, TopicsPer: 2, AffiliationsPer: 1,
	Homophily: 0.4, Noise: 3,
}

// ogbnMag has ogbn-mag's node counts, feature width and classes, and
// whole out-degrees near its edge counts (cites 5.4M, writes 7.1M,
// has_topic 7.5M, affiliated_with 1.0M): 1.94M nodes and 20.5M edges, 41M
// with the reverses. magFraction scales it.
var ogbnMag = magShape{
	Papers: 736389, Authors: 1134649, Institutions: 8740, Fields: 59965,
	Features: 128, Classes: 349,
	CitesPer: 7, WritesPer: 6, TopicsPer: 10, AffiliationsPer: 1,
	Homophily: 0.4, Noise: 3,
}

// magFraction returns ogbnMag with its node counts times f (at least one
// node of each type).
func magFraction(f float64) magShape {
	s := ogbnMag
	for _, n := range []*int{&s.Papers, &s.Authors, &s.Institutions, &s.Fields} {
		*n = max(1, int(float64(*n)*f))
	}
	return s
}

// mag is a generated heterograph with a planted class per paper (the
// label) and per node of the other types (hidden), the paper features and
// a random split of the papers.
type mag struct {
	Graph            *hetero.Graph
	Features         []float32 // Papers x Features, row-major
	Labels           []int32   // per paper
	Train, Val, Test []int32   // paper IDs
}

// generateMag draws a mag from seed: every node gets a class; an edge's
// endpoint has its source's class with probability Homophily and a uniform
// class otherwise; paper features are their class centre plus Gaussian
// noise. Papers are split 60/20/20.
func generateMag(s magShape, seed uint64) (*mag, error) {
	r := rand.New(rand.NewPCG(seed, 0x6d6167))
	class := func(n int) ([]int32, [][]int32) {
		c := make([]int32, n)
		by := make([][]int32, s.Classes)
		for i := range c {
			c[i] = int32(r.IntN(s.Classes))
			by[c[i]] = append(by[c[i]], int32(i))
		}
		return c, by
	}
	paperC, paperBy := class(s.Papers)
	authorC, _ := class(s.Authors)
	_, instBy := class(s.Institutions)
	_, fieldBy := class(s.Fields)
	// pick draws a node of class c (with probability Homophily) or any
	// class, from nodes grouped by class.
	pick := func(by [][]int32, n int, c int32) int32 {
		if r.Float64() < s.Homophily && len(by[c]) > 0 {
			return by[c][r.IntN(len(by[c]))]
		}
		return int32(r.IntN(n))
	}
	edges := func(srcC []int32, per int, by [][]int32, n int) *graph.Graph {
		src, dst := make([]int32, 0, len(srcC)*per), make([]int32, 0, len(srcC)*per)
		for u, c := range srcC {
			for range per {
				src, dst = append(src, int32(u)), append(dst, pick(by, n, c))
			}
		}
		g, _ := graph.FromCOO(len(srcC), n, src, dst)
		return g
	}
	rels := map[hetero.EdgeType]*graph.Graph{
		{Src: "paper", Rel: "cites", Dst: "paper"}:                  edges(paperC, s.CitesPer, paperBy, s.Papers),
		{Src: "author", Rel: "writes", Dst: "paper"}:                edges(authorC, s.WritesPer, paperBy, s.Papers),
		{Src: "paper", Rel: "has_topic", Dst: "field_of_study"}:     edges(paperC, s.TopicsPer, fieldBy, s.Fields),
		{Src: "author", Rel: "affiliated_with", Dst: "institution"}: edges(authorC, s.AffiliationsPer, instBy, s.Institutions),
	}
	h, err := hetero.New(map[string]int{"paper": s.Papers, "author": s.Authors, "institution": s.Institutions, "field_of_study": s.Fields}, rels)
	if err != nil {
		return nil, fmt.Errorf("generated graph: %w", err)
	}
	if h, err = h.AddReverse("rev-"); err != nil {
		return nil, err
	}
	centres := make([]float64, s.Classes*s.Features)
	for i := range centres {
		centres[i] = r.NormFloat64() / math.Sqrt(float64(s.Features))
	}
	feat := make([]float32, s.Papers*s.Features)
	for p, c := range paperC {
		for j := range s.Features {
			feat[p*s.Features+j] = float32(centres[int(c)*s.Features+j] + s.Noise*r.NormFloat64()/math.Sqrt(float64(s.Features)))
		}
	}
	perm := r.Perm(s.Papers)
	m := &mag{Graph: h, Features: feat, Labels: paperC}
	for i, p := range perm {
		switch {
		case i < s.Papers*6/10:
			m.Train = append(m.Train, int32(p))
		case i < s.Papers*8/10:
			m.Val = append(m.Val, int32(p))
		default:
			m.Test = append(m.Test, int32(p))
		}
	}
	return m, nil
}
