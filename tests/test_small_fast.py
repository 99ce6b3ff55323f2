"""ops/small_fast.py's fast paths give what the general paths give.

``x[k, j]``, ``x[k, j] = v`` and ``x += y`` run a fast path when nothing is
recorded (``getitem_fast``, ``setitem_fast``, ``add_fast``).  Each program
below runs twice, once as minigrad is and once with the general paths put
back (``indexing.getitem``, ``inplace.setitem``, the general ``add_``), and
must leave the same observable state: values, dtypes, shapes, versions, which
tensors share memory (a write through a result reaches its source), ``_base``,
``requires_grad``, ``grad_fn`` names, and the same error, type and message.
"""

import warnings

import numpy as np
import pytest

import minigrad
from minigrad.autograd import forward_ad as fwAD
from minigrad.ops import indexing, inplace
from minigrad.tensor import Tensor


def _general_paths(monkeypatch):
    fast_add = Tensor.add_
    monkeypatch.setattr(Tensor, "__getitem__", indexing.getitem)
    monkeypatch.setattr(Tensor, "__setitem__", inplace.setitem)
    monkeypatch.setattr(Tensor, "add_", fast_add.general)
    monkeypatch.setattr(Tensor, "__iadd__", lambda self, other: fast_add.general(self, other))


def _observe(value):
    if isinstance(value, tuple):
        return tuple(_observe(v) for v in value)
    if isinstance(value, Tensor):
        version = "inference" if value.is_inference() else value._version
        return (value._data.tolist(), value.dtype, tuple(value.shape), version,
                value.requires_grad, None if value.grad_fn is None else value.grad_fn.name())
    return value


def _run(program):
    """Fresh tensors, the program, and what it leaves: (its results, the inputs after)."""
    x = minigrad.arange(12.).reshape(3, 4)
    i = minigrad.arange(12).reshape(3, 4)
    w = minigrad.tensor([1., 2., 3.], requires_grad=True)
    env = {"torch": minigrad, "x": x, "i": i, "w": w, "fwAD": fwAD}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = program(env)
            error = None
        except Exception as e:  # noqa: BLE001 (the error is what is compared)
            out, error = None, (type(e).__name__, str(e))
    return (_observe(out), error, _observe((x, i, w)), [str(c.message) for c in caught])


def _shares(a, b):
    return bool(np.shares_memory(a._data, b._data))


