"""minigrad.jit: trace, compile, guards, graph breaks, explain, drawing.

PyTorch's own behaviour is pinned in test_jit_torch.py (recorded fixtures);
here: exact gradient equality with eager code over many shapes and paths,
finite differences in float64, guards on globals, captured tensors and
parameters updated in place, the eager fallbacks, the recompile limit, and
that the recording hook leaves nothing behind.
"""

import logging
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

import minigrad
from minigrad.autograd import function as _function
from minigrad.jit.recording import Recorder


def f_branch(x, w):
    z = (x * w).sum()
    return z * z if z > 5 else z + 1


def _grads(fn, args, leaves):
    for p in leaves:
        p.grad = None
    out = fn(*args)
    out.backward()
    return out, [p.grad._data.copy() for p in leaves]


def _params(dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(2, 16), (16,), (16, 16), (16,), (16, 1), (1,)]
    return [minigrad.tensor((rng.standard_normal(s) * 0.5).astype(dtype), requires_grad=True)
            for s in shapes]


def mlp(x, w1, b1, w2, b2, w3, b3, t):
    h = (x @ w1 + b1).tanh()
    h = (h @ w2 + b2).sigmoid()
    out = h @ w3 + b3
    return ((out - t) ** 2).mean()


# ---------------------------------------------------------------- the hook


def test_recorder_leaves_nothing_behind_even_on_error():
    bool_before = minigrad.Tensor.__dict__["__bool__"]
    gt_before = minigrad.gt

    def broken(x):
        x * 2
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        minigrad.compile(broken)(minigrad.ones(2))
    assert _function._tracer is None
    assert minigrad.Tensor.__dict__["__bool__"] is bool_before
    assert minigrad.gt is gt_before
    assert Recorder._active is None


def test_nested_recording_is_refused():
    def inner(x):
        return x * 2

    def outer(x):
        return minigrad.compile(inner)(x) + 1

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="another trace is recording"):
            minigrad.jit.trace(outer, (minigrad.ones(2),))
    assert _function._tracer is None


# ---------------------------------------------------------------- gradients


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mlp_gradients_equal_eager_exactly_every_call(dtype):
    x = minigrad.tensor(np.random.default_rng(1).standard_normal((8, 2)).astype(dtype))
    t = minigrad.tensor(np.random.default_rng(2).standard_normal((8, 1)).astype(dtype))
    params = _params(dtype)
    eager_out, eager = _grads(mlp, (x, *params, t), params)
    cf = minigrad.compile(mlp, backend="aot_eager")
    for _ in range(4):  # first call, first traced backward, replays with the traced plan
        out, got = _grads(cf, (x, *params, t), params)
        assert out.grad_fn.name() == "CompiledFunctionBackward"
        assert np.array_equal(out._data, eager_out._data)
        assert all(np.array_equal(a, b) for a, b in zip(eager, got))
    assert len(cf._minigrad_compiled.graphs) == 1


def test_fan_in_broadcasting_and_several_outputs():
    def f(x, b):
        y = x * b + x          # b broadcasts over rows; x is used three times
        parts = y.split(1, dim=0)
        return (parts[0] * x[0]).sum() + parts[1].exp().sum() + (y * y).mean()

    x = minigrad.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], requires_grad=True)
    b = minigrad.tensor([0.1, 0.2, 0.3], requires_grad=True)
    _, eager = _grads(f, (x, b), [x, b])
    cf = minigrad.compile(f)
    for _ in range(3):
        _, got = _grads(cf, (x, b), [x, b])
        assert all(np.array_equal(a, g) for a, g in zip(eager, got))


def test_gradcheck_through_a_compiled_function_float64():
    def f(x, w):
        return ((x @ w).tanh() * x.sum()).sum()

    x = minigrad.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
    w = minigrad.tensor(np.random.default_rng(1).standard_normal((4, 2)), requires_grad=True)
    assert minigrad.autograd.gradcheck(minigrad.compile(f), (x, w))


def test_autograd_grad_and_retain_graph_through_a_region():
    x = minigrad.tensor([1.0, 2.0, 3.0])
    w = minigrad.tensor([1.0, 1.0, 1.0], requires_grad=True)
    cf = minigrad.compile(f_branch)
    r = cf(x, w)
    (g,) = minigrad.autograd.grad(r, w, retain_graph=True)
    assert g.tolist() == [12.0, 24.0, 36.0]
    r.backward(retain_graph=True)
    r.backward()
    assert w.grad.tolist() == [24.0, 48.0, 72.0]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        r.backward()


