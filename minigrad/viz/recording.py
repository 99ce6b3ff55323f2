"""What the two recorded walks share: steps, recordings, names, and the graph as it was then.

``record_backward`` (backward_walk.py) and ``record_forward`` (forward_pass.py)
both return a *recording*: a sequence of steps, each of which draws the graph
as it was at that moment (``draw(step)``).  This file holds their common
parts:

* ``Naming``: the names ``draw`` would give (``x``, ``leaf 1``, ``#2``);
* ``SavedRecord``: one saved value as it was when the recording was made,
  so that a later picture can still say what it was after it is freed;
* ``View``: what a picture of one step replaces in the graph it reads (which
  nodes existed, the saved values' states then, the gradients sent so far);
* ``Step`` and ``Recording``: the base classes of the public step and
  recording types.
"""

import weakref

from . import reading
from .snapshot import parse_names

__all__ = []


def grad_of(name):
    """``x.grad``, or ``(leaf 1).grad`` for a name that is not an identifier."""
    return f"{name}.grad" if name.isidentifier() else f"({name}).grad"


class SavedStub:
    """What a picture needs of a saved tensor that no longer exists (freed since).

    Quacks like the tensor for ``Snapshot``: its shape, where it came from
    (``grad_fn``, ``output_nr``), whether it needs grad, and, for a constant,
    how it reads (``const_text``: ``2``).
    """

    __slots__ = ("const_text", "grad_fn", "output_nr", "requires_grad", "shape")

    def __init__(self, t):
        self.shape = tuple(t.shape)
        self.grad_fn = t.grad_fn
        self.output_nr = t.output_nr
        self.requires_grad = t.requires_grad
        self.const_text = None if t.requires_grad else reading.constant_text(t)


class SavedRecord:
    """One saved value of one node, as it was when a walk was recorded."""

    __slots__ = ("index", "is_output", "key", "name", "nbytes", "ref", "state", "stub")

    def __init__(self, sv):
        t = sv.tensor
        self.name = sv.name
        self.state = sv.state
        self.is_output = sv.is_output
        self.index = sv.index
        self.ref = weakref.ref(t) if t is not None else None
        self.stub = SavedStub(t) if t is not None else None
        if t is not None:
            self.key, self.nbytes = reading.library_of(t).storage(t)
        else:
            self.key, self.nbytes = None, 0

    def tensor(self):
        t = self.ref() if self.ref is not None else None
        return t if t is not None else self.stub

    def value(self, state=None, alive=True):
        """A ``reading.SavedValue`` for a picture: the tensor while ``alive``, else None."""
        return reading.SavedValue(self.name, state or self.state,
                                  self.tensor() if alive else None, self.is_output, self.index)


def snapshot_saved(nodes):
    """``{node: [SavedRecord, ...]}``: every saved value of ``nodes`` and its state now."""
    return {n: [SavedRecord(sv) for sv in reading.saved_values(n)] for n in nodes}


class Naming:
    """Names for the nodes of a graph, by the rules ``draw`` uses.

    Steps are numbered in forward order; a leaf is named by ``names`` or
    ``leaf 1``, ``leaf 2``, ... in order of first use; a step's output by ``names``.
    """

    def __init__(self, nodes, consumers, name_pairs, lib):
        obj_names = {}
        self.out_names = {}
        for obj, name in name_pairs:
            obj_names.setdefault(id(obj), name)
            if reading.is_tensor(obj) and obj.grad_fn is not None:
                self.out_names.setdefault((obj.grad_fn, obj.output_nr), name)
            elif reading.is_node(obj) and not reading.is_accumulate(obj):
                self.out_names.setdefault((obj, 0), name)
        steps = sorted((n for n in nodes if not reading.is_accumulate(n)), key=lib.seq)
        self.step_no = {n: k for k, n in enumerate(steps, 1)}
        acc = [n for n in nodes if reading.is_accumulate(n)]
        acc.sort(key=lambda n: min((self.step_no.get(c, 0), i)
                                   for c, i in consumers.get(n, [(None, 0)])))
        self.leaf_name = {}
        unnamed = 0
        for n in acc:
            name = obj_names.get(id(n.variable)) or obj_names.get(id(n))
            if name is None:
                unnamed += 1
                name = f"leaf {unnamed}"
            self.leaf_name[n] = name
        counts = {}
        for n in steps:
            counts[reading.node_name(n)] = counts.get(reading.node_name(n), 0) + 1
        self._repeated = {name for name, c in counts.items() if c > 1}

    def ref(self, node, nr=0, const=None):
        """How a step's input is called in the text: ``x``, ``y``, ``#2``, ``constant``."""
        if node is None:
            return const or "constant"
        if reading.is_accumulate(node):
            return self.leaf_name.get(node, "leaf")
        name = self.out_names.get((node, nr))
        if name is not None:
            return name
        k = self.step_no.get(node)
        ref = f"#{k}" if k is not None else "an earlier node"
        return ref if nr == 0 else f"{ref} output {nr}"

    def label(self, node):
        """The node's name, with its step number when several nodes share the name."""
        name = reading.node_name(node)
        if name in self._repeated:
            return f"{name} (#{self.step_no[node]})"
        return name


