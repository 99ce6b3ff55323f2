"""What ``register_hook`` returns: a handle that unregisters the hook.

Every kind of hook in minigrad (on tensors, on nodes, on modules) is kept in
a dict keyed by the handle's id, so ``handle.remove()`` deletes exactly that
hook, and hooks run in the order they were registered.

Source: ``torch.utils.hooks.RemovableHandle``.
"""

import itertools

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` unregisters the hook.

    Source: ``torch.utils.hooks.RemovableHandle``.
    """

    __slots__ = ("_hooks", "id")
    _next_id = itertools.count()

    def __init__(self, hooks):
        self._hooks = hooks
        self.id = next(RemovableHandle._next_id)

    def remove(self):
        """Unregister the hook; removing twice is harmless."""
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _add_hook(hooks, fn):
    """Register ``fn`` in ``hooks`` (a dict of one kind of hook); returns its handle.

    Raises:
        TypeError: if ``fn`` is not callable.
    """
    if not callable(fn):
        raise TypeError(f"hook must be callable, got {type(fn).__name__}")
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle
