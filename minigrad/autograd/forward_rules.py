"""The forward-mode rules: one JVP per primitive, ẏ = J ẋ, in tensor operations.

``forward_ad._propagate`` looks up the rule of the primitive that just ran
(``_rule_for(cls)``) and calls ``rule(args, out, tangents)``: ``args`` are
the arguments of ``apply`` (primals), ``tangents`` one entry per argument
(None where there is none), ``out`` the primal result; it returns the
tangent of ``out`` (a tuple for several outputs).  Rules are written with
tensor operations, so a tangent of a primal that requires grad is itself
recorded.

Source: the ``result:`` (forward-derivative) formulas of PyTorch's
tools/autograd/derivatives.yaml.
"""

import numpy as np

from ..creation import zeros_like
from ..tensor import Tensor

_RULES = {}

# ------------------------------------------------------------ registration slot
# The layers above the ops (nn) add their primitives' rules to the table, built on
# first use: each registers a builder ``build(rules)`` when it loads.
_BUILDERS = []


def register_rule_builder(build):
    """Called by ``minigrad/nn/forward_rules.py`` with ``build_nn_rules``."""
    _BUILDERS.append(build)


def _rule_for(cls):
    if "_built" not in _RULES:
        _build_rules()
    for c in cls.__mro__:
        rule = _RULES.get(c)
        if rule is not None:
            return rule
        if c.__name__ == "Function":
            break
    return None


def _plus(a, b):
    """Sum of two optional terms."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _is_float_tensor(a):
    return isinstance(a, Tensor) and a._data.dtype.kind == "f"


def _const(array, like):
    """A constant tensor (mask, sign, share) in the dtype of the tangent ``like``."""
    return Tensor._make(np.asarray(array).astype(like._data.dtype))


def _linear(cls):
    """The rule of a linear primitive f: ḟ = f(ẋ): the same call with tangents for the float tensors.

    Used for sums, means, reshapes, transposes, indexing, concatenation, ...
    A float tensor argument without a tangent contributes zeros.
    """

    def rule(args, out, tangents):
        new = list(args)
        for i, (a, t) in enumerate(zip(args, tangents)):
            if _is_float_tensor(a):
                new[i] = t if t is not None else zeros_like(a)
        return cls.apply(*new)

    return rule


def _bilinear(cls):
    """The rule of a bilinear primitive B(a, b) (products): Ḃ = B(ȧ, b) + B(a, ḃ)."""

    def rule(args, out, tangents):
        a, b = args[0], args[1]
        ta, tb = tangents[0], tangents[1]
        return _plus(None if ta is None else cls.apply(ta, b),
                     None if tb is None else cls.apply(a, tb))

    return rule


def _unary(fn):
    """The rule of an elementwise f(a): ḟ = f'(a) ȧ, with ``fn(a, out, ta)`` computing it."""

    def rule(args, out, tangents):
        return fn(args[0], out, tangents[0])

    return rule


