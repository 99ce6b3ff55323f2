"""Gradient checkpointing: drop a segment's saved activations in forward, recompute them in backward.

Backward needs the values each operation saved in forward, and for a deep
network those saved activations are most of the memory.  Checkpointing trades
compute for memory (Chen et al. 2016, "Training Deep Nets with Sublinear
Memory Cost", arXiv:1604.06174): run a segment forward *without keeping* what
its operations save, and when backward first needs one of those values, run
the segment forward again to get them.  Cutting a chain of k layers into √k
checkpointed segments keeps O(√k) activations instead of O(k), for about one
extra forward pass.

How minigrad does it (PyTorch's non-reentrant variant, ``use_reentrant=False``)
with nothing but ``autograd.graph.saved_tensors_hooks``:

1. **Forward.**  The segment runs under ``saved_tensors_hooks(pack, unpack)``.
   Every tensor an operation saves goes to ``pack``, which keeps only a small
   *holder* (no tensor) and remembers the tensor's shape and dtype.  The
   segment's inputs are kept, so it can be run again.
2. **Backward.**  The first ``unpack`` of a holder runs the segment forward
   again (grad mode on, the random-number state of the original forward
   restored), under a second pair of hooks whose ``pack`` hands each
   recomputed saved tensor to the holder with the same index.  Each holder's
   value is returned once and then dropped.
3. **Check.**  If the recomputation saved a different number of tensors, or
   tensors of other shapes or dtypes (a function that is not deterministic),
   ``CheckpointError`` is raised with PyTorch's message.

The gradients are identical to a plain run: the same operations run on the
same values.  ``retain_graph=True`` works (a second walk recomputes again),
checkpoints nest (an inner checkpoint's inputs are saved tensors of the outer
one), and inputs that do not require grad are fine (the segment's parameters
still get their gradients).

``use_reentrant=True`` (PyTorch's older variant, still its default when the
argument is omitted) is also provided: the segment becomes one
``autograd.Function`` (CheckpointFunctionBackward) that runs the forward under
``no_grad`` and, in its backward, re-runs it with grad on and calls
``autograd.backward`` on the result from inside the walk.  As in PyTorch it
gives no gradients if no *input* requires grad, and it is not meant for
``autograd.grad`` or ``backward(inputs=...)`` (PyTorch raises there; minigrad
cannot detect it and would accumulate into ``.grad`` instead).

Differences from PyTorch: no ``context_fn``/``debug``/selective checkpointing;
recomputed values are kept per holder rather than per graph task, so reading
the same saved tensor twice within one backward recomputes instead of raising;
and "early stop" ignores what the recomputation saves once every needed
tensor is back but lets the function run to its end (PyTorch raises out of
the middle of it, which in minigrad would leave the interrupted node in a
reference cycle, holding its activations until the garbage collector runs).

Source: ``torch.utils.checkpoint`` (torch/utils/checkpoint.py): ``checkpoint``,
``checkpoint_sequential``, ``_checkpoint_hook``, ``_recomputation_hook``,
``CheckpointFunction``, ``CheckpointError``.
"""

import warnings
import weakref

from .. import random
from ..autograd import backward as _autograd_backward
from ..autograd import grad_mode
from ..autograd.function import Function
from ..autograd import saved as _saved
from ..autograd.saved import saved_tensors_hooks
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "detach_variable", "check_backward_validity"]

_USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting "
    "in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants."
)
_USE_REENTRANT_WARNING_SEQ = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
    "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not "
    "passed. use_reentrant=False is recommended, but if you need to preserve the current "
    "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
    "the differences between the two variants."
)


class CheckpointError(RuntimeError):
    """Raised when a checkpointed segment recomputes differently from its forward (PyTorch's class)."""


# ------------------------------------------------------------------ RNG state

def _get_rng_state():
    """The state of minigrad's default generator (``torch.get_rng_state``), a copy."""
    return random.get_rng_state()


def _set_rng_state(state):
    random.set_rng_state(state)


# ------------------------------------------------------------------ helpers

