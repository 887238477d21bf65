#!/usr/bin/env python3
"""Convert the edge splits of an OGB link-property dataset to CSV.

OGB ships the train/valid/test splits of its ogbl-* datasets as PyTorch
files, split/<scheme>/{train,valid,test}.pt, each a dict of tensors
(ogbl-collab: edge, weight, year, and edge_neg for valid/test;
ogbl-citation2: source_node, target_node, and target_node_neg for
valid/test). gnn's dataset.LoadOGBLink reads them as plain gzip'd CSV
instead; this script writes, beside every <set>.pt,

    split/<scheme>/<set>/<key>.csv.gz

one file per tensor of the dict, without a header: a 1-D tensor as one value
per row, a 2-D tensor as one comma-separated row per tensor row. Integers are
written as integers, floats in the shortest form that reads back the same.
Values that are not tensors are skipped with a warning.

Usage (PyTorch only, no OGB package needed):

    python3 ogbl_split_to_csv.py DATASET_DIR [--scheme SCHEME] [--trust]

DATASET_DIR is the folder OGB unpacked (holding raw/ and split/), for
example dataset/ogbl_collab. Without --scheme every folder under split/ is
converted. The .pt files are loaded with torch.load(weights_only=True),
which reads tensors and plain containers only; --trust loads them as full
pickles, which can run code: use it only for files from OGB itself. Each
CSV file is written to a temporary name and renamed, so an interrupted run
leaves no half-written file under its final name.
"""

import argparse
import gzip
import os
import sys

import torch

SETS = ("train", "valid", "test")
CHUNK = 1 << 14  # rows converted at once


def load(path, trust):
    """Loads one .pt file as a dict of values."""
    try:
        return torch.load(path, map_location="cpu", weights_only=not trust)
    except TypeError:  # PyTorch older than 1.13: no weights_only
        if not trust:
            sys.exit(f"{path}: this PyTorch cannot load safely (no weights_only); rerun with --trust")
        return torch.load(path, map_location="cpu")


def fmt(x, is_float):
    if is_float:
        return repr(float(x))
    return str(int(x))


def write_tensor(path, t):
    """Writes a 1-D or 2-D tensor as gzip'd CSV at path, atomically."""
    if t.dim() not in (1, 2):
        raise ValueError(f"{path}: a {t.dim()}-D tensor, want 1-D or 2-D")
    is_float = t.is_floating_point()
    if is_float:
        t = t.to(torch.float64)
    tmp = path + ".tmp"
    with gzip.open(tmp, "wt", compresslevel=1, newline="\n") as f:
        # Row chunks, so that a large tensor (ogbl-citation2's 86,956 x 1000
        # negatives) never becomes one Python list.
        for lo in range(0, t.shape[0], CHUNK):
            rows = t[lo:lo + CHUNK].tolist()
            if t.dim() == 1:
                f.write("".join(fmt(x, is_float) + "\n" for x in rows))
            else:
                f.write("".join(",".join(fmt(x, is_float) for x in row) + "\n" for row in rows))
    os.replace(tmp, path)


def convert(scheme_dir, trust):
    for name in SETS:
        pt = os.path.join(scheme_dir, name + ".pt")
        if not os.path.exists(pt):
            sys.exit(f"{pt}: missing")
        d = load(pt, trust)
        if not isinstance(d, dict):
            sys.exit(f"{pt}: holds a {type(d).__name__}, want a dict of tensors")
        out = os.path.join(scheme_dir, name)
        os.makedirs(out, exist_ok=True)
        for key, value in d.items():
            if not isinstance(value, torch.Tensor):
                print(f"{pt}: skipping {key!r}, a {type(value).__name__}", file=sys.stderr)
                continue
            write_tensor(os.path.join(out, key + ".csv.gz"), value)
            print(f"{os.path.join(out, key + '.csv.gz')}: {tuple(value.shape)}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dataset_dir")
    p.add_argument("--scheme", help="the folder under split/ (default: every one)")
    p.add_argument("--trust", action="store_true", help="load the .pt files as full pickles")
    a = p.parse_args()
    split = os.path.join(a.dataset_dir, "split")
    if a.scheme:
        schemes = [a.scheme]
    else:
        if not os.path.isdir(split):
            sys.exit(f"{split}: missing")
        schemes = sorted(e for e in os.listdir(split) if os.path.isdir(os.path.join(split, e)))
        if not schemes:
            sys.exit(f"{split}: no split scheme folder")
    for s in schemes:
        convert(os.path.join(split, s), a.trust)


if __name__ == "__main__":
    main()
