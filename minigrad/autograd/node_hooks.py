"""A node's own hooks: ``grad_fn.register_hook`` and ``grad_fn.register_prehook``.

``Node`` (graph.py) takes these methods from ``NodeHookMethods``.  A node keeps
its hooks in one record, ``node._hooks``, None for the nodes that have none
(nearly all): node pre-hooks (``register_prehook``), the hooks of the tensor
the node produced (``y.register_hook``, ``retain_grad``: hooks.py) and node
post-hooks (``register_hook``).  The walk runs them around the node
(engine.py's ``run_node``, with hooks.py's ``run_pre_hooks``/``run_post_hooks``).

Source: ``torch.autograd.graph.Node.register_hook`` and ``register_prehook``.
"""

from .removable_handle import _add_hook

__all__ = ["NodeHookMethods"]


class NodeHookMethods:
    """The hook methods of ``Node`` (a mixin: it holds no state of its own)."""

    __slots__ = ()

    def register_hook(self, fn):
        """Call ``fn(grad_inputs, grad_outputs)`` after this node has run.

        As in PyTorch, ``grad_inputs`` are the gradients this node sends on
        (one per ``next_functions`` entry) and ``grad_outputs`` the ones it
        received.  ``fn`` may return a replacement tuple for ``grad_inputs``.

        Returns:
            a handle whose ``remove()`` unregisters the hook.
        """
        if self._post_hooks is None:
            self._post_hooks = {}
        return _add_hook(self._post_hooks, fn)

    def register_prehook(self, fn):
        """Call ``fn(grad_outputs)`` before this node runs; it may return replacements.

        Returns:
            a handle whose ``remove()`` unregisters the hook.
        """
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return _add_hook(self._pre_hooks, fn)

    def _hook_dict(self, kind):
        hooks = self._hooks
        return None if hooks is None else getattr(hooks, kind)

    def _set_hook_dict(self, kind, value):
        if self._hooks is None:
            self._hooks = _NodeHooks()
        setattr(self._hooks, kind, value)

    # node pre-hooks (register_prehook); hooks of the tensor this node produced
    # (register_hook, retain_grad); node post-hooks (register_hook)
    _pre_hooks = property(lambda self: self._hook_dict("pre"),
                          lambda self, v: self._set_hook_dict("pre", v))
    _tensor_pre_hooks = property(lambda self: self._hook_dict("tensor_pre"),
                                 lambda self, v: self._set_hook_dict("tensor_pre", v))
    _post_hooks = property(lambda self: self._hook_dict("post"),
                           lambda self, v: self._set_hook_dict("post", v))


class _NodeHooks:
    """The hooks of one node (most nodes have none, and no such record)."""

    __slots__ = ("post", "pre", "tensor_pre")

    def __init__(self):
        self.pre = self.tensor_pre = self.post = None
