"""Memory you can watch: how many bytes the values saved for backward hold right now.

Every operation recorded for backward keeps what its backward needs: ``x * y``
keeps ``x`` and ``y``, ``tanh`` keeps its result.  Those *saved values* are
what a graph costs in memory, and they are released in two ways: the backward
walk frees each node's values right after the node has run (unless
``retain_graph=True``), and dropping the last reference to a graph's output
frees the whole graph.  This module measures it:

* ``saved_bytes(*tensors)``: the bytes held right now by the saved values of
  the graphs behind the given tensors;
* ``SavedTensorsMeter``: a ``with`` block that counts every value saved inside
  it, for as long as it stays saved: ``meter.bytes_alive`` now,
  ``meter.peak``, and ``meter.record(label)`` to build a history, e.g. once
  per iteration of a training loop;
* ``plot_saved_bytes(...)``: a matplotlib plot of such a history, or of the
  steps of a backward walk recorded by ``minigrad.viz.record_backward``.

What is counted: the distinct numpy buffers the saved values refer to, each
once.  ``x * x`` saves ``x`` twice, but it is one array, so it counts once;
a view counts as the whole buffer it keeps alive.  A leaf such as a weight
counts too while a graph saves it (the graph is one of the things holding it).

Example (the classic mistake: a list of losses keeps every graph alive)::

    with SavedTensorsMeter() as meter:
        losses = []
        for step in range(5):
            loss = (w * minigrad.randn(1000)).tanh().sum()
            losses.append(loss)          # keeps the graph: climbs
            # losses.append(loss.item()) # keeps a number: stays flat
            meter.record(step)
    plot_saved_bytes(meter)

The meter uses ``minigrad.autograd.graph.saved_tensors_hooks``, the mechanism
PyTorch offers for exactly this (``torch.autograd.graph.saved_tensors_hooks``):
its pack hook wraps each saved tensor in a small object the meter watches with
a weak reference, so it sees the moment the value is let go.  The wrapper is
transparent: backward gets the same tensor back, and ``minigrad.viz.draw``
shows the value as ``alive``, not "packed by hook".

``import minigrad.memory`` needs numpy only; ``plot_saved_bytes`` imports
matplotlib when called.

Source: the "saved tensors hooks" section of PyTorch's autograd notes
(docs.pytorch.org/docs/stable/autograd.html#saved-tensors-hooks) and its
tutorial on them (``autograd_saved_tensors_hooks_tutorial``), which measure
saved activations the same way.
"""

import functools
import weakref

import numpy as np

__all__ = ["SavedTensorsMeter", "plot_saved_bytes", "saved_bytes"]


def _buffer_of(array):
    """``(key, nbytes)`` of the buffer an array keeps alive: its owner, following ``.base``.

    The key is the owner's ``id``: valid for as long as the owner is alive,
    which is as long as anything counted refers to it.
    """
    a = np.asarray(array)
    while isinstance(a.base, np.ndarray):
        a = a.base
    return id(a), int(a.nbytes)


class _MeterPacked:
    """What a ``SavedTensorsMeter`` stores in place of a saved tensor: the tensor itself.

    Its death (the saved value released by backward, or its graph dropped)
    tells the meter, through a weak reference, that the bytes are free.
    """

    __slots__ = ("__weakref__", "tensor", "origin")

    def __init__(self, tensor):
        if tensor._grad_fn is not None:
            # Possibly the saving node's own output (it arrives here as itself):
            # holding it would make a node -> packed -> output -> node cycle, so
            # keep an alias without history and only a weak link to the original.
            self.tensor = type(tensor)._alias_of(tensor)
            self.origin = weakref.ref(tensor)
        else:
            self.tensor = tensor
            self.origin = None


def _unpack(packed):
    return packed.tensor


def _alive_saved_arrays(nodes):
    """The arrays held by the saved values of ``nodes`` that are alive now (not freed)."""
    for node in nodes:
        for s in getattr(node, "_saved", ()) or ():
            if s is None:
                continue
            t = s._tensor
            if t is None:
                p = s._packed
                if p is None:
                    continue  # freed
                t = getattr(p, "tensor", p)  # our meter's wrapper, or what a pack hook kept
            data = getattr(t, "_data", t)
            if isinstance(data, np.ndarray) or np.isscalar(data):
                yield data


