"""Forward-mode automatic differentiation with dual numbers (``torch.autograd.forward_ad``).

Reverse mode (``backward()``) records the computation and walks it backwards
once per *output* direction: one pass gives a vector-Jacobian product vᵀJ.
Forward mode needs no recording at all.  Each tensor carries, next to its
value x (the *primal*), a *tangent* ẋ: the directional derivative of x along
a chosen input direction.  Every operation computes its output's tangent from
its inputs' tangents with its Jacobian-vector product (JVP) rule, at the same
time as it computes the value::

    y = f(x)   and   ẏ = J_f(x) ẋ          e.g.  y = x * w  →  ẏ = ẋ * w + x * ẇ

A pair (x, ẋ) is a *dual number* x + ẋε with ε² = 0: f(x + ẋε) = f(x) + f'(x)ẋε.
One forward pass gives one Jacobian-vector product Jv, so a full Jacobian
costs one pass per *input* element (reverse mode: one per output element).

Usage, exactly as in PyTorch::

    import minigrad.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        x = fwAD.make_dual(primal, tangent)   # a dual tensor
        y = f(x)                              # tangents propagate op by op
        value, jvp = fwAD.unpack_dual(y)      # jvp = J_f(primal) @ tangent

How minigrad implements it (one idea, one place):

* a dual tensor is an ordinary ``Tensor`` with one extra attribute,
  ``_fw_grad = (level_token, tangent)``; the token makes every tangent of a
  level invalid the moment the level is exited (and ``exit_dual_level`` also
  deletes them, so their memory is released);
* ``Function.apply`` calls ``_propagate(cls, args, out, ctx)`` after every
  primitive while a level is open; ``_propagate`` looks up the tangents of the
  arguments, applies the JVP rule registered for the primitive's class in
  ``_RULES`` (``forward_rules.py``, one short function per primitive, written with tensor
  operations), and attaches the result to the output(s);
* a custom ``autograd.Function`` may define ``jvp(ctx, *tangents)`` as in
  PyTorch; without it, forward AD through it raises PyTorch's error.

Only one level at a time (PyTorch's limitation too): a tangent cannot itself
carry a tangent.  Tangents are computed with the current grad mode, so when
the primals require grad the tangents are recorded as well: that is what
forward-over-reverse (``hessian(..., outer_jacobian_strategy="forward-mode")``)
uses.

Source: ``torch.autograd.forward_ad`` (torch/autograd/forward_ad.py), the
forward-derivative formulas (``result:`` entries) of PyTorch's
tools/autograd/derivatives.yaml; for the mathematics, Griewank & Walther,
*Evaluating Derivatives* (2nd ed., SIAM 2008), ch. 3, and Baydin, Pearlmutter,
Radul & Siskind, "Automatic differentiation in machine learning: a survey",
JMLR 18 (2018), section 3.1.
"""

import weakref
from typing import NamedTuple

from types import SimpleNamespace as _Namespace

from .. import _tensor_str
from ..ops import inplace as _inplace
from . import function as _function
from . import saved_edits as _edits
from .saved import SavedOutput

__all__ = [
    "UnpackedDualTensor",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
    "dual_level",
]


class _State:
    """The open forward-AD level, if any (PyTorch's levels are global, not per thread)."""

    __slots__ = ("level", "token", "duals", "saved")

    def __init__(self):
        self.level = None   # None when no level is open, else 0 (one level only)
        self.token = None   # identifies the open level; tangents carry it
        self.duals = []     # weak references to every tensor given a tangent in this level
        self.saved = []     # the tangents saved outputs hold (each a one-item list), emptied at exit


_state = _State()


def _current_level():
    return -1 if _state.level is None else _state.level


# ------------------------------------------------------------------ levels


def enter_dual_level():
    """Open a forward-AD level and return its number (0) (``torch.autograd.forward_ad.enter_dual_level``).

    Dual tensors can only be made, and tangents only propagate, while a level
    is open.  Prefer the ``dual_level()`` context manager.

    Returns:
        int: the new level, 0.

    Raises:
        RuntimeError: "Nested forward mode AD is not supported at the moment"
            if a level is already open (PyTorch supports one level only).
    """
    if _state.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _state.level = 0
    _state.token = object()
    _state.duals = []
    _state.saved = []
    return 0