def constants_of(node, records):
    """``{input index: text}`` of a node's constants: kept (``x * 2``: ``{1: "2"}``) or noted."""
    out = reading.noted_constants(node)
    for r in records:
        if (r.index is not None and r.index < len(node.next_functions)
                and node.next_functions[r.index][0] is None and r.stub is not None):
            out[r.index] = r.stub.const_text
    return out


class View:
    """The graph as it was at one step of a recorded walk: what ``Snapshot`` overrides.

    ``visible``: the nodes that existed (None: all); ``saved``: each node's saved
    values (``reading.SavedValue``) and their states then; ``edge_grads``: per node,
    the gradient it sent along each ``next_functions`` edge (text, or None);
    ``output_grads``: the seeds, per ``(node, output_nr)``; ``flow``: per node, the
    text-form note of what it received and sent; ``rows``: extra label rows per
    node (``AccumulateGrad`` for its leaf); ``leaf_grads``: ``.grad`` per
    ``id(leaf)``; ``caption``: the step's sentence; ``header``: replaces
    "recorded graph of z"; ``footnote``: a last line of the text form.
    """

    __slots__ = ("caption", "edge_grads", "flow", "footnote", "header", "kind", "leaf_grads",
                 "output_grads", "rows", "saved", "visible")

    def __init__(self, caption=None, header=None, visible=None, kind="graph"):
        self.caption = caption
        self.header = header
        self.visible = visible
        self.kind = kind
        self.footnote = None
        self.saved = {}
        self.edge_grads = {}
        self.output_grads = {}
        self.flow = {}
        self.rows = {}
        self.leaf_grads = {}

    def saved_entries(self, node):
        return self.saved.get(node)


def merge_names(base_pairs, names):
    """``{object: name}`` from the recording's names, then ``names`` given to draw (they win)."""
    out = {}
    seen = set()
    for obj, name in parse_names(names) + list(base_pairs):
        if id(obj) not in seen:
            seen.add(id(obj))
            out[obj] = name
    return out or None


class Step:
    """Base of ``BackwardStep`` and ``ForwardStep``: a numbered state of a recording."""

    __slots__ = ("_data", "index")

    def draw(self, show_saved=True, show_values=False, highlight=None, *, names=None,
             show_attrs=False, legend=True, max_nodes=300, collapse_keep=10, max_attr_chars=50,
             caption=True, caption_width=90):
        """The graph as it was at this step, as a ``GraphPicture`` (also ``viz.draw(step)``).

        Takes ``draw``'s arguments; ``names`` adds to the recording's names.
        ``caption=False`` leaves the step's sentence out of the picture and its text;
        ``caption_width``: the caption's line length, in characters.
        """
        return self._data.draw(self.index, show_saved=show_saved, show_values=show_values,
                               highlight=highlight, names=names, show_attrs=show_attrs,
                               legend=legend, max_nodes=max_nodes, collapse_keep=collapse_keep,
                               max_attr_chars=max_attr_chars, caption=caption,
                               caption_width=caption_width)

    @property
    def caption(self):
        """The line a picture of this step starts with: where in the walk it is, and its text."""
        return self._data.caption(self.index)

    def __repr__(self):
        return self.caption


class Recording:
    """Base of ``BackwardRecording`` and ``ForwardRecording``: a sequence of steps."""

    __slots__ = ("_data", "_steps")

    def __len__(self):
        return len(self._steps)

    def __getitem__(self, i):
        return self._steps[i]

    def __iter__(self):
        return iter(self._steps)

    def state(self, i):
        """State ``i`` of ``0 .. len(self)``: 0 is before the first step, ``i`` after step ``i``.

        Returns the step (``self[i - 1]``), or for 0 the starting state (``self.start``).
        """
        if not 0 <= i <= len(self._steps):
            raise IndexError(f"state {i} out of range: 0 (the start) to {len(self._steps)}")
        return self._steps[i - 1] if i else self.start

    @property
    def start(self):
        """The state before the first step (index 0): draw it to see the starting point."""
        return self._make_step(0)

    @property
    def library(self):
        """``"minigrad"`` or ``"torch"``: the library whose graph was recorded."""
        return self._data.lib.name

    def draw(self, i=None, **kwargs):
        """Draw state ``i`` (default: the last): ``self.state(i).draw(**kwargs)``."""
        return self.state(len(self._steps) if i is None else i).draw(**kwargs)

    @property
    def texts(self):
        """The one-line text of every step, in order."""
        return [s.text for s in self._steps]

    def __repr__(self):
        return self.text