def test_both_sides_of_the_branch_match_eager_for_many_inputs():
    rng = np.random.default_rng(3)
    cf = minigrad.compile(f_branch)
    w = minigrad.tensor([1.0, 1.0, 1.0], requires_grad=True)
    for _ in range(30):
        x = minigrad.tensor(rng.uniform(0, 4, size=3).astype(np.float32))
        out, got = _grads(cf, (x, w), [w])
        ref, want = _grads(f_branch, (x, w), [w])
        assert np.array_equal(out._data, ref._data)
        assert np.array_equal(got[0], want[0])
    assert len(cf._minigrad_compiled.graphs) == 3


def test_no_grad_call_records_nothing():
    cf = minigrad.compile(f_branch)
    with minigrad.no_grad():
        r = cf(minigrad.tensor([1.0, 2.0, 3.0]), minigrad.ones(3, requires_grad=True))
    assert r.grad_fn is None and not r.requires_grad and r.item() == 36.0


def test_create_graph_gives_a_gradient_whose_backward_raises():
    w = minigrad.ones(3, requires_grad=True)
    r = minigrad.compile(lambda x, w: (x * w).sum())(minigrad.tensor([1.0, 2.0, 3.0]), w)
    (g,) = minigrad.autograd.grad(r, w, create_graph=True)
    assert type(g.grad_fn).__name__ == "CompiledFunctionBackwardBackward"
    with pytest.raises(RuntimeError, match="does not currently support double backward"):
        g.sum().backward()


# ---------------------------------------------------------------- guards and graph breaks

SCALE = 2.0


def scaled(x):
    return x * SCALE


def test_a_global_number_is_guarded():
    global SCALE
    cf = minigrad.compile(scaled)
    assert cf(minigrad.ones(2)).tolist() == [2.0, 2.0]
    SCALE = 3.0
    try:
        assert cf(minigrad.ones(2)).tolist() == [3.0, 3.0]
    finally:
        SCALE = 2.0
    rec = cf._minigrad_compiled.recompiles
    assert rec and rec[0]["failures"][0].endswith("/0: G['SCALE'] == 2.0")


def test_parameters_updated_in_place_are_read_each_call():
    minigrad.manual_seed(0)
    net = minigrad.nn.Sequential(minigrad.nn.Linear(2, 4), minigrad.nn.Tanh(), minigrad.nn.Linear(4, 1))
    opt = minigrad.optim.SGD(net.parameters(), lr=0.1)
    x, t = minigrad.randn(5, 2), minigrad.randn(5, 1)

    def loss_fn(x, t):
        return ((net(x) - t) ** 2).mean()

    cf = minigrad.compile(loss_fn)
    losses_c, losses_e = [], []
    state = [p.detach().clone() for p in net.parameters()]
    for _ in range(5):
        opt.zero_grad()
        loss = cf(x, t)
        loss.backward()
        opt.step()
        losses_c.append(loss.item())
    for p, s in zip(net.parameters(), state):
        with minigrad.no_grad():
            p.copy_(s)
    for _ in range(5):
        opt.zero_grad()
        loss = loss_fn(x, t)
        loss.backward()
        opt.step()
        losses_e.append(loss.item())
    assert losses_c == losses_e
    assert len(cf._minigrad_compiled.graphs) == 1


def test_compile_a_module_and_use_as_decorator():
    minigrad.manual_seed(0)
    net = minigrad.nn.Sequential(minigrad.nn.Linear(2, 3), minigrad.nn.Tanh())
    cnet = minigrad.compile(net)
    x = minigrad.randn(4, 2)
    out = cnet(x)
    assert type(cnet).__name__ == "OptimizedModule"
    assert repr(cnet).startswith("OptimizedModule(\n  (_orig_mod): Sequential(")
    assert [n for n, _ in cnet.named_parameters()][0] == "_orig_mod.0.weight"
    assert "L['input']: tensor" in str(minigrad.jit.explain(cnet))
    assert out.grad_fn.name() == "CompiledFunctionBackward"
    assert np.array_equal(out._data, net(x)._data)

    @minigrad.compile(backend="aot_eager")
    def g(x):
        return x.relu().sum()

    assert g(minigrad.tensor([-1.0, 2.0])).item() == 2.0


