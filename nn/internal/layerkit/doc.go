// Package layerkit is what gnn's layer packages (nn/gcn, nn/gat, ...)
// share, as internal/ops/opkit is for ops: the configuration every layer
// embeds (name, seed, dtype, initial values, dropout mode), the common
// options built on it, one parameter builder that always honours given
// initial values, and the checks at the top of every Forward.
//
// Its tests hold the layers to one contract: checkpoints written by
// earlier versions load and give the same outputs (testdata/v1-*), and every
// layer package under nn/ passes the conformance test.
package layerkit
