"""Python values a compiled function reads from outside its call are guarded (issue 26).

Dynamo guards each closure cell and global the traced bytecode loads: a number
by value (``EQUALS_MATCH``), so a changed value recompiles instead of replaying
the old one.  The messages are PyTorch's (``TORCH_LOGS="recompiles"`` on 2.13:
``s == 2.0`` for a closure cell, ``G['N'] == 3`` for a global, also when the
global is read by a function the compiled one calls).
"""

import pytest

import minigrad
import importlib

jit_compile = importlib.import_module("minigrad.jit.compile")

BACKENDS = ["aot_eager", "numpy"]
N = 3
T = (2.0, 1)


def helper(x):
    return (x * N).sum()


def calls_helper(x):
    return helper(x) + 1


def reads_tuple(x):
    return (x * T[0]).sum()


def closure_over(s):
    def f(x):
        return (x * s).sum()

    def set_s(v):
        nonlocal s
        s = v
    return f, set_s


def failures(cf):
    return [f for r in cf._minigrad_compiled.recompiles for f in r["failures"]]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_changed_closed_over_float_recompiles_and_follows_eager(backend):
    f, set_s = closure_over(2.0)
    cf = minigrad.compile(f, backend=backend)
    x = minigrad.ones(3, requires_grad=True)
    assert cf(x).item() == 6.0
    set_s(2.5)
    out = cf(x)
    assert out.item() == f(x).item() == 7.5
    (g,) = minigrad.autograd.grad(out, x)
    assert g.tolist() == [2.5, 2.5, 2.5]
    assert [f.split(": ", 1)[1] for f in failures(cf)] == ["s == 2.0"]  # "<frame>/0: ..."
    assert len(cf._minigrad_compiled.entries) == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_unchanged_value_does_not_recompile(backend):
    f, set_s = closure_over(2.0)
    cf = minigrad.compile(f, backend=backend)
    x = minigrad.ones(3)
    for _ in range(3):
        cf(x)
    set_s(2.0)  # the same value again: the guard holds
    cf(x)
    assert len(cf._minigrad_compiled.entries) == 1
    assert failures(cf) == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_global_int_read_by_a_called_function_is_guarded(backend):
    global N
    cf = minigrad.compile(calls_helper, backend=backend)
    x = minigrad.ones(3)
    assert cf(x).item() == 10.0
    N = 5
    try:
        assert cf(x).item() == calls_helper(x).item() == 16.0
    finally:
        N = 3
    assert failures(cf)[0].endswith(": G['N'] == 3")
    assert cf(x).item() == 10.0  # back to 3: the first version's guards hold again
    assert len(cf._minigrad_compiled.entries) == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tuple_of_numbers_is_guarded_by_value(backend):
    global T
    cf = minigrad.compile(reads_tuple, backend=backend)
    x = minigrad.ones(3)
    assert cf(x).item() == 6.0
    T = (7.0, 1)
    try:
        assert cf(x).item() == 21.0
    finally:
        T = (2.0, 1)
    assert failures(cf)[0].endswith(": G['T'] == (2.0, 1)")


class _Holder:
    pass


HOLDER = _Holder()
HOLDER.k = 2.0


def reads_attribute(x):
    return (x * HOLDER.k).sum()


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_attribute_of_a_global_object_is_guarded(backend):
    cf = minigrad.compile(reads_attribute, backend=backend)
    x = minigrad.ones(3)
    assert cf(x).item() == 6.0
    HOLDER.k = 4.0
    try:
        assert cf(x).item() == 12.0
    finally:
        HOLDER.k = 2.0
    assert failures(cf)[0].endswith(": G['HOLDER'].k == 2.0")


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_recompile_limit_still_applies_to_outer_values(backend):
    f, set_s = closure_over(0.0)
    cf = minigrad.compile(f, backend=backend)
    x = minigrad.ones(2)
    limit = jit_compile.config.recompile_limit
    for i in range(limit + 3):
        set_s(float(i))
        assert cf(x).item() == 2.0 * i  # past the limit: eager, still right
    assert len(cf._minigrad_compiled.entries) == limit
    assert any("recompile_limit" in f for f in cf._minigrad_compiled.fallbacks)