PROGRAMS = {
    # reads
    "x[1, 2]": lambda e: e["x"][1, 2],
    "x[1]": lambda e: e["x"][1],
    "x[-1, -2]": lambda e: e["x"][-1, -2],
    "x[tensor(1), 2]": lambda e: e["x"][minigrad.tensor(1), 2],
    "i[tensor(2)]": lambda e: e["i"][minigrad.tensor(2)],
    "x[5] out of range": lambda e: e["x"][5],
    "x[1, 9] out of range": lambda e: e["x"][1, 9],
    "x[1, 2, 3] too many": lambda e: e["x"][1, 2, 3],
    "x[True]": lambda e: e["x"][True],
    "0-d[0]": lambda e: minigrad.tensor(3.)[0],
    "w[1] requires grad": lambda e: e["w"][1],
    "view of view, base": lambda e: (lambda v: (v, v._base is e["x"], v._view_of is not None))(
        e["x"][1][2]),
    "write through a read": lambda e: (lambda v: (v.add_(100), e["x"]))(e["x"][1]),
    "version shared": lambda e: (lambda v: (e["x"].mul_(2), v._version, v))(e["x"][2, 3]),
    "read, then its base requires grad": lambda e: _then_recorded(e["x"]),
    "read, written, then recorded": lambda e: _then_recorded(e["x"], write=True),
    "no_grad view of w": lambda e: (lambda v: (v, v.requires_grad))(
        _under_no_grad(lambda: e["w"][1])),
    "dual under forward mode": lambda e: _dual_read(e),
    "inference tensor": lambda e: (lambda t: (t[1, 1], t[1, 1].is_inference()))(
        _inference(lambda: minigrad.ones(2, 2))),
    # writes
    "x[1] = row": lambda e: e["x"].__setitem__(1, minigrad.tensor([9., 8., 7., 6.])),
    "x[tensor(2), 1] = 0-d": lambda e: e["x"].__setitem__((minigrad.tensor(2), 1),
                                                          minigrad.tensor(-1.)),
    "x[1] = 0-d": lambda e: e["x"].__setitem__(1, minigrad.tensor(5.)),
    "x[1] = int row": lambda e: e["x"].__setitem__(1, minigrad.tensor([1, 2, 3, 4])),
    "i[0] = float row": lambda e: e["i"].__setitem__(0, minigrad.tensor([1.5, 2.5, -3.5, 4.])),
    "x[1] = (1, 4)": lambda e: e["x"].__setitem__(1, minigrad.ones(1, 4)),
    "x[1] = wrong shape": lambda e: e["x"].__setitem__(1, minigrad.ones(3)),
    "x[7] = row": lambda e: e["x"].__setitem__(7, minigrad.ones(4)),
    "x[1] = x[1]": lambda e: e["x"].__setitem__(1, e["x"][1]),
    "x[0] = partial overlap": lambda e: e["x"].__setitem__(0, e["x"].view(-1)[2:6]),
    "x[1] = number": lambda e: e["x"].__setitem__(1, 4.0),
    "x[1] = w (requires grad)": lambda e: e["x"][:, :3].__setitem__(1, e["w"]),
    "expanded[0] = row": lambda e: minigrad.zeros(3).expand(2, 3).__setitem__(
        0, minigrad.ones(3)),
    "view[1] = v reaches base": lambda e: (e["x"][2].__setitem__(1, minigrad.tensor(50.)),
                                           e["x"]),
    "inference write outside": lambda e: _inference(lambda: minigrad.ones(2, 2)).__setitem__(
        0, minigrad.zeros(2)),
    # x += y
    "x[1] += row": lambda e: _iadd_item(e["x"], 1, minigrad.tensor([1., 1., 1., 1.])),
    "x += x": lambda e: _iadd(e["x"], e["x"]),
    "x += 0-d": lambda e: _iadd(e["x"], minigrad.tensor(0.5)),
    "x += number": lambda e: _iadd(e["x"], 2),
    "i += i": lambda e: _iadd(e["i"], e["i"]),
    "x += i (dtypes)": lambda e: _iadd(e["x"], e["i"]),
    "i += x (cast refused)": lambda e: _iadd(e["i"], e["x"]),
    "x.add_(x, alpha=2)": lambda e: e["x"].add_(e["x"], alpha=2),
    "x[1:] += x[:-1] partial": lambda e: _iadd_item(e["x"], slice(1, None), e["x"][:-1]),
    "x += (4,) broadcast": lambda e: _iadd(e["x"], minigrad.ones(4)),
    "float32 overflow": lambda e: _iadd(minigrad.tensor([3e38]), minigrad.tensor([3e38])),
    "expanded += ": lambda e: _iadd(minigrad.zeros(3).expand(2, 3), minigrad.ones(2, 3)),
    "w += (leaf requires grad)": lambda e: _iadd(e["w"], minigrad.ones(3)),
    "x += w (records)": lambda e: _iadd(e["x"][0, :3], e["w"]),
    "no_grad w += ": lambda e: _under_no_grad(lambda: _iadd(e["w"], minigrad.ones(3))),
    "the manual backprop loop": lambda e: _loop(),
}


def _iadd(t, other):
    t += other
    return t


def _iadd_item(t, key, other):
    t[key] += other
    return t


def _then_recorded(x, write=False):
    v = x[1]
    if write:
        x[0] = minigrad.ones(4)
    x.requires_grad_()
    y = (v * 2).sum()
    y.backward()
    return y, v.grad_fn, [f.name() for f, _ in y.grad_fn.next_functions[0][0].next_functions], x.grad


def _under_no_grad(fn):
    with minigrad.no_grad():
        return fn()


def _inference(fn):
    with minigrad.inference_mode():
        return fn()


def _dual_read(e):
    with fwAD.dual_level():
        d = fwAD.make_dual(e["x"], minigrad.ones(3, 4))
        v = d[1, 2]
        return v, fwAD.unpack_dual(v).tangent


def _loop():
    C = minigrad.arange(12.).reshape(4, 3)
    X = minigrad.tensor([[0, 3], [2, 0], [1, 1]])
    demb = minigrad.arange(18.).reshape(3, 2, 3)
    dC = minigrad.zeros_like(C)
    for k in range(X.shape[0]):
        for j in range(X.shape[1]):
            ix = X[k, j]
            dC[ix] += demb[k, j]
    return dC


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fast_equals_general(name, monkeypatch):
    program = PROGRAMS[name]
    fast = _run(program)
    _general_paths(monkeypatch)
    general = _run(program)
    assert fast == general


def test_the_fast_paths_run():
    """The fast paths are what Tensor's methods are (so the comparisons above compare them)."""
    from minigrad.ops import small_fast

    assert Tensor.__getitem__ is small_fast.getitem_fast
    assert Tensor.__setitem__ is small_fast.setitem_fast
    assert Tensor.add_.general is not Tensor.add_
    x = minigrad.zeros(3, 2)
    v = x[1]
    assert _shares(v, x) and v._base is x and v._view_of is x