def exit_dual_level(*, level=None):
    """Close the open level and delete every tangent made in it (``torch.autograd.forward_ad.exit_dual_level``).

    Tensors computed inside the level stay valid; they just stop being dual:
    ``unpack_dual(y).tangent`` is None afterwards.

    Args:
        level (int | None): the level to close; None for the current one.

    Raises:
        RuntimeError: "Trying to exit a forward AD level that was not the last
            one that was created. This is not supported." for another level;
            "Dual level must be a positive number." when no level is open.
    """
    current = _current_level()
    if level is None:
        level = current
    if level != current:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    for ref in _state.duals:
        t = ref()
        if t is not None:
            t.__dict__.pop("_fw_grad", None)
    for held in _state.saved:
        held.clear()
    _state.level = None
    _state.token = None
    _state.duals = []
    _state.saved = []


class dual_level:
    """Context manager (and decorator) that opens a forward-AD level (``torch.autograd.forward_ad.dual_level``).

    ``with dual_level():`` calls ``enter_dual_level()`` on entry (the ``as``
    target is the level, 0) and ``exit_dual_level()`` on exit, which deletes
    the tangents made inside.  Levels do not nest.

    Example::

        with dual_level():
            x = make_dual(minigrad.tensor([1., 2.]), minigrad.tensor([1., 0.]))
            y = x * x
            unpack_dual(y).tangent      # tensor([2., 0.]) = 2x · ẋ
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback):
        exit_dual_level()

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)

        return wrapper


# ------------------------------------------------------------ dual tensors


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: ``(primal, tangent)``; ``tangent`` is None for a non-dual tensor."""

    primal: object
    tangent: object


UnpackedDualTensor.__module__ = __name__


def _tangent_of(t):
    """The tangent of ``t`` at the open level, or None (also None outside any level)."""
    fw = getattr(t, "_fw_grad", None)
    if fw is None or fw[0] is not _state.token:
        return None
    return fw[1]


def _set_tangent(t, tangent):
    t._fw_grad = (_state.token, tangent)
    _state.duals.append(weakref.ref(t))


def _size_list(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def make_dual(tensor, tangent, *, level=None):
    """A dual tensor: ``tensor``'s values with ``tangent`` attached (``torch.autograd.forward_ad.make_dual``).

    The result is a new tensor that shares memory with ``tensor`` (a view,
    recorded as ViewBackward0 if ``tensor`` requires grad, so it is backward
    differentiable too); ``tangent`` is stored as is.  Every operation on the
    result computes a tangent for its output, until the level is exited.

    Args:
        tensor (Tensor): the primal, floating point, any shape.
        tangent (Tensor): floating point, same shape as ``tensor`` (its dtype
            may differ, as in PyTorch).
        level (int | None): the level, None for the open one.

    Returns:
        Tensor: the dual tensor.

    Raises:
        RuntimeError: "Trying to create a dual Tensor for forward AD but no
            level exists, make sure to enter_dual_level() first." outside
            ``dual_level``; "Invalid level given to _make_dual" for a level
            that is not open; "Making a dual Tensor based on a Tensor that
            already has a forward gradient at the same level 0 is not
            supported."; "Trying to set a forward gradient that has a
            different size than that of the original Tensor, this is not
            supported. Tensor is of size [2] while the given forward gradient
            is of size [3]."
        ValueError: "Expected primal to be floating point or complex, but got:
            minigrad.int64" (and the same for the tangent).
    """
    if level is None:
        level = _current_level()
    if level < 0:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    if not tensor.is_floating_point():
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not tangent.is_floating_point():
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if level != _state.level:
        raise RuntimeError("Invalid level given to _make_dual")
    if _tangent_of(tensor) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the "
            f"same level {level} is not supported."
        )
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            "original Tensor, this is not supported. Tensor is of size "
            f"{_size_list(tensor.shape)} while the given forward gradient is of size "
            f"{_size_list(tangent.shape)}."
        )
    from ..ops.shape import View

    dual = View.apply(tensor, tensor.shape)
    _set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """Split a dual tensor into ``(primal, tangent)`` (``torch.autograd.forward_ad.unpack_dual``).

    ``primal`` is a view of ``tensor``'s values without the tangent (recorded
    as an ``Identity`` node when ``tensor`` requires grad, as in PyTorch);
    ``tangent`` is the tangent as is, or None if ``tensor`` has none at this
    level.  Outside any level it returns ``(tensor, None)``.

    Args:
        tensor (Tensor): any tensor.
        level (int | None): None for the open level.

    Returns:
        UnpackedDualTensor: a namedtuple ``(primal, tangent)``.

    Raises:
        TypeError: "_unpack_dual(): argument 'dual' (position 1) must be
            Tensor, not list" for a non-tensor inside a level.
    """
    if level is None:
        level = _current_level()
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    from ..tensor import Tensor

    if not isinstance(tensor, Tensor):
        raise TypeError(
            "_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
            f"{type(tensor).__name__}"
        )
    tangent = _tangent_of(tensor) if level == _state.level else None
    return UnpackedDualTensor(_primal_view().apply(tensor), tangent)


