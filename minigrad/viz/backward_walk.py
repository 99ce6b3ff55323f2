"""The backward walk, recorded step by step: ``record_backward(z)``.

``record_backward(z)`` runs ``z.backward()`` for real and records each step
the engine takes, through the hooks PyTorch offers on every node (and
minigrad offers the same way): a pre-hook (``node.register_prehook``) sees the
gradient that arrived, already summed over the node's consumers; a hook
(``node.register_hook``) sees what the node sent along each of its
``next_functions``.  Between one node and the next, the recording reads which
saved values the engine freed (reading a freed ``_saved_*`` raises: that is
the signal) and how a leaf's ``.grad`` changed.  Works the same on a graph
recorded by minigrad or by PyTorch::

    >>> steps = record_backward(z, names={"x": x, "y": y, "z": z})
    >>> steps
    backward walk from z (seeded with 1.): 3 nodes run (2 recorded, 1 AccumulateGrad)
      1. AddBackward0 received 1., sent 1. and None
      2. MulBackward0 received 1., sent 3. and 3., freed self and other
      3. AccumulateGrad received 3. + 3. = 6., set x.grad to 6.

Each step draws the graph as it was then (``draw(steps[1])``): the node
running yellow with a thick black border, the nodes already run with the thick
black border and no yellow, the gradients sent so far as thick vermillion arrows from each
step back to its inputs, labelled with their values, the values freed by
this step with a thick vermillion dashed border (those freed before it grey
dashed), and each leaf with its ``.grad``.

Source: the observation points of ``torch.autograd.graph.Node``
(``register_prehook``, ``register_hook``); the order is the engine's
(minigrad/autograd/engine.py, as PyTorch's: highest sequence number first
among the nodes that are ready).
"""

import numpy as np

from . import reading
from .drawing import as_list, draw_marked
from .recording import Naming, Recording, Step, View, grad_of, merge_names, snapshot_saved
from .snapshot import parse_names
from .values import _SHOW_ELEMENTS, and_list, fmt_value, plural

__all__ = ["BackwardRecording", "BackwardStep", "GradUpdate", "record_backward"]


class _Raw:
    """What the hooks saw of one node while the walk ran (no reference to any step object)."""

    __slots__ = ("bytes_after", "freed", "grad_after", "grad_before", "incoming", "kept", "node",
                 "ran", "received", "sent")

    def __init__(self, node, received):
        self.node = node
        self.received = received
        self.sent = None
        self.ran = False
        self.grad_before = self.grad_after = None
        self.freed = self.kept = ()
        self.incoming = ()
        self.bytes_after = 0


