"""minigrad.compile(backend="numpy"): regions written out as numpy source (minigrad/jit/codegen_numpy.py).

Values and gradients equal to eager bit for bit, on every call; the semantics
of aot_eager kept (one CompiledFunctionBackward node, freed saved values,
PyTorch's second-backward, in-place and double-backward errors, graph breaks);
a region with a step that has no generated form runs as aot_eager, and
a step with no generated form calls its primitive (the rest of the region is
numpy) and explain names it; a region that cannot be written at all runs as
aot_eager, and explain says why.
"""

import inspect

import numpy as np
import pytest

import minigrad
from minigrad.jit.compile import CompiledFunction


def _eager_and_compiled(fn, make_args, leaves_of, calls=3, backend="numpy"):
    """Run ``fn`` eagerly and compiled on fresh copies; assert outputs and grads equal exactly."""
    cf = minigrad.compile(fn, backend=backend)
    for call in range(calls):
        res = []
        for f in (fn, cf):
            args = make_args(call)
            out = f(*args)
            out.sum().backward() if out._data.ndim else out.backward()
            res.append((out._data.copy(), [None if p.grad is None else p.grad._data.copy()
                                            for p in leaves_of(args)]))
        (o1, g1), (o2, g2) = res
        assert o1.dtype == o2.dtype and o1.shape == o2.shape
        assert np.array_equal(o1, o2, equal_nan=True), (call, o1, o2)
        for a, b in zip(g1, g2):
            assert (a is None) == (b is None)
            if a is not None:
                assert a.dtype == b.dtype and a.shape == b.shape
                assert np.array_equal(a, b, equal_nan=True), (call, a, b)
    return cf


def _leaves(args):
    return [a for a in args if isinstance(a, minigrad.Tensor) and a.requires_grad]


def _t(rng, shape, dtype, grad=True, scale=1.0):
    return minigrad.tensor((rng.standard_normal(shape) * scale).astype(dtype), requires_grad=grad)


def chain(x):
    y = x
    for _ in range(200):
        y = y * 1.0001
    return y


def mlp(x, w1, b1, w2, b2, w3, b3, t):
    h = (x @ w1 + b1).tanh()
    h = (h @ w2 + b2).tanh()
    out = h @ w3 + b3
    return ((out - t) ** 2).mean()


def mixed(x, y, b):
    z = (x * y + b) / (y * y + 2.0)   # broadcasting bias, fan-in on y, a number
    z = -(z.exp() - 0.5 * x) ** 1.5 + 3 * z
    return z.sum() + (z * x).mean()


def wide(x):
    y = x
    for _ in range(20):
        y = (y * 0.9 + 0.1).tanh()
    return y