def test_item_break_guards_on_the_value():
    def f(x):
        y = x * 2
        v = y.sum().item()
        return y * v

    cf = minigrad.compile(f)
    for data in ([1.0, 1.0], [2.0, 3.0], [1.0, 1.0]):
        x = minigrad.tensor(data, requires_grad=True)
        out, got = _grads(lambda x: cf(x).sum(), (x,), [x])
        ref, want = _grads(lambda x: f(x).sum(), (x,), [x])
        assert np.array_equal(out._data, ref._data) and np.array_equal(got[0], want[0])
    st = cf._minigrad_compiled
    assert len(st.graphs) == 3  # the graph before .item(), one after it per value seen


def test_fullgraph_refuses_a_graph_break():
    with pytest.raises(minigrad.jit.Unsupported, match="Data-dependent branching"):
        minigrad.compile(f_branch, fullgraph=True)(minigrad.ones(3), minigrad.ones(3))


def test_in_place_and_numpy_made_tensors_run_eagerly():
    def inplace(x):
        y = x * 2
        y.add_(1)
        return y.sum()

    cf = minigrad.compile(inplace)
    for data in ([1.0, 2.0], [3.0, 0.5]):
        x = minigrad.tensor(data, requires_grad=True)
        assert cf(x).item() == inplace(x).item()
    assert "Ran eagerly:" in str(minigrad.jit.explain(cf))


def test_values_read_with_numpy_are_a_graph_break_and_guarded():
    def from_numpy(x):
        m = minigrad.tensor(x.detach().numpy() > 1)  # the values leave the graph here
        idx = (x * 10).to(minigrad.int64)            # no Function: recorded as a plain step
        return (x * m).sum() + idx.sum()

    cf = minigrad.compile(from_numpy)
    for data in ([1.0, 2.0], [3.0, 0.5], [1.0, 2.0], [0.1, 0.2]):
        x = minigrad.tensor(data, requires_grad=True)
        assert cf(x).item() == from_numpy(x).item()
    report = minigrad.jit.explain(cf)
    assert "Unsupported Tensor.numpy() call" in str(report) and "Ran eagerly" not in str(report)
    assert len(report.graphs) == 1 + 3  # before the break, then one per array of values seen


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_trace_warns_about_a_tensor_made_inside():
    def f(x):
        return x * minigrad.tensor([1.0, 2.0])

    with pytest.warns(minigrad.jit.TracerWarning, match="registered as constants in the trace"):
        minigrad.jit.trace(f, (minigrad.ones(2),), check_trace=False)


def test_recompile_limit_warns_then_runs_eagerly(caplog):
    cf = minigrad.compile(lambda x: (x * 2).sum(), dynamic=False)
    with caplog.at_level(logging.WARNING, logger="minigrad.jit"):
        for n in range(1, 11):
            out = cf(minigrad.ones(n, requires_grad=True))
    assert len(cf._minigrad_compiled.entries) == 8
    assert out.grad_fn.name() == "SumBackward0"  # eager past the limit, as PyTorch
    assert "hit config.recompile_limit (8)" in caplog.text


def test_invalid_backend():
    with pytest.raises(minigrad.jit.InvalidBackend, match="Invalid backend: 'inductor'"):
        minigrad.compile(f_branch, backend="inductor")


# ---------------------------------------------------------------- explain and pictures


def test_explain_reports_graphs_breaks_guards_and_recompiles():
    x, w = minigrad.tensor([1.0, 2.0, 3.0]), minigrad.tensor([1.0, 1.0, 1.0], requires_grad=True)
    report = minigrad.jit.explain(f_branch, x, w)
    assert (report.graph_count, report.graph_break_count) == (2, 1)
    assert report.ops_per_graph == [["mul", "sum", "gt"], ["mul"]]
    text = str(report)
    assert "Reason: generic_jump TensorVariable()" in text
    assert f"line {f_branch.__code__.co_firstlineno + 2} in f_branch" in text
    assert "L['w']: tensor, dtype Float, size [3], requires_grad=True" in text
    assert str(minigrad.jit.explain(f_branch)(x, w)) == text

    cf = minigrad.compile(f_branch)
    cf(x, w)
    cf(minigrad.ones(4), minigrad.ones(4, requires_grad=True))
    text = str(minigrad.jit.explain(cf))
    assert "Recompiles:" in text
    assert "tensor 'x' size mismatch at index 0. expected 3, actual 4" in text


