"""Hooks: a tensor's (``register_hook``, ``retain_grad``), and those of ``torch.autograd.graph``.

* ``register_hook``, ``add_retain_hook``, ``run_leaf_hooks``,
  ``register_post_accumulate_grad_hook`` and ``post_accumulate_hooks`` do what
  the Tensor methods of those names ask (tensor.py sits below autograd:
  ``register_hook`` and ``retain_grad`` call these through its ``_autograd``
  slot, the others are attached to Tensor by the package face).  A leaf's hooks
  run in its AccumulateGrad, before the gradient is accumulated; a non-leaf's
  are tensor pre-hooks of its ``grad_fn``, and retain_grad's runs last.
* ``register_multi_grad_hook(tensors, fn)`` calls ``fn(grads)`` once per
  backward pass, after the gradients of all of ``tensors`` that the pass
  computes are known (None for the others); with ``mode="any"``, ``fn(grad)``
  for the first one.
* ``node._raw_saved_self`` (``SavedTensor``) lets a single saved tensor get
  its own pack/unpack pair with ``register_hooks``.
* During a walk: ``run_tensor_hooks`` (a tensor's hooks see the summed
  gradient before its node runs: captures.before_node), ``run_pre_hooks`` and
  ``run_post_hooks`` (a node's own, around it: engine.run_node).

Source: ``torch.Tensor.register_hook`` and ``retain_grad`` (torch/_tensor.py,
torch/csrc/autograd/python_hook.cpp), torch/autograd/graph.py
(``register_multi_grad_hook``) and ``torch._C._autograd.SavedTensor``.
"""

import itertools
import weakref

from .. import _dtype
from .._layout import contiguous_format
from ..tensor import Tensor
from .grad_mode import _state
from . import saved
from .graph import AccumulateGrad
from .removable_handle import _add_hook
from . import saved_edits
from .saved_errors import ERR_HOOKS_FREED, ERR_HOOKS_SET
from .saved_hooks import Packed

__all__ = ["SavedTensor", "register_multi_grad_hook"]


class SavedTensor:
    """One saved tensor of a node, not unpacked (``torch._C._autograd.SavedTensor``).

    ``node._raw_saved_self`` returns one (also for a value that was not saved,
    as PyTorch does); its only method is ``register_hooks``.
    """

    __slots__ = ("_node", "_index")

    def __init__(self, node, index):
        self._node, self._index = node, index  # (node None: nothing was saved there)

    def register_hooks(self, *hooks):
        """Give this saved tensor its own pair of hooks: ``register_hooks(pack_hook, unpack_hook)``.

        ``pack_hook`` is called now, ``unpack_hook`` when backward needs the value.

        Raises:
            TypeError: "register_hooks(): incompatible function arguments. ..."
                when there are not exactly two hooks, or one is not callable.
            RuntimeError: when hooks are already set, or the value was freed
                (PyTorch's messages).
        """
        if len(hooks) != 2 or not all(callable(h) for h in hooks):
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (self: SavedTensor, arg0: Callable, arg1: Callable) "
                "-> None")
        if self._node is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        # As PyTorch: pack now, the value given without its history
        e = saved_edits.entries(self._node)[0][self._index]
        if type(e) is saved.SavedOutput:
            entry = Packed(Tensor._make(e.data, vc=e.vc), hooks, True, e.output_nr, e.moved)
        elif isinstance(e, Tensor):
            entry = Packed(e, hooks, given=Tensor._make(e._data, vc=e._shared_vc()))
        else:  # already packed, or freed
            raise RuntimeError(ERR_HOOKS_SET if type(e) is Packed else ERR_HOOKS_FREED)
        saved_edits.replace(self._node, self._index, entry)


class _MultiHandle:
    """What ``register_multi_grad_hook`` returns: ``remove()`` unregisters every hook."""

    __slots__ = ("handles",)

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        """Unregister the hooks on all the tensors."""
        for handle in self.handles:
            handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _current_walk():
    if not walks:
        raise AssertionError("expected this hook to be called inside a backward call")
    return walks[-1]


def _node_of(t):
    """The node whose execution computes ``t``'s gradient: its grad_fn, or a leaf's AccumulateGrad."""
    if t._grad_fn is not None:
        return t._grad_fn
    if not t._requires_grad:
        raise AssertionError("Expected gradient function to be set")
    return t._accumulator()


