"""Forward mode for the ops added so that pasted PyTorch code runs (issue 9): JVP = J v.

The cases of ``test_forward_ad`` (same helpers, same check), for the rounding
ops, logarithms, running sums and products, triangles, ``roll``, the nan
reductions, ``median`` and the pointwise ops of two or three tensors.
``test_forward_ad.test_the_cases_cover_every_rule_in_the_table`` counts
these too.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad
from minigrad.ops import exp_log as XL
from tests.test_forward_ad import (
    POSITIVE,
    _binary,
    _fixed,
    _unary,
    _with_dim,
    _with_ties,
    check_jvp_case,
    t64,
)


def _with_nans(a):  # (2, 3) values, two of them nan (a constant added: the gradient there is 0)
    return a + t64([[float("nan"), 0.0, 0.0], [0.0, 0.0, float("nan")]])


def _with_nan(a):  # a nan in its first element (a constant added)
    return a + t64(np.where(np.arange(a.numel()).reshape(a.shape) == 0, np.nan, 0.0))


CASES = {
    # rounding, logarithms, running sums and products (ops/rounding.py, exp_log.py, cumulative.py)
    "rounding": (_unary(lambda a: a.floor() + a.ceil() * a + a.trunc() + a.round() + a.sign() * a
                        + a.round(decimals=1) + a),
                 {"Floor", "Ceil", "Trunc", "Round", "RoundDecimals", "Sign"}),
    "frac": (_unary(lambda a: a.frac() * a), {"Frac"}),
    "log1p_expm1": (_unary(lambda a: a.log1p() + a.expm1(), POSITIVE), {"Log1p", "Expm1"}),
    "log2_log10": (_unary(lambda a: a.log2() * a.log10(), POSITIVE), {"Log2", "Log10"}),
    "add_scalar_op": (_unary(lambda a: XL.AddScalar.apply(a, 2.5) * a), {"AddScalar"}),
    "cumsum": (_with_dim(lambda d, k: lambda a: a.cumsum(d) * a), {"Cumsum"}),
    "cumprod": (_with_dim(lambda d, k: lambda a: a.cumprod(d)), {"Cumprod"}),
    "cumprod_zeros": (_with_ties(lambda a: a.cumprod(-1)), {"Cumprod"}),
    "tril_triu": (_fixed(lambda a: a.tril(-1) * a + minigrad.triu(a, 1), (2, 3, 4)), {"Tril", "Triu"}),
    "roll": (_fixed(lambda a: a.roll((1, -2), (0, 1)) * a + a.roll(3), (2, 3)), {"Roll"}),
    "nansum": (_fixed(lambda a: _with_nans(a).nansum(1) + minigrad.nansum(_with_nans(a * a), dim=(0, 1), keepdim=True)
                      + _with_nans(a).nanmean(), (2, 3)), {"Nansum"}),
    "median": (_with_dim(lambda d, k: lambda a: a.median(d, keepdim=k).values * a.median()), {"MedianAll", "MedianDim"}),
    "median_ties": (_with_ties(lambda a: a.median() + a.median(0).values.sum()), {"MedianAll", "MedianDim"}),
    "fmax_fmin": (_binary(lambda a, b: minigrad.fmax(a, b) * minigrad.fmin(a, b)), {"Fmax", "Fmin"}),
    "fmax_ties_and_nan": (_with_ties(lambda a: minigrad.fmax(a, a.abs()) + minigrad.fmin(_with_nan(a), a)),
                          {"Fmax", "Fmin"}),
    "atan2": (_binary(lambda a, b: minigrad.atan2(a, b), db=POSITIVE), {"Atan2"}),
    "lerp": (_fixed(lambda a, b, w: a.lerp(b, w) + minigrad.lerp(a, b, 0.75) * a.lerp(b, -0.25), (2, 3), (3,), (2, 1)),
             {"LerpTensor", "LerpScalar"}),
    "addcmul_addcdiv": (_fixed(lambda a, b, c: a.addcmul(b, c, value=-1.5) + minigrad.addcdiv(a, b, c * c + 1, value=2),
                               (2, 3), (3,), (2, 1)), {"Addcmul", "Addcdiv"}),
}


@pytest.mark.parametrize("name", sorted(CASES))
@settings(deadline=None, max_examples=6)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_every_jvp_rule_of_the_new_ops_equals_the_reverse_jacobian_times_v(name, data, seed):
    check_jvp_case(*CASES[name], data, seed)