class _BackwardData:
    """Everything a backward recording knows; shared by its steps (no cycles)."""

    def __init__(self, lib, outputs, seeds, nodes, consumers, name_pairs, retain_graph):
        self.lib = lib
        self.outputs = outputs
        self.seeds = seeds
        self.nodes = nodes
        self.name_pairs = name_pairs
        self.naming = Naming(nodes, consumers, name_pairs, lib)
        self.snapshot = snapshot_saved(nodes)
        self.retain_graph = retain_graph
        self.grads_before = {n: lib.copy(n.variable.grad) for n in nodes
                             if reading.is_accumulate(n)}
        self.raw = []
        self.texts = []
        # saved bytes: each storage once, counted while any saved value over it is alive
        self._buffers = {}
        self.bytes_start = 0
        for records in self.snapshot.values():
            for r in records:
                if r.state in ("alive", "modified") and r.key is not None:
                    entry = self._buffers.setdefault(r.key, [0, r.nbytes])
                    if entry[0] == 0:
                        self.bytes_start += r.nbytes
                    entry[0] += 1
        self.bytes_now = self.bytes_start

    # --- while the walk runs

    def finish(self, raw):
        """Read what a node freed: called once the engine has released its saved values."""
        now = reading.saved_values(raw.node)
        before = self.snapshot.get(raw.node, [])
        now_state = {v.name: v.state for v in now}
        freed, kept = [], []
        for rec in before:
            state = now_state.get(rec.name, "freed")
            if rec.state in ("alive", "modified", "packed") and state == "freed":
                freed.append(rec.name)
                entry = self._buffers.get(rec.key)
                if entry is not None and rec.state != "packed":
                    entry[0] -= 1
                    if entry[0] == 0:
                        self.bytes_now -= entry[1]
            elif state != "freed":
                kept.append(rec.name)
        raw.freed, raw.kept = tuple(freed), tuple(kept)
        raw.bytes_after = self.bytes_now
        if reading.is_accumulate(raw.node):
            raw.grad_after = self.lib.copy(raw.node.variable.grad)

    def finalize(self):
        """After the walk: who sent what to whom, and the text of each step."""
        incoming = {}
        for t, seed in zip(self.outputs, self.seeds):
            node = t.grad_fn if t.grad_fn is not None else self.lib.accumulator(t)
            incoming.setdefault(node, []).append((0, t.output_nr, seed))
        for i, raw in enumerate(self.raw, 1):
            raw.incoming = tuple(incoming.get(raw.node, ()))
            if raw.sent is not None:
                for (nxt, nr), g in zip(raw.node.next_functions, raw.sent):
                    if nxt is not None and g is not None:
                        incoming.setdefault(nxt, []).append((i, nr, g))
        self.texts = [self._text(raw) for raw in self.raw]

    # --- text

    def _received_text(self, raw):
        rec = raw.received
        if len(rec) != 1:
            return fmt_value(tuple(rec))
        got = rec[0]
        parts = [g for _i, nr, g in raw.incoming if nr == 0]
        if got is None:
            return fmt_value(got)
        num = self.lib.numpy
        have = num(got)
        arrays = [num(p) for p in parts]
        if 2 <= len(parts) <= 4 and all(a.size <= _SHOW_ELEMENTS and a.shape == have.shape
                                        for a in arrays):
            if np.allclose(sum(arrays[1:], arrays[0]), have):
                return " + ".join(fmt_value(p) for p in parts) + " = " + fmt_value(got)
        if len(parts) > 1:
            total = sum(arrays[1:], arrays[0])
            if total.shape == have.shape and np.allclose(total, have):
                return f"{fmt_value(got)} (the sum of {len(parts)} gradients)"
        if parts and not (len(parts) == 1 and arrays[0].shape == have.shape
                          and np.allclose(arrays[0], have)):
            # a hook on the tensor (register_hook) changed what arrived
            sent = " + ".join(fmt_value(p) for p in parts[:4]) + (" + ..." if len(parts) > 4
                                                                     else "")
            return f"{fmt_value(got)} (a hook changed {sent})"
        return fmt_value(got)

    def _text(self, raw):
        node = raw.node
        received = self._received_text(raw)
        if reading.is_accumulate(node):
            grad = grad_of(self.naming.leaf_name.get(node, "leaf"))
            text = f"AccumulateGrad received {received}, "
            if not raw.ran:
                text += f"{grad} unchanged"
            elif raw.grad_before is None:
                text += f"set {grad} to {fmt_value(raw.grad_after)}"
            else:
                text += (f"added it to {grad}: {fmt_value(raw.grad_before)} -> "
                         f"{fmt_value(raw.grad_after)}")
        else:
            text = f"{self.naming.label(node)} received {received}"
            if raw.ran:
                text += ", sent " + and_list(fmt_value(g) for g in raw.sent)
            else:
                text += ", so it did not run"
        if raw.freed:
            text += ", freed " + and_list(raw.freed)
        if raw.kept and self.retain_graph and raw.ran:
            text += ", kept " + and_list(raw.kept) + " (retain_graph=True)"
        return text

    def output_names(self):
        """The outputs as the pictures name them: their names, or ``output``, ``output 2``..."""
        out = []
        for i, t in enumerate(self.outputs, 1):
            if t.grad_fn is None:
                out.append(self.naming.ref(self.lib.accumulator(t)))
                continue
            name = self.naming.out_names.get((t.grad_fn, t.output_nr))
            out.append(name or ("output" if len(self.outputs) == 1 else f"output {i}"))
        return out

    def start_text(self):
        outs = and_list(self.output_names())
        seeds = and_list(fmt_value(s) for s in self.seeds)
        return f"before the walk: backward() starts at {outs} with gradient {seeds}"

    def caption(self, i):
        if i == 0:
            return self.start_text()
        return f"backward {i} of {len(self.raw)}: {self.texts[i - 1]}"

    # --- pictures

    def view(self, i, caption=True, status_rows=True):
        n = len(self.raw)
        view = View(caption=self.caption(i) if caption is True else (caption or None),
                    kind="backward")
        done = self.raw[:i]
        freed_by = {}
        for k, raw in enumerate(done, 1):
            for name in raw.freed:
                freed_by[(raw.node, name)] = k
        for node, records in self.snapshot.items():
            entries = []
            for r in records:
                k = freed_by.get((node, r.name))
                if k is not None:
                    entries.append(r.value("just_freed" if k == i else "freed"))
                elif r.state in ("alive", "modified"):
                    entries.append(r.value())
                else:
                    entries.append(r.value(alive=False))
            view.saved[node] = entries
        for t, seed in zip(self.outputs, self.seeds):
            if t.grad_fn is not None:
                view.output_grads[(t.grad_fn, t.output_nr)] = fmt_value(seed)
        for node, g in self.grads_before.items():
            view.leaf_grads[id(node.variable)] = fmt_value(g)
        for k, raw in enumerate(done, 1):
            node = raw.node
            now = k == i
            got = self._received_text(raw)
            rows = [(f"received {got}", "plain" if now else "small")]
            if status_rows:  # two short lines: a box no wider than its name
                rows += [(f"backward {k} of {n}:", "small"), ("running now" if now else "done", "small")]
            if reading.is_accumulate(node):
                if raw.ran:
                    view.leaf_grads[id(node.variable)] = fmt_value(raw.grad_after)
                if status_rows:  # after the walk, the leaf's .grad says it all
                    view.rows[node] = rows
                continue
            if raw.sent is not None:
                view.edge_grads[node] = tuple(
                    None if nxt is None or g is None else fmt_value(g)
                    for (nxt, _nr), g in zip(node.next_functions, raw.sent))
            view.flow[node] = f"received {got}" + (
                ", sent " + and_list(fmt_value(g) for g in raw.sent) if raw.sent is not None
                else ", did not run")
            view.rows[node] = rows
        return view

    def draw(self, i, *, highlight=None, names=None, caption=True, marks=True, **kwargs):
        mk = {}
        if i and marks:
            mk["current"] = [self.raw[i - 1].node]
            if i > 1:
                mk["walked"] = [raw.node for raw in self.raw[: i - 1]]
        if highlight is not None:
            mk["highlight"] = as_list(highlight)
        return draw_marked(self.outputs if len(self.outputs) > 1 else self.outputs[0], mk,
                           names=merge_names(self.name_pairs, names),
                           view=self.view(i, caption, status_rows=marks), **kwargs)


