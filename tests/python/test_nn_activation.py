"""_C.nn.functional, the activation family: torch 2.15's values, errors and warnings for the cases
of nn_cases.py (recorded in nn_expected.json by gen_nn_expected.py; torch is not imported)."""

import pytest
from nn_harness import cases, check

CASES = cases("activation")


@pytest.mark.parametrize("cid", sorted(CASES))
def test_case(cid):
    check(CASES[cid])