def _count(arrays):
    seen = {}
    for a in arrays:
        key, n = _buffer_of(a)
        seen[key] = n
    return sum(seen.values())


def saved_bytes(*tensors):
    """The bytes held right now by the saved values of the graphs behind ``tensors``.

    Walks back from each tensor's ``grad_fn`` (without recursion) and adds up
    the distinct buffers that the nodes' saved values still refer to: 0 once
    a backward without ``retain_graph=True`` has freed them, or for tensors
    that recorded nothing.

    Args:
        *tensors: Tensors (or graph Nodes such as ``loss.grad_fn``), or lists of them.

    Returns:
        int: a number of bytes.

    Example::

        loss = (x * w).tanh().sum()
        saved_bytes(loss)   # x, w and the tanh result
        loss.backward()
        saved_bytes(loss)   # 0
    """
    from .autograd.graph import Node
    from .tensor import Tensor

    start = []
    stack = list(tensors)
    while stack:
        t = stack.pop()
        if isinstance(t, (list, tuple)):
            stack.extend(t)
        elif isinstance(t, Tensor):
            if t._grad_fn is not None:
                start.append(t._grad_fn)
        elif isinstance(t, Node):
            start.append(t)
        else:
            raise TypeError(f"saved_bytes() expects Tensors or graph Nodes, got {type(t).__name__}")
    seen = set()
    nodes = []
    while start:
        n = start.pop()
        if n in seen:
            continue
        seen.add(n)
        nodes.append(n)
        start.extend(nxt for nxt, _ in n.next_functions if nxt is not None and nxt not in seen)
    return _count(_alive_saved_arrays(nodes))


class SavedTensorsMeter:
    """Count the bytes saved for backward inside a ``with`` block, for as long as they stay saved.

    Inside ``with SavedTensorsMeter() as meter:``, every value an operation
    saves for backward is counted (each distinct buffer once) until it is
    released: by the backward walk (right after the node that saved it has
    run, unless ``retain_graph=True``) or because its graph was dropped.  The
    count keeps following those values after the block ends; only values
    saved inside the block are counted.

    Attributes:
        bytes_alive (int): bytes held right now by the values saved inside the block.
        peak (int): the largest ``bytes_alive`` seen.
        history (list[tuple]): ``(label, bytes_alive)`` pairs, one per ``record()``.

    Example::

        with SavedTensorsMeter() as meter:
            for step in range(3):
                loss = model(x).sum()
                meter.record(step)       # one point per iteration
        meter.history                    # [(0, 1234), (1, 1234), (2, 1234)]

    Meters do not nest: inside a second ``saved_tensors_hooks`` block (another
    meter, or any pack hook) the inner hooks are the ones used.

    Source: ``torch.autograd.graph.saved_tensors_hooks``, as PyTorch's
    tutorial uses it to measure saved activations.
    """

    def __init__(self):
        self._buffers = {}  # buffer key -> [number of live saved values over it, nbytes]
        self._refs = set()
        self._hooks = None
        self.bytes_alive = 0
        self.peak = 0
        self.history = []

    def __enter__(self):
        from .autograd.graph import saved_tensors_hooks

        self._hooks = saved_tensors_hooks(self._pack, _unpack)
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc):
        self._hooks.__exit__(*exc)
        self._hooks = None
        return False

    def _pack(self, tensor):
        packed = _MeterPacked(tensor)
        key, nbytes = _buffer_of(tensor._data)
        entry = self._buffers.get(key)
        if entry is None:
            self._buffers[key] = [1, nbytes]
            self.bytes_alive += nbytes
            if self.bytes_alive > self.peak:
                self.peak = self.bytes_alive
        else:
            entry[0] += 1
        self._refs.add(weakref.ref(packed, functools.partial(self._released, key)))
        return packed

    def _released(self, key, ref):
        self._refs.discard(ref)
        entry = self._buffers.get(key)
        if entry is None:  # pragma: no cover - every pack added one
            return
        entry[0] -= 1
        if entry[0] == 0:
            del self._buffers[key]
            self.bytes_alive -= entry[1]

    @property
    def values_alive(self):
        """How many saved values (not buffers) counted by this meter are still held."""
        return len(self._refs)

    def record(self, label=None):
        """Append ``(label, bytes_alive)`` to ``history`` and return ``bytes_alive``.

        Args:
            label: what this point is (an iteration number, a step name);
                default: its position in ``history``.
        """
        self.history.append((len(self.history) if label is None else label, self.bytes_alive))
        return self.bytes_alive

    def __repr__(self):
        return (f"SavedTensorsMeter(bytes_alive={self.bytes_alive}, peak={self.peak}, "
                f"{len(self.history)} recorded)")