def _build_rules():
    from ..ops import elementwise as E
    from ..ops import indexing as I
    from ..ops import linalg as L
    from ..ops import reductions as R
    from ..ops import rounding_division as RD
    from ..ops import shape as S
    from ..ops._util import canonical_dim, canonical_dims

    where = E.where
    r = _RULES

    # -- elementwise arithmetic ------------------------------------------
    def add(args, out, t):
        alpha = args[2] if len(args) > 2 else 1
        tb = t[1]
        if tb is not None and alpha != 1:
            tb = tb * alpha
        return _plus(t[0], tb)

    def sub(args, out, t):
        alpha = args[2] if len(args) > 2 else 1
        tb = t[1]
        if tb is not None:
            tb = -tb if alpha == 1 else tb * (-alpha)
        return _plus(t[0], tb)

    def rsub(args, out, t):
        alpha = args[2] if len(args) > 2 else 1
        return -t[0] if alpha == 1 else t[0] * (-alpha)

    def mul(args, out, t):
        a, b = args
        return _plus(None if t[0] is None else t[0] * b, None if t[1] is None else a * t[1])

    def div(args, out, t):
        # d(a/b) = ȧ/b - ḃ a/b² = (ȧ - ḃ·out) / b
        a, b = args
        return _plus(None if t[0] is None else t[0] / b,
                     None if t[1] is None else -t[1] * out / b)

    r[E.Add], r[E.Sub], r[E.Rsub], r[E.Mul], r[E.Div] = add, sub, rsub, mul, div
    r[E.MulScalar] = lambda args, out, t: E.MulScalar.apply(t[0], args[1])
    r[E.Neg] = _unary(lambda a, out, ta: -ta)
    r[E.Reciprocal] = _unary(lambda a, out, ta: -ta * out * out)

    def pow_scalar(args, out, t):
        a, e = args
        if e == 0:
            return t[0] * 0
        return t[0] * e * a ** (e - 1)

    def pow_tensor(args, out, t):
        a, b = args
        terms = None
        if t[0] is not None:
            ga = t[0] * b * a ** (b - 1.0)
            if (b._data == 0).any():  # 0 where the exponent is 0, as in backward
                ga = where(Tensor._make(np.asarray(b._data == 0)), _const(0, ga), ga)
            terms = ga
        if t[1] is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                gb = t[1] * out * a.log()
            mask = (a._data == 0) & (b._data >= 0)
            if mask.any():
                gb = where(Tensor._make(np.asarray(mask)), _const(0, gb), gb)
            terms = _plus(terms, gb)
        return terms

    def pow_scalar_base(args, out, t):
        base, b = args
        with np.errstate(divide="ignore", invalid="ignore"):
            g = t[1] * out * float(np.log(np.float64(base)))
        if base == 0:
            g = where(Tensor._make(np.asarray(b._data >= 0)), _const(0, g), g)
        return g

    r[E.PowTensorScalar], r[E.PowTensorTensor], r[E.PowScalarTensor] = (
        pow_scalar, pow_tensor, pow_scalar_base)

    def where_rule(args, out, t):
        (cond,) = args[0]  # the bool condition, boxed: not differentiable
        like = t[1] if t[1] is not None else t[2]
        zero = _const(0, like)
        return where(cond, t[1] if t[1] is not None else zero, t[2] if t[2] is not None else zero)

    r[E.Where] = where_rule

    # -- elementwise functions: ẏ = f'(x) ẋ --------------------------------
    r[E.Exp] = _unary(lambda a, out, ta: ta * out)
    r[E.Log] = _unary(lambda a, out, ta: ta / a)
    r[E.Tanh] = _unary(lambda a, out, ta: ta * (1 - out * out))
    r[E.Sigmoid] = _unary(lambda a, out, ta: ta * out * (1 - out))
    # PyTorch's jvp is threshold_backward(ṫ, result, 0): a nan result passes the tangent
    r[E.Relu] = _unary(lambda a, out, ta: E.ThresholdBackward.apply(ta, out))
    r[E.Abs] = _unary(lambda a, out, ta: ta * _const(E.sign_data(a._data), ta))
    r[E.Sgn] = _unary(lambda a, out, ta: ta * 0)

    def threshold_backward(args, out, t):
        # linear in the gradient; the saved result only selects
        g, res = args
        return None if t[0] is None else E.ThresholdBackward.apply(t[0], res)

    r[E.ThresholdBackward] = threshold_backward

    from ..ops import activation_backward as AB

    def tanh_backward(args, out, t):
        # d[g (1 - y²)] = ġ (1 - y²) - 2 y ẏ g
        g, y = args
        dg = None if t[0] is None else AB.TanhBackward.apply(t[0], y)
        dy = None if t[1] is None else g * (-2 * y * t[1])
        return _plus(dg, dy)

    def sigmoid_backward(args, out, t):
        # d[g (1 - y) y] = ġ (1 - y) y + g ẏ (1 - 2y)
        g, y = args
        dg = None if t[0] is None else AB.SigmoidBackward.apply(t[0], y)
        dy = None if t[1] is None else g * t[1] * (1 - 2 * y)
        return _plus(dg, dy)

    r[AB.TanhBackward] = tanh_backward
    r[AB.SigmoidBackward] = sigmoid_backward
    r[E.Sin] = _unary(lambda a, out, ta: ta * a.cos())
    r[E.Cos] = _unary(lambda a, out, ta: ta * -a.sin())

    def sqrt_rule(a, out, ta):
        with np.errstate(divide="ignore", invalid="ignore"):
            return ta / (2 * out)

    r[E.Sqrt] = _unary(sqrt_rule)

    from ..ops import clamping as C

    def clamp_numbers(args, out, t):
        a, lo = args[0], args[1]
        hi = args[2] if len(args) > 2 else None
        keep = np.ones(a._data.shape, dtype=bool)
        if lo is not None:
            keep &= a._data >= lo
        if hi is not None:
            keep &= a._data <= hi
        return t[0] * _const(keep, t[0])

    def clamp_max_number(args, out, t):
        a, hi = args
        return t[0] * _const(a._data <= hi, t[0])

    def masked(mask, tangent):
        return where(Tensor._make(np.asarray(mask)), tangent, _const(np.zeros(()), tangent))

    def clamp_tensors(cls):
        # the tangent of whichever of self, min, max the element came from
        # (the masks of the backward, ClampTensor.backward)
        def rule(args, out, t):
            a = args[0]
            x = a._data
            lo = args[1] if cls is not C.ClampMaxTensor else None
            hi = args[2] if cls is C.ClampTensor else args[1] if cls is C.ClampMaxTensor else None
            lo = None if lo is C._NO_BOUND else lo
            hi = None if hi is C._NO_BOUND else hi
            tl = t[1] if lo is not None else None
            th = (t[2] if cls is C.ClampTensor else t[1]) if hi is not None else None
            keep = np.ones(x.shape, dtype=bool)
            if lo is not None:
                keep = keep & (x >= lo._data)
            if hi is not None:
                keep = keep & (x <= hi._data)
            total = None if t[0] is None else masked(keep, t[0])
            if tl is not None:
                m = x < lo._data
                if hi is not None:
                    m = m & (lo._data < hi._data)
                total = _plus(total, masked(m, tl))
            if th is not None:
                m = x > hi._data
                if lo is not None:
                    m = m | (hi._data < lo._data)
                total = _plus(total, masked(m, th))
            return total

        return rule

    from ..ops import sorting as O

    def selecting(args, out, t):
        # sort / topk: each value is one input element, its tangent goes with it
        values, idx = out
        if t[0] is None:
            return None, None
        if not idx._data.ndim:
            return t[0] * 1, None
        d = canonical_dim(args[2] if len(args) == 5 else args[1], args[0]._data.ndim)
        return I.Gather.apply(t[0], d, idx._data), None

    r[O.Sort] = r[O.Topk] = selecting
    for cls in (L.DiagEmbed, L.Diagonal, L.DiagonalCopy, L._DiagScatter, I.IndexSelect,
                I.IndexAdd):
        r[cls] = _linear(cls)

    r[C.Clamp] = r[C.ClampMin] = clamp_numbers
    r[C.ClampMax] = clamp_max_number
    for cls in (C.ClampTensor, C.ClampMinTensor, C.ClampMaxTensor):
        r[cls] = clamp_tensors(cls)
    # PyTorch's nan_to_num "result:": the tangent where self is finite, else 0
    r[C.NanToNum] = lambda args, out, t: masked(np.isfinite(args[0]._data), t[0])

    def extremum(pick):
        # ties split evenly, as the backward does
        def rule(args, out, t):
            a, b = args
            wa = pick(a._data, b._data) + 0.5 * (a._data == b._data)
            like = t[0] if t[0] is not None else t[1]
            return _plus(None if t[0] is None else t[0] * _const(wa, like),
                         None if t[1] is None else t[1] * _const(1 - wa, like))

        return rule

    r[E.Maximum] = extremum(np.greater)
    r[E.Minimum] = extremum(np.less)

    # -- reductions --------------------------------------------------------
    for cls in (R.Sum, R.SumDim, R.Mean, R.MeanDim):
        r[cls] = _linear(cls)

    def all_extremum(args, out, t):
        # the tangent of the max is the mean of the tangents at the maxima
        a = args[0]
        mask = a._data == out._data
        return (t[0] * _const(mask / mask.sum(), t[0])).sum()

    r[R.MaxAll] = r[R.MinAll] = all_extremum

    def dim_extremum(args, out, t):
        a, dim = args[0], args[1]
        keepdim = args[2] if len(args) > 2 else False
        values, idx = out
        if a._data.ndim == 0:
            return t[0] * 1, None
        d = canonical_dim(dim, a._data.ndim)
        ik = idx if keepdim else S.Unsqueeze.apply(idx, d)
        v = I.Gather.apply(t[0], d, ik._data)
        return (v if keepdim else S.SqueezeDim.apply(v, d)), None

    r[R.MaxDim] = r[R.MinDim] = dim_extremum

    def keepdim_shape(shape, dims):
        return tuple(1 if i in dims else s for i, s in enumerate(shape))

    def amax(args, out, t):
        a, dim = args[0], args[1]
        keepdim = args[2] if len(args) > 2 else False
        dims = canonical_dims(dim if dim != () else None, a._data.ndim)
        rk = out._data if keepdim else np.asarray(out._data).reshape(keepdim_shape(a._data.shape, dims))
        mask = a._data == rk
        share = mask / mask.sum(axis=dims, keepdims=True)
        return R.SumDim.apply(t[0] * _const(share, t[0]), dims, keepdim, None)

    r[R.Amax] = r[R.Amin] = amax

    def logsumexp(args, out, t):
        a, dim = args[0], args[1]
        keepdim = args[2] if len(args) > 2 else False
        dims = canonical_dims(dim, a._data.ndim)
        rk = out if keepdim else out.reshape(keepdim_shape(a._data.shape, dims))
        return R.SumDim.apply(t[0] * (a - rk).exp(), dims, keepdim, None)

    r[R.Logsumexp] = logsumexp

    def softmax(args, out, t):
        a, dim = args
        ta = t[0]
        if out.ndim == 0:
            return ta * 0
        d = canonical_dim(dim, out.ndim)
        return out * (ta - (ta * out).sum(d, keepdim=True))

    def log_softmax(args, out, t):
        a, dim = args
        ta = t[0]
        if out.ndim == 0:
            return ta * 0
        d = canonical_dim(dim, out.ndim)
        return ta - (out.exp() * ta).sum(d, keepdim=True)

    r[R.Softmax], r[R.LogSoftmax] = softmax, log_softmax

    from ..ops import softmax_backward as SB

    def log_softmax_backward(args, out, t):
        # d[g - exp(y) Σg] = (ġ - exp(y) Σġ) - exp(y) ẏ Σg
        g, y, d, saved_dim = args
        dg = None if t[0] is None else SB.LogSoftmaxBackwardData.apply(t[0], y, d, saved_dim)
        dy = None if t[1] is None else -(y.exp() * t[1]) * g.sum(d, keepdim=True)
        return _plus(dg, dy)

    def softmax_backward(args, out, t):
        # d[y (g - Σ g y)] = y (ġ - Σ ġ y) + ẏ (g - Σ g y) - y Σ g ẏ
        g, y, d, saved_dim = args
        dg = None if t[0] is None else SB.SoftmaxBackwardData.apply(t[0], y, d, saved_dim)
        dy = None if t[1] is None else (t[1] * (g - (g * y).sum(d, keepdim=True))
                                        - y * (g * t[1]).sum(d, keepdim=True))
        return _plus(dg, dy)

    r[SB.LogSoftmaxBackwardData] = log_softmax_backward
    r[SB.SoftmaxBackwardData] = softmax_backward

    # -- shape: all linear -------------------------------------------------
    r[S.View] = lambda args, out, t: S.View.apply(t[0], args[1])  # a tangent need not be viewable
    for cls in (S.UnsafeView, S.Clone, S.Transpose, S.Permute, S.T, S.Expand, S.ToCopy,
                S.Unsqueeze, S.SqueezeAll, S.SqueezeDim, S.SqueezeDims, S.Alias, S.Cat, S.Stack):
        r[cls] = _linear(cls)

    # shape ops added later: linear too (Unbind and Split have several outputs)
    for name in ("Flip", "Repeat", "Split", "SplitWithSizes", "Unbind"):
        cls = getattr(S, name, None)
        if cls is not None:
            r[cls] = _linear(cls)

    def remainder(args, out, t):
        # d(a mod b) = ȧ - ḃ · floor(a / b)
        a, b = args
        tb = t[1] if len(t) > 1 else None
        if tb is None:
            return t[0]
        q = _const(np.floor(np.asarray(a._data / b._data)), tb)
        return _plus(t[0], -tb * q)

    r[RD.Remainder] = r[RD.RemainderTensor] = remainder
    def div_rounding(args, out, t):
        if args[2] is None:
            return div(args[:2], out, t[:2])  # rounding_mode=None: true division
        like = t[0] if t[0] is not None else t[1]
        return _const(np.zeros(out._data.shape), like)  # piecewise constant: zeros, as PyTorch

    r[RD.DivFloor] = div_rounding

    from ..ops import statistics as Q

    def vector_norm(args, out, t):
        # ṙ = Σ (∂r/∂x) ẋ over the reduced dims, ∂r/∂x as norm_backward gives it
        a, p, dim, keepdim = args
        if t[0] is None or p == 0:
            return None
        dims = tuple(range(a._data.ndim)) if dim is None else canonical_dims(dim, a._data.ndim)
        x, ta = a._data, t[0]
        rk = out._data if keepdim or dim is None or not dims else np.expand_dims(out._data, dims)
        with np.errstate(all="ignore"):
            if p in (np.inf, -np.inf):
                mask = np.abs(x) == rk
                coef = E.sign_data(x) * mask / mask.sum(axis=dims, keepdims=True)
            elif p == 1:
                coef = E.sign_data(x)
            else:
                coef = E.sign_data(x) * np.abs(x) ** (p - 1) / rk ** (p - 1)
            coef = np.where(rk == 0, 0, coef)
        return (ta * _const(coef, ta)).sum(dims, keepdim=keepdim) if dims else ta * _const(coef, ta)

    r[Q.VectorNorm] = vector_norm

    # -- indexing: linear (and the scatters their backwards use) -----------
    for cls in (I.Select, I.Slice, I.Index, I.Gather, I._PutInZeros, I._Pick, I._ScatterAdd,
                I._GatherScatterAdd, R._IndexScatter):
        r[cls] = _linear(cls)

    # -- linear algebra: bilinear ------------------------------------------
    for cls in (L.Mm, L.Mv, L.Dot, L.Bmm):
        r[cls] = _bilinear(cls)

    def addmm(args, out, t):
        # beta·input + alpha·(mat1 @ mat2): linear in input, bilinear in (mat1, mat2)
        inp, m1, m2 = args[:3]
        beta = args[3] if len(args) > 3 else 1
        alpha = args[4] if len(args) > 4 else 1
        prod = _plus(None if t[1] is None else L.Mm.apply(t[1], m2),
                     None if t[2] is None else L.Mm.apply(m1, t[2]))
        if prod is not None and alpha != 1:
            prod = prod * alpha
        ti = t[0]
        if ti is not None and beta != 1:
            ti = ti * beta
        return _plus(ti, prod)

    if hasattr(L, "Addmm"):
        r[L.Addmm] = addmm

    _build_inplace_rules(r)
    _build_more_op_rules(r)
    for build in _BUILDERS:  # the rules of the layers above (nn's primitives)
        build(r)
    r["_built"] = True