def first_region(region_of):
    return region_of._minigrad_compiled.graphs[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_programs_equal_eager_bit_for_bit_every_call(dtype):
    def chain_args(call):
        return (minigrad.tensor(np.asarray(1.0 + call / 7, dtype=dtype), requires_grad=True),)

    cf = _eager_and_compiled(chain, chain_args, _leaves)
    assert first_region(cf)._np is not None

    def mlp_args(call):
        rng = np.random.default_rng(call)
        shapes = [(2, 16), (16,), (16, 16), (16,), (16, 1), (1,)]
        return (_t(rng, (32, 2), dtype, False), *[_t(rng, s, dtype, scale=0.5) for s in shapes],
                _t(rng, (32, 1), dtype, False))

    cf = _eager_and_compiled(mlp, mlp_args, _leaves)
    assert first_region(cf)._np is not None

    def mixed_args(call):
        rng = np.random.default_rng(10 + call)
        return _t(rng, (4, 3), dtype), _t(rng, (4, 3), dtype), _t(rng, (3,), dtype)

    cf = _eager_and_compiled(mixed, mixed_args, _leaves)
    assert first_region(cf)._np is not None, first_region(cf).codegen_fallback

    def wide_args(call):
        return (_t(np.random.default_rng(20 + call), (64, 64), dtype),)

    cf = _eager_and_compiled(wide, wide_args, _leaves)
    assert first_region(cf)._np is not None


def test_the_code_is_numpy_one_line_per_operation_named_after_its_node():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    cf = minigrad.compile(lambda x: (x * 2).tanh().sum(), backend="numpy")
    cf(x).backward()
    r = first_region(cf)
    fwd = [line for line in r.code.splitlines()[1:] if " = " in line]  # (not the dels)
    assert len(fwd) == 3  # one line per operation
    assert fwd[0].strip().startswith("v") and "np.multiply" in fwd[0] and "# MulBackward0" in fwd[0]
    assert "# TanhBackward0" in fwd[1] and "# SumBackward0" in fwd[2]
    assert "    del v2" in r.code  # a value neither saved nor an output is dropped after its last use
    assert "Ctx" not in r.code and "ctx" not in r.backward_code
    assert "# TanhBackward0" in r.backward_code and "OMS(" in r.backward_code
    assert "numpy source" in str(minigrad.jit.explain(cf))


def test_on_one_value_arithmetic_is_the_operator_with_the_ufuncs_bits():
    # numpy's scalar arithmetic: the bits of np.multiply etc., without a ufunc call per step
    def f(x, y):
        return -(x * y + 1.5) / (y - 0.25) - 2.0 * x

    for dtype in (np.float32, np.float64):
        def args(call):
            rng = np.random.default_rng(60 + call)
            return _t(rng, (), dtype, scale=3.0), _t(rng, (), dtype, scale=3.0)

        r = first_region(_three_ways(f, args))
        ops = [line.split("=", 1)[1].split("#")[0].strip() for line in r.code.splitlines()
               if "#" in line]
        assert ops[:3] == ["v0 * v1", "v2 + K3", "-v4"] and "np." not in r.code


def test_list_backends_as_pytorch_and_the_invalid_backend_error():
    assert minigrad.jit.list_backends() == ["numpy"]
    assert minigrad.jit.list_backends(exclude_tags=()) == ["aot_eager", "numpy"]
    with pytest.raises(minigrad.jit.InvalidBackend, match="Invalid backend: 'inductor'"):
        minigrad.compile(lambda x: x, backend="inductor")


def test_one_node_per_region_pointing_at_its_inputs():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    w = minigrad.tensor([3.0, 4.0])
    cf = minigrad.compile(lambda x, w: (x * w).sum(), backend="numpy")
    out = cf(x, w)
    assert out.grad_fn.name() == "CompiledFunctionBackward"
    (acc, nr), (none, _) = out.grad_fn.next_functions
    assert acc.variable is x and nr == 0 and none is None


@pytest.mark.parametrize("op", ["tanh", "sqrt"])  # generated; calls its primitive
def test_saved_arrays_freed_second_backward_raises_retain_graph_keeps_them(op):
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    cf = minigrad.compile(lambda x: getattr(x * x, op)().sum(), backend="numpy")
    out = cf(x)
    out.backward(retain_graph=True)
    g1 = x.grad._data.copy()
    out.backward()
    assert np.array_equal(x.grad._data, 2 * g1)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.backward()
    assert first_region(cf)._np is not None


# (x * x).tanh(): generated (saves x and its output); abs saves its input and sqrt its
# output, both steps that call their primitive
@pytest.mark.parametrize("f, writes", [(lambda x: (x * x).tanh(), ("input", "output")),
                                       (lambda x: x.abs(), ("input",)),
                                       (lambda x: (x * 2).sqrt(), ("output",))])
def test_a_saved_input_or_output_written_in_place_raises_as_eager(f, writes):
    for fn in (f, minigrad.compile(f, backend="numpy")):
        for write in writes:
            for _ in range(2):
                x = minigrad.tensor([1.0, 2.0], requires_grad=True)
                xx = x * 1
                y = fn(xx)
                with minigrad.no_grad():
                    (xx if write == "input" else y).add_(1)
                with pytest.raises(RuntimeError, match="modified by an inplace operation.*"
                                                       "is at version 1; expected version 0"):
                    y.sum().backward()
    assert first_region(fn)._np is not None  # (numpy source, not the aot_eager replay)


@pytest.mark.parametrize("f", [lambda x: (x * x * x).sum(),
                               lambda x: (x.abs() * x * x).sum()])  # (abs calls its primitive)
def test_create_graph_gives_a_gradient_whose_backward_raises(f):
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    cf = minigrad.compile(f, backend="numpy")
    (g,) = minigrad.autograd.grad(cf(x), x, create_graph=True)
    assert np.array_equal(g._data, np.array([3.0, 12.0], dtype=np.float32))
    assert g.grad_fn.name() == "CompiledFunctionBackwardBackward"
    with pytest.raises(RuntimeError, match="does not currently support double backward"):
        g.sum().backward()


def test_no_grad_call_records_nothing():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    cf = minigrad.compile(lambda x: (x * 3).exp(), backend="numpy")
    with minigrad.no_grad():
        y = cf(x)
    assert y.grad_fn is None and not y.requires_grad
    assert np.array_equal(y._data, (x * 3).exp()._data)


def _three_ways(fn, make_args, calls=3):
    """``fn`` eager, compiled aot_eager and compiled numpy: outputs and grads equal bit for bit."""
    cf = _eager_and_compiled(fn, make_args, _leaves, calls=calls)
    _eager_and_compiled(fn, make_args, _leaves, calls=calls, backend="aot_eager")
    return cf


def test_a_step_without_a_generated_form_calls_its_primitive_the_rest_is_numpy():
    def f(x, w):
        h = (x * w).clamp(-0.5, 0.5) + (x * x + 1).cumsum(0)  # no generated form; the rest numpy
        return (h * h).sum()

    def args(call):
        rng = np.random.default_rng(30 + call)
        return _t(rng, (4, 3), np.float32), _t(rng, (3,), np.float32)

    cf = _three_ways(f, args)
    r = first_region(cf)
    assert r._np is not None and r.codegen_fallback is None
    called = sorted(r.codegen_calls.values())
    assert called == ["Clamp (no generated form yet)", "Cumsum (no generated form yet)"]
    assert "# ClampBackward1: calls Clamp (no generated form yet)" in r.code
    assert "# CumsumBackward0: calls Cumsum.backward" in r.backward_code
    assert "np.multiply" in r.code and "# AddBackward0" in r.code  # the others: one numpy line
    text = str(minigrad.jit.explain(cf))
    assert ("Graph 1: numpy source, 8 operations (region.code, region.backward_code); calls the "
            "primitive for Clamp (no generated form yet), Cumsum (no generated form yet)") in text


# one program per generated form (values and gradients; float32 and float64): every step
# of its region is a numpy line (no step calls its primitive)
FORMS = {
    "relu": lambda x, w: (x * w).relu(),
    "sigmoid": lambda x, w: (x * w).sigmoid(),
    "log": lambda x, w: (x * x + w * w + 0.5).log(),
    "sin cos": lambda x, w: x.sin() * w.cos(),
    "comparison and where": lambda x, w: minigrad.where(x > 0.1, x * w, w - x),
    "where of two comparisons": lambda x, w: minigrad.where((x * 2 <= w), x.exp(), -w),
    "sum dim": lambda x, w: x.sum(1) * w.sum(0, keepdim=True).sum(-1) + x.sum((0, 1)),
    "mean dim": lambda x, w: x.mean(0) + (w * x).mean(-1, keepdim=True),
    "softmax": lambda x, w: (x * w).softmax(1) + x.softmax(0) * w,
    "log_softmax": lambda x, w: (x * w).log_softmax(-1) * x.log_softmax(0),
    "view reshape": lambda x, w: (x * w).view(12).view(2, 6).reshape(3, 4) * 2,
    "reshape of a transpose": lambda x, w: x.t().reshape(4, 3) * w.t().reshape(4, 3),
    "transpose permute t": lambda x, w: x.transpose(0, 1).permute(1, 0) * w.t().t(),
    "unsqueeze squeeze": lambda x, w: (x.unsqueeze(1) * 3).squeeze(1) + w.unsqueeze(0).squeeze(),
    "expand": lambda x, w: x.sum(1, keepdim=True).expand(3, 4) * w,
    "clone": lambda x, w: x.clone() * w.t().clone().t(),
    "rsub": lambda x, w: 1 - x * w + (2.5 - w),
    "mv": lambda x, w: x @ w[0],
    "dot": lambda x, w: x[0] @ w[1],
    "bmm": lambda x, w: (x.view(3, 2, 2) @ w.view(3, 2, 2).transpose(1, 2)).view(3, 4),
    "linear (addmm)": lambda x, w: minigrad.nn.functional.linear(x, w, w[:, 0]),
    "slice select": lambda x, w: x[0:2] * w[1:3] + x[:, 1:4:2].sum() + x[1] * w[-1],
    "reciprocal, div, neg, pow, exp, tanh": lambda x, w: ((x * x + 1).reciprocal() / (w * w + 1)
                                                       - (w ** 3).exp().tanh()),
    "comparisons": lambda x, w: minigrad.where((x == w) | (x != 0.5) & (x <= w) | (w >= 0.25),
                                               x, w) + minigrad.where(x < w, x, w)
                                 + minigrad.where(minigrad.logical_xor(minigrad.logical_and(
                                     x > 0, w > 0), minigrad.logical_or(x < 0, (x > w) ^ (w < 0))),
                                     x, -x),
    "mm, mean, sum": lambda x, w: (x @ w.t()).mean() + (x.t() @ w).sum(),
    "abs sqrt": lambda x, w: (x * w).abs() + (x * x + w * w).sqrt() + (x - x).abs(),
    "mse_loss": lambda x, w: (minigrad.nn.functional.mse_loss(x * w, w)
                              + minigrad.nn.functional.mse_loss(x, w * 2, reduction="sum")
                              + minigrad.nn.functional.mse_loss(w, x, reduction="none")),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(FORMS))
def test_each_generated_form_equals_eager_and_aot_eager_bit_for_bit(name, dtype):
    form = FORMS[name]

    def f(x, w):
        return form(x, w) * 1.5  # (a region output that is not a view)

    def args(call):
        rng = np.random.default_rng(50 + call)
        return _t(rng, (3, 4), dtype), _t(rng, (3, 4), dtype)

    cf = _three_ways(f, args)
    for r in cf._minigrad_compiled.graphs:
        assert r._np is not None and not r.codegen_calls, (r.codegen_fallback, r.codegen_calls)
    node = {"relu": "ReluBackward0", "softmax": "SoftmaxBackward0", "where of two comparisons":
            "WhereBackward0", "expand": "ExpandBackward0", "linear (addmm)": "AddmmBackward0",
            "slice select": "SliceBackward0"}.get(name)
    if node:
        r = first_region(cf)
        assert f"# {node}" in r.code and f"# {node}" in r.backward_code


def test_every_generated_form_is_exercised_by_the_programs_above():
    from minigrad.jit.codegen_rules import _PLAIN_RULES, rules

    seen = set()
    for form in FORMS.values():
        cf = minigrad.compile(lambda x, w, form=form: form(x, w) * 1.5, backend="numpy")
        x, w = (minigrad.tensor(np.full((3, 4), v, np.float32), requires_grad=True)
                for v in (0.5, 0.25))
        cf(x, w)
        for r in cf._minigrad_compiled.graphs:
            seen |= {s.op if s.kind == "function" else s.name for k, s in enumerate(r.steps)
                     if k not in r.codegen_calls}
    missing = [getattr(c, "__name__", c) for c in list(rules()) + list(_PLAIN_RULES)
               if c not in seen]
    assert not missing, missing


def test_a_comparison_is_one_numpy_line_with_no_node():
    cf = minigrad.compile(lambda x: (x > 0.5) & (x * 2 < 3), backend="numpy")
    x = minigrad.tensor([0.25, 1.0, 2.0], requires_grad=True)
    y = cf(x)
    assert y.grad_fn is None and y.dtype == minigrad.bool
    assert np.array_equal(y._data, [False, True, False])
    r = first_region(cf)
    assert "np.asarray(np.greater(v0, " in r.code and "# gt: no node (a comparison)" in r.code
    assert not r.codegen_calls and "np.asarray(np.bitwise_and(v1, v4))" in r.code


@pytest.mark.parametrize("backend", ["aot_eager", "numpy"])
def test_another_memory_layout_recompiles_and_gradients_stay_eager_ones(backend):
    # mm's backward computes in each operand's layout, so a graph bakes the layout in:
    # PyTorch's TENSOR_MATCH guards strides ("stride mismatch"), and so does minigrad
    def f(x, w):
        return ((x @ w).tanh() * 1.37).sum()

    rng = np.random.default_rng(70)
    cf = minigrad.compile(f, backend=backend)
    for call in range(4):
        xd = rng.standard_normal((16, 12)).astype(np.float32)
        wd = rng.standard_normal((12, 10)).astype(np.float32)
        grads = []
        for fn in (f, cf):
            x = minigrad.tensor(xd)
            leaf = minigrad.tensor(np.ascontiguousarray(wd.T) if call % 2 else wd, requires_grad=True)
            fn(x, leaf.t() if call % 2 else leaf).backward()  # w, or the transpose of a (10, 12)
            grads.append(leaf.grad._data.copy())
        assert np.array_equal(*grads)
    assert len(cf._minigrad_compiled.graphs) == 2
    assert ("tensor 'w' stride mismatch at index 0. expected 10, actual 1"
            in str(minigrad.jit.explain(cf)))


def test_a_called_step_with_several_outputs_or_a_list_of_tensors():
    def f(x):
        values, _ = (x * 2).max(1)            # two outputs (values, indices)
        a, b, c = (x * 3).unbind(0)           # three
        return (values * a + b[1:].sum() * c).sum() + minigrad.cat([x * 2, x], 0).sum()

    def args(call):
        return (_t(np.random.default_rng(40 + call), (3, 3), np.float64),)

    r = first_region(_three_ways(f, args))
    assert r._np is not None and sorted(r.codegen_calls.values()) == [
        "Cat (no generated form yet)", "MaxDim (no generated form yet)",
        "Unbind (no generated form yet)"]
    assert "_t = F" in r.code and "TN(" in r.backward_code


def test_a_factory_with_keyword_arguments_inside_a_region():
    # (the aot_eager replay wrote "**KW{k}" literally for a plain op's keywords: a SyntaxError)
    def f(x):
        return (x * minigrad.full((3,), 0.5, dtype=x.dtype) + minigrad.ones_like(x)).sum()

    def args(call):
        return (_t(np.random.default_rng(45 + call), (3,), np.float64),)

    r = first_region(_three_ways(f, args))
    assert sorted(r.codegen_calls.values()) == ["full (not a differentiable primitive)",
                                                "ones_like (not a differentiable primitive)"]


def test_an_output_that_is_a_view_shares_its_memorys_version_counter_as_aot_eager():
    # a view of a value only the region sees (tanh's saved result), of an input, of an output
    def f(x, w):
        y = (x * w).tanh()
        z = x * 2
        return y.t(), x.t(), z, z[0]

    def args(call):
        rng = np.random.default_rng(48 + call)
        return _t(rng, (2, 3), np.float32, grad=False), _t(rng, (2, 3), np.float32)

    for backend in ("aot_eager", "numpy"):
        cf = minigrad.compile(f, backend=backend)
        for _ in range(2):
            x, w = args(0)
            yt, xt, x2, row = cf(x, w)
            assert xt._base is x and xt._vc is x._vc  # (no node: the caller's tensor's view)
            with minigrad.no_grad():
                yt.add_(1)  # tanh saved y: its backward must refuse
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                yt.sum().backward()
            row.add_(1)
            assert x2._version == 1  # a view of another output: one version counter
    assert first_region(cf)._np is not None and not first_region(cf).codegen_calls

    def both(call):
        rng = np.random.default_rng(49 + call)
        return _t(rng, (2, 3), np.float64), _t(rng, (2, 3), np.float64)

    r = first_region(_three_ways(lambda x, w: (x * w).tanh().t()[1:], both))
    assert r._np is not None and "# SliceBackward0" in r.code  # (values and gradients as eager's)


def test_a_region_that_cannot_be_written_runs_as_aot_eager_and_explain_says_why():
    def f(x):
        return (x * 2).diagonal()   # a view made by a primitive the code calls (diagonal)

    def args(call):
        return (_t(np.random.default_rng(40 + call), (3, 2), np.float64),)

    cf = _three_ways(f, args)
    r = first_region(cf)
    assert r._np is None and "an output that is a view made by a step that calls" in (
        r.codegen_fallback)
    assert "runs as aot_eager: an output that is a view made by a step" in str(
        minigrad.jit.explain(cf))


def test_graph_breaks_each_region_generated_or_not():
    def f(x, w):
        z = (x * w).sum()
        return z * z if z > 5 else z + 1

    cf = minigrad.compile(f, backend="numpy")
    for scale in (1.0, 0.1, 1.0, 0.1):
        res = []
        for fn in (f, cf):
            x = minigrad.tensor([1.0, 2.0], requires_grad=True)
            w = minigrad.tensor([2.0 * scale, 2.0 * scale], requires_grad=True)
            out = fn(x, w)
            out.backward()
            res.append((out._data.copy(), x.grad._data.copy(), w.grad._data.copy()))
        for a, b in zip(*res):
            assert np.array_equal(a, b)
    regions = cf._minigrad_compiled.graphs
    assert len(regions) == 3
    assert all(r._np is not None and not r.codegen_calls for r in regions)
    assert "# gt: no node (a comparison)" in regions[0].code


def test_dynamic_sizes_fall_back_with_eager_gradients():
    def f(x):
        return (x * x).sum()

    cf = minigrad.compile(f, backend="numpy")
    for n in (3, 4, 5):
        x = minigrad.tensor(np.arange(n, dtype=np.float32), requires_grad=True)
        cf(x).backward()
        assert np.array_equal(x.grad._data, 2 * np.arange(n, dtype=np.float32))
    assert any(r.dynamic and "dynamic" in r.codegen_fallback for r in cf._minigrad_compiled.graphs)


# ---------------------------------------------------------------- the jit suite, on this backend

import test_jit as _suite  # noqa: E402

# tests that read the aot_eager replay's own code, or name its backend in their assertions
_AOT_ONLY = {"test_region_code_is_straight_line_python", "test_invalid_backend",
             "test_traced_replay_records_eager_nodes_and_checks_arguments"}
_SUITE = sorted(n for n in dir(_suite) if n.startswith("test_") and n not in _AOT_ONLY
                and callable(getattr(_suite, n)))
# each suite test keeps its own warning filters (pytest reads them from the item it runs)
_SUITE_PARAMS = [pytest.param(n, marks=[m for m in getattr(getattr(_suite, n), "pytestmark", [])
                                        if m.name == "filterwarnings"]) for n in _SUITE]


@pytest.mark.parametrize("name", _SUITE_PARAMS)
def test_the_jit_suite_on_the_numpy_backend(name, monkeypatch, request):
    init = CompiledFunction.__init__

    def numpy_init(self, fn, backend, *a, **k):
        init(self, fn, "numpy", *a, **k)

    monkeypatch.setattr(CompiledFunction, "__init__", numpy_init)
    test = getattr(_suite, name)
    params = [m for m in getattr(test, "pytestmark", []) if m.name == "parametrize"]
    fixtures = {p: request.getfixturevalue(p) for p in inspect.signature(test).parameters
                if not any(p == m.args[0] for m in params)}
    if not params:
        test(**fixtures)
        return
    (mark,) = params  # (test_jit.py's parametrized tests take one argument)
    for value in mark.args[1]:
        test(**fixtures, **{mark.args[0]: value})


# ---------------------------------------------------------------- random programs

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import test_jit_programs as _programs  # noqa: E402

# the vocabulary with a generated form: every region of these programs is numpy source
GEN_UNARY = [lambda a: a.tanh(), lambda a: (a * 0.5).exp(), lambda a: -a, lambda a: a ** 2,
             lambda a: a * 1.5 - 0.25, lambda a: 2.0 / (a * a + 1.0), lambda a: a ** 0.5 * 0 + a,
             lambda a: a.relu(), lambda a: a.sigmoid(), lambda a: (a * a + 1.0).log(),
             lambda a: a.sin() + a.cos(), lambda a: a.softmax(-1), lambda a: a.log_softmax(0),
             lambda a: minigrad.where(a > 0, a, a * 0.5), lambda a: a.t().reshape(a.shape),
             lambda a: a - a.mean(1, keepdim=True), lambda a: a.sum(0).expand(a.shape),
             lambda a: 1.0 - a, lambda a: a * a[0], lambda a: a[:1] + a]
GEN_BINARY = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b,
              lambda a, b: a / (b * b + 1.0), lambda a, b: minigrad.where(a < b, a, b)]
