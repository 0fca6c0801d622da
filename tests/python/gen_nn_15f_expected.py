"""Writes nn_15f_expected.json: torch 2.15's answers to the cases of nn_15f_cases.py. Run with
torch's interpreter: `/work/torch-venv/bin/python tests/python/gen_nn_15f_expected.py` (from the
repository root)."""

import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from nn_15f_cases import CASES  # noqa: E402

out = {name: case(torch, F) for name, case in sorted(CASES.items())}
path = os.path.join(os.path.dirname(__file__), "nn_15f_expected.json")
with open(path, "w") as f:
    json.dump(out, f, indent=0, sort_keys=True)
    f.write("\n")
print(f"wrote {path}: {len(out)} cases")
