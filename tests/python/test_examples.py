"""The examples of python/examples run and learn what torch learns: the digits CNN
(digits_cnn.py) trained for two epochs on `_C` gives torch 2.15's per-epoch losses (recorded from
`train(torch, torch.nn.functional, 2)`, same seeded weights and batches) to float32 rounding."""

import importlib.util
import os

import pytest

import _C
import _C.nn.functional as F

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "examples")

# torch 2.15, CPU: train(torch, torch.nn.functional, epochs=2) of digits_cnn.py.
TORCH_LOSSES = [2.271009883535514, 1.8823463181779048]
TORCH_ACCURACY = 0.5944444537162781  # 214 of the 360 test images


def _load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(EXAMPLES, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.no_refleak  # minutes under the debug interpreter; the ops have refleak tests of their own
def test_digits_cnn_matches_torch_for_two_epochs():
    digits_cnn = _load("digits_cnn")
    lines = []
    losses, accuracy = digits_cnn.train(_C, F, epochs=2, log=lines.append)
    assert losses == pytest.approx(TORCH_LOSSES, rel=1e-4), lines
    # Two predictions flipping on a float32 rounding difference would not be a bug.
    assert abs(accuracy - TORCH_ACCURACY) <= 2 / 360 + 1e-9, lines
    assert any("1437 for training, 360 for test" in line for line in lines)