def _repr_suffix(t):
    """The ``tangent=...`` suffix PyTorch's repr adds to a dual tensor, or None.

    ``f"tangent={tangent}"`` as in torch/_tensor_str.py: a 0-d tangent
    formats as a Python float (``tensor(3., tangent=1.0)``), any other as its
    repr.
    """
    tangent = _tangent_of(t)
    if tangent is None:
        return None
    return f"tangent={tangent}"


_PRIMAL_VIEW = None


def _primal_view():
    """The Function behind ``unpack_dual``'s primal (made on first use: function.py imports this module)."""
    global _PRIMAL_VIEW
    if _PRIMAL_VIEW is None:
        from ..tensor import Tensor
        from .function import Function

        class PrimalView(Function):
            """An alias of the values without the tangent; the gradient passes through."""

            node_name = "Identity"

            @staticmethod
            def forward(ctx, a):
                return Tensor._make(a._data, vc=a._shared_vc(), base=a)

            @staticmethod
            def backward(ctx, grad):
                return grad

        def name(node):
            # PyTorch's name() of this C++ node; the tensor's repr still shows grad_fn=<Identity>
            return "torch::autograd::Identity"

        PrimalView._backward_cls.name = name
        _PRIMAL_VIEW = PrimalView
        _RULES[PrimalView] = lambda args, out, tangents: None  # the primal carries no tangent
    return _PRIMAL_VIEW


# -------------------------------------------------------------- propagation


def _propagate(cls, args, out, ctx=None):
    """Attach to ``out`` the tangent(s) of the call ``cls.apply(*args)`` (``Function.apply`` calls this).

    Called after ``forward`` (and after the node is recorded) while a level
    is open.  Does nothing unless some argument carries a tangent.  The rule
    runs with the level switched off, so its own operations carry no
    tangents (one level only), and with the current grad mode, so that it is
    recorded when the primals require grad.

    Args:
        cls: the ``Function`` subclass that ran.
        args (tuple): the arguments given to ``apply``.
        out (Tensor | tuple of Tensor): what ``forward`` returned.
        ctx: the ``ctx`` forward received (the node when recorded); only a
            custom Function's ``jvp`` uses it.

    Raises:
        NotImplementedError: PyTorch's "Trying to use forward AD with ... that
            does not support it because it has not been implemented yet." for
            a primitive without a rule; "You must implement the jvp function
            for custom autograd.Function to use it with forward mode AD." for
            a custom Function without ``jvp``.
    """
    token = _state.token
    tangents = None
    for i, a in enumerate(args):
        fw = getattr(a, "_fw_grad", None)
        if fw is not None and fw[0] is token:
            if tangents is None:
                tangents = [None] * len(args)
            tangents[i] = fw[1]
    if tangents is None:
        return
    rule = _rule_for(cls)
    level = _state.level
    _state.level = None
    try:
        if rule is None:
            result = _custom_jvp(cls, ctx, args, tangents)
        else:
            result = rule(args, out, tangents)
    finally:
        _state.level = level
    _attach(out, result, ctx)


