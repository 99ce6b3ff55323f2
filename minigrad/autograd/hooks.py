"""Hook helpers of ``torch.autograd.graph``: ``register_multi_grad_hook``, ``save_on_cpu``, raw saved tensors.

* ``register_multi_grad_hook(tensors, fn)`` calls ``fn(grads)`` once per
  backward pass, after the gradients of all of ``tensors`` that the pass
  computes are known (None for the others); with ``mode="any"``, ``fn(grad)``
  for the first one.
* ``save_on_cpu()`` is a ``saved_tensors_hooks`` block that moves saved
  tensors to the CPU and back: here, where everything lives on the CPU, they
  are kept as they are.
* ``node._raw_saved_self`` (``SavedTensor``) lets a single saved tensor get
  its own pack/unpack pair with ``register_hooks``.

Source: torch/autograd/graph.py (``register_multi_grad_hook``,
``save_on_cpu``) and ``torch._C._autograd.SavedTensor``.
"""

import itertools
import weakref

from .. import _device
from . import engine
from .graph import AccumulateGrad, saved_tensors_hooks

__all__ = ["SavedTensor", "register_multi_grad_hook", "save_on_cpu"]


class SavedTensor:
    """One saved tensor of a node, not unpacked (``torch._C._autograd.SavedTensor``).

    ``node._raw_saved_self`` returns one (also for a value that was not saved,
    as PyTorch does); its only method is ``register_hooks``.
    """

    __slots__ = ("_saved",)

    def __init__(self, saved):
        self._saved = saved

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
        if self._saved is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        self._saved.register_hooks(*hooks)


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
    if not engine._walks:
        raise AssertionError("expected this hook to be called inside a backward call")
    return engine._walks[-1]


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


# The device namespaces minigrad offers, by name (minigrad.cpu, minigrad.cuda, ...)
_DEVICE_MODULES = {name: getattr(_device, name) for name in ("cpu", "cuda", "accelerator", "backends")}


class save_on_cpu(saved_tensors_hooks):
    """Keep the tensors saved inside the block on the CPU (``torch.autograd.graph.save_on_cpu``).

    PyTorch packs each saved tensor as ``(tensor.device, tensor.cpu())`` and
    moves it back to its device in unpack; on the CPU that is the tensor
    itself, so saved values behave exactly as without the block (an in-place
    write after the save is then seen by backward, unchecked, as in PyTorch).
    With ``pin_memory=True`` PyTorch packs a copy instead, so backward uses the
    value as it was saved; pinning itself needs ``device_type``'s module to be
    available (the CPU's is), else the copy is a plain one.

    Args:
        pin_memory (bool): pack a copy (pinned where ``device_type`` is available).
        device_type (str): the module whose ``is_available()`` decides pinning
            (``"cuda"`` by default; an unknown name means ``"cuda"``), as in PyTorch.

    Raises:
        RuntimeError: PyTorch's "pin_memory=True requires a CUDA or other
            accelerator backend; ..." when a tensor is saved with pinning
            asked for (``pin_memory=True, device_type="cpu"``).
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        # PyTorch: getattr(torch, device_type, torch.cuda)
        device_module = _DEVICE_MODULES.get(device_type, _device.cuda)

        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            if device_module.is_available():
                raise RuntimeError("pin_memory=True requires a CUDA or other accelerator "
                                   "backend; no pinned memory allocator is available on this "
                                   "system.")
            # PyTorch: torch.empty(tensor.size(), dtype=tensor.dtype, ...).copy_(tensor);
            # minigrad's empty is zeros, so is new_zeros (and it needs no import of creation)
            packed = tensor.new_zeros(tensor.size())
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)
