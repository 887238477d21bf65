// Package interop imports weights trained with PyTorch Geometric (PyG) or
// DGL into gnn's layers: a reader (and writer) of the safetensors format,
// and conversions from PyG's and DGL's parameter names and layouts to the
// names of gnn's Learnables.
//
// A user saves a model in Python with
//
//	safetensors.torch.save_file(model.state_dict(), "model.safetensors")
//
// (or save_model, which also handles tied weights), then in Go reads the
// file, converts each layer and copies the values into the gnn model:
//
//	ts, err := interop.ReadSafetensors("model.safetensors")
//	p1, err := interop.PyG(ts, interop.Layer{Kind: "GCNConv", Prefix: "conv1", Name: "gcn1"})
//	p2, err := interop.PyG(ts, interop.Layer{Kind: "GCNConv", Prefix: "conv2", Name: "gcn2"})
//	err = p1.Merge(p2)
//	// ts.Unused() lists any tensor no conversion claimed.
//	conv1, _ := gcn.New(eg, in, 16, gcn.WithName("gcn1"), gcn.WithActivation(nn.ReLU))
//	conv2, _ := gcn.New(eg, 16, classes, gcn.WithName("gcn2"))
//	err = p1.Assign(append(conv1.Learnables(), conv2.Learnables()...))
//
// The conversions depend on nothing but this package's Tensors: they return
// Params, gnn parameter values keyed by gnn's own names ("gcn1.weight"),
// which Assign copies into a built model (checking that every parameter
// gets a value of its shape and dtype and every value its parameter), and
// which Values hands to the WithValues option of the layers that have one.
// A model file format can store them as they are.
//
// # The safetensors reader
//
// The format is an 8-byte little-endian header length N, N bytes of JSON
// header mapping each tensor name to {"dtype", "shape", "data_offsets":
// [begin, end]} plus an optional "__metadata__" object of strings, then the
// tensors' raw little-endian bytes. ParseSafetensors validates all of it:
// the header length against the file (and a 100 MB limit, the reference
// implementation's), one JSON object without duplicate names or unknown
// fields, every dtype, shape and offset pair, that each tensor's byte
// count is its element count times its element size, and that the tensors
// tile the data exactly, without overlap, gap or trailing bytes. Every
// error names the tensor and the problem. F64, F32, F16 and BF16 convert
// to float32 or float64 (F16 and BF16 exactly); I64 and I32 are read as
// integers; other dtypes are refused, naming the tensor.
// FuzzParseSafetensors fuzzes the reader. MarshalSafetensors and
// WriteSafetensors write the format (F32 and F64); with ParamsOf they
// save a gnn model's parameters, in gnn's names and layouts, for Python.
//
// gnn has its own reader rather than github.com/nlpodyssey/safetensors
// (which the module proxy serves): it is a few hundred lines, adds no module
// dependency, and lets gnn decide what it validates and how its errors
// read (which tensor, which offsets), including the F16/BF16 conversions
// and the checks for overlaps and gaps, which are the ones a corrupted or
// hand-edited file trips.
//
// # The mappings
//
// Layer names the PyTorch class (Kind), the module's path in the state
// dict (Prefix: tensors "<Prefix>.<param>") and the gnn layer's name (its
// WithName: values "<Name>.<param>"). A conversion reads every tensor
// under Prefix: a missing one, one the module does not have (or gnn has no
// counterpart for) and a misshapen one are errors naming it. PyTorch's
// Linear keeps its weight as (out, in); gnn multiplies from the right with
// (in, out), so Linear weights are transposed. H is the number of heads, F
// the features per head, D the edge feature width, R relations, B bases.
//
// PyG (torch_geometric.nn):
//
//	GCNConv    lin.weight (out,in) [weight (in,out) before PyG 2.0], bias
//	  -> gcn.GraphConv: weight (in,out) = lin.weightᵀ, bias.
//	  PyG replaces the graph's self-loops by one per node itself
//	  (add_remaining_self_loops): run gnn on PyGSelfLoops(g, ew, 1) (fill
//	  2 with improved=True). PyG normalises an edge u->v by the (weighted)
//	  in-degrees of both ends; gnn's Both (DGL's) uses the out-degree of
//	  u: the same on a symmetric unweighted graph (use gcn.Both), not on a
//	  directed or weighted one, where the layer must be built
//	  WithNorm(gcn.None) and run with ForwardWeighted and the edge weights
//	  PyGGCNNorm(g, ew) (tested on a directed graph, with and without
//	  edge_weight).
//	GATConv    lin.weight (H*F,in) [lin_src.weight, lin_dst.weight before
//	           PyG 2.5], att_src, att_dst (1,H,F), lin_edge.weight (H*F,D),
//	           att_edge (1,H,F), res.weight, bias (H*F, or F if concat=False)
//	  -> gat.GATConv WithHeads(H): weight, attn_l = att_src, attn_r =
//	  att_dst, edge_weight and attn_e (WithEdgeFeatures(D), ForwardEdges),
//	  res_weight (WithResidual(true)), dst_weight (only when lin_dst
//	  differs from lin_src: WithDstIn), bias; with concat=False build
//	  WithMeanHeads(true), and PyG's (F) bias is repeated over the heads
//	  (the mean of x_k + b is the mean of x_k, plus b). PyG removes every
//	  self-loop and adds one per node, the added loops' edge features
//	  being the mean of the node's incoming ones (fill_value="mean"):
//	  PyGAttentionLoops does both. A residual Linear of an input H*F wide
//	  is refused (gnn adds such an input unprojected). negative_slope is
//	  not in the state dict: pass WithNegativeSlope if it is not 0.2.
//	GATv2Conv  lin_l.weight, lin_l.bias (sources), lin_r.weight, lin_r.bias
//	           (destinations; absent when share_weights saved them once),
//	           att (1,H,F), lin_edge.weight, res.weight, bias
//	  -> gatv2.GATv2Conv WithHeads(H), never WithShareWeights: weight_src,
//	  weight_dst, bias_src = lin_l.bias + bias, bias_dst = lin_r.bias -
//	  bias, attn, edge_weight, res_weight (and a zero res_bias). PyG adds
//	  its bias after the aggregation; gnn's GATv2Conv, like DGL's, has none
//	  there. The attention weights of a node sum to 1, so moving the bias
//	  into the source projection adds it to the output, and taking it out of
//	  the destination projection leaves the scores LeakyReLU(z_u + z_v + ...)
//	  unchanged: exact for every node with an in-edge (PyG's self-loops give
//	  every node one; gnn refuses nodes without in-edges unless allowed).
//	  Self-loops, concat=False and residuals as for GATConv.
//	SAGEConv   lin_l.weight, lin_l.bias (aggregated neighbours), lin_r.weight
//	           (root), lin.weight, lin.bias (project=True)
//	  -> sage.SAGEConv: fc_neigh.weight, bias, fc_self.weight (zeros when
//	  root_weight=False), and with aggr="max" and project=True
//	  (Layer.Aggregator "max") the Pool aggregator's fc_pool.weight and
//	  fc_pool.bias. The default aggr="mean" is gnn's Mean (DGL's: the mean
//	  over in-edges, 0 for a node without any; no self-loops added). Other
//	  aggregators, and project=True with the mean, are refused;
//	  normalize=True is not recorded in the state dict and has no gnn
//	  option: L2-normalise the output rows yourself.
//	GINConv    eps (1) (a parameter with train_eps, else a buffer), nn.*
//	  -> gin.GINConv WithLearnEps(true) (at inference a learned ε with the
//	  file's value is the fixed one): eps (1,1); the MLP, which a gin layer
//	  takes as the caller's apply function, as <Name>.nn.<path>.weight
//	  (in,out) and .bias for every Linear, and for every eval-mode
//	  BatchNorm1d the map x*weight + bias with weight = γ/sqrt(var+eps)
//	  and bias = β - mean*weight (Layer.BatchNormEps, default 1e-5;
//	  num_batches_tracked is dropped). PyG sums neighbours: gin's Sum.
//	RGCNConv   weight (R,in,out), or weight (B,in,out) and comp (R,B), or
//	           weight (R,B,in/B,out/B); root (in,out); bias
//	  -> rgcn.RelGraphConv (WithBasis(B), WithBlockDiagonal(B)): weight,
//	  or bases and coeff, or blocks; loop_weight = root (WithSelfLoop(false)
//	  without it); bias. PyG averages each relation's messages
//	  (aggr="mean"): group the graph with rgcn.Group(g, etypes, R,
//	  rgcn.RightNorm(g, etypes, R)).
//
// DGL (dgl.nn.pytorch); gnn's layers follow DGL's semantics, so these
// change layouts and merge biases only:
//
//	GraphConv    weight (in,out), bias -> gcn.GraphConv: weight, bias,
//	  with the same norm (both, right, left, none). dgl.add_self_loop(g) is
//	  g.AddSelfLoops().
//	GATConv      fc.weight (H*F,in) [fc_src.weight, fc_dst.weight for
//	             bipartite input], attn_l, attn_r (1,H,F), res_fc.weight,
//	             res_fc.bias (DGL 1.0 on), bias
//	  -> gat.GATConv WithHeads(H): weight (dst_weight with WithDstIn),
//	  attn_l, attn_r, res_weight (WithResidual(true)), bias = bias +
//	  res_fc.bias. DGL returns (N,H,F), gnn (N,H*F).
//	GATv2Conv    fc_src.weight, fc_src.bias, fc_dst.weight, fc_dst.bias
//	             (absent with share_weights), attn, res_fc.weight, res_fc.bias
//	  -> gatv2.GATv2Conv WithHeads(H) (WithShareWeights(true) without
//	  fc_dst): weight_src, bias_src, weight_dst, bias_dst, attn, res_weight,
//	  res_bias. DGL projects the residual unless the input is F wide, gnn
//	  unless it is H*F wide: a res_fc with an H*F-wide input is refused, and
//	  an unprojected F-wide residual with H > 1 has no gnn counterpart
//	  (Assign then reports res_weight without a value).
//	SAGEConv     fc_neigh.weight, fc_self.weight, fc_pool.weight,
//	             fc_pool.bias, bias (before DGL 0.7 fc_self.bias and
//	             fc_neigh.bias instead)
//	  -> sage.SAGEConv with the aggregator the tensors show: fc_pool: Pool;
//	  no fc_self: GCN; else Mean. bias = the sum of the biases present.
//	  The lstm aggregator is refused.
//	GINConv      eps, apply_func.* -> as PyG's GINConv, the MLP named
//	  <Name>.apply_func.<path>.
//	RelGraphConv linear_r.W (R,in,out), or linear_r.W (B,in,out) and
//	             linear_r.coeff (R,B), or linear_r.W (R,B*in/B*out/B) for
//	             "bdd" (set Layer.Bases to B) [weight and w_comp before
//	             DGL 0.8]; loop_weight; h_bias
//	  -> rgcn.RelGraphConv as for RGCNConv; the edge norm DGL's forward
//	  takes is rgcn.Group's norm. layer_norm=True is refused.
//
// Options that live in the Python constructor and not in the state dict
// (heads' concat, negative slope, aggregators, activations, dropout) must
// be given to the gnn layer by the caller; shapes that reveal them are
// checked.
//
// # How the mappings are tested
//
// PyG and DGL could not be installed where the fixtures were made, so
// testdata/make_fixtures.py re-implements each PyG and DGL layer's forward
// formula in plain PyTorch (Debian's python3-torch), with the libraries'
// exact parameter names, shapes and layouts, written from their documented
// semantics; it writes safetensors files by hand, as the safetensors
// package was not installed either. On a 10-node graph with a self-loop
// and a node without in-edges, with random weights and non-zero biases, it
// saves each module's state dict in float64 and float32 and the outputs.
// TestFixtures converts all 22 configurations and checks gnn's outputs
// within 1e-12 (float64) and 1e-5 (float32); measured: at most 9.4e-16 and
// 8.0e-7. TestCoraPyGGCN loads a 2-layer GCN trained by the script on Cora
// with PyG's GCNConv semantics and names (test accuracy 0.820) and checks
// that gnn predicts PyTorch's class for all 2708 nodes. What these tests
// cannot catch is a difference between the script's re-implementation and
// the real libraries.
package interop
