#!/usr/bin/python3
"""Makes the fixtures of gnn's interop tests.

PyG and DGL cannot be installed where these fixtures were made, so every
layer below is a plain-torch module that re-implements the forward formula
of the PyG or DGL layer it names, with that library's exact parameter
names, shapes and layouts (PyTorch's Linear keeps (out, in)), written from
the libraries' documented semantics (PyG 2.x, DGL 1.x). The weights are
random, with non-zero biases and attention vectors; a state dict is saved
in the safetensors format, written by hand (save_safetensors) because the
safetensors package is not installed either.

For each case NAME it writes
  NAME.f64.safetensors  the module's state_dict in float64
  NAME.f32.safetensors  the same weights rounded to float32
  NAME.io.safetensors   inputs and outputs: x64/out64 (float64 forward),
                        x32/out32 (float32 forward), src/dst (I64, the raw
                        graph), and per case ef (edge features), etype,
                        norm, ef_loops (PyG's edge features after its
                        self-loops).
and, with --cora DIR, cora_gcn.f32.safetensors (a PyG-style 2-layer GCN
trained 200 epochs on Cora) and cora_gcn.pred.gz (its predicted class of
every node, one byte each).

Run (Debian's python3-torch): /usr/bin/python3 interop/testdata/make_fixtures.py [--cora ../shared/data/planetoid/cora]
"""

import argparse
import gzip
import json
import os
import struct

import torch
import torch.nn as tnn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------- safetensors

