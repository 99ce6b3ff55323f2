"""The ``"numpy"`` backend's rule table: each primitive's generated form, forward and backward.

A ``Rule`` says how one primitive is written as one line of numpy: the
expression its forward computes, the arrays its backward reads, the gradient
expression for each input, and when it has no generated form (a check that
names why; the step then calls its primitive).  ``rules()`` maps each
``Function`` class with a generated form to its rule; the comparisons and
logic (no node) have rules of their own; ``rule_for(step)`` looks a step up
and ``_check_step(step)`` says why a step has no generated form.  The helpers
the generated lines call (``SOFTMAX``, ``PUT``, ``MSE``, ...) are here too,
next to the rules that name them.

Separate from ``codegen_numpy.py``, which plans a region and writes its
forward and backward (order, fan-in, what is saved and dropped, the steps
that call their primitive): this is the per-primitive table it reads, one
entry per primitive, the part that grows when a primitive gets a generated form.
"""

import math

import numpy as np

from ..ops import elementwise as E
from ..ops import indexing as Ix
from ..ops import linalg as L
from ..ops import reductions as Rd
from ..ops import shape as Sh
from ..ops._util import canonical_dim, reduction_dims
from ..nn import functional as NF
from .recording import Value

__all__ = ["RULES", "Rule", "rule_for", "rules"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


# ---------------------------------------------------------------- the rules, one per primitive
#
# A rule gives, for a step with argument expressions ``a`` (names of arrays, or of constants):
#   fwd(a, step, ns) -> the forward expression;
#   saves(step) -> which arguments (positions, or a Value) or "out" the backward reads;
#   bwd(a, out, g, step, ns) -> {argument position: gradient expression} for the needed inputs;
#   check(step) -> None, or why this step has no generated form (it then calls its primitive).
# Expressions are written as the primitive's forward and the formula on ARRAY_OPS compute them.
# (An argument that is a tuple of tensors, where's boxed condition, comes as a list of names.)


class Rule:
    """How one primitive is written as numpy: see the comment above; ``node`` names its line."""

    def __init__(self, node, fwd, saves, bwd, check=None, elementwise=False, view=False,
                 typed=None, op=None):
        self.node, self.fwd, self.saves, self.bwd = node, fwd, saves, bwd
        # on 0-d values the operator (``v2 * K3``): numpy's scalar arithmetic, the ufunc's
        # bits for a fifth of its call's cost (a ufunc call on one value is mostly overhead)
        self.op = op
        self.check = check
        self.view = view  # the output shares the input's memory (and, in eager, its version)
        # gradients come out in the output's (broadcast) shape: True, or those positions'
        self.elementwise = elementwise
        # the argument positions that must share the output's float dtype (None: every tensor;
        # () for a comparison: its numpy call is eager's own, whatever the dtypes)
        self.typed = typed


def _alpha_one(s):
    if len(s.args) > 2 and s.args[2] != 1:
        return "alpha other than 1"
    return None


def _const(ns, value):
    key = f"C{len(ns)}"
    ns[key] = value
    return key


def _pow_check(s):
    e = s.args[1]
    if isinstance(e, bool) or not isinstance(e, (int, float)) or e == 0:
        return "an exponent that is not a nonzero number"
    return None


def _mm_bwd(a, out, g, s, ns):
    res = {}
    A, B = s.args[0], s.args[1]
    if s.needs[0]:  # mm_mat1_backward: in mat1's layout
        res[0] = (f"np.matmul({a[1]}, {g}.T).T" if _transposed(A)
                  else f"np.matmul({g}, {a[1]}.T)")
    if s.needs[1]:  # mm_mat2_backward: in mat2's layout
        res[1] = (f"np.matmul({g}.T, {a[0]}).T" if _transposed(B)
                  else f"np.matmul({a[0]}.T, {g})")
    return res


def _addmm_bwd(a, out, g, s, ns):
    # addmm(input, mat1, mat2) with alpha = beta = 1: input's gradient is grad (summed back
    # over the broadcast bias), the matrices' are mm's (in their layouts)
    res = {1 + k: v for k, v in _mm_bwd(a[1:], out, g, _Shifted(s), ns).items()}
    if s.needs[0]:
        res[0] = g
    return res


class _Shifted:
    """An addmm step seen as the mm of its last two arguments (for ``_mm_bwd``)."""

    def __init__(self, s):
        self.args, self.needs = s.args[1:], s.needs[1:]


def _transposed(v):
    st = v.strides
    return len(st) == 2 and st[0] == 1 and st[1] == v.shape[0]


def _rules():
    R = {}

    def need(s, i):
        return s.needs[i]

    R[E.Add] = Rule("AddBackward0", lambda a, s, ns: f"np.add({a[0]}, {a[1]})", lambda s: (),
                    lambda a, o, g, s, ns: {i: g for i in (0, 1) if need(s, i)},
                    check=_alpha_one, elementwise=True, op="+")
    R[E.Sub] = Rule("SubBackward0", lambda a, s, ns: f"np.subtract({a[0]}, {a[1]})", lambda s: (),
                    lambda a, o, g, s, ns: {i: (g if i == 0 else f"-{g}")
                                            for i in (0, 1) if need(s, i)},
                    check=_alpha_one, elementwise=True, op="-")
    R[E.Mul] = Rule("MulBackward0", lambda a, s, ns: f"np.multiply({a[0]}, {a[1]})",
                    lambda s: tuple(j for i, j in ((0, 1), (1, 0)) if s.needs[i]),
                    lambda a, o, g, s, ns: {i: f"{g} * {a[1 - i]}" for i in (0, 1) if need(s, i)},
                    elementwise=True, op="*")
    R[E.Div] = Rule("DivBackward0", lambda a, s, ns: f"np.true_divide({a[0]}, {a[1]})",
                    lambda s: ((1,) if any(s.needs[:2]) else ()) + ((0,) if s.needs[1] else ()),
                    lambda a, o, g, s, ns: {
                        **({0: f"{g} / {a[1]}"} if need(s, 0) else {}),
                        **({1: f"-{g} * (({a[0]} / {a[1]}) / {a[1]})"} if need(s, 1) else {})},
                    elementwise=True, op="/")
    R[E.Neg] = Rule("NegBackward0", lambda a, s, ns: f"np.negative({a[0]})", lambda s: (),
                    lambda a, o, g, s, ns: {0: f"-{g}"}, op="-")
    R[E.Reciprocal] = Rule(
        "ReciprocalBackward0",
        lambda a, s, ns: f"np.reciprocal({a[0]}, dtype={_const(ns, s.args[0].dtype)})",
        lambda s: ("out",), lambda a, o, g, s, ns: {0: f"-{g} * {o} * {o}"})
    R[Sh.T] = Rule("TBackward0", lambda a, s, ns: f"{a[0]}.T", lambda s: (),
                   lambda a, o, g, s, ns: {0: f"{g}.T"}, view=True)
    R[E.Tanh] = Rule("TanhBackward0", lambda a, s, ns: f"RO(np.tanh, m_tanh, {a[0]})",
                     lambda s: ("out",), lambda a, o, g, s, ns: {0: f"{g} * OMS({o})"})
    R[E.Exp] = Rule("ExpBackward0", lambda a, s, ns: f"RO(np.exp, m_exp, {a[0]})",
                    lambda s: ("out",), lambda a, o, g, s, ns: {0: f"{g} * {o}"})
    R[E.PowTensorScalar] = Rule(
        "PowBackward0",
        lambda a, s, ns: f"PSA({a[0]}, {_const(ns, s.args[1])}).astype({_const(ns, s.args[0].dtype)}, copy=False)",
        lambda s: (0,),
        lambda a, o, g, s, ns: {0: f"{g} * np.multiply(PSA({a[0]}, {_const(ns, s.args[1] - 1)}), "
                                   f"{_const(ns, s.args[1])})"},
        check=_pow_check)
    R[L.Mm] = Rule("MmBackward0", lambda a, s, ns: f"np.matmul({a[0]}, {a[1]})",
                   lambda s: tuple(j for i, j in ((0, 1), (1, 0)) if s.needs[i]), _mm_bwd)
    R[Rd.Sum] = Rule(
        "SumBackward0",
        lambda a, s, ns: f"np.asarray({a[0]}.sum(dtype={_const(ns, s.args[0].dtype)}))",
        lambda s: (), lambda a, o, g, s, ns: {0: f"EXPAND({g}, {_const(ns, s.args[0].shape)})"},
        check=lambda s: "a dtype argument" if len(s.args) > 1 and s.args[1] is not None else None)
    R[Rd.Mean] = Rule(
        "MeanBackward0",
        lambda a, s, ns: f"np.asarray({a[0]}.mean(dtype={_const(ns, s.args[0].dtype)}))",
        lambda s: (),
        lambda a, o, g, s, ns: {0: f"DIVS(EXPAND({g}, {_const(ns, s.args[0].shape)}), "
                                   f"{_const(ns, math.prod(s.args[0].shape))})"})
    R[E.Relu] = Rule(  # PyTorch's x < 0 ? 0 : x (keeps -0.0 and nan); threshold_backward
        "ReluBackward0", lambda a, s, ns: f"SEL({a[0]} < 0, {a[0]}, zero_where=True)",
        lambda s: ("out",), lambda a, o, g, s, ns: {0: f"SEL({o} <= 0, {g}, zero_where=True)"})
    R[E.Sigmoid] = Rule(
        "SigmoidBackward0",
        lambda a, s, ns: f"{_one(ns, s)} / ({_one(ns, s)} + np.exp(-{a[0]}))",
        lambda s: ("out",), lambda a, o, g, s, ns: {0: f"{g} * (1 - {o}) * {o}"})
    R[E.Log] = Rule("LogBackward0", lambda a, s, ns: f"np.log({a[0]})", lambda s: (0,),
                    lambda a, o, g, s, ns: {0: f"{g} / {a[0]}"})
    R[E.Sin] = Rule("SinBackward0", lambda a, s, ns: f"np.sin({a[0]})", lambda s: (0,),
                    lambda a, o, g, s, ns: {0: f"{g} * np.cos({a[0]})"})
    R[E.Cos] = Rule("CosBackward0", lambda a, s, ns: f"np.cos({a[0]})", lambda s: (0,),
                    lambda a, o, g, s, ns: {0: f"{g} * -np.sin({a[0]})"})
    R[E.Abs] = Rule("AbsBackward0", lambda a, s, ns: f"np.abs({a[0]})", lambda s: (0,),
                    lambda a, o, g, s, ns: {0: f"{g} * SGN({a[0]})"})  # sgn: 0 at 0 and nan
    R[E.Sqrt] = Rule("SqrtBackward0", lambda a, s, ns: f"np.sqrt({a[0]})", lambda s: ("out",),
                     lambda a, o, g, s, ns: {0: f"{g} / (2 * {o})"})  # inf at 0, as eager
    R[E.Where] = Rule(  # where((cond,), a, b): the condition comes boxed, never differentiated
        "WhereBackward0",
        lambda a, s, ns: (f"np.where({a[0][0]}, {a[1]}, {a[2]})"
                          f".astype({_const(ns, s.outputs[0].dtype)}, copy=False)"),
        lambda s: (s.args[0][0],) if s.needs[1] or s.needs[2] else (),
        lambda a, o, g, s, ns: {
            **({1: f"np.where({a[0][0]}, {g}, {_zero(ns, s)})"} if s.needs[1] else {}),
            **({2: f"np.where({a[0][0]}, {_zero(ns, s)}, {g})"} if s.needs[2] else {})},
        elementwise=True, typed=(1, 2))
    R[E.Rsub] = Rule(  # other - self for a Python number other, in self's dtype
        "RsubBackward1",
        lambda a, s, ns: f"np.subtract({a[1]}, {a[0]}, dtype={_const(ns, s.outputs[0].dtype)})",
        lambda s: (), lambda a, o, g, s, ns: {0: f"-{g}"}, check=_alpha_one)
    R[L.Mv] = Rule(
        "MvBackward0", lambda a, s, ns: f"np.matmul({a[0]}, {a[1]})",
        lambda s: tuple(j for i, j in ((1, 0), (0, 1)) if s.needs[i]),
        lambda a, o, g, s, ns: {  # grad.unsqueeze(1).mm(v.unsqueeze(0)), a.t().mv(grad)
            **({0: f"np.matmul(np.expand_dims({g}, 1), np.expand_dims({a[1]}, 0))"}
               if s.needs[0] else {}),
            **({1: f"np.matmul({a[0]}.T, {g})"} if s.needs[1] else {})})
    R[L.Dot] = Rule(
        "DotBackward0", lambda a, s, ns: f"np.asarray(np.dot({a[0]}, {a[1]}))",
        lambda s: tuple(j for i, j in ((1, 0), (0, 1)) if s.needs[i]),
        lambda a, o, g, s, ns: {i: f"{g} * {a[1 - i]}" for i in (0, 1) if s.needs[i]})
    R[L.Bmm] = Rule(
        "BmmBackward0", lambda a, s, ns: f"np.matmul({a[0]}, {a[1]})",
        lambda s: tuple(j for i, j in ((0, 1), (1, 0)) if s.needs[i]),
        lambda a, o, g, s, ns: {  # grad.bmm(b.transpose(1, 2)), a.transpose(1, 2).bmm(grad)
            **({0: f"np.matmul({g}, np.swapaxes({a[1]}, 1, 2))"} if s.needs[0] else {}),
            **({1: f"np.matmul(np.swapaxes({a[0]}, 1, 2), {g})"} if s.needs[1] else {})})
    R[L.Addmm] = Rule(  # mat1 @ mat2, the bias added into the product (as eager: out=prod)
        "AddmmBackward0", lambda a, s, ns: f"ADDMM({a[0]}, {a[1]}, {a[2]})",
        lambda s: tuple(j for i, j in ((1, 2), (2, 1)) if s.needs[i]), _addmm_bwd,
        check=lambda s: None if _arg(s, 3, 1) == 1 and _arg(s, 4, 1) == 1 else "alpha or beta not 1",
        elementwise=(0,))
    R[NF.MseLoss] = Rule(  # mse_loss(input, target, reduction code): its backward on Tensors,
        "MseLossBackward0",  # grad * scale * (x - y), is these numpy calls in this order
        lambda a, s, ns: f"MSE({a[0]}, {a[1]}, {s.args[2]})", lambda s: (0, 1),
        lambda a, o, g, s, ns: {
            **({0: f"{g} * {_mse_scale(s)} * ({a[0]} - {a[1]})"} if s.needs[0] else {}),
            **({1: f"{g} * {_mse_scale(s)} * ({a[1]} - {a[0]})"} if s.needs[1] else {})})
    # basic indexing: x[1:3], x[:, 2], x[0]; the backward writes grad into zeros (PUT)
    R[Ix.Slice] = Rule(
        "SliceBackward0", lambda a, s, ns: f"{a[0]}[{_const(ns, _slice_key(s))}]", lambda s: (),
        lambda a, o, g, s, ns: {0: f"PUT({g}, {_const(ns, _slice_key(s))}, "
                                   f"{_const(ns, s.args[0].shape)})"},
        check=lambda s: None if s.args[4] is None or s.args[4] > 0 else "a step not positive",
        view=True)
    R[Ix.Select] = Rule(
        "SelectBackward0", lambda a, s, ns: f"{a[0]}[{_const(ns, _select_key(s) + (Ellipsis,))}]",
        lambda s: (),
        lambda a, o, g, s, ns: {0: f"PUT({g}, {_const(ns, _select_key(s))}, "
                                   f"{_const(ns, s.args[0].shape)})"},
        check=lambda s: None if s.args[0].shape else "a 0-d input", view=True)
    R[Rd.SumDim] = Rule(
        "SumBackward1",
        lambda a, s, ns: (f"np.asarray({a[0]}.sum(axis={_const(ns, _dims(s))}, "
                          f"keepdims={bool(s.args[2])}, dtype={_const(ns, s.args[0].dtype)}))"),
        lambda s: (), lambda a, o, g, s, ns: {0: f"EXPAND({_keepdim_grad(g, s, ns)}, "
                                                f"{_const(ns, s.args[0].shape)})"},
        check=lambda s: "a dtype argument" if len(s.args) > 3 and s.args[3] is not None else None)
    R[Rd.MeanDim] = Rule(
        "MeanBackward1",
        lambda a, s, ns: (f"np.asarray({a[0]}.sum(axis={_const(ns, _dims(s))}, "
                          f"keepdims={bool(s.args[2])}, dtype={_const(ns, s.args[0].dtype)}) / "
                          f"{_const(ns, s.args[0].dtype.type(_count(s)))}, "
                          f"dtype={_const(ns, s.args[0].dtype)})"),
        lambda s: (), lambda a, o, g, s, ns: {0: f"DIVS(EXPAND({_keepdim_grad(g, s, ns)}, "
                                                f"{_const(ns, s.args[0].shape)}), {_count(s)})"})
    R[Rd.Softmax] = Rule(
        "SoftmaxBackward0", lambda a, s, ns: f"SOFTMAX({a[0]}, {_dim(s)})", lambda s: ("out",),
        lambda a, o, g, s, ns: {0: f"SMB({g}, {o}, {_dim(s)})"}, check=_nonempty)
    R[Rd.LogSoftmax] = Rule(
        "LogSoftmaxBackward0", lambda a, s, ns: f"LOG_SOFTMAX({a[0]}, {_dim(s)})",
        lambda s: ("out",), lambda a, o, g, s, ns: {0: f"LSMB({g}, {o}, {_dim(s)})"},
        check=_nonempty)
    # views: the numpy call eager's forward makes (so the same memory layout), and the
    # reshape, transpose or sum that undoes it in backward
    R[Sh.View] = Rule(
        "ViewBackward0",
        lambda a, s, ns: (f"VIEW({a[0]}, {_const(ns, s.outputs[0].shape)})" if _arg(s, 2)
                          else f"{a[0]}.reshape({_const(ns, s.outputs[0].shape)})"),
        lambda s: (), lambda a, o, g, s, ns: {0: f"np.reshape({g}, {_const(ns, s.args[0].shape)})"},
        view=True)
    R[Sh.ReshapeAlias] = R[Sh.View]  # (reshape of a non-contiguous tensor, still a view)
    R[Sh.Clone] = Rule(
        "CloneBackward0",
        lambda a, s, ns: (f"{a[0]}.copy(order=PRESERVE({a[0]}))" if _arg(s, 1)
                          else f"{a[0]}.copy(order='C')"),
        lambda s: (), lambda a, o, g, s, ns: {0: g})
    R[Sh.UnsafeView] = Rule(
        "UnsafeViewBackward0", lambda a, s, ns: f"{a[0]}.reshape({_const(ns, s.outputs[0].shape)})",
        lambda s: (), lambda a, o, g, s, ns: {0: f"np.reshape({g}, {_const(ns, s.args[0].shape)})"},
        view=True)
    R[Sh.Transpose] = Rule(
        "TransposeBackward0",
        lambda a, s, ns: (f"np.swapaxes({a[0]}, {_swap(s)})" if s.args[0].shape else f"{a[0]}.view()"),
        lambda s: (),
        lambda a, o, g, s, ns: {0: f"np.swapaxes({g}, {_swap(s)})" if s.args[0].shape else g},
        view=True)
    R[Sh.Permute] = Rule(
        "PermuteBackward0", lambda a, s, ns: f"np.transpose({a[0]}, {_const(ns, _perm(s))})",
        lambda s: (),
        lambda a, o, g, s, ns: {0: f"np.transpose({g}, "
                                   f"{_const(ns, tuple(int(i) for i in np.argsort(_perm(s))))})"},
        view=True)
    R[Sh.Unsqueeze] = Rule(
        "UnsqueezeBackward0",
        lambda a, s, ns: f"np.expand_dims({a[0]}, {canonical_dim(s.args[1], len(s.args[0].shape) + 1)})",
        lambda s: (),
        lambda a, o, g, s, ns: {0: f"np.squeeze({g}, axis="
                                   f"{canonical_dim(s.args[1], len(s.args[0].shape) + 1)})"},
        view=True)
    R[Sh.SqueezeDim] = Rule(
        "SqueezeBackward1", lambda a, s, ns: _squeeze_fwd(a, s), lambda s: (),
        lambda a, o, g, s, ns: {0: f"np.reshape({g}, {_const(ns, s.args[0].shape)})"}, view=True)
    R[Sh.SqueezeAll] = Rule(
        "SqueezeBackward0", lambda a, s, ns: f"np.squeeze({a[0]})", lambda s: (),
        lambda a, o, g, s, ns: {0: f"np.reshape({g}, {_const(ns, s.args[0].shape)})"}, view=True)
    R[Sh.Expand] = Rule(
        "ExpandBackward0", lambda a, s, ns: f"EXPANDW({a[0]}, {_const(ns, s.outputs[0].shape)})",
        lambda s: (),
        lambda a, o, g, s, ns: {0: f"SUM_TO({g}, {_const(ns, s.args[0].shape)})"}, view=True)
    return R


# the comparisons and logic: no node, no gradient; the numpy call eager's (ops/comparison.py)
# makes (a dtype it refuses, a float ``&``, raised when the function was recorded)
_COMPARISONS = {"eq": "np.equal", "ne": "np.not_equal", "lt": "np.less", "le": "np.less_equal",
                "gt": "np.greater", "ge": "np.greater_equal", "logical_and": "np.logical_and",
                "logical_or": "np.logical_or", "logical_xor": "np.logical_xor",
                "bitwise_and": "np.bitwise_and", "bitwise_or": "np.bitwise_or",
                "bitwise_xor": "np.bitwise_xor"}
_PLAIN_RULES = {
    name: Rule(f"{name}: no node (a comparison)",
               (lambda ufunc: lambda a, s, ns: f"np.asarray({ufunc}({a[0]}, {a[1]}))")(ufunc),
               lambda s: (), lambda a, o, g, s, ns: {}, typed=())
    for name, ufunc in _COMPARISONS.items()}


def _plain_rule(s):
    """The rule of a plain step (a comparison as ``x > 0.5``, ``gt(x, y)``, ``m & n``), or None."""
    rule = _PLAIN_RULES.get(s.name)
    qual = getattr(s.op, "__qualname__", "")
    if (rule is None or s.kwargs or len(s.args) != 2
            or not qual.startswith(("_compare.", "_binary.", "_bitwise."))):
        return None
    return rule


def _slice_key(s):
    shape = s.args[0].shape
    d = canonical_dim(s.args[1], len(shape))
    return (slice(None),) * d + (slice(*slice(*s.args[2:5]).indices(shape[d])),)


def _select_key(s):
    shape = s.args[0].shape
    d = canonical_dim(s.args[1], len(shape))
    return (slice(None),) * d + (int(s.args[2]) % shape[d],)


def _mse_scale(s):
    """mse_loss's factor: PyTorch's norm = 2. / numel for a mean (inf for an empty input), else 2."""
    if s.args[2] != 1:
        return 2
    n = math.prod(s.args[0].shape)
    return repr(2 / n) if n else "float('inf')"


def _mse(x, y, code):
    """``mse_loss``'s forward on arrays of one float dtype: code 1 mean, 2 sum, 0 none."""
    diff = x - y
    sq = diff * diff
    if code == 1:
        return np.asarray(sq.mean(dtype=sq.dtype))
    if code == 2:
        return np.asarray(sq.sum(dtype=sq.dtype))
    return sq


def _addmm(c, a, b):
    """``addmm``'s forward with alpha = beta = 1: the bias added into the new product."""
    prod = a @ b
    np.add(prod, c, out=prod)
    return prod


def _put(g, key, sizes):
    """Select's and slice's backward: zeros of ``sizes`` with ``g`` written at ``key``."""
    out = np.zeros(sizes, dtype=g.dtype)
    out[key] = g
    return out


def _one(ns, s):
    return _const(ns, s.outputs[0].dtype.type(1))


def _zero(ns, s):  # the formula's F.const(np.zeros((), grad.dtype))
    return _const(ns, np.zeros((), s.outputs[0].dtype))


def _arg(s, i, default=False):
    return s.args[i] if len(s.args) > i else default


def _dims(s):
    return reduction_dims(s.args[1], len(s.args[0].shape))


def _count(s):
    n = 1
    for d in _dims(s):
        n *= s.args[0].shape[d]
    return n


def _keepdim_grad(g, s, ns):
    """The reduced gradient with its dims back as size 1 (``_unsqueeze_dims``: views only)."""
    dim = s.args[1]
    if _arg(s, 2) or not (dim if isinstance(dim, (tuple, list)) else (dim,)):
        return g
    shape = list(s.args[0].shape)
    for d in _dims(s):
        shape[d] = 1
    return f"np.reshape({g}, {_const(ns, tuple(shape))})"


def _dim(s):
    return canonical_dim(s.args[1], len(s.args[0].shape))


def _nonempty(s):
    shape = s.args[0].shape
    return None if shape and math.prod(shape) else "a 0-d or empty input"


def _swap(s):
    n = len(s.args[0].shape)
    return f"{canonical_dim(s.args[1], n)}, {canonical_dim(s.args[2], n)}"


def _perm(s):
    n = len(s.args[0].shape)
    return tuple(canonical_dim(d, n) for d in s.args[1])


def _squeeze_fwd(a, s):
    shape = s.args[0].shape
    d = canonical_dim(s.args[1], len(shape))
    return f"np.squeeze({a[0]}, {d})" if shape and shape[d] == 1 else f"{a[0]}.view()"


def _softmax(data, d):
    """Softmax's forward on a float array of at least one element and one dim (``Softmax.forward``)."""
    e = np.exp(data - np.max(data, axis=d, keepdims=True))
    return np.ascontiguousarray(e / e.sum(axis=d, keepdims=True))


def _log_softmax(data, d):
    """Log-softmax's forward on a float array of at least one element and one dim."""
    shifted = data - np.max(data, axis=d, keepdims=True)
    return np.ascontiguousarray(shifted - np.log(np.exp(shifted).sum(axis=d, keepdims=True)))


def _view(data, shape):
    """``view``'s forward (``require_view``): the reshape without a copy, or PyTorch's error."""
    try:
        return np.reshape(data, shape, copy=False)
    except ValueError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        ) from None


