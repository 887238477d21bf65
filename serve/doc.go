// Package serve answers node-classification queries over HTTP/JSON with a
// trained gnn model: predicted classes and probabilities, and embeddings
// (any layer's outputs), for nodes of a loaded graph and for new nodes
// given in the request with their features and edges (inductive
// inference). It is the library behind cmd/gnnserve and can be mounted in
// any http.Server, or used without HTTP (Server.Predict, Server.Embed).
//
// A Model is any train.Stack with its parameters (a *train.Shared), its
// input width and its sampling fan-outs; it is written against that
// contract, not against a file format, so a model built in code serves as
// well as one read from a file.
//
// How a query is computed:
//
//   - Sampled: when the model (or Config.Fanouts) has fan-outs, each
//     request's distinct nodes are sampled with sampling.MultiLayer and
//     the request's seed (Config.Seed when it gives none), so a request's
//     answer depends only on its nodes and its seed, and equals the
//     model built on that mini-batch (train.BuildBatch) and run.
//   - Full neighbourhood: without fan-outs every layer reads all the
//     in-edges of its destination nodes, so a node's answer equals the
//     model run on the whole graph, for every layer whose output at a node
//     depends only on its in-neighbourhood (SAGEConv, GATConv, GINConv;
//     not GraphConv with the "both" or "left" norms, which read the
//     sources' out-degrees, seen here within the neighbourhood as in DGL's
//     block-wise inference; serve such models with Config.Cache and a
//     Model.Whole).
//   - Cached: with Config.Cache the whole graph's outputs are computed
//     once (Model.Whole when set, train.Inference otherwise), answered by
//     row lookups, and computed again on Server.Refresh (POST /v1/refresh).
//   - Whole graph: a Model marked WholeGraph (layers that propagate several
//     hops, read out-degrees or normalise over their rows) runs only on the
//     whole graph: every layer's outputs are cached, and a request with new
//     nodes runs the model on a copy of the graph with them added.
//
// A Model with SelfLoops is served on the graph with a self-loop on every
// node (new ones included), as models trained that way expect.
//
// Requests that reach the model are batched: one goroutine collects the
// requests that arrive within Config.Window (or until Config.MaxBatch
// nodes) and runs them as one forward pass over the disjoint union of
// their neighbourhoods, each destination node keeping its own in-edges in
// their own order, so that batching does not change any answer.
//
// New nodes (inductive inference): a request may carry nodes that are not
// in the graph, each with its features and its edges to the graph's nodes
// or to the request's other new nodes (numbered N, N+1, ... after the
// graph's N nodes). They are answered through their k-hop neighbourhood
// on the graph with the request's edges added, sampled with the model's
// fan-outs (uniformly without replacement, from a generator seeded by the
// request's seed, the layer and the node's position) or in full.
//
// The HTTP API (see Server.ServeHTTP): GET /healthz, POST /v1/predict,
// POST /v1/embed, POST /v1/refresh and GET /metrics (Prometheus text
// format); Client calls them from Go. Bad requests are answered 4xx with
// {"error": "..."} naming what was wrong; bodies are limited to
// Config.MaxBodyBytes (413 beyond) and requests to Config.Timeout.
//
// Models from files: LoadModel and FromModel serve package model's
// self-describing files, with the fan-outs, self-loops and layer names
// their spec records.
package serve