def _will_execute(node):
    """True if the walk in progress runs ``node`` (PyTorch's ``_will_engine_execute_node``).

    Raises:
        RuntimeError: PyTorch's "A leaf node was passed to
            _will_engine_execute_node but we are currently running
            autograd.grad(). ..." for a leaf during ``autograd.grad``.
    """
    walk = _current_walk()
    needed, captures = walk.needed, walk.captures
    if needed is None:  # a plain backward(): every node of the graph runs
        return node in walk.dependencies
    if node not in needed and node not in captures:
        return False
    if not walk.accumulate_grad and isinstance(node, AccumulateGrad) and node in captures:
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are "
                           "currently running autograd.grad(). This is currently not supported.")
    return True


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` once per backward pass with the gradients of several tensors.

    Args:
        tensors (sequence of Tensor): each must require grad.
        fn: with ``mode="all"``, ``fn(grads)`` (a list, one entry per tensor,
            None for a tensor whose gradient this pass does not compute), run
            right after the last of them is computed; with ``mode="any"``,
            ``fn(grad)`` with the first gradient computed.
        mode (str): ``"all"`` or ``"any"``.

    Returns:
        a handle whose ``remove()`` unregisters the hooks.

    Raises:
        ValueError: "Expects mode to be one of ('all', 'any') but got x".
        AssertionError: "Expected gradient function to be set" for a tensor
            that does not require grad.

    Source: ``torch.autograd.graph.register_multi_grad_hook``.
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    if mode == "any":
        ran = weakref.WeakSet()  # the walks (their GraphRoot) in which fn already ran

        def wrapped(grad):
            root = _current_walk().root
            if root in ran:
                return
            ran.add(root)
            fn(grad)

        return _MultiHandle(tuple(t.register_hook(wrapped) for t in tensors if t._requires_grad))
    nodes = [_node_of(t) for t in tensors]
    # per walk (keyed by its GraphRoot): [calls so far, expected calls, buffer]
    state = weakref.WeakKeyDictionary()

    def inner(idx):
        def hook(grad):
            root = _current_walk().root
            entry = state.get(root)
            if entry is None:
                expected = sum(1 for n in nodes if _will_execute(n))
                entry = state[root] = [0, expected, [None] * len(tensors)]
            entry[2][idx] = grad
            entry[0] += 1
            if entry[0] == entry[1]:
                del state[root]
                fn(entry[2])

        return hook

    return _MultiHandle(tuple(t.register_hook(inner(i)) for i, t in zip(itertools.count(), tensors)))


# ------------------------------------------------------------------ tensor hooks
# Tensor.register_hook and retain_grad are thin methods (tensor.py sits below autograd),
# register_post_accumulate_grad_hook is the function below itself; what they do is here.

def register_hook(t, hook):
    """``t.register_hook(hook)``: ``hook(grad)`` sees ``t``'s gradient and may replace it.

    On a leaf the hook goes into ``t._hooks`` (its AccumulateGrad runs them,
    ``run_leaf_hooks``); on a non-leaf it becomes a tensor pre-hook of
    ``t.grad_fn`` that rewrites output ``t.output_nr`` of the gradients the
    node receives.  Errors: see ``Tensor.register_hook``.
    """
    if not t._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t._grad_fn is None:
        if t._hooks is None:
            t._hooks = {}
        return _add_hook(t._hooks, hook)
    nr = t._output_nr

    def pre(grads):
        # (PyTorch calls the hook with None when the node runs but this output got no gradient)
        g = grads[nr]
        new = hook(g)
        if new is None:
            return None
        _check_hook_result(hook, g, new)
        grads = list(grads)
        grads[nr] = new
        return tuple(grads)

    pre.__name__ = getattr(hook, "__name__", "hook")
    return _add_tensor_hook(t, pre)


def run_leaf_hooks(t, grad):
    """Apply the hooks registered on leaf ``t`` to ``grad`` (its AccumulateGrad's turn)."""
    for hook in tuple(t._hooks.values()):
        new = hook(grad)
        if new is not None:
            _check_hook_result(hook, grad, new)
            grad = new
    return grad


def add_retain_hook(t):
    """Register retain_grad's hook on ``t``'s current grad_fn (again after an in-place op moves it).

    As PyTorch's ``update_tensor_hooks_on_new_gradfn``: an in-place write
    gives the tensor a new grad_fn, and the retain_grad hook moves to it
    (other hooks stay with the old one), so ``.grad`` is the gradient of
    the tensor's current value.
    """
    old = t.__dict__.get("_retain_handle")
    if old is not None:
        old.remove()
    ref = weakref.ref(t)
    nr = t._output_nr

    def retain(grads):
        t = ref()
        g = grads[nr]
        if t is not None and g is not None:
            if t._grad is None:
                # under create_graph a recorded clone (CloneBackward0), contiguous
                # as PyTorch's retains-grad hook makes it
                t._grad = (g.clone(memory_format=contiguous_format) if _state.enabled
                           else Tensor._make(g._data.copy()))
            else:
                t._grad = t._grad + g

    retain._runs_last = True  # after the tensor's own hooks, as in PyTorch
    t._retain_handle = _add_tensor_hook(t, retain)


def register_post_accumulate_grad_hook(t, hook):
    """``t.register_post_accumulate_grad_hook(hook)``: ``hook(t)`` after ``t.grad`` was updated."""
    if not t._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if t._post_acc_hooks is None:
        t._post_acc_hooks = {}
    return _add_hook(t._post_acc_hooks, hook)


def post_accumulate_hooks(t):
    """``t._post_accumulate_hooks()``: those hooks, for ``AccumulateGrad.apply`` to run."""
    h = t._post_acc_hooks
    return () if h is None else tuple(h.values())


def _add_tensor_hook(t, fn):
    """Register ``fn(grads) -> grads | None`` on non-leaf ``t``'s grad_fn, as a tensor hook."""
    node = t._grad_fn
    if node._tensor_pre_hooks is None:
        node._tensor_pre_hooks = {}
    return _add_hook(node._tensor_pre_hooks, fn)


def _check_hook_result(hook, grad, new):
    """PyTorch's checks of what a tensor hook returned (``check_single_result``)."""
    name = getattr(hook, "__name__", repr(hook))
    if grad is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new._data.shape != grad._data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    if new._data.dtype != grad._data.dtype:
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was {_legacy_type(grad)} got "
            f"{_legacy_type(new)})"
        )


def _legacy_type(t):
    return f"torch.{_dtype.SCALAR_TYPE_NAMES[t.dtype.name]}Tensor"


# --- running hooks during a walk (engine.py and captures.py call these) -----------------

walks = []  # the walks in progress, innermost last (engine.run_backward pushes and pops them)


def run_tensor_hooks(node, grads, F):
    """The hooks of the tensor ``node`` produced (``register_hook``, ``retain_grad``) on its summed
    gradients, before it runs, as in PyTorch; a leaf's, in its AccumulateGrad."""
    hooks = node._hooks
    if hooks is not None and hooks.tensor_pre:
        return run_pre_hooks(grads, hooks.tensor_pre, F)
    if type(node) is AccumulateGrad and node.variable._hooks:
        # (a leaf's hooks see None too when its AccumulateGrad gets no gradient, as in PyTorch)
        g = node.variable._run_leaf_hooks(F.to_tensors(grads[:1])[0])
        return list(F.from_tensors((g,)))
    return grads


def _hook_name(hook):
    return getattr(hook, "__name__", repr(hook))


def run_pre_hooks(grads, hooks, F):
    """A node's pre-hooks (or its tensor's hooks): each may replace the gradients it received.

    Raises:
        RuntimeError: PyTorch's "hook '...' has returned an incorrect number of values ...".
    """
    grads = list(F.to_tensors(grads))
    # retain_grad's hook runs after the tensor's own hooks (PyTorch's order)
    for hook in sorted(hooks.values(), key=lambda h: getattr(h, "_runs_last", False)):
        res = hook(tuple(grads))
        if res is not None:
            if len(res) != len(grads):
                raise RuntimeError(
                    f"hook '{_hook_name(hook)}' has returned an incorrect number of values "
                    f"(got {len(res)}, but expected {len(grads)})"
                )
            grads = list(res)
    return list(F.from_tensors(tuple(grads)))


def run_post_hooks(out, grads, hooks, F):
    """A node's post-hooks ``hook(grad_inputs, grad_outputs)``: each may replace what it sends on.

    Raises:
        RuntimeError: PyTorch's "hook '...' has returned an incorrect number of values ..."
            and "can't replace a None gradient with a non-None value".
    """
    out = F.to_tensors(out)
    grads = F.to_tensors(grads)
    for hook in tuple(hooks.values()):
        res = hook(out, grads)
        if res is not None:
            if len(res) != len(out):
                raise RuntimeError(
                    f"hook '{_hook_name(hook)}' has returned an incorrect number of values "
                    f"(got {len(res)}, but expected {len(out)})"
                )
            for old, new in zip(out, res):
                if old is None and new is not None:
                    raise RuntimeError("can't replace a None gradient with a non-None value")
            out = tuple(res)
    return F.from_tensors(out)