def _series(data):
    """``(labels, values, xlabel)`` from what ``plot_saved_bytes`` accepts."""
    if isinstance(data, SavedTensorsMeter):
        pairs = list(data.history)
        return [p[0] for p in pairs], [p[1] for p in pairs], "recorded point"
    sb = getattr(data, "saved_bytes", None)
    if sb is not None and hasattr(data, "state"):  # a viz.BackwardRecording
        labels = ["start"] + [s.label for s in data]
        return labels, list(sb), "backward walk: after each node"
    pairs = list(data)
    if pairs and all(isinstance(p, tuple) and len(p) == 2 for p in pairs):
        return [p[0] for p in pairs], [p[1] for p in pairs], "recorded point"
    return list(range(len(pairs))), [int(p) for p in pairs], "recorded point"


def _unit(peak):
    for unit, size in (("MB", 1 << 20), ("kB", 1 << 10)):
        if peak >= 10 * size:
            return unit, size
    return "bytes", 1


def plot_saved_bytes(data, ax=None, *, title=None, xlabel=None):
    """Plot saved bytes over a loop or over the steps of a backward walk; returns the Figure.

    Args:
        data: a ``SavedTensorsMeter`` (its ``history``), a
            ``minigrad.viz.BackwardRecording`` (bytes still saved before the
            walk and after each node ran), a list of ``(label, bytes)``
            pairs, or a list of numbers of bytes.
        ax: a matplotlib Axes to draw into; default: a new 6 x 3 inch figure.
        title (str | None): the plot's title.
        xlabel (str | None): the x-axis label; a sensible default otherwise.

    Returns:
        matplotlib.figure.Figure: the figure drawn into.  A new figure is
        closed in pyplot before it is returned, so a notebook shows it once,
        as the value of the cell (``fig = plot_saved_bytes(...)`` then ``fig``).

    The line is drawn as steps with a marker at each point (bytes change at a
    point, and stay until the next), in Okabe-Ito blue; the y axis starts at 0
    and is in bytes, kB or MB.
    """
    import matplotlib.pyplot as plt

    labels, values, default_xlabel = _series(data)
    created = ax is None
    if created:
        fig, ax = plt.subplots(figsize=(6, 3))
    else:
        fig = ax.figure
    unit, size = _unit(max(values, default=0))
    xs = list(range(len(values)))
    ys = [v / size for v in values]
    ax.step(xs, ys, where="post", color="#0072B2", linewidth=2)
    ax.plot(xs, ys, "o", color="#0072B2", markersize=5)
    ax.set_ylim(bottom=0, top=max(ys, default=0) * 1.15 or 1)
    ax.set_ylabel(f"saved for backward ({unit})")
    ax.set_xlabel(xlabel or default_xlabel)
    if labels and any(not isinstance(lb, int) or lb != i for i, lb in enumerate(labels)):
        ax.set_xticks(xs)
        ax.set_xticklabels([str(lb) for lb in labels],
                           rotation=30 if max(len(str(lb)) for lb in labels) > 4 else 0,
                           ha="right" if max(len(str(lb)) for lb in labels) > 4 else "center")
    elif xs:
        ax.set_xticks(xs if len(xs) <= 20 else xs[:: max(1, len(xs) // 10)])
    ax.grid(axis="y", color="#DDDDDD")
    ax.spines[["top", "right"]].set_visible(False)
    if title:
        ax.set_title(title)
    if created:
        fig.tight_layout()
        plt.close(fig)
    return fig
