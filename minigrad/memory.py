"""Memory you can watch: the bytes the values saved for backward hold, each storage once.

Every operation recorded for backward keeps what its backward needs: ``x * y``
keeps ``x`` and ``y``, ``tanh`` keeps its result.  Those *saved values* are
what a graph costs in memory, and they are released in two ways: the backward
walk frees each node's values right after the node has run (unless
``retain_graph=True``), and dropping the last reference to a graph's output
frees the whole graph.

**What is counted.**  Memory is counted by *storage* (the block of memory a
tensor's values live in), each storage once: ``x * x`` saves ``x`` twice but
holds one storage; a view counts as the whole storage it keeps alive; two
graphs that both save the same input (four validation losses all saving
``x_val``) hold it once.

**What only the graph keeps alive.**  A saved value is either something the
forward pass made (the error ``w * x + b - y`` inside a loss: nothing but the
graph holds it, so it is freed with the graph) or something that exists
anyway (the data ``x_val``, a weight ``w``: your variables hold them, so
freeing the graph gives none of that memory back).  ``saved_memory(...)``
tells the two apart by looking at what your variables hold: a storage is
*also held elsewhere* when a tensor over it is reachable from the calling
module's variables (a notebook's: a name, or inside a list, tuple, dict or
``nn.Module`` held by one); otherwise it is *held only by the graph*.

* ``saved_bytes(*tensors)``: the bytes held right now by the saved values of
  the graphs behind the given tensors;
* ``saved_memory(*tensors)``: the same, split into what only the graph keeps
  alive and what is saved but also held elsewhere (and by which variable);
* ``SavedTensorsMeter``: a ``with`` block that counts every value saved inside
  it, for as long as it stays saved: ``meter.bytes_alive`` now,
  ``meter.peak``, ``meter.record(label)`` to build a history, e.g. once per
  iteration of a training loop, and ``meter.breakdown()``;
* ``plot_saved_bytes(...)``: a matplotlib plot of such a history, or of the
  steps of a backward walk recorded by ``minigrad.viz.record_backward``.

All of them work on minigrad's graphs and on PyTorch's: the meter uses the
library's ``autograd.graph.saved_tensors_hooks`` (PyTorch's, too, when the
program has imported torch), the others read the graph through
``grad_fn``, ``next_functions`` and ``_saved_*`` (see ``minigrad.viz.reading``).

Example (the classic mistake: a list of losses keeps every graph alive)::

    with SavedTensorsMeter() as meter:
        losses = []
        for step in range(5):
            loss = (w * minigrad.randn(1000)).tanh().sum()
            losses.append(loss)          # keeps the graph: climbs
            # losses.append(loss.item()) # keeps a number: stays flat
            meter.record(step)
    plot_saved_bytes(meter)

``import minigrad.memory`` needs numpy only; ``plot_saved_bytes`` imports
matplotlib when called.

Source: the "saved tensors hooks" section of PyTorch's autograd notes
(docs.pytorch.org/docs/stable/autograd.html#saved-tensors-hooks) and its
tutorial on them (``autograd_saved_tensors_hooks_tutorial``), which measure
saved activations the same way.
"""

import functools
import sys
import weakref

__all__ = ["SavedMemory", "SavedTensorsMeter", "plot_saved_bytes", "saved_bytes", "saved_memory"]


def _reading():
    from .viz import reading

    return reading


class _MeterPacked:
    """What a ``SavedTensorsMeter`` stores in place of a saved tensor: the tensor itself.

    Its death (the saved value released by backward, or its graph dropped)
    tells the meter, through a weak reference, that the bytes are free.
    """

    __slots__ = ("__weakref__", "origin", "tensor")

    def __init__(self, tensor):
        if tensor.grad_fn is not None:
            # Possibly the saving node's own output (it arrives here as itself):
            # holding it would make a node -> packed -> output -> node cycle, so
            # keep an alias without history and only a weak link to the original.
            alias = getattr(type(tensor), "_alias_of", None)
            self.tensor = alias(tensor) if alias is not None else tensor.detach()
            self.origin = weakref.ref(tensor)
        else:
            self.tensor = tensor
            self.origin = None


def _unpack(packed):
    return packed.tensor


# ------------------------------------------------------------ what is saved

def _graph_nodes(tensors, what):
    reading = _reading()
    start = []
    stack = list(tensors)
    while stack:
        t = stack.pop()
        if isinstance(t, (list, tuple)):
            stack.extend(t)
        elif reading.is_tensor(t):
            if t.grad_fn is not None:
                start.append(t.grad_fn)
        elif reading.is_node(t):
            start.append(t)
        else:
            raise TypeError(f"{what} expects minigrad or torch tensors (or graph nodes such as "
                            f"loss.grad_fn), or lists of them; got {reading.describe_type(t)}")
    nodes, _ = reading.walk(start)
    return nodes


