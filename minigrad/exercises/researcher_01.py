"""Researcher lesson 1, "Try it yourself": the VJP of f(x) = x * sum(x), derived by hand.

The learner writes ``my_vjp(x, v)``, meant to return J^T v for f: R^n -> R^n,
f(x) = x * sum_j x_j, with tensor arithmetic only.  The check compares it, at one x and
one cotangent v in float64, with the VJP reverse mode computes (``autograd.grad`` with
``grad_outputs=v``), and recognises the usual slips: J v in place of J^T v, and one of
the two paths by which x reaches the output left out.
"""

import numpy as np

from ..ops import linalg
from .answers import Unreadable, library_of, reply

__all__ = ["check", "products_with"]


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
    xr = x.clone().requires_grad_()
    (truth,) = torch.autograd.grad(xr * xr.sum(), xr, v)  # reverse mode's own J^T v
    mine = my_vjp(x, v)
    if not isinstance(mine, torch.Tensor) or tuple(mine.shape) != tuple(x.shape):
        shape = tuple(mine.shape) if isinstance(mine, torch.Tensor) else type(mine).__name__
        print(f"my_vjp(x, v) should return a tensor of x's shape ({x.shape[0]},); it returned {shape}.")
        return
    s = x.sum()
    if torch.allclose(mine, truth):
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
    product); on PyTorch the aten ops ``mv``, ``mm``, ``addmv`` and ``addmm``, seen by a
    ``TorchDispatchMode`` below autograd and forward AD.  An operand counts when it shares
    memory with ``matrix`` (A, its transpose, a view).
    """
    calls = []
    if type(matrix).__module__.startswith("minigrad"):
        base = matrix._data

        def watching(cls):
            real = cls.__dict__["forward"]

            def forward(ctx, a, b, *rest):
                if np.shares_memory(a._data, base) or np.shares_memory(b._data, base):
                    calls.append(cls.__name__)
                return real.__func__(ctx, a, b, *rest)
            return real, staticmethod(forward)

        saved = {cls: watching(cls) for cls in (linalg.Mv, linalg.Mm)}
        for cls, (_, new) in saved.items():
            cls.forward = new
        try:
            compute()
        finally:
            for cls, (real, _) in saved.items():
                cls.forward = real
        return len(calls)
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    aten, storage = torch.ops.aten, matrix.untyped_storage().data_ptr()
    watched = {aten.mv.default, aten.mm.default, aten.addmv.default, aten.addmm.default}

    class Watch(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func in watched and any(isinstance(a, torch.Tensor) and a.untyped_storage().data_ptr() == storage
                                       for a in args):
                calls.append(func)
            return func(*args, **(kwargs or {}))

    with Watch():
        compute()
    return len(calls)