def _build_more_op_rules(r):
    """JVPs of the rounding, logarithm, cumulative, triangular and pointwise ops added for parity."""
    from ..ops import cumulative as C
    from ..ops import exp_log as X
    from ..ops import rounding as R

    # piecewise constant: PyTorch's zeros_like(self_t) (a 0, even where the tangent is inf)
    for cls in (R.Floor, R.Ceil, R.Trunc, R.Round, R.RoundDecimals, R.Sign):
        r[cls] = _unary(lambda a, out, ta: zeros_like(ta))
    r[R.Frac] = _unary(lambda a, out, ta: ta * 1)
    r[X.AddScalar] = _unary(lambda a, out, ta: ta * 1)
    r[X.Log1p] = _unary(lambda a, out, ta: ta / (a + 1))
    r[X.Expm1] = _unary(lambda a, out, ta: ta * (out + 1))
    r[X.Log2] = _unary(lambda a, out, ta: ta / (a * 0.6931471805599453))
    r[X.Log10] = _unary(lambda a, out, ta: ta / (a * 2.302585092994046))
    r[C.Cumsum] = _linear(C.Cumsum)
    from ..ops import indexing as I
    from ..ops import linalg as L

    for cls in (L.Tril, L.Triu, I.Roll):
        r[cls] = _linear(cls)
    from ..ops import elementwise as E
    from ..ops import nan_reductions as N
    from ..ops import reductions as Red
    from ..ops import sorting as O
    from ..ops._util import reduction_dims

    def nansum(args, out, t):
        # PyTorch's where(self.isnan(), 0, self_t).sum(dim, keepdim, dtype)
        a, dim, keepdim, dtype = args
        ta = E.where(Tensor._make(np.isnan(a._data)), _const(0, t[0]), t[0])
        return Red.SumDim.apply(ta, reduction_dims(dim, a._data.ndim), keepdim, dtype)

    def median_all(args, out, t):
        # PyTorch's evenly_read_jvp: the mean of the tangents where the median's value is
        a = args[0]
        mask = np.isnan(a._data) if np.isnan(out._data) else a._data == out._data
        return (t[0] * _const(mask / max(mask.sum(), 1), t[0])).sum()

    r[N.Nansum] = nansum
    r[O.MedianAll] = median_all
    r[O.MedianDim] = r[Red.MaxDim]  # the tangent of the element picked

    def cumprod(args, out, t):
        # ẏ_i = Σ_{j<=i} ẋ_j Π_{k<=i, k!=j} x_k, the Jacobian built as a constant (exact with zeros)
        a, dim = args[0], args[1]
        ta = t[0]
        if a._data.ndim == 0:
            return ta * 1
        d = dim % a._data.ndim
        x = np.moveaxis(a._data, d, -1)
        n = x.shape[-1]
        jac = np.zeros(x.shape + (n,), dtype=x.dtype)
        for j in range(n):
            others = x.copy()
            others[..., j] = 1
            run = np.cumprod(others, axis=-1)
            run[..., :j] = 0
            jac[..., j] = run
        tm = ta.movedim(d, -1).unsqueeze(-2)  # (..., 1, n) against jac's (..., i, j)
        return (tm * _const(jac, ta)).sum(-1).movedim(-1, d)

    r[C.Cumprod] = cumprod
    _build_pointwise_rules(r)