def _alive_saved(nodes):
    """``{storage key: (nbytes, tensor)}`` of the saved values of ``nodes`` alive now."""
    reading = _reading()
    out = {}
    for node in nodes:
        for sv in reading.saved_values(node):
            t = sv.tensor
            if t is None or sv.state not in ("alive", "modified"):
                continue
            key, n = reading.library_of(t).storage(t)
            out.setdefault(key, (n, t))
    return out


def saved_bytes(*tensors):
    """The bytes held right now by the saved values of the graphs behind ``tensors``.

    Walks back from each tensor's ``grad_fn`` (without recursion) and adds up
    the distinct storages that the nodes' saved values still refer to, each
    once: 0 once a backward without ``retain_graph=True`` has freed them, or
    for tensors that recorded nothing.

    Args:
        *tensors: minigrad or PyTorch tensors (or graph nodes such as
            ``loss.grad_fn``), or lists of them.

    Returns:
        int: a number of bytes.

    Raises:
        TypeError: something that is not a tensor or node (named in full).

    Example::

        loss = (x * w).tanh().sum()
        saved_bytes(loss)   # x, w and the tanh result
        loss.backward()
        saved_bytes(loss)   # 0
    """
    return sum(n for n, _t in _alive_saved(_graph_nodes(tensors, "saved_bytes()")).values())


# ------------------------------------------------------ held only by the graph

_SKIP_NAMES = {"In", "Out", "exit", "quit", "get_ipython"}


def held_by(namespace, limit=10_000):
    """``{storage key: sorted names}`` of the tensors the variables of ``namespace`` reach.

    A tensor is reached when it is the value of a name, or inside a list,
    tuple, set or dict held by one (up to three levels deep, ``limit`` items
    each), or a parameter or buffer of a module held by one.  Names starting
    with ``_`` (IPython's output history) are not looked at.
    """
    reading = _reading()
    found = {}
    seen = set()

    def visit(obj, name, depth):
        if id(obj) in seen:
            return
        if reading.is_tensor(obj):
            seen.add(id(obj))
            key, _n = reading.library_of(obj).storage(obj)
            found.setdefault(key, set()).add(name)
            return
        if depth >= 3:
            return
        if isinstance(obj, (list, tuple, set, frozenset)):
            seen.add(id(obj))
            for i, v in enumerate(obj):
                if i >= limit:
                    break
                visit(v, name, depth + 1)
        elif isinstance(obj, dict):
            seen.add(id(obj))
            for i, v in enumerate(obj.values()):
                if i >= limit:
                    break
                visit(v, name, depth + 1)
        elif callable(getattr(obj, "named_parameters", None)) and not isinstance(obj, type):
            seen.add(id(obj))
            try:
                items = list(obj.named_parameters()) + list(obj.named_buffers())
            except Exception:  # not a module after all
                return
            for pname, p in items[:limit]:
                visit(p, f"{name}.{pname}", depth + 1)

    for name, obj in list(namespace.items()):
        if not name.startswith("_") and name not in _SKIP_NAMES:
            visit(obj, name, 0)
    return {k: sorted(v) for k, v in found.items()}


class SavedMemory:
    """The bytes saved for backward, split by who else holds them (``saved_memory``).

    Attributes:
        total (int): bytes of all saved storages, each once.
        graph_only (int): bytes only the graph keeps alive: freed with it.
        elsewhere (int): bytes saved but also held by your variables: freeing
            the graph gives them back to nobody.
        storages (list[tuple]): ``(nbytes, held_by)`` per storage, largest
            first; ``held_by`` is a tuple of variable names (empty: only the graph).
        text (str): three lines, also the repr (deterministic: names sorted).
            The third names each storage held elsewhere once, by the
            variables that reach it joined with `` and `` (``batches and
            x_val``: a view held in ``batches`` and its base ``x_val``; never
            `` / ``, which reads as a division).
    """

    def __init__(self, storages):
        self.storages = sorted(storages, key=lambda s: (-s[0], s[1]))
        self.total = sum(n for n, _ in self.storages)
        self.graph_only = sum(n for n, held in self.storages if not held)
        self.elsewhere = self.total - self.graph_only

    @property
    def text(self):
        only = [s for s in self.storages if not s[1]]
        other = [s for s in self.storages if s[1]]
        # one entry per storage: the names that reach the same storage go together
        # ("batches and x_val": a view and its base), so the count matches the list
        names = sorted(" and ".join(sorted(held)) for _, held in other)

        def count(items):
            return f"{len(items)} storage{'s' if len(items) != 1 else ''}"

        lines = [f"saved for backward: {self.total:,} bytes in {count(self.storages)} "
                 "(each counted once)",
                 f"  held only by the graph: {self.graph_only:,} bytes ({count(only)})",
                 f"  also held elsewhere:    {self.elsewhere:,} bytes ({count(other)}"
                 + (": " + ", ".join(names) if names else "") + ")"]
        return "\n".join(lines)

    def __repr__(self):
        return self.text