def test_draw_a_traced_function_and_a_compiled_graph():
    import minigrad.viz

    x, w = minigrad.tensor([1.0, 2.0, 3.0]), minigrad.tensor([1.0, 1.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = minigrad.jit.trace(f_branch, (x, w))
    pic = minigrad.viz.draw(traced)
    assert pic.text.splitlines() == [
        "static graph of f_branch: 2 inputs, 3 operations",
        "  input %x: Float(3)",
        "  input %w: Float(3), requires grad",
        "  1. aten::mul(%x, %w) -> %2 Float(3)",
        "  2. aten::sum(%2, None) -> %z Float()",
        "  3. aten::mul(%z, %z) -> %7 Float()",
        "  returns %7",
    ]
    assert "in1 -> op0" in pic.source and 'label="%z"' in pic.source
    cf = minigrad.compile(f_branch)
    cf(x, w)
    region_pic = minigrad.viz.draw(cf._minigrad_compiled.graphs[0])
    assert "aten::gt(%z, 5)" in region_pic.text
    assert region_pic.text.endswith("returns %6, %z")


def test_traced_replay_records_eager_nodes_and_checks_arguments():
    x, w = minigrad.tensor([1.0, 2.0, 3.0]), minigrad.tensor([1.0, 1.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = minigrad.jit.trace(f_branch, (x, w))
    out = traced(x * 0.1, w)
    assert out.grad_fn.name() == "MulBackward0"
    out.backward()
    assert np.allclose(w.grad.numpy(), [0.12, 0.24, 0.36])
    with pytest.raises(TypeError, match="expected 2 tensor argument"):
        traced(x)
    assert "z = torch.sum(torch.mul(x, w))" in traced.code and "if" not in traced.code


def test_region_code_is_straight_line_python():
    cf = minigrad.compile(f_branch)
    cf(minigrad.tensor([1.0, 2.0, 3.0]), minigrad.ones(3, requires_grad=True))
    g1 = cf._minigrad_compiled.graphs[0]
    assert g1.code.startswith("def forward(v0, v1):")
    assert "RUN" in g1.backward_code and "return (None, G1)" in g1.backward_code


W_GLOBAL = minigrad.tensor([2.0, 3.0], requires_grad=True)


def uses_global_in_one_branch(x):
    if x.sum() > 0:
        return (x * W_GLOBAL).sum()
    return x.sum()


def test_a_captured_tensor_first_met_in_a_later_branch():
    cf = minigrad.compile(uses_global_in_one_branch)
    assert cf(minigrad.tensor([-1.0, -2.0])).item() == -3.0
    W_GLOBAL.grad = None
    out = cf(minigrad.tensor([1.0, 1.0]))
    out.backward()
    assert out.item() == 5.0 and W_GLOBAL.grad.tolist() == [1.0, 1.0]


def f_bias(x, b):
    return (x * b + b).tanh().sum()


def test_automatic_dynamic_sizes_give_eager_gradients_exactly():
    cf = minigrad.compile(f_bias)
    b = minigrad.tensor([0.5, -1.0], requires_grad=True)
    rng = np.random.default_rng(0)
    for n in (3, 4, 7, 2, 9):
        x = minigrad.tensor(rng.standard_normal((n, 2)).astype(np.float32))
        out, got = _grads(cf, (x, b), [b])
        ref, want = _grads(f_bias, (x, b), [b])
        assert np.array_equal(out._data, ref._data) and np.array_equal(got[0], want[0])
    st = cf._minigrad_compiled
    assert len(st.graphs) == 2 and st.entries[1].dynamic
    assert "L['x']: tensor, dtype Float, size [s, 2]" in str(minigrad.jit.explain(cf))


def test_a_function_that_reads_a_size_keeps_sizes_guarded():
    def reads_size(x):
        return x.sum() * x.shape[0]  # the size becomes a constant of the graph

    cf = minigrad.compile(reads_size)
    for n in (3, 4, 5):
        assert cf(minigrad.ones(n)).item() == n * n
    assert len(cf._minigrad_compiled.graphs) == 3  # PyTorch: 2 (its sizes are symbolic)


def test_dynamic_sizes_and_a_branch():
    cf = minigrad.compile(f_branch)
    for n, scale in ((3, 1.0), (4, 1.0), (5, 0.01), (6, 1.0), (7, 0.01)):
        x = minigrad.ones(n) * scale
        w = minigrad.ones(n, requires_grad=True)
        out, got = _grads(cf, (x, w), [w])
        ref, want = _grads(f_branch, (x, w), [w])
        assert np.array_equal(out._data, ref._data) and np.array_equal(got[0], want[0])
    assert not cf._minigrad_compiled.fallbacks


def test_sizes_one_then_more_become_dynamic_as_pytorch():
    cf = minigrad.compile(lambda x: (x * 2).sum())
    for n in range(1, 11):
        assert cf(minigrad.ones(n)).item() == 2 * n
    assert len(cf._minigrad_compiled.graphs) == 2


def test_a_dropped_output_frees_its_region_at_once():
    import gc
    import weakref

    def f(x):
        return (x * 2).tanh()  # tanh saves its result, which is the region's output

    cf = minigrad.compile(f)
    x = minigrad.ones(3, requires_grad=True)
    cf(x)
    gc.disable()
    try:
        out = cf(x)
        node = weakref.ref(out.grad_fn)
        del out
        assert node() is None  # freed by reference counting: no cycle through saved values
    finally:
        gc.enable()


def test_a_decision_with_many_outcomes_stops_compiling_at_the_limit():
    def f(x):
        return x ** x.sum().item()  # the number is an argument of pow, not a tensor: baked

    cf = minigrad.compile(f)
    for k in range(12):
        assert cf(minigrad.ones(2) * k).tolist() == f(minigrad.ones(2) * k).tolist()
    st = cf._minigrad_compiled
    assert len(st.graphs) == 1 + 8 and st.fallbacks


def test_from_the_second_number_the_graph_after_item_reads_it():
    def f(x):
        y = x * 2
        v = y.sum().item()
        return (y * v + v).sum()

    cf = minigrad.compile(f)
    for k in (1.0, 2.0, 3.0, 0.5, 1.0):
        x = minigrad.tensor([k, 2 * k], requires_grad=True)
        out, got = _grads(cf, (x,), [x])
        ref, want = _grads(f, (x,), [x])
        assert np.array_equal(out._data, ref._data) and np.array_equal(got[0], want[0])
    assert len(cf._minigrad_compiled.graphs) == 3  # as PyTorch: before, first value, any value


def test_trace_refuses_an_in_place_operation():
    def f(x):
        y = x * 2
        y.add_(1)
        return y

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="does not record in-place operations"):
            minigrad.jit.trace(f, (minigrad.ones(2),))


def test_trace_a_module_reads_its_parameters_as_inputs():
    minigrad.manual_seed(0)
    net = minigrad.nn.Sequential(minigrad.nn.Linear(2, 3), minigrad.nn.Tanh())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = minigrad.jit.trace(net, (minigrad.ones(4, 2),))
    assert [v.debugName() for v in traced.graph.inputs()] == ["input", "self.0.weight", "self.0.bias"]
    assert [n.kind for n in traced.graph.operations()] == ["aten::linear", "aten::tanh"]
    with minigrad.no_grad():
        net[0].weight.mul_(2)  # the replay reads the parameters as they are now
    x = minigrad.randn(4, 2)
    assert np.array_equal(traced(x)._data, net(x)._data)
    assert "self_0_weight: Tensor" in traced.code


def test_a_script_piped_to_python_gets_the_tracer_warning_not_a_crash():
    # (its __main__'s loader cannot give source lines: warn_explicit with module_globals
    # raised ImportError '__main__' is not a built-in module; PyTorch warns and goes on)
    import subprocess
    import sys

    script = (
        "import minigrad\n"
        "def f(x):\n"
        "    if x.sum() > 0:\n"
        "        return x * 2\n"
        "    return x * 3\n"
        "g = minigrad.jit.trace(f, (minigrad.ones(3, requires_grad=True),))\n"
        "print(g(minigrad.ones(3)).tolist())\n"
    )
    root = Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True,
                         cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
    assert run.returncode == 0, run.stderr
    assert run.stdout == "[2.0, 2.0, 2.0]\n"
    assert "<stdin>:3: TracerWarning: Converting a tensor to a Python boolean" in run.stderr