GEN_REDUCE = [lambda a: a.sum(), lambda a: a.mean(), lambda a: (a @ a.t()).sum(),
              lambda a: ((a - 0.5) ** 2).mean(), lambda a: a.sum(1).mean(),
              lambda a: a.mean(0, keepdim=True).sum()]


def gen_program(ops, red):
    def f(x, w, b):
        h = x * w + b
        for kind, k in ops:
            if kind == 0:
                h = GEN_UNARY[k % len(GEN_UNARY)](h)
            else:
                h = GEN_BINARY[k % len(GEN_BINARY)](h, x if k % 2 else w)
        return GEN_REDUCE[red % len(GEN_REDUCE)](h)
    return f


def _run_program(f, n, m, dtype, seed, generated):
    cf = minigrad.compile(f, backend="numpy")
    _programs.assert_compiled_equals_eager(f, cf, n, m, dtype, seed)
    if generated:  # every step of every region a numpy line
        assert all(r._np is not None and not r.codegen_calls
                   for r in cf._minigrad_compiled.graphs), [
            (r.codegen_fallback, r.codegen_calls) for r in cf._minigrad_compiled.graphs]


@settings(max_examples=80, deadline=None)
@given(ops=st.lists(st.tuples(st.integers(0, 1), st.integers(0, 50)), min_size=1, max_size=8),
       red=st.integers(0, 50), n=st.integers(1, 4), m=st.integers(1, 4),
       dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**16))