def _build_pointwise_rules(r):
    """JVPs of fmax/fmin, atan2, lerp, addcmul, addcdiv (ops/pointwise.py): the backward's partials."""
    from ..ops import elementwise as E
    from ..ops import pointwise as P

    def picked(cls):
        def rule(args, out, t):
            a, b = args
            to_self = cls._self_wins(a._data, b._data) | np.isnan(b._data)
            to_self = Tensor._make(np.broadcast_to(to_self, out._data.shape))
            like = t[0] if t[0] is not None else t[1]
            zero = _const(0, like)
            return _plus(None if t[0] is None else E.where(to_self, t[0], zero),
                         None if t[1] is None else E.where(to_self, zero, t[1]))

        return rule

    def atan2(args, out, t):
        # d atan2(a, b) = (b ȧ - a ḃ) / (a² + b²), 0 where a² + b² is 0
        a, b = args
        denom = a * a + b * b
        recip = E.where(Tensor._make(np.asarray(denom._data == 0)), _const(0, denom), denom.reciprocal())
        return _plus(None if t[0] is None else t[0] * b * recip, None if t[1] is None else -t[1] * a * recip)

    def lerp_scalar(args, out, t):
        a, end, w = args
        return _plus(None if t[0] is None else t[0] * (1 - float(w)), None if t[1] is None else t[1] * w)

    def lerp_tensor(args, out, t):
        a, end, w = args
        return _plus(_plus(None if t[0] is None else t[0] * (1 - w), None if t[1] is None else t[1] * w),
                     None if t[2] is None else t[2] * (end - a))

    def addcmul(args, out, t):
        a, t1, t2, v = args
        return _plus(_plus(t[0], None if t[1] is None else t[1] * t2 * v),
                     None if t[2] is None else t[2] * t1 * v)

    def addcdiv(args, out, t):
        a, t1, t2, v = args
        return _plus(_plus(t[0], None if t[1] is None else t[1] * v / t2),
                     None if t[2] is None else -t[2] * (t1 * v) / (t2 * t2))

    r[P.Fmax], r[P.Fmin], r[P.Atan2] = picked(P.Fmax), picked(P.Fmin), atan2
    r[P.LerpScalar], r[P.LerpTensor], r[P.Addcmul], r[P.Addcdiv] = lerp_scalar, lerp_tensor, addcmul, addcdiv



def _build_inplace_rules(r):
    """JVPs of the out-of-place primitives behind minigrad's in-place operations."""
    from ..ops import inplace as P, view_writes as V

    def fill(args, out, t):
        # every element becomes ``value``: its tangent (a 0-d tensor value), else 0
        tv = t[1] if len(t) > 1 else None
        return tv.expand(out.shape) if tv is not None else zeros_like(out)

    def copy(args, out, t):
        # every element becomes src's (broadcast, cast): its tangent, else 0
        ts = t[1]
        if ts is None:
            return zeros_like(out)
        return ts.to(out.dtype) if ts.dtype is not out.dtype else ts

    r[P._Fill] = r[P._Zero] = lambda args, out, t: zeros_like(out)
    r[P._FillTensor] = fill
    r[V._Copy] = copy
    # linear in their tensor arguments: writing values into (views of) a base
    for cls in (P._CopySlices, P._IndexPut, V._CopyIntoView, V._AsStrided, V._ScatterIntoBase):
        r[cls] = _linear(cls)
