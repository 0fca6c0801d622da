"""Records torch's answers to the cases of tests/python/linalg_cases.py into
linalg_expected.json (the _C.linalg and _C.special tests read it; see test_linalg_ns.py).

Run by hand with torch installed (never by `make test`):

    /work/torch-venv/bin/python tests/python/gen_linalg_expected.py

Inputs are drawn from torch's generator with a fixed seed per case and stored with the answers.
torch's `torch.linalg.LinAlgError` is recorded by its class name `_LinAlgError`, as
`_C._LinAlgError` is named.
"""

import json
import os
import sys
import zlib

import torch

sys.path.insert(0, os.path.dirname(__file__))
from gen_nn_expected import encode, make_input  # noqa: E402
from linalg_cases import FAMILIES  # noqa: E402


def main():
    out = {}
    for family, cases in FAMILIES.items():
        fam = {}
        for cid, inputs, code in cases:
            gen = torch.Generator().manual_seed(zlib.crc32(cid.encode()))
            tensors = {k: make_input(s, gen) for k, s in inputs.items()}
            stored = {k: encode(t) for k, t in tensors.items()}
            env = {"L": torch.linalg, "S": torch.special, "T": torch,
                   **{k: t.clone() for k, t in tensors.items()}}
            try:
                exec(code, env)
                expect = {"value": encode(env["out"])}
            except Exception as e:  # noqa: BLE001 - recorded as the expectation
                expect = {"error": [type(e).__name__, str(e).split("\n")[0]]}
            fam[cid] = {"code": code, "inputs": stored, "expect": expect}
        out[family] = fam
    path = os.path.join(os.path.dirname(__file__), "linalg_expected.json")
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