def _expand(data, target):
    """``expand``'s forward: a strided view, writable as the input is (``Expand.forward``)."""
    lead = len(target) - data.ndim
    return np.lib.stride_tricks.as_strided(
        data, shape=target,
        strides=(0,) * lead + tuple(0 if data.shape[i] == 1 and target[lead + i] != 1
                                    else data.strides[i] for i in range(data.ndim)),
        writeable=data.flags.writeable)


_RULES = None


def rules():
    """``{Function class: Rule}``: the primitives with a generated form."""
    global _RULES
    if _RULES is None:
        _RULES = _rules()
    return _RULES


RULES = rules  # (a function: the ops package imports after this one)


def rule_for(s):
    """The rule of step ``s`` (a primitive's, or a comparison's), or None."""
    if s.kind != "function":
        return _plain_rule(s)
    return rules().get(s.op)


def _check_step(s):
    """None if step ``s`` has a generated form, else why not (the step then calls its primitive)."""
    rule = rule_for(s)
    if s.kind != "function" and rule is None:
        return f"{getattr(s.op, '__name__', s.op)} (not a differentiable primitive)"
    name = s.op.__name__
    if rule is None:
        return f"{name} (no generated form yet)"
    if s.out_tuple or len(s.outputs) != 1:
        return f"{name} (several outputs)"
    if s.kwargs:
        return f"{name} (keyword arguments)"
    why = rule.check(s) if rule.check is not None else None
    if why:
        return f"{name} ({why})"
    if rule.typed == ():  # (a comparison: eager's own numpy call, any dtypes)
        return None
    dts = set()
    for i, a in enumerate(s.args):
        if isinstance(a, Value):
            if a.kind == "wrapped":
                k = a.tensor._data.dtype.kind
                if k not in "fiu":
                    return f"{name} (a Python number of kind {k!r})"
            elif rule.typed is None or i in rule.typed:
                dts.add(a.dtype)
        elif (isinstance(a, (tuple, list)) and any(isinstance(e, Value) for e in a)
              and (rule.typed is None or i in rule.typed)):
            return f"{name} (a tuple argument)"
    dts.add(s.outputs[0].dtype)
    if len(dts) != 1 or next(iter(dts)) not in _FLOATS:
        return f"{name} (dtypes {sorted(str(d) for d in dts)}: only one float dtype per step)"
    return None
