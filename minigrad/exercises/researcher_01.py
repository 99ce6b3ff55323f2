"""Researcher lesson 1, "Try it yourself": the VJP of f(x) = x * sum(x), derived by hand.

The learner writes ``my_vjp(x, v)``, meant to return J^T v for f: R^n -> R^n,
f(x) = x * sum_j x_j, with tensor arithmetic only.  The check compares it, at one x and
one cotangent v in float64, with the VJP reverse mode computes (``autograd.grad`` with
``grad_outputs=v``), and recognises the usual slips: J v in place of J^T v, and one of
the two paths by which x reaches the output left out.
"""

import numpy as np

from ..ops import formulas, linalg
from .answers import Unreadable, library_of, reply

__all__ = ["check", "products_with", "products_by_operand"]


def _library(my_vjp):
    """The library ``my_vjp``'s code calls ``torch`` (a function defined in the lesson)."""
    try:
        return library_of(my_vjp)
    except (AttributeError, KeyError):
        raise Unreadable("Define my_vjp in the cell above, as def my_vjp(x, v): return ..."
                         " (or a lambda), using torch's tensor arithmetic.") from None


@reply
def check(my_vjp):
    """Reply to ``my_vjp(x, v)``, a hand-derived J^T v of f(x) = x * sum(x)."""
    if my_vjp is None:
        print("No answer yet: define my_vjp(x, v) in the cell above, run it, then this one.")
        return
    torch = _library(my_vjp)
    x = torch.tensor([0.5, -1.0, 2.0, 1.5], dtype=torch.float64)
    v = torch.tensor([1.0, 2.0, -0.5, 0.25], dtype=torch.float64)
    # J^T v from central differences of f's values alone (no derivative formula, no autograd);
    # f is quadratic, so they are exact up to rounding, about 1e-13 here
    f, h = (lambda z: z * z.sum()), 1e-3
    columns = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in torch.eye(4, dtype=torch.float64)]
    truth = torch.stack(columns, dim=1).t() @ v
    mine = my_vjp(x, v)
    if not isinstance(mine, torch.Tensor) or tuple(mine.shape) != tuple(x.shape):
        shape = tuple(mine.shape) if isinstance(mine, torch.Tensor) else type(mine).__name__
        print(f"my_vjp(x, v) should return a tensor of x's shape ({x.shape[0]},); it returned {shape}.")
        return
    s = x.sum()
    if torch.allclose(mine, truth, rtol=1e-9, atol=1e-10):
        print("Right: J^T v = (sum of x) v + (x . v) 1. The two paths give the two terms.")
    elif torch.allclose(mine, s * v + x * v.sum()):
        print("That is J v, not J^T v: J is not symmetric here. Of its two terms, one per path,")
        print("find the one that is not symmetric, and apply its transpose to v.")
    elif torch.allclose(mine, s * v):
        print("One path only: that is the term through the factor x. x also enters through the sum,")
        print("whose Jacobian is a row of ones; add that path's term.")
    elif torch.allclose(mine, (x * v).sum() * torch.ones_like(x)):
        print("One path only: that is the term through the sum. Add the term through the factor x.")
    else:
        print("Not yet. Write J entry by entry, J_ij = d(x_i s)/dx_j with s = sum of x, then take")
        print("sum_i J_ij v_i.")


def products_with(matrix, compute):
    """How many matrix products ``compute()`` runs with ``matrix`` (or a view of it) as an operand.

    Section 7 counts the sweeps of A that a gradient and forward over reverse make.  Values,
    tangents and the walk's formulas all end in the library's product kernels, so the count
    watches those kernels: on minigrad the ``forward`` of its Mv and Mm functions (every
    ``@``, ``mv`` and ``mm`` of a 2-d operand, recorded or not, and each tangent rule's
    product) and the walk's array-level product (``formulas._ArrayOps.mm``, which a walk
    without ``create_graph`` runs for ``MmBackward0``); on PyTorch the aten ops ``mv``, ``mm``, ``addmv``, ``addmm``, ``bmm`` and
    ``baddbmm``, seen by a ``TorchDispatchMode`` below autograd and forward AD.  An operand
    counts when it shares memory with ``matrix`` (A, its transpose, a view).
    """
    return products_by_operand(matrix, compute)["with_A"]


def products_by_operand(matrix, compute, clock=None):
    """The matrix products ``compute()`` runs, by operand: ``with_A`` (an operand shares memory with
    ``matrix``), ``other_m_by_n`` (none does, but one has ``matrix``'s shape or its transpose's, such
    as a tangent of A materialised as zeros) and ``other``.  With ``clock`` (e.g.
    ``time.process_time``), also ``seconds``: the time spent in each kind's kernels.
    """
    counts = {"with_A": 0, "other_m_by_n": 0, "other": 0}
    seconds = dict.fromkeys(counts, 0.0)
    shapes = {tuple(matrix.shape), tuple(matrix.shape)[::-1]}

    def run(kernel, operands, ours, shape):
        kind = ("with_A" if any(ours(a) for a in operands) else
                "other_m_by_n" if any(shape(a) in shapes for a in operands) else "other")
        start = clock() if clock else 0.0
        out = kernel()
        if clock:
            seconds[kind] += clock() - start
        counts[kind] += 1
        return out

    if type(matrix).__module__.startswith("minigrad"):
        base = matrix._data

        def watching(cls):
            real = cls.__dict__["forward"]

            def forward(ctx, a, b, *rest):
                return run(lambda: real.__func__(ctx, a, b, *rest), (a, b),
                           lambda t: np.shares_memory(t._data, base), lambda t: tuple(t.shape))
            return real, staticmethod(forward)

        def watching_arrays(cls):
            real = cls.__dict__["mm"]

            def mm(a, b):
                return run(lambda: real.__func__(a, b), (a, b),
                           lambda t: np.shares_memory(t, base), lambda t: tuple(t.shape))
            return real, staticmethod(mm)

        saved = {cls: watching(cls) for cls in (linalg.Mv, linalg.Mm)}
        array_mm = watching_arrays(formulas._ArrayOps)
        for cls, (_, new) in saved.items():
            cls.forward = new
        formulas._ArrayOps.mm = array_mm[1]
        try:
            compute()
        finally:
            for cls, (real, _) in saved.items():
                cls.forward = real
            formulas._ArrayOps.mm = array_mm[0]
    else:
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode

        aten, storage = torch.ops.aten, matrix.untyped_storage().data_ptr()
        watched = {aten.mv.default, aten.mm.default, aten.addmv.default, aten.addmm.default,
                   aten.bmm.default, aten.baddbmm.default}
        tensors = lambda args: [a for a in args if isinstance(a, torch.Tensor)]

        class Watch(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                call = lambda: func(*args, **(kwargs or {}))
                if func not in watched:
                    return call()
                return run(call, tensors(args), lambda t: t.untyped_storage().data_ptr() == storage,
                           lambda t: tuple(t.shape))

        with Watch():
            compute()
    return {**counts, "seconds": seconds} if clock else counts