class GradUpdate(tuple):
    """``(name, before, after)``: how a leaf's ``.grad`` changed at an ``AccumulateGrad`` step."""

    __slots__ = ()

    def __new__(cls, name, before, after):
        return tuple.__new__(cls, (name, before, after))

    name = property(lambda self: self[0], doc="the leaf's name in the recording")
    before = property(lambda self: self[1], doc="a copy of .grad before (None if unset)")
    after = property(lambda self: self[2], doc="a copy of .grad after")

    def __repr__(self):
        return f"GradUpdate({self.name}: {fmt_value(self.before)} -> {fmt_value(self.after)})"


class BackwardStep(Step):
    """One node run by the backward walk, as ``record_backward`` saw it.

    Attributes:
        index (int): 1 for the first node run (0 for ``recording.start``, before the walk).
        node: the node (``z.grad_fn``, ..., a leaf's ``AccumulateGrad``), or None at the start.
        name (str): its name: ``MulBackward0``, ``AccumulateGrad`` (not PyTorch's
            ``torch::autograd::AccumulateGrad``).
        label (str): the name, with ``(#k)`` (its place in recording order) when several
            nodes of the graph share the name.
        received (Tensor | None | tuple): the gradient that arrived, summed
            over all the node's consumers (a copy); a tuple for a node with
            several outputs.
        received_from (tuple): ``(step index, output_nr, gradient)`` for each
            contribution to that sum, in the order they arrived (index 0: the
            seed given to ``backward``).
        sent (tuple | None): the gradient sent along each ``next_functions``
            entry (a copy; None for a constant, ``(None, 0)``); None if the node
            did not run (it received only None); ``()`` for ``AccumulateGrad``.
        sent_to (tuple[str]): where each entry of ``sent`` went (``x``, ``#1``, ``constant``).
        grad_updates (tuple[GradUpdate]): for ``AccumulateGrad``, the leaf's
            ``.grad`` before and after.
        freed (tuple[str]): the names of the saved values freed right after the node ran.
        kept (tuple[str]): saved values still held after it (``retain_graph=True``).
        saved_bytes (int): bytes still held by the graph's saved values after
            this step, each storage counted once.
        text (str): one line, e.g. ``MulBackward0 received 1., sent 3. and 3.,
            freed self and other``.
        caption (str): ``backward 2 of 3: `` followed by ``text``.
    """

    __slots__ = ()

    def __init__(self, data, index):
        self._data = data
        self.index = index

    def _raw(self):
        return self._data.raw[self.index - 1] if self.index else None

    @property
    def node(self):
        raw = self._raw()
        return raw.node if raw is not None else None

    @property
    def name(self):
        raw = self._raw()
        return reading.node_name(raw.node) if raw is not None else "start"

    @property
    def label(self):
        raw = self._raw()
        if raw is None:
            return "start"
        if reading.is_accumulate(raw.node):
            return "AccumulateGrad"
        return self._data.naming.label(raw.node)

    @property
    def received(self):
        raw = self._raw()
        if raw is None:
            return None
        return raw.received[0] if len(raw.received) == 1 else tuple(raw.received)

    @property
    def received_from(self):
        raw = self._raw()
        return raw.incoming if raw is not None else ()

    @property
    def sent(self):
        raw = self._raw()
        if raw is None or raw.sent is None:
            return None
        return tuple(None if nxt is None else g
                     for (nxt, _nr), g in zip(raw.node.next_functions, raw.sent))

    @property
    def sent_to(self):
        raw = self._raw()
        if raw is None:
            return ()
        return tuple(self._data.naming.ref(nxt, nr) for nxt, nr in raw.node.next_functions)

    @property
    def ran(self):
        """Whether the node ran (False when all it received was None)."""
        raw = self._raw()
        return raw.ran if raw is not None else False

    @property
    def grad_updates(self):
        raw = self._raw()
        if raw is None or not reading.is_accumulate(raw.node) or not raw.ran:
            return ()
        name = self._data.naming.leaf_name.get(raw.node, "leaf")
        return (GradUpdate(name, raw.grad_before, raw.grad_after),)

    @property
    def freed(self):
        raw = self._raw()
        return raw.freed if raw is not None else ()

    @property
    def kept(self):
        raw = self._raw()
        return raw.kept if raw is not None else ()

    @property
    def saved_bytes(self):
        raw = self._raw()
        return raw.bytes_after if raw is not None else self._data.bytes_start

    @property
    def text(self):
        return self._data.texts[self.index - 1] if self.index else self._data.start_text()


