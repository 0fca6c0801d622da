"""Records torch's answers to the cases of tests/python/nn_cases.py into nn_expected.json.

Run by hand with torch installed (never by `make test`; the tests read the JSON only):

    /work/torch-venv/bin/python tests/python/gen_nn_expected.py

Inputs are drawn from torch's generator with a fixed seed per case and stored with the answers,
so the tests rebuild exactly the same tensors.
"""

import json
import os
import sys
import warnings
import zlib

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from nn_cases import FAMILIES  # noqa: E402

DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64}


def make_input(spec, gen):
    shape, dtype, kind = spec
    dt = DTYPES[dtype]
    if isinstance(kind, list):
        t = torch.tensor(kind, dtype=dt).reshape(shape)
    elif kind == "randn":
        t = torch.randn(shape, generator=gen, dtype=torch.float64).to(dt)
    elif kind == "rand":
        t = torch.rand(shape, generator=gen, dtype=torch.float64).to(dt)
    elif kind.startswith("int:"):
        t = torch.randint(0, int(kind[4:]), shape, generator=gen, dtype=dt)
    else:
        raise ValueError(kind)
    return t


def encode(v):
    if isinstance(v, torch.Tensor):
        return {"t": str(v.dtype).replace("torch.", ""), "shape": list(v.shape),
                "values": v.detach().reshape(-1).tolist()}
    if isinstance(v, (tuple, list)):
        return {"tuple": [encode(x) for x in v]}
    if isinstance(v, (bool, int, float)):
        return {"py": v}
    raise TypeError(type(v))


def main():
    out = {}
    for family, cases in FAMILIES.items():
        fam = {}
        for cid, inputs, code in cases:
            gen = torch.Generator().manual_seed(zlib.crc32(cid.encode()))
            tensors = {k: make_input(s, gen) for k, s in inputs.items()}
            stored = {k: encode(t) for k, t in tensors.items()}
            env = {"F": F, "T": torch, **{k: t.clone() for k, t in tensors.items()}}
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                try:
                    exec(code, env)
                    expect = {"value": encode(env["out"])}
                except Exception as e:  # noqa: BLE001 - recorded as the expectation
                    expect = {"error": [type(e).__name__, str(e).split("\n")[0]]}
            expect["warnings"] = sorted({str(x.message) for x in w if issubclass(x.category, UserWarning)})
            fam[cid] = {"code": code, "inputs": stored, "expect": expect}
        out[family] = fam
    path = os.path.join(os.path.dirname(__file__), "nn_expected.json")
    # One case a line: readable diffs when a case changes, and a small file.
    with open(path, "w") as f:
        f.write("{\n")
        for fi, family in enumerate(sorted(out)):
            f.write(f"{json.dumps(family)}: {{\n")
            items = sorted(out[family].items())
            for ci, (cid, case) in enumerate(items):
                sep = "," if ci + 1 < len(items) else ""
                f.write(f"{json.dumps(cid)}: {json.dumps(case, sort_keys=True, separators=(',', ':'))}{sep}\n")
            f.write("}" + ("," if fi + 1 < len(out) else "") + "\n")
        f.write("}\n")
    print(f"wrote {sum(len(v) for v in out.values())} cases to {path}")


if __name__ == "__main__":
    main()