def test_generated_programs_equal_eager_bit_for_bit(ops, red, n, m, dtype, seed):
    _run_program(gen_program(ops, red), n, m, dtype, seed, generated=True)


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
@settings(max_examples=60, deadline=None)
@given(ops=st.lists(st.tuples(st.integers(0, 1), st.integers(0, 50)), min_size=1, max_size=6),
       branch=st.tuples(st.integers(0, 50), st.booleans()),
       n=st.integers(2, 4), m=st.integers(2, 4),
       dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**16))
def test_jit_programs_vocabulary_on_the_numpy_backend(ops, branch, n, m, dtype, seed):
    _run_program(_programs.program(ops, branch), n, m, dtype, seed, generated=False)


# ---------------------------------------------------------------- PyTorch's recorded jit cases

import test_jit_torch as _parity  # noqa: E402


@pytest.mark.parametrize("name", _parity.cases.CASES)
def test_jit_parity_cases_recorded_from_pytorch_on_the_numpy_backend(name, monkeypatch):
    init = CompiledFunction.__init__

    def numpy_init(self, fn, backend, *a, **k):
        init(self, fn, "numpy", *a, **k)

    monkeypatch.setattr(CompiledFunction, "__init__", numpy_init)
    # explain's text is PyTorch's plus a section of minigrad's own (which graphs are numpy
    # source): compared without that section
    from minigrad.jit.explain import ExplainOutput

    full = ExplainOutput.__str__

    def without_generated(self):
        text = full(self)
        assert "Generated Code (backend 'numpy'):" in text
        head, _, tail = text.partition("Generated Code (backend 'numpy'):\n")
        return head + "".join(line + "\n" for line in tail.splitlines() if not line.startswith("  Graph "))

    monkeypatch.setattr(ExplainOutput, "__str__", without_generated)
    _parity.test_case_matches_pytorch(name, monkeypatch)