class BackwardRecording(Recording):
    """The steps of one backward walk, in the order the engine ran the nodes.

    A sequence of ``BackwardStep`` (``len``, ``[i]``, iteration; ``rec[0]``
    is the first node run, its ``index`` is 1), plus:

    Attributes:
        start: the state before the walk (``index`` 0): draw it to see where it starts.
        text (str): a header and one numbered line per step (also the repr).
        names (list[str]): the node names in walk order (``AccumulateGrad`` for leaves).
        saved_bytes (list[int]): bytes held by the graph's saved values before
            the walk and after each step (``len(rec) + 1`` numbers, each storage
            counted once), for ``minigrad.memory.plot_saved_bytes``.
        library (str): ``"minigrad"`` or ``"torch"``.

    ``rec.draw(i)`` (or ``viz.draw(rec.state(i))``) draws the graph at state
    ``i``: 0 before the walk, ``i`` right after the ``i``-th node ran;
    ``rec.after()`` the graph after the walk without the walk's marks: the
    saved values freed, each arrow with the gradient it carried.

    The recording keeps the graph's nodes (not the values the walk freed) and
    the outputs alive; drop it to let them go.
    """

    __slots__ = ()

    def __init__(self, data):
        self._data = data
        self._steps = [BackwardStep(data, i) for i in range(1, len(data.raw) + 1)]

    def _make_step(self, i):
        return BackwardStep(self._data, i)

    @property
    def names(self):
        return [s.name for s in self._steps]

    @property
    def saved_bytes(self):
        return [self._data.bytes_start] + [raw.bytes_after for raw in self._data.raw]

    def after(self, caption=None, **kwargs):
        """The graph as the walk left it, with every gradient it sent; a ``GraphPicture``.

        Unlike ``draw(len(rec))`` no node is marked as running or done: this is
        the state after ``backward()`` returned (saved values freed unless
        ``retain_graph=True``).  ``caption``: a sentence on top (default none).
        """
        return self._data.draw(len(self._steps), caption=caption or False, marks=False, **kwargs)

    @property
    def text(self):
        d = self._data
        outs = and_list(d.output_names())
        seeds = and_list(fmt_value(s) for s in d.seeds)
        n_acc = sum(1 for raw in d.raw if reading.is_accumulate(raw.node))
        lines = [f"backward walk from {outs} (seeded with {seeds}): "
                 f"{plural(len(self._steps), 'node')} run ({len(self._steps) - n_acc} recorded, "
                 f"{n_acc} AccumulateGrad)"]
        lines += [f"  {i}. {text}" for i, text in enumerate(d.texts, 1)]
        return "\n".join(lines)


