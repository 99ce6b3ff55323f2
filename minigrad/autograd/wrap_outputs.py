"""The outputs of a recorded call that are not one new tensor (PyTorch's ``_wrap_outputs``).

``Function.apply`` (function.py) records the usual call itself: one new
output gets the node as its ``grad_fn``.  Everything else comes here:

* several outputs (output numbers 0, 1, ... and their shapes kept on the node);
* an input returned as it is: the output is a new alias of it;
* outputs marked non-differentiable: left without a ``grad_fn``;
* inputs that forward modified in place, ``ctx.mark_dirty(*tensors)``:
  ``check_dirty`` (right after forward) refuses what PyTorch refuses and
  moves the version on (so a node that saved the input before notices); the
  input is returned as itself, its ``grad_fn`` becomes the new node, and when
  it is a view its base learns of the write too (``CopySlices``, ops/inplace.py).

Source: ``_wrap_outputs`` in torch/csrc/autograd/custom_function.cpp.
"""

from ..tensor import Tensor

__all__ = ["check_dirty", "register_view_write", "wrap_outputs"]


def wrap_outputs(ctx, args, outs):
    """Make ``ctx`` the grad_fn of each differentiable output of ``outs`` (a tuple, or one
    output); returns them (a tuple, or the one).

    Outputs that are inputs returned as they are become new aliases of them
    (unless marked dirty: then the input itself, rebased); non-differentiable
    ones are left alone; several outputs get output numbers 0, 1, ...

    Raises:
        TypeError: "<Function>.forward must return Tensors, got <type>".
    """
    if type(outs) is not tuple:
        return wrap_outputs(ctx, args, (outs,))[0]
    if len(outs) > 1 or ctx._out_meta is not None:
        ctx._out_meta = tuple((t._data.shape, t.dtype) for t in outs)
    dirty = ctx._dirty
    for o in outs:
        for a in args:
            if o is a and not (dirty and any(o is d for d in dirty)):
                # forward returned an input as it is: the output is a new alias
                # of it (unless marked dirty: then it is the input, rebased below)
                outs = tuple(_alias_if_input(t, args, dirty) for t in outs)
                break
    nondiff = ctx._non_differentiable
    for k, t in enumerate(outs):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{ctx._forward_cls.__name__}.forward must return Tensors, got {type(t).__name__}"
            )
        if nondiff and id(t) in nondiff:
            continue
        t._grad_fn = ctx
        if k:
            t._output_nr = k
        t._requires_grad = True
    if dirty:
        _rebase_dirty(ctx, outs)
    return outs


def _alias_if_input(t, args, dirty=()):
    if any(t is d for d in dirty):
        return t
    for a in args:
        if t is a:
            return Tensor._make(t._data, vc=t._shared_vc(), base=t)
    return t


def check_dirty(ctx, out, record):
    """``mark_dirty``'s checks and version bump; ``record``: a node will be recorded.

    Raises:
        RuntimeError: "Some elements marked as dirty during the forward method
            were not returned as output. ..."; "a leaf Variable that requires
            grad has been used in an in-place operation." (PyTorch's).
    """
    outs = out if type(out) is tuple else (out,)
    for d in ctx._dirty:
        if not any(d is o for o in outs):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as "
                "output. The inputs that are modified inplace must all be outputs of the Function.")
        if record and d._grad_fn is None and d._requires_grad and d._view_of is None:
            raise RuntimeError(
                "a leaf Variable that requires grad has been used in an in-place operation.")
        d._shared_vc()[0] += 1  # the write happened behind autograd's back (numpy, .data)


def _rebase_dirty(ctx, outs):
    """A dirtied input that is a view: its base's history is rebased through CopySlices.

    The dirtied tensor itself gets ``ctx`` as its grad_fn (as any output);
    when it views another tensor's memory, that tensor (the base) must learn
    of the write too, as after ``view.mul_(2)``.
    """
    for k, t in enumerate(outs):
        if t._view_of is not None and any(t is d for d in ctx._dirty):
            result = Tensor._make(t._data, grad_fn=ctx)
            result._output_nr = k
            _rebase_view_write(t, result)


# ------------------------------------------------------------ registration slot
_rebase_view_write = None  # ops/inplace.py: a write through a view rebases its base


def register_view_write(fn):
    """Called by ``minigrad/ops/inplace.py`` with ``rebase_view_write``."""
    global _rebase_view_write
    _rebase_view_write = fn