def detach_variable(inputs):
    """Detach each tensor of the tuple ``inputs``, keeping its ``requires_grad`` (PyTorch's helper).

    Raises:
        RuntimeError: "Only tuple of tensors is supported. ..." for a non-tuple.
    """
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            "Only tuple of tensors is supported. Got Unsupported input type: "
            f"{type(inputs).__name__}"
        )
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    """Warn, as PyTorch does, if no tensor input requires grad (the reentrant variant then gives none)."""
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


def _size(shape):
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


class _Meta:
    """Shape, dtype and device of a saved tensor: what the determinism check compares."""

    __slots__ = ("shape", "dtype")

    def __init__(self, t):
        self.shape, self.dtype = tuple(t.shape), t.dtype

    def __eq__(self, other):
        return self.shape == other.shape and self.dtype is other.dtype

    def __repr__(self):
        return (f"{{'shape': {_size(self.shape)}, 'dtype': torch.{self.dtype.name}, "
                "'device': device(type='cpu')}")


_METADATA_FNS = {"default": _Meta, "none": None}


# ------------------------------------------------------------------ the non-reentrant variant

class _Holder:
    """What ``pack`` keeps instead of a saved tensor: a slot for the recomputed value.

    The graph owns it (through its saved tensor); the frame only refers to it
    weakly, so a holder whose graph was freed is skipped by a recomputation.
    """

    __slots__ = ("value", "__weakref__")

    def __init__(self):
        self.value = None


class _SavedInput:
    """A segment input kept for the recomputation, the way PyTorch keeps it (a SavedVariable).

    Saved through the saved-tensor hooks active when the checkpoint starts,
    so inside an outer checkpoint it is one of that checkpoint's saved
    tensors (PyTorch's rule for nested checkpoints).  On unpack, the tensor
    gets its autograd identity back, as PyTorch's ``SavedVariable::unpack``
    gives it: the same ``grad_fn`` for a non-leaf, the leaf itself (while it
    lives) for a leaf, so the recomputation records and saves as the forward did.
    """

    __slots__ = ("grad_fn", "output_nr", "requires_grad", "leaf") + _saved.NODE_SLOTS

    def __init__(self, t):
        _saved.pack(self, (t,))  # kept as a node keeps a saved input
        self.grad_fn = t.grad_fn
        self.output_nr = t.output_nr
        self.requires_grad = t.requires_grad
        self.leaf = weakref.ref(t) if t.requires_grad and t.grad_fn is None else None

    def unpack(self):
        (t,) = _saved.unpack(self)
        if t.grad_fn is self.grad_fn and t.requires_grad == self.requires_grad:
            return t  # the original tensor (no hooks were active)
        if self.grad_fn is not None:
            out = Tensor._make(t._data, grad_fn=self.grad_fn, vc=t._shared_vc())
            if self.output_nr:
                out._output_nr = self.output_nr
            return out
        if self.requires_grad:
            leaf = self.leaf()
            if leaf is not None:
                return leaf
            return Tensor._make(t._data, requires_grad=True, vc=t._shared_vc())
        return t


