"""Records torch's answers to tests/python/shape13b_cases.py in shape13b_expected.py. Run by hand
with torch installed: `/work/torch-venv/bin/python tests/python/gen_shape13b_expected.py`."""

import pathlib
import pprint
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from shape13b_cases import cases  # noqa: E402

out = pathlib.Path(__file__).with_name("shape13b_expected.py")
body = pprint.pformat(cases(torch), width=120, sort_dicts=False)
out.write_text(
    f'"""What tests/python/shape13b_cases.py observes under torch {torch.__version__} '
    '(tests/python/gen_shape13b_expected.py); do not edit."""\n\n'
    'inf = float("inf")\nnan = float("nan")\n\n'
    f"EXPECTED = {body}\n"
)
print(f"wrote {out}")
