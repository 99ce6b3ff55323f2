"""Tracing a step's backward formula once, so that later backwards run its primitives directly.

A primitive's backward is written with tensor operations (``Mm``'s is
``grad.mm(b.t())`` and ``a.t().mm(grad)``), and each of those pays the full
price of an operation call: the operator, argument checks, ``Function.apply``.
As AOTAutograd traces the backward graph ahead of time, the first backward
through a compiled region records, for each step, which primitives its
backward formula ran on which tensors.  If the recording is *closed* (every
tensor it read was an incoming gradient, a value the step saved, a number,
or made by an earlier primitive of the same recording), the region's backward
code is written again with those primitives called directly, and later
backwards skip the operation calls.

Only the primitives listed in ``TRACEABLE`` are traced: their backward
formulas were read to use tensor operations alone (no numpy on the values, no
Python decision on a value), so their recording does not depend on the data.
Any other step, or a recording that reads something else, keeps calling its
backward formula.  The gradients are the same either way: the same primitives
run on the same values in the same order.

Source: AOTAutograd's joint forward-backward graph (torch/_functorch/aot_autograd.py),
here traced per step from minigrad's own backward formulas.
"""

import numpy as np

from ..autograd import function as _function
from ..tensor import Tensor

__all__ = ["StepProgram", "is_traceable", "program_code", "trace_step_backward"]

_NAMES = {
    "elementwise": ("Add", "Sub", "Rsub", "Mul", "MulScalar", "Div", "Neg", "Reciprocal",
                    "PowTensorScalar", "Exp", "Log", "Tanh", "Sigmoid", "Sqrt", "Sin", "Cos"),
    "reductions": ("Sum", "SumDim", "Mean", "MeanDim"),
    "shape": ("View", "UnsafeView", "T", "Transpose", "Permute", "Expand", "Unsqueeze", "Clone",
              "ToCopy", "SqueezeDim"),
    "linalg": ("Mm", "Mv", "Dot", "Bmm", "Addmm"),
}


def _traceable():
    from .. import ops

    out = set()
    for module, names in _NAMES.items():
        mod = getattr(ops, module)
        for n in names:
            cls = getattr(mod, n, None)
            if cls is not None:
                out.add(cls)
    return frozenset(out)


TRACEABLE = None  # filled on first use (the ops package imports after this module's package)


def is_traceable(cls):
    """True if ``cls``'s backward formula may be traced (see the module docstring)."""
    global TRACEABLE
    if TRACEABLE is None:
        TRACEABLE = _traceable()
    return cls in TRACEABLE


class _NotClosed(Exception):
    pass


class StepProgram:
    """A traced backward: ``calls`` ``(cls, arg_refs, n_outputs or None)`` and ``result`` refs.

    A ref is ``("g", i)`` (incoming gradient i), ``("s", j)`` (saved tensor j),
    ``("v", n, k)`` (output k of call n), ``("c", obj)`` (a constant), or None.
    """

    __slots__ = ("calls", "result")

    def __init__(self, calls, result):
        self.calls = calls
        self.result = result


def trace_step_backward(run, spec, ctx, grads):
    """Run one step's backward through ``run(spec, ctx, grads)`` while recording it.

    Returns:
        (out, program): the gradients, and a ``StepProgram`` if the recording
        is closed (else None).
    """
    if _function.is_tracing():  # a trace is recording already: leave it alone
        return run(spec, ctx, grads), None
    known = {}
    keep = []  # every tensor met stays alive, so no id is reused while recording
    for i, g in enumerate(grads):
        if g is not None:
            known[id(g)] = ("g", i)
            keep.append(g)
    for j, t in enumerate(ctx._jit_saved):
        if isinstance(t, Tensor) and id(t) not in known:
            known[id(t)] = ("s", j)
            keep.append(t)
    calls = []
    closed = [True]

    def ref(a):
        if isinstance(a, Tensor):
            r = known.get(id(a))
            if r is not None:
                return r
            if a._wrapped:
                keep.append(a)
                return ("c", a)
            raise _NotClosed
        if isinstance(a, np.ndarray):
            raise _NotClosed  # data made with numpy inside the formula
        if isinstance(a, (tuple, list)) and any(isinstance(e, Tensor) for e in a):
            raise _NotClosed
        return ("c", a)

    def hook(cls, args, kwargs=None):
        with _function.untraced():
            out = cls.apply(*args, **(kwargs or {}))
        if kwargs:
            closed[0] = False  # keyword arguments: not traced
        if not closed[0]:
            return out
        try:
            refs = tuple(ref(a) for a in args)
        except _NotClosed:
            closed[0] = False
            return out
        outs = out if type(out) is tuple else (out,)
        for k, o in enumerate(outs):
            if isinstance(o, Tensor):
                known[id(o)] = ("v", len(calls), k)
                keep.append(o)
        calls.append((cls, refs, len(outs) if type(out) is tuple else None))
        return out

    with _function.tracing(hook):
        out = run(spec, ctx, grads)
    if not closed[0]:
        return out, None
    result = []
    for g in out:
        if g is None:
            result.append(None)
        elif isinstance(g, Tensor) and id(g) in known:
            result.append(known[id(g)])
        else:
            return out, None
    return out, StepProgram(calls, tuple(result))


def program_code(k, prog, ns, grad_names, ctx_name):
    """Lines of Python running ``prog`` (step ``k``'s backward) directly; its result is ``r``."""
    lines = []

    def name(r):
        if r is None:
            return "None"
        kind = r[0]
        if kind == "g":
            return grad_names[r[1]]
        if kind == "s":
            return f"{ctx_name}._jit_saved[{r[1]}]"
        if kind == "v":
            return f"b{k}_{r[1]}_{r[2]}"
        key = f"BC{k}_{len(ns)}"
        ns[key] = r[1]
        return key

    for n, (cls, refs, n_out) in enumerate(prog.calls):
        ns[f"BF{k}_{n}"] = cls.forward
        ns[f"BN{k}_{n}"] = (False,) * len(refs)
        args = ", ".join(name(r) for r in refs)
        lines.append(f"        Z.needs_input_grad = BN{k}_{n}")
        call = f"BF{k}_{n}(Z" + (", " + args if args else "") + ")"
        if n_out is not None:
            lines.append(f"        _t = {call}")
            lines.extend(f"        b{k}_{n}_{i} = _t[{i}]" for i in range(n_out))
        else:
            lines.append(f"        b{k}_{n}_0 = {call}")
    res = ", ".join(name(r) for r in prog.result)
    lines.append(f"        r = ({res}{',' if len(prog.result) == 1 else ''})")
    return lines