class _CheckpointFrame:
    """Everything one checkpointed call needs to recompute its saved tensors.

    Attributes:
        recompute_fn: runs the segment again (restoring the RNG state).
        saved_args: the segment's arguments; tensors kept as a node keeps them
            so that, inside an outer checkpoint, they are that checkpoint's
            saved tensors, and so that in-place changes to them are caught.
        weak_holders: a weak reference to each holder, in the order the
            forward saved the tensors.
        metadata: ``_Meta`` of each saved tensor, for the determinism check.
    """

    def __init__(self, recompute_fn, early_stop, metadata_fn):
        self.recompute_fn = recompute_fn
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        self.saved_args = []
        self.weak_holders = []
        self.metadata = []
        self.forward_completed = False

    def save_inputs(self, *args):
        self.saved_args = [_SavedInput(a) if isinstance(a, Tensor) else a for a in args]

    def get_inputs(self):
        return [a.unpack() if isinstance(a, _SavedInput) else a for a in self.saved_args]

    def pack(self, x):
        """Forward: keep a holder, not ``x``."""
        if x._wrapped:
            # A Python number (``t * 2``): PyTorch saves these without calling
            # the hooks; keep it as it is, and do not count it.
            return x
        holder = _Holder()
        self.weak_holders.append(weakref.ref(holder))
        if self.metadata_fn is not None:
            self.metadata.append(self.metadata_fn(x))
        return holder

    def unpack(self, holder):
        """Backward: the recomputed value for ``holder``, recomputing the segment if needed."""
        if isinstance(holder, Tensor):  # a wrapped number, kept as is
            return holder
        if holder.value is None:
            self.recompute()
        value = holder.value
        holder.value = None  # dropped as soon as it is used (PyTorch's Rule 4)
        if value is None:  # pragma: no cover - the checks in recompute() prevent this
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                "already unpacked once."
            )
        return value

    def recompute(self):
        """Run the segment again and give each live holder its recomputed tensor."""
        n = len(self.weak_holders)
        recomputed = []

        def pack(x):
            if x._wrapped:
                return x  # not counted, as in the forward
            # Detached: the recomputed graph is thrown away; only values are kept.
            x = Tensor._make(x._data, vc=x._shared_vc())
            if len(recomputed) >= n:
                # Everything needed is back.  PyTorch stops the function here
                # by raising from this hook (early stop); minigrad lets it run
                # on and ignores what it saves (see the module docstring).
                if self.early_stop or not self.forward_completed:
                    return x
                raise CheckpointError(
                    "torch.utils.checkpoint: trying to save more tensors during recomputation "
                    "than during the original forward pass."
                )
            recomputed.append(x)
            return x

        args = self.get_inputs()
        with saved_tensors_hooks(pack, lambda x: x), grad_mode.enable_grad():
            self.recompute_fn(*args)
        self._check(recomputed)
        for ref, x in zip(self.weak_holders, recomputed):
            holder = ref()
            if holder is not None:
                holder.value = x

    def _check(self, recomputed):
        n = len(self.weak_holders)
        if len(recomputed) != n:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {n}\n"
                f"Number of tensors saved during recomputation: {len(recomputed)}."
            )
        if self.metadata_fn is None:
            return
        different = []
        for idx, (ref, x) in enumerate(zip(self.weak_holders, recomputed)):
            if ref() is None:
                continue
            meta = self.metadata_fn(x)
            if meta != self.metadata[idx]:
                different.append((idx, self.metadata[idx], meta))
        if different:
            lines = "".join(
                f"tensor at position {idx}:\nsaved metadata: {saved}\nrecomputed metadata: {new}\n"
                for idx, saved, new in different
            )
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{lines}."
            )


def _checkpoint_without_reentrant(function, preserve_rng_state, determinism_check, early_stop,
                                  *args, **kwargs):
    if determinism_check not in _METADATA_FNS:
        raise ValueError(
            f"determinism_check should be one of {list(_METADATA_FNS)}, but got "
            f"{determinism_check}"
        )
    if not grad_mode.is_grad_enabled():
        return function(*args, **kwargs)  # nothing is saved: nothing to drop
    fwd_rng_state = _get_rng_state() if preserve_rng_state else None

    def recompute_fn(*inputs):
        if preserve_rng_state:
            outer = _get_rng_state()
            _set_rng_state(fwd_rng_state)
        try:
            function(*inputs, **kwargs)
        finally:
            if preserve_rng_state:
                _set_rng_state(outer)

    frame = _CheckpointFrame(recompute_fn, early_stop, _METADATA_FNS[determinism_check])
    frame.save_inputs(*args)  # before our hooks: an outer checkpoint sees them as saved
    with saved_tensors_hooks(frame.pack, frame.unpack):
        out = function(*args, **kwargs)
    frame.forward_completed = True
    return out


# ------------------------------------------------------------------ the reentrant variant