def _caller_namespace(depth=2):
    """The variables of the module that called in (a notebook's namespace).

    Only module-level names: reading a function's locals (``frame.f_locals``)
    would make Python keep a copy of them, itself holding memory alive.
    """
    frame = sys._getframe(depth)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    return dict(frame.f_globals) if frame is not None else {}


def saved_memory(*tensors, namespace=None):
    """What the saved values behind ``tensors`` hold: only the graph's, or also held elsewhere.

    Args:
        *tensors: minigrad or PyTorch tensors (or graph nodes), or lists of them.
        namespace (dict | None): the variables to look in for other holders;
            default: the calling module's (a notebook's variables).  Inside a
            function, pass the names that matter (``namespace={"x": x}``).

    Returns:
        SavedMemory: ``total`` (what ``saved_bytes`` gives), ``graph_only``,
        ``elsewhere``, per storage who holds it.

    Example (a validation loss evaluated while recording)::

        val_loss = mse(w, b, x_val, y_val)
        saved_memory(val_loss)
        # saved for backward: 800,000 bytes in 2 storages (each counted once)
        #   held only by the graph: 400,000 bytes (1 storage)
        #   also held elsewhere:    400,000 bytes (1 storage: x_val)
    """
    if namespace is None:
        namespace = _caller_namespace()
    saved = _alive_saved(_graph_nodes(tensors, "saved_memory()"))
    holders = held_by(namespace)
    return SavedMemory([(n, tuple(holders.get(key, ()))) for key, (n, _t) in saved.items()])


# ---------------------------------------------------------------- the meter

class SavedTensorsMeter:
    """Count the bytes saved for backward inside a ``with`` block, for as long as they stay saved.

    Inside ``with SavedTensorsMeter() as meter:``, every value an operation
    saves for backward is counted, each storage once, until it is released:
    by the backward walk (right after the node that saved it has run, unless
    ``retain_graph=True``) or because its graph was dropped.  The count keeps
    following those values after the block ends; only values saved inside the
    block are counted.  Works for minigrad's operations and, when the program
    has imported torch, for PyTorch's (its ``saved_tensors_hooks`` too).

    Attributes:
        bytes_alive (int): bytes held right now by the values saved inside the
            block, each storage once (``x * x`` and four graphs saving the same
            ``x_val`` count it once).
        peak (int): the largest ``bytes_alive`` seen.
        history (list[tuple]): ``(label, bytes_alive)`` pairs, one per ``record()``.
        values_alive (int): how many saved values (not storages) are still held.

    Example::

        with SavedTensorsMeter() as meter:
            for step in range(3):
                loss = model(x).sum()
                meter.record(step)       # one point per iteration
        meter.history                    # [(0, 1234), (1, 1234), (2, 1234)]

    ``SavedTensorsMeter(ignore=model.parameters())`` leaves out the storages
    of the given tensors (weights and data that your variables hold anyway,
    which a graph refers to but does not add): what is left is the memory the
    graph itself costs, its activations.

    Meters do not nest: inside a second ``saved_tensors_hooks`` block (another
    meter, or any pack hook) the inner hooks are the ones used.  Python
    numbers saved by an operation (``x * 2``'s ``2``) skip the hooks, as in
    PyTorch, and are not counted.

    Source: ``torch.autograd.graph.saved_tensors_hooks``, as PyTorch's
    tutorial uses it to measure saved activations.
    """

    def __init__(self, ignore=()):
        """Args: ignore: tensors (or an iterable of them, e.g. ``model.parameters()``) whose
        storages are not counted; they must stay alive while the meter is used."""
        reading = _reading()
        self._ignored = {}  # storage key -> a tensor over it, held so that the key stays valid
        for t in ignore:
            if not reading.is_tensor(t):
                raise TypeError("SavedTensorsMeter(ignore=...) expects tensors (e.g. "
                                f"model.parameters()); got {reading.describe_type(t)}")
            self._ignored.setdefault(reading.library_of(t).storage(t)[0], t)
        self._buffers = {}  # storage key -> [number of live saved values over it, nbytes]
        self._refs = {}  # weakref to a packed value -> its storage key
        self._hooks = []
        self.bytes_alive = 0
        self.peak = 0
        self.history = []

    def __enter__(self):
        from .autograd.saved import saved_tensors_hooks

        hooks = [saved_tensors_hooks(self._pack, _unpack)]
        torch = sys.modules.get("torch")
        if torch is not None and hasattr(torch, "autograd"):
            hooks.append(torch.autograd.graph.saved_tensors_hooks(self._pack, _unpack))
        for h in hooks:
            h.__enter__()
        self._hooks = hooks
        return self

    def __exit__(self, *exc):
        for h in reversed(self._hooks):
            h.__exit__(*exc)
        self._hooks = []
        return False

    def _pack(self, tensor):
        reading = _reading()
        packed = _MeterPacked(tensor)
        key, nbytes = reading.library_of(tensor).storage(tensor)
        if key in self._ignored:
            return packed
        entry = self._buffers.get(key)
        if entry is None:
            self._buffers[key] = [1, nbytes]
            self.bytes_alive += nbytes
            if self.bytes_alive > self.peak:
                self.peak = self.bytes_alive
        else:
            entry[0] += 1
        ref = weakref.ref(packed, functools.partial(self._released, key))
        self._refs[ref] = key
        return packed

    def _released(self, key, ref):
        self._refs.pop(ref, None)
        entry = self._buffers.get(key)
        if entry is None:  # pragma: no cover - every pack added one
            return
        entry[0] -= 1
        if entry[0] == 0:
            del self._buffers[key]
            self.bytes_alive -= entry[1]

    @property
    def values_alive(self):
        """How many saved values (not storages) counted by this meter are still held."""
        return len(self._refs)

    def record(self, label=None):
        """Append ``(label, bytes_alive)`` to ``history`` and return ``bytes_alive``.

        Args:
            label: what this point is (an iteration number, a step name);
                default: its position in ``history``.
        """
        self.history.append((len(self.history) if label is None else label, self.bytes_alive))
        return self.bytes_alive

    def breakdown(self, namespace=None):
        """``bytes_alive`` split as ``saved_memory`` splits it: a ``SavedMemory``.

        Args:
            namespace (dict | None): where to look for other holders; default:
                the calling module's variables (as ``saved_memory``).
        """
        if namespace is None:
            namespace = _caller_namespace()
        holders = held_by(namespace)
        return SavedMemory([(entry[1], tuple(holders.get(key, ())))
                            for key, entry in self._buffers.items()])

    def __repr__(self):
        return (f"SavedTensorsMeter(bytes_alive={self.bytes_alive}, peak={self.peak}, "
                f"{len(self.history)} recorded)")