def _attach(out, result, ctx):
    from ..tensor import Tensor

    single = type(out) is not tuple
    outs = (out,) if single else out
    if single or type(result) is not tuple:
        result = (result,) + (None,) * (len(outs) - 1)
    attached = []
    for o, t in zip(outs, result):
        if t is None or not isinstance(o, Tensor) or o._data.dtype.kind != "f":
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"a forward-mode rule returned {type(t).__name__}, not a Tensor")
        if t._data.shape != o._data.shape:
            t = _expand_tangent(t, o._data.shape)
        _set_tangent(o, t)
        attached.append(o)
    if attached and ctx is not None:
        _keep_saved_output_tangents(ctx, attached)


def _expand_tangent(t, shape):
    """A tangent broadcast to its output's shape (a term of a broadcasting op)."""
    level = _state.level
    _state.level = None
    try:
        return t.expand(shape)
    finally:
        _state.level = level


def _keep_saved_output_tangents(ctx, outs):
    """Let an output saved for backward keep its tangent when backward unpacks it.

    A node saves its own output without the tensor object and unpacks a fresh
    tensor object each time, which would lose the tangent.  Forward-over-
    reverse (the backward pass run on dual tensors) needs it: d/dx of
    ``grad * exp(x)`` uses the tangent of the saved ``exp(x)``.  So the saved
    output re-attaches the tangent to each tensor its ``unpack`` makes.

    The saved output holds the tangent only until the level exits, as
    PyTorch's ``SavedVariable`` holds its ``fw_grad_``: the tangent of a
    gradient taken with ``create_graph=True`` is recorded through this very
    node, and holding it longer would keep node and tangent alive in a
    reference cycle, left for the garbage collector.
    """
    def reattach_to(out):
        held = [out._fw_grad]  # [(the level's token, the tangent)]; emptied when the level exits
        _state.saved.append(held)

        def reattach(t):
            if held and held[0][0] is _state.token:
                _set_tangent(t, held[0][1])

        return reattach

    entries, versions = _edits.entries(ctx)
    for i, e in enumerate(entries):
        o = next((o for o in outs if type(e) is SavedOutput and e.data is o._data), None)
        if o is not None:
            _edits.replace(ctx, i, SavedOutput(e.data, e.vc, e.output_nr, e.moved,
                                               reattach_to(o)), versions[i])


def _custom_jvp(cls, ctx, args, tangents):
    from ..tensor import Tensor
    from ..creation import zeros_like

    jvp = getattr(cls, "jvp", None)
    if jvp is None:
        if cls.__module__.startswith("minigrad."):
            raise NotImplementedError(
                f"Trying to use forward AD with {cls.__name__} that does not support it because "
                "it has not been implemented yet.\nminigrad has no forward-mode rule for "
                f"{cls.__name__} (see _RULES in minigrad/autograd/forward_rules.py)."
            )
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )
    full = []
    for a, t in zip(args, tangents):
        if t is None and isinstance(a, Tensor) and a._data.dtype.kind == "f":
            t = zeros_like(a)
        full.append(t)
    return jvp(ctx, *full)


def _copy_tangent(src, dst):
    """Give ``dst`` the tangent of ``src`` (or none): for in-place operations.

    ``x.mul_(2)`` computes ``y = x * 2`` out of place and writes y's values
    into x; x must then carry y's tangent too.  A no-op outside a level.
    """
    if _state.level is None:
        return
    tangent = _tangent_of(src)
    if tangent is not None:
        _set_tangent(dst, tangent)
    else:
        dst.__dict__.pop("_fw_grad", None)


from .forward_rules import _RULES, _rule_for  # noqa: E402 (the rules import this module)

# The slots forward mode fills in the layers below it: Function.apply pushes tangents
# through each op, an in-place op carries its tangent along, a dual tensor prints it.
_function.register_forward_mode(_state, _propagate)
_inplace.register_forward_mode(_Namespace(state=_state, copy_tangent=_copy_tangent))
_tensor_str.register_tangent_suffix(_repr_suffix)