class CheckpointFunction(Function):
    """The ``use_reentrant=True`` variant: one node (CheckpointFunctionBackward) for the segment.

    Forward runs the segment with recording off and keeps only its inputs;
    backward re-runs it with recording on from detached copies of the inputs
    and calls ``autograd.backward`` on that from inside the walk (hence
    "reentrant").  Source: ``torch.utils.checkpoint.CheckpointFunction``.
    """

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = _get_rng_state()
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with grad_mode.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        inputs = list(ctx.inputs)
        for idx, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[idx] = t
        if ctx.preserve_rng_state:
            outer = _get_rng_state()
            _set_rng_state(ctx.fwd_cpu_state)
        try:
            detached = detach_variable(tuple(inputs))
            with grad_mode.enable_grad():
                outputs = ctx.run_function(*detached)
        finally:
            if ctx.preserve_rng_state:
                _set_rng_state(outer)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        outputs_with_grad, args_with_grad = [], []
        for out, g in zip(outputs, grads):
            if isinstance(out, Tensor) and out.requires_grad:
                outputs_with_grad.append(out)
                args_with_grad.append(g)
        if not outputs_with_grad:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        _autograd_backward(outputs_with_grad, args_with_grad)
        return (None, None) + tuple(
            inp.grad if isinstance(inp, Tensor) else None for inp in detached
        )


# ------------------------------------------------------------------ the API

def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True,
               determinism_check="default", early_stop=True, **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping its saved activations; recompute them in backward.

    Gradients are the same as without checkpointing; memory holds only the
    segment's inputs (and outputs) until backward reaches the segment, which
    then runs forward once more.  See the module docstring for how.

    Args:
        function: the segment, a callable of tensors (a Module works).
        *args: its arguments (tensors or anything else).
        use_reentrant (bool | None): False for the saved-tensor-hooks
            variant (recommended, as in PyTorch); True for the reentrant
            ``autograd.Function`` variant.  None warns (PyTorch's text) and
            uses True, PyTorch's current default.
        preserve_rng_state (bool): replay the random numbers of the forward
            (minigrad's default generator) during recomputation (default True).
        determinism_check ("default" | "none"): compare shapes and dtypes of
            the recomputed saved tensors with the original ones.
        early_stop (bool): once every saved tensor is back, ignore what the
            recomputation saves (True, the default); False raises
            CheckpointError if it saves more than the forward did.
        **kwargs: keyword arguments for ``function`` (non-reentrant only).

    Returns:
        what ``function`` returns.

    Raises:
        CheckpointError: "torch.utils.checkpoint: A different number of
            tensors was saved during the original forward and recomputation."
            or "torch.utils.checkpoint: Recomputed values for the following
            tensors have different metadata than during the forward pass."
            (at backward) when ``function`` does not compute the same thing twice.
        ValueError: "Unexpected keyword arguments: ..." for kwargs with the
            reentrant variant.

    References:
        Chen, Xu, Zhang, Guestrin 2016, "Training Deep Nets with Sublinear
        Memory Cost", arXiv:1604.06174; PyTorch's ``torch.utils.checkpoint.checkpoint``.
    """
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, preserve_rng_state, determinism_check,
                                         early_stop, *args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` in order, checkpointing all but the last of ``segments`` chunks.

    With k functions in s segments, forward keeps the s - 1 segment inputs
    plus the last segment's activations (about k/s), and backward holds one
    segment's activations at a time: s = √k gives O(√k) memory for one
    extra forward pass (Chen et al. 2016).

    Args:
        functions: an ``nn.Sequential`` or a list of callables.
        segments (int): number of chunks; each has ``len(functions) // segments``
            functions, the last one the rest (and it is not checkpointed).
        input (Tensor): the input of the first function.
        use_reentrant (bool | None): as for ``checkpoint`` (None warns, uses True).
        preserve_rng_state (bool, keyword): as for ``checkpoint``.

    Returns:
        the output of the last function.

    Raises:
        ValueError: "Unexpected keyword arguments: ..." for any other keyword.

    Source: ``torch.utils.checkpoint.checkpoint_sequential``.
    """
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING_SEQ, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    from ..nn.modules.container import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