def _seeds_for(lib, outputs, gradient):
    """The seed gradient of each output, as ``backward`` will use it (for the text)."""
    if gradient is None:
        grads = [None] * len(outputs)
    elif isinstance(gradient, (list, tuple)) and len(outputs) > 1:
        grads = list(gradient)
    else:
        grads = [gradient]
    seeds = []
    for t, g in zip(outputs, grads):
        if g is None:
            seeds.append(lib.ones_like(t) if t.numel() == 1 else None)
        elif lib.is_tensor(g):
            seeds.append(lib.copy(g))
        else:
            seeds.append(lib.tensor(g, dtype=t.dtype))
    return seeds


def record_backward(output, gradient=None, retain_graph=None, create_graph=False, *, names=None):
    """Run ``output.backward()`` and record each step of the walk; returns a ``BackwardRecording``.

    The walk is the real one (``.grad`` accumulates, saved values are freed
    unless ``retain_graph=True``), on a graph recorded by minigrad or by
    PyTorch: before it starts, every node of the graph gets a pre-hook
    (``node.register_prehook``: what arrived, already summed over consumers)
    and a hook (``node.register_hook``: what it sent on); what each node freed
    is read from its saved values once the engine has released them, and
    ``.grad`` before and after from the leaf.  The hooks are removed
    afterwards, also when backward raises.

    Args:
        output (Tensor | sequence of Tensor): what to call backward on
            (``minigrad.Tensor`` or ``torch.Tensor``).
        gradient: the seed, as for ``Tensor.backward`` (default: 1 for a one-element output).
        retain_graph (bool | None): as for ``backward``; with True nothing is freed.
        create_graph (bool): as for ``backward``.
        names (dict | None): labels for the learner's variables, as for
            ``draw`` (``{"x": x, "z": z}``); used in the step texts and pictures.

    Returns:
        BackwardRecording: the steps in the order the nodes ran; ``rec[i].text``
        is one line such as ``MulBackward0 received 1., sent 3. and 3., freed
        self and other``; ``draw(rec[i])`` draws the graph at that step.

    Raises:
        TypeError: ``output`` is not a tensor (the message names the type in full).
        whatever ``backward`` raises (PyTorch's errors: nothing to walk, a
        freed graph, a non-scalar output without ``gradient``).

    Example::

        x = minigrad.tensor(3., requires_grad=True)
        y = x * x
        z = y + 1
        steps = record_backward(z, names={"x": x, "y": y, "z": z})
        steps.names   # ['AddBackward0', 'MulBackward0', 'AccumulateGrad']
        steps[2].text # 'AccumulateGrad received 3. + 3. = 6., set x.grad to 6.'

    Source: the observation points PyTorch offers on ``torch.autograd.graph.Node``
    (``register_prehook``, ``register_hook``).
    """
    outputs = list(output) if isinstance(output, (list, tuple)) else [output]
    libs = set()
    for t in outputs:
        if not reading.is_tensor(t):
            raise TypeError("record_backward() expects a minigrad.Tensor or torch.Tensor (or a "
                            f"list of them), got {reading.describe_type(t)}")
        libs.add(reading.library_of(t))
    if len(libs) > 1:
        raise TypeError("record_backward() got tensors of two libraries: a graph belongs to one")
    lib = libs.pop()
    starts = []
    for t in outputs:
        if t.grad_fn is not None:
            starts.append(t.grad_fn)
        elif t.requires_grad:
            starts.append(lib.accumulator(t))
    nodes, consumers = reading.walk(starts)
    if retain_graph is None:
        retain_graph = create_graph
    data = _BackwardData(lib, outputs, _seeds_for(lib, outputs, gradient)
                         if len(starts) == len(outputs) else [], nodes, consumers,
                         parse_names(names), retain_graph)
    current = []  # the step in progress: finished when the next one starts, or at the end

    def finish_current():
        if current:
            data.finish(current.pop())

    def make_pre(node):
        def pre(grads):
            finish_current()
            raw = _Raw(node, tuple(lib.copy(g) for g in grads))
            if reading.is_accumulate(node):
                raw.grad_before = lib.copy(node.variable.grad)
            data.raw.append(raw)
            current.append(raw)

        pre._runs_last = True  # (minigrad) after the learner's own hooks: what the node gets
        return pre

    def make_post(node):
        def post(grad_inputs, grad_outputs):
            raw = current[-1] if current else None
            if raw is not None and raw.node is node:
                raw.ran = True
                raw.sent = tuple(None if nxt is None else lib.copy(g)
                                 for (nxt, _nr), g in zip(node.next_functions, grad_inputs))
                raw.sent += (None,) * (len(node.next_functions) - len(raw.sent))

        return post

    handles = []
    try:
        for node in nodes:
            handles.append(node.register_prehook(make_pre(node)))
            handles.append(node.register_hook(make_post(node)))
        lib.backward(outputs if len(outputs) > 1 else outputs[0], gradient, retain_graph,
                     create_graph)
    finally:
        for h in handles:
            h.remove()
        finish_current()
    data.finalize()
    return BackwardRecording(data)