# ------------------------------------------------------------------ the plot

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


def unit_for(peak):
    """``(name, size)``: bytes, KiB (1,024 bytes) or MiB (1,048,576 bytes), for numbers up to ``peak``."""
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if peak >= 10 * size:
            return unit, size
    return "bytes", 1


def plot_saved_bytes(data, ax=None, *, title=None, xlabel=None, ylabel=None):
    """Plot saved bytes over a loop or over the steps of a backward walk; returns the Figure.

    Args:
        data: a ``SavedTensorsMeter`` (its ``history``), a
            ``minigrad.viz.BackwardRecording`` (bytes still saved before the
            walk and after each node ran), a list of ``(label, bytes)``
            pairs, or a list of numbers of bytes.
        ax: a matplotlib Axes to draw into; default: a new 6 x 3 inch figure.
        title (str | None): the plot's title.
        xlabel (str | None): the x-axis label; a sensible default otherwise.
        ylabel (str | None): the y-axis label; default: "saved for backward,
            each storage once (KiB)" (the unit as scaled).

    Returns:
        matplotlib.figure.Figure: the figure drawn into.  A new figure is
        closed in pyplot before it is returned, so a notebook shows it once,
        as the value of the cell (``fig = plot_saved_bytes(...)`` then ``fig``).

    The line is drawn as steps with a marker at each point (bytes change at a
    point, and stay until the next), in Okabe-Ito blue; the y axis starts at 0
    and is in bytes, KiB (1,024 bytes) or MiB (1,048,576 bytes), as labelled.
    What is plotted is all saved bytes, each storage once (what
    ``bytes_alive`` counts), not only what the graph alone keeps alive.
    """
    import matplotlib.pyplot as plt

    labels, values, default_xlabel = _series(data)
    created = ax is None
    if created:
        fig, ax = plt.subplots(figsize=(6, 3))
    else:
        fig = ax.figure
    unit, size = unit_for(max(values, default=0))
    xs = list(range(len(values)))
    ys = [v / size for v in values]
    ax.step(xs, ys, where="post", color="#0072B2", linewidth=2)
    ax.plot(xs, ys, "o", color="#0072B2", markersize=5)
    ax.set_ylim(bottom=0, top=max(ys, default=0) * 1.15 or 1)
    ax.set_ylabel(ylabel or f"saved for backward,\neach storage once ({unit})")
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