def save_safetensors(path, tensors):
    """Writes tensors (name -> torch.Tensor) in the safetensors format."""
    codes = {torch.float64: ("F64", "d"), torch.float32: ("F32", "f"),
             torch.int64: ("I64", "q")}
    header, blobs, at = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().contiguous()
        dtype, fmt = codes[t.dtype]
        vals = t.flatten().tolist()
        blob = struct.pack("<%d%s" % (len(vals), fmt), *vals)
        header[name] = {"dtype": dtype, "shape": list(t.shape),
                        "data_offsets": [at, at + len(blob)]}
        blobs.append(blob)
        at += len(blob)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - (8 + len(h)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


# -------------------------------------------------------------- graph helpers

def scatter_sum(msg, dst, n):
    out = torch.zeros((n,) + tuple(msg.shape[1:]), dtype=msg.dtype)
    return out.index_add_(0, dst, msg)


def in_degree(dst, n, dtype):
    return scatter_sum(torch.ones(len(dst), dtype=dtype), dst, n)


def scatter_mean(msg, dst, n):
    deg = in_degree(dst, n, msg.dtype).clamp(min=1)
    return scatter_sum(msg, dst, n) / deg.view((-1,) + (1,) * (msg.dim() - 1))


def scatter_max(msg, dst, n):
    """Elementwise max of the messages at each destination, 0 where none."""
    out = torch.zeros((n,) + tuple(msg.shape[1:]), dtype=msg.dtype)
    for v in range(n):
        m = dst == v
        if m.any():
            out[v] = msg[m].max(dim=0).values
    return out


def edge_softmax(score, dst, n):
    """Softmax of score (E, H) over the in-edges of each destination."""
    out = torch.zeros_like(score)
    for v in range(n):
        m = dst == v
        if m.any():
            out[m] = torch.softmax(score[m], dim=0)
    return out


def pyg_remaining_self_loops(src, dst, n, w=None, fill=1.0):
    """PyG's add_remaining_self_loops: drops the loops and appends one per
    node; with weights, a new loop keeps the weight of the node's old loop,
    else fill."""
    mask = src != dst
    loops = torch.arange(n)
    if w is not None:
        lw = torch.full((n,), fill, dtype=w.dtype)
        lw[src[~mask]] = w[~mask]
        w = torch.cat([w[mask], lw])
    return torch.cat([src[mask], loops]), torch.cat([dst[mask], loops]), w


def pyg_replace_self_loops(src, dst, n, ef=None):
    """PyG's remove_self_loops then add_self_loops (fill_value='mean')."""
    keep = src != dst
    src, dst = src[keep], dst[keep]
    loops = torch.arange(n)
    if ef is not None:
        ef = ef[keep]
        ef = torch.cat([ef, scatter_mean(ef, dst, n)])
    return torch.cat([src, loops]), torch.cat([dst, loops]), ef


def dgl_add_self_loop(src, dst, n):
    loops = torch.arange(n)
    return torch.cat([src, loops]), torch.cat([dst, loops])


# ------------------------------------------------------------- PyG modules

class PyGGCNConv(tnn.Module):
    """torch_geometric.nn.GCNConv: lin (no bias), bias; gcn_norm with
    add_remaining_self_loops and (weighted) in-degrees at both ends."""

    def __init__(self, i, o):
        super().__init__()
        self.lin = tnn.Linear(i, o, bias=False)
        self.bias = tnn.Parameter(torch.empty(o))

    def forward(self, x, src, dst, w=None):
        n = x.shape[0]
        src, dst, w = pyg_remaining_self_loops(src, dst, n, w)
        if w is None:
            w = torch.ones(len(src), dtype=x.dtype)
        deg = scatter_sum(w, dst, n)
        dis = deg.pow(-0.5)
        dis[dis == float("inf")] = 0
        norm = dis[src] * w * dis[dst]
        h = self.lin(x)
        return scatter_sum(norm.view(-1, 1) * h[src], dst, n) + self.bias


class PyGGATConv(tnn.Module):
    """torch_geometric.nn.GATConv (2.5 names: lin, or lin_src/lin_dst
    before), att_src, att_dst, lin_edge/att_edge, bias; removes and re-adds
    self-loops, edge features of the loops by fill_value='mean'."""

    def __init__(self, i, c, heads, concat=True, edge_dim=None, old_names=False):
        super().__init__()
        self.h, self.c, self.concat, self.old = heads, c, concat, old_names
        if old_names:
            self.lin_src = tnn.Linear(i, heads * c, bias=False)
            self.lin_dst = self.lin_src
        else:
            self.lin = tnn.Linear(i, heads * c, bias=False)
        self.att_src = tnn.Parameter(torch.empty(1, heads, c))
        self.att_dst = tnn.Parameter(torch.empty(1, heads, c))
        if edge_dim is not None:
            self.lin_edge = tnn.Linear(edge_dim, heads * c, bias=False)
            self.att_edge = tnn.Parameter(torch.empty(1, heads, c))
        else:
            self.lin_edge = None
        self.bias = tnn.Parameter(torch.empty(heads * c if concat else c))

    def forward(self, x, src, dst, ef=None):
        n, H, C = x.shape[0], self.h, self.c
        lin = self.lin_src if self.old else self.lin
        xs = lin(x).view(-1, H, C)
        a_s = (xs * self.att_src).sum(-1)
        a_d = (xs * self.att_dst).sum(-1)
        src, dst, ef = pyg_replace_self_loops(src, dst, n, ef)
        alpha = a_s[src] + a_d[dst]
        if self.lin_edge is not None:
            e = self.lin_edge(ef).view(-1, H, C)
            alpha = alpha + (e * self.att_edge).sum(-1)
        alpha = edge_softmax(F.leaky_relu(alpha, 0.2), dst, n)
        out = scatter_sum(alpha.unsqueeze(-1) * xs[src], dst, n)
        out = out.reshape(n, H * C) if self.concat else out.mean(dim=1)
        return out + self.bias


class PyGGATv2Conv(tnn.Module):
    """torch_geometric.nn.GATv2Conv: lin_l (sources), lin_r (targets, the
    same module with share_weights), att, lin_edge, bias after the
    aggregation."""

    def __init__(self, i, c, heads, concat=True, edge_dim=None, share=False):
        super().__init__()
        self.h, self.c, self.concat, self.share = heads, c, concat, share
        self.lin_l = tnn.Linear(i, heads * c, bias=True)
        self.lin_r = self.lin_l if share else tnn.Linear(i, heads * c, bias=True)
        self.att = tnn.Parameter(torch.empty(1, heads, c))
        self.lin_edge = tnn.Linear(edge_dim, heads * c, bias=False) if edge_dim else None
        self.bias = tnn.Parameter(torch.empty(heads * c if concat else c))

    def state(self):
        sd = self.state_dict()
        if self.share:  # safetensors stores a shared tensor once
            sd = {k: v for k, v in sd.items() if not k.startswith("lin_r.")}
        return sd

    def forward(self, x, src, dst, ef=None):
        n, H, C = x.shape[0], self.h, self.c
        xl = self.lin_l(x).view(-1, H, C)
        xr = xl if self.share else self.lin_r(x).view(-1, H, C)
        src, dst, ef = pyg_replace_self_loops(src, dst, n, ef)
        e = xl[src] + xr[dst]
        if self.lin_edge is not None:
            e = e + self.lin_edge(ef).view(-1, H, C)
        e = F.leaky_relu(e, 0.2)
        alpha = edge_softmax((e * self.att).sum(-1), dst, n)
        out = scatter_sum(alpha.unsqueeze(-1) * xl[src], dst, n)
        out = out.reshape(n, H * C) if self.concat else out.mean(dim=1)
        return out + self.bias


class PyGSAGEConv(tnn.Module):
    """torch_geometric.nn.SAGEConv: lin_l (aggregated neighbours, bias),
    lin_r (root, no bias), lin (project=True, then ReLU)."""

    def __init__(self, i, o, aggr="mean", project=False):
        super().__init__()
        self.aggr = aggr
        if project:
            self.lin = tnn.Linear(i, i, bias=True)
        else:
            self.lin = None
        self.lin_l = tnn.Linear(i, o, bias=True)
        self.lin_r = tnn.Linear(i, o, bias=False)

    def forward(self, x, src, dst):
        n = x.shape[0]
        xs = F.relu(self.lin(x)) if self.lin is not None else x
        if self.aggr == "mean":
            agg = scatter_mean(xs[src], dst, n)
        else:
            agg = scatter_max(xs[src], dst, n)
        return self.lin_l(agg) + self.lin_r(x)


class PyGGINConv(tnn.Module):
    """torch_geometric.nn.GINConv(nn, train_eps=True): eps, nn.*."""

    def __init__(self, mlp, eps):
        super().__init__()
        self.nn = mlp
        self.eps = tnn.Parameter(torch.tensor([eps]))

    def forward(self, x, src, dst):
        n = x.shape[0]
        return self.nn((1 + self.eps) * x + scatter_sum(x[src], dst, n))


class PyGRGCNConv(tnn.Module):
    """torch_geometric.nn.RGCNConv (aggr='mean'): weight (R, in, out), or
    (B, in, out) with comp (R, B), or (R, B, in/B, out/B) with num_blocks;
    root; bias."""

    def __init__(self, i, o, rels, bases=None, blocks=None):
        super().__init__()
        self.rels, self.i, self.o, self.blocks = rels, i, o, blocks
        if bases:
            self.weight = tnn.Parameter(torch.empty(bases, i, o))
            self.comp = tnn.Parameter(torch.empty(rels, bases))
        elif blocks:
            self.weight = tnn.Parameter(torch.empty(rels, blocks, i // blocks, o // blocks))
            self.comp = None
        else:
            self.weight = tnn.Parameter(torch.empty(rels, i, o))
            self.comp = None
        self.root = tnn.Parameter(torch.empty(i, o))
        self.bias = tnn.Parameter(torch.empty(o))

    def forward(self, x, src, dst, etype):
        n = x.shape[0]
        w = self.weight
        if self.comp is not None:
            w = (self.comp @ w.view(w.shape[0], -1)).view(self.rels, self.i, self.o)
        out = x @ self.root + self.bias
        for r in range(self.rels):
            m = etype == r
            h = scatter_mean(x[src[m]], dst[m], n)
            if self.blocks:  # block b of the input times block b of W_r
                h = h.view(n, self.blocks, -1)
                out = out + torch.einsum("abc,bcd->abd", h, w[r]).reshape(n, self.o)
            else:
                out = out + h @ w[r]
        return out


# ------------------------------------------------------------- DGL modules

class DGLGraphConv(tnn.Module):
    """dgl.nn.GraphConv(norm='both'): weight (in, out), bias; out-degree of
    the source and in-degree of the destination, clamped to 1."""

    def __init__(self, i, o):
        super().__init__()
        self.weight = tnn.Parameter(torch.empty(i, o))
        self.bias = tnn.Parameter(torch.empty(o))

    def forward(self, x, src, dst):
        n = x.shape[0]
        out_deg = scatter_sum(torch.ones(len(src), dtype=x.dtype), src, n).clamp(min=1)
        h = x * out_deg.pow(-0.5).view(-1, 1)
        h = scatter_sum(h[src], dst, n) @ self.weight
        in_deg = in_degree(dst, n, x.dtype).clamp(min=1)
        return h * in_deg.pow(-0.5).view(-1, 1) + self.bias


class DGLGATConv(tnn.Module):
    """dgl.nn.GATConv (1.x): fc, attn_l, attn_r, res_fc with the bias when
    the residual is linear."""

    def __init__(self, i, f, heads):
        super().__init__()
        self.h, self.f = heads, f
        self.fc = tnn.Linear(i, heads * f, bias=False)
        self.attn_l = tnn.Parameter(torch.empty(1, heads, f))
        self.attn_r = tnn.Parameter(torch.empty(1, heads, f))
        self.res_fc = tnn.Linear(i, heads * f, bias=True)

    def forward(self, x, src, dst):
        n, H, Fo = x.shape[0], self.h, self.f
        feat = self.fc(x).view(-1, H, Fo)
        el = (feat * self.attn_l).sum(-1)
        er = (feat * self.attn_r).sum(-1)
        a = edge_softmax(F.leaky_relu(el[src] + er[dst], 0.2), dst, n)
        rst = scatter_sum(a.unsqueeze(-1) * feat[src], dst, n)
        rst = rst + self.res_fc(x).view(-1, H, Fo)
        return rst.reshape(n, H * Fo)


class DGLGATv2Conv(tnn.Module):
    """dgl.nn.GATv2Conv: fc_src, fc_dst (with biases), attn; no output
    bias."""

    def __init__(self, i, f, heads):
        super().__init__()
        self.h, self.f = heads, f
        self.fc_src = tnn.Linear(i, heads * f, bias=True)
        self.fc_dst = tnn.Linear(i, heads * f, bias=True)
        self.attn = tnn.Parameter(torch.empty(1, heads, f))

    def forward(self, x, src, dst):
        n, H, Fo = x.shape[0], self.h, self.f
        fs = self.fc_src(x).view(-1, H, Fo)
        fd = self.fc_dst(x).view(-1, H, Fo)
        e = F.leaky_relu(fs[src] + fd[dst], 0.2)
        a = edge_softmax((e * self.attn).sum(-1), dst, n)
        return scatter_sum(a.unsqueeze(-1) * fs[src], dst, n).reshape(n, H * Fo)


class DGLSAGEConv(tnn.Module):
    """dgl.nn.SAGEConv (0.7+): fc_neigh, fc_self (no biases), fc_pool
    ('pool'), bias."""

    def __init__(self, i, o, agg):
        super().__init__()
        self.agg = agg
        if agg == "pool":
            self.fc_pool = tnn.Linear(i, i)
        if agg != "gcn":
            self.fc_self = tnn.Linear(i, o, bias=False)
        self.fc_neigh = tnn.Linear(i, o, bias=False)
        self.bias = tnn.Parameter(torch.empty(o))

    def forward(self, x, src, dst):
        n = x.shape[0]
        if self.agg == "mean":
            rst = self.fc_self(x) + self.fc_neigh(scatter_mean(x[src], dst, n))
        elif self.agg == "gcn":
            deg = in_degree(dst, n, x.dtype).view(-1, 1)
            rst = self.fc_neigh((scatter_sum(x[src], dst, n) + x) / (deg + 1))
        else:
            h = F.relu(self.fc_pool(x))
            rst = self.fc_self(x) + self.fc_neigh(scatter_max(h[src], dst, n))
        return rst + self.bias


class DGLGINConv(tnn.Module):
    """dgl.nn.GINConv(apply_func, 'sum', learn_eps=True): apply_func.*,
    eps."""

    def __init__(self, apply_func, eps):
        super().__init__()
        self.apply_func = apply_func
        self.eps = tnn.Parameter(torch.tensor([eps]))

    def forward(self, x, src, dst):
        n = x.shape[0]
        return self.apply_func((1 + self.eps) * x + scatter_sum(x[src], dst, n))


class TypedLinear(tnn.Module):
    """dgl.nn.TypedLinear: W (R, in, out); basis W (B, in, out) and coeff
    (R, B); bdd W (R, B*in/B*out/B)."""

    def __init__(self, i, o, rels, reg=None, bases=None):
        super().__init__()
        self.i, self.o, self.rels, self.reg, self.b = i, o, rels, reg, bases
        if reg is None:
            self.W = tnn.Parameter(torch.empty(rels, i, o))
        elif reg == "basis":
            self.W = tnn.Parameter(torch.empty(bases, i, o))
            self.coeff = tnn.Parameter(torch.empty(rels, bases))
        else:
            self.W = tnn.Parameter(torch.empty(rels, bases * (i // bases) * (o // bases)))

    def per_edge(self, x, etype):
        if self.reg == "bdd":
            si, so = self.i // self.b, self.o // self.b
            w = self.W[etype].view(-1, si, so)
            return torch.bmm(x.reshape(-1, 1, si), w).view(-1, self.o)
        w = self.W
        if self.reg == "basis":
            w = (self.coeff @ w.view(self.b, -1)).view(self.rels, self.i, self.o)
        return torch.bmm(x.unsqueeze(1), w[etype]).squeeze(1)


class DGLRelGraphConv(tnn.Module):
    """dgl.nn.RelGraphConv (0.8+): linear_r (TypedLinear), loop_weight,
    h_bias; messages W_r x_u times the edge norm, summed."""

    def __init__(self, i, o, rels, reg=None, bases=None):
        super().__init__()
        self.linear_r = TypedLinear(i, o, rels, reg, bases)
        self.loop_weight = tnn.Parameter(torch.empty(i, o))
        self.h_bias = tnn.Parameter(torch.empty(o))

    def forward(self, x, src, dst, etype, norm):
        n = x.shape[0]
        m = self.linear_r.per_edge(x[src], etype) * norm.view(-1, 1)
        return scatter_sum(m, dst, n) + x @ self.loop_weight + self.h_bias


# ------------------------------------------------------------------ cases

def fill_random(module, gen):
    with torch.no_grad():
        for name, p in module.named_parameters():
            p.copy_(torch.randn(p.shape, generator=gen, dtype=torch.float64) * 0.5)
        for name, b in module.named_buffers():
            if name.endswith("running_mean"):
                b.copy_(torch.randn(b.shape, generator=gen, dtype=torch.float64) * 0.3)
            elif name.endswith("running_var"):
                b.copy_(torch.rand(b.shape, generator=gen, dtype=torch.float64) + 0.5)


def make_graph(gen, n=10):
    """About 30 distinct directed edges u -> v with v < n-1, so node n-1
    has no in-edges, plus the self-loop 3 -> 3."""
    seen, src, dst = set(), [], []
    while len(src) < 29:
        u = int(torch.randint(0, n, (1,), generator=gen))
        v = int(torch.randint(0, n - 1, (1,), generator=gen))
        if u != v and (u, v) not in seen:
            seen.add((u, v))
            src.append(u)
            dst.append(v)
    src.insert(12, 3)
    dst.insert(12, 3)
    return torch.tensor(src), torch.tensor(dst)


def run_case(name, module, inputs, state=None):
    """Saves module's weights in both precisions and its outputs."""
    gen = torch.Generator().manual_seed(sum(map(ord, name)))
    module = module.double()
    fill_random(module, gen)
    module.eval()
    io = {}
    for bits, dt in ((64, torch.float64), (32, torch.float32)):
        m = module.to(dt)
        args = [a.to(dt) if torch.is_tensor(a) and a.is_floating_point() else a for a in inputs]
        with torch.no_grad():
            out = m(*args)
        io["x%d" % bits] = args[0]
        io["out%d" % bits] = out
        sd = state(m) if state else m.state_dict()
        save_safetensors(os.path.join(HERE, "%s.f%d.safetensors" % (name, bits)), sd)
        module = m.double()
    return io


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cora", default="")
    args = ap.parse_args()
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(2026)
    n, fin = 10, 6
    src, dst = make_graph(gen, n)
    x = torch.randn(n, fin, generator=gen, dtype=torch.float64)
    ef = torch.randn(len(src), 2, generator=gen, dtype=torch.float64)
    etype = torch.randint(0, 3, (len(src),), generator=gen)
    ew = torch.rand(len(src), generator=gen, dtype=torch.float64) + 0.25  # PyG's edge_weight
    # DGL's usual R-GCN norm: 1 / in-degree per relation.
    norm = torch.zeros(len(src), dtype=torch.float64)
    for r in range(3):
        m = etype == r
        deg = in_degree(dst[m], n, torch.float64)
        norm[m] = 1 / deg[dst[m]]
    ls, ld = dgl_add_self_loop(src, dst, n)
    _, _, ef_loops = pyg_replace_self_loops(src, dst, n, ef)

    common = {"src": src, "dst": dst}
    cases = [
        ("pyg_gcn", PyGGCNConv(fin, 4), (x, src, dst), None, {}),
        ("pyg_gcn_weighted", PyGGCNConv(fin, 4), (x, src, dst, ew), None, {"ew": ew}),
        ("pyg_gat", PyGGATConv(fin, 3, 2, edge_dim=2), (x, src, dst, ef), None,
         {"ef": ef, "ef_loops": ef_loops}),
        ("pyg_gat_mean", PyGGATConv(fin, 3, 2, concat=False, old_names=True), (x, src, dst), None, {}),
        ("pyg_gatv2", PyGGATv2Conv(fin, 3, 2, edge_dim=2), (x, src, dst, ef), None,
         {"ef": ef, "ef_loops": ef_loops}),
        ("pyg_gatv2_shared", PyGGATv2Conv(fin, 3, 2, concat=False, share=True), (x, src, dst),
         lambda m: m.state(), {}),
        ("pyg_sage", PyGSAGEConv(fin, 4), (x, src, dst), None, {}),
        ("pyg_sage_max", PyGSAGEConv(fin, 4, aggr="max", project=True), (x, src, dst), None, {}),
        ("pyg_gin", PyGGINConv(tnn.Sequential(tnn.Linear(fin, 8), tnn.BatchNorm1d(8), tnn.ReLU(),
                                              tnn.Linear(8, 4)), 0.3), (x, src, dst), None, {}),
        ("pyg_rgcn", PyGRGCNConv(fin, 4, 3), (x, src, dst, etype), None, {"etype": etype}),
        ("pyg_rgcn_basis", PyGRGCNConv(fin, 4, 3, bases=2), (x, src, dst, etype), None, {"etype": etype}),
        ("pyg_rgcn_blocks", PyGRGCNConv(fin, 4, 3, blocks=2), (x, src, dst, etype), None, {"etype": etype}),
        ("dgl_graphconv", DGLGraphConv(fin, 4), (x, ls, ld), None, {}),
        ("dgl_gat", DGLGATConv(fin, 4, 2), (x, ls, ld), None, {}),
        ("dgl_gatv2", DGLGATv2Conv(fin, 3, 2), (x, ls, ld), None, {}),
        ("dgl_sage", DGLSAGEConv(fin, 4, "mean"), (x, src, dst), None, {}),
        ("dgl_sage_gcn", DGLSAGEConv(fin, 4, "gcn"), (x, src, dst), None, {}),
        ("dgl_sage_pool", DGLSAGEConv(fin, 4, "pool"), (x, src, dst), None, {}),
        ("dgl_gin", DGLGINConv(tnn.Sequential(tnn.Linear(fin, 8), tnn.ReLU(), tnn.Linear(8, 4)), -0.2),
         (x, src, dst), None, {}),
        ("dgl_rgcn", DGLRelGraphConv(fin, 4, 3), (x, src, dst, etype, norm), None,
         {"etype": etype, "norm": norm}),
        ("dgl_rgcn_basis", DGLRelGraphConv(fin, 4, 3, "basis", 2), (x, src, dst, etype, norm), None,
         {"etype": etype, "norm": norm}),
        ("dgl_rgcn_bdd", DGLRelGraphConv(fin, 4, 3, "bdd", 2), (x, src, dst, etype, norm), None,
         {"etype": etype, "norm": norm}),
    ]
    for name, module, inputs, state, extra in cases:
        io = run_case(name, module, inputs, state)
        io.update(common)
        io.update(extra)
        save_safetensors(os.path.join(HERE, name + ".io.safetensors"), io)
        print(name, "ok")
    if args.cora:
        cora(args.cora)


# ------------------------------------------------------------------- Cora

class PyGGCN(tnn.Module):
    """PyG's example GCN: conv1 (GCNConv in -> 16), ReLU, dropout,
    conv2 (GCNConv 16 -> classes)."""

    def __init__(self, fin, hidden, classes):
        super().__init__()
        self.conv1 = PyGGCNConv(fin, hidden)
        self.conv2 = PyGGCNConv(hidden, classes)

    def forward(self, x, src, dst):
        x = F.dropout(x, 0.5, self.training)
        x = F.relu(self.conv1(x, src, dst))
        x = F.dropout(x, 0.5, self.training)
        return self.conv2(x, src, dst)


def cora(d):
    meta = dict(l.strip().split("=", 1) for l in open(os.path.join(d, "meta.txt")) if "=" in l)
    n, fin, classes = int(meta["num_nodes"]), int(meta["num_features"]), int(meta["num_classes"])
    src, dst = [], []
    for line in open(os.path.join(d, "edges.txt")):
        if line.strip():
            u, v = line.split()
            src.append(int(u))
            dst.append(int(v))
    src, dst = torch.tensor(src), torch.tensor(dst)
    x = torch.zeros(n, fin)
    with gzip.open(os.path.join(d, "features.txt.gz"), "rt") as f:
        for i, line in enumerate(f):
            for tok in line.split():
                j, v = tok.split(":")
                x[i, int(j)] = float(v)
    x = x / x.sum(1, keepdim=True).clamp(min=1)  # PyG's NormalizeFeatures
    y = torch.tensor([int(l) for l in open(os.path.join(d, "labels.txt")) if l.strip()])
    split = {}
    for line in open(os.path.join(d, "split.txt")):
        parts = line.split()
        split[parts[0]] = torch.tensor([int(t) for t in parts[1:]])
    torch.manual_seed(1)
    model = PyGGCN(fin, 16, classes)
    with torch.no_grad():  # PyG's glorot for lin, zeros for bias
        for conv in (model.conv1, model.conv2):
            tnn.init.xavier_uniform_(conv.lin.weight)
            conv.bias.zero_()
    opt = torch.optim.Adam([
        {"params": model.conv1.parameters(), "weight_decay": 5e-4},
        {"params": model.conv2.parameters(), "weight_decay": 0}], lr=0.01)
    for epoch in range(200):
        model.train()
        opt.zero_grad()
        out = model(x, src, dst)
        loss = F.cross_entropy(out[split["train"]], y[split["train"]])
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        logits = model(x, src, dst)
    pred = logits.argmax(1)
    top2 = logits.topk(2, dim=1).values
    margin = float((top2[:, 0] - top2[:, 1]).min())
    acc = float((pred[split["test"]] == y[split["test"]]).float().mean())
    print("cora: test accuracy %.3f, smallest top-2 logit margin %.2e" % (acc, margin))
    save_safetensors(os.path.join(HERE, "cora_gcn.f32.safetensors"), model.state_dict())
    with open(os.path.join(HERE, "cora_gcn.pred.gz"), "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
            f.write(bytes(pred.tolist()))


if __name__ == "__main__":
    main()
