"""Which nodes and values a picture shows: the graph read once, kept as plain data.

``Snapshot`` walks back from what ``draw`` was given, through
``next_functions`` (without recursion: a graph may be 100,000 nodes deep),
and keeps only strings and numbers: no tensor or node.  So a picture left in
a notebook's output does not keep a graph (and its saved values) alive, and a
picture drawn before ``backward()`` still shows the values as they were then.

What it decides, in order:

* **steps** (the ``grad_fn`` nodes) numbered in the order the forward pass
  recorded them (``#1`` is the oldest);
* **leaves** (each reached through its ``AccumulateGrad`` node) in order of
  first use, named by ``names`` or ``leaf 1``, ``leaf 2``, ...;
* each step's **inputs**, one per ``next_functions`` entry: a leaf, an earlier
  step (named when the tensor it produced was given a name: that name labels
  the edge it leaves by), or a **constant** for ``(None, 0)``: an input that
  needs no gradient.  A constant the node kept for its backward (``x * 2``
  keeps ``other = 2``) is *one* thing, shown with its value; a constant the
  node did not keep (``y + 1``: the gradient of a sum does not need the 1)
  is shown with its value when ``record_forward`` saw it being used (it
  notes it in ``node.metadata``), else as ``constant``: the graph itself no
  longer knows it;
* each step's **saved values** (``self``, ``other``, ``result``, ...) and their
  state: alive, freed, modified in place, packed by a hook;
* for a large graph, which steps are drawn (the first and last few).

The graph is read through ``reading`` (what minigrad and PyTorch both
expose), so a snapshot of a PyTorch graph is made the same way.
"""

import bisect

from . import reading
from .values import fmt_value, one_line, shape_str, value_repr


def parse_names(names):
    """``{"x": x}`` or ``{x: "x"}`` into a list of (object, name) pairs, in the given order.

    A name may stand for several tensors (``{"loss": [loss1, loss2]}``): each
    is called by it, e.g. the losses a running total keeps.
    """
    pairs = []
    if names is None:
        return pairs
    if not hasattr(names, "items"):
        raise TypeError(f"names must be a dict like {{'x': x}}, got {reading.describe_type(names)}")

    def named(obj):
        return reading.is_tensor(obj) or reading.is_node(obj)

    for k, v in names.items():
        if isinstance(k, str) and named(v):
            pairs.append((v, k))
        elif isinstance(k, str) and isinstance(v, (list, tuple)) and v and all(map(named, v)):
            pairs.extend((obj, k) for obj in v)
        elif isinstance(v, str) and named(k):
            pairs.append((k, v))
        else:
            raise TypeError(
                "names must map a name to a tensor or graph node ({'x': x}; or to a list of "
                "them) or a tensor or node to a name ({x: 'x'}); got "
                f"{reading.describe_type(k)}: {reading.describe_type(v)}"
            )
    return pairs


def roots_of(obj, what="draw()"):
    """The list of tensors or nodes to draw from; a clear TypeError for anything else."""
    if reading.is_tensor(obj) or reading.is_node(obj):
        return [obj]
    if isinstance(obj, (list, tuple)) and obj and all(
            reading.is_tensor(o) or reading.is_node(o) for o in obj):
        libs = {reading.library_of(o).name for o in obj}
        if len(libs) > 1:
            raise TypeError(f"{what} got tensors of two libraries ({', '.join(sorted(libs))}): "
                            "a graph belongs to one")
        return list(obj)
    got = reading.describe_type(obj)
    if isinstance(obj, (list, tuple)):
        got = f"a {type(obj).__name__} of " + ", ".join(
            sorted({reading.describe_type(o) for o in obj})) if obj else "an empty list"
    raise TypeError(
        f"{what} expects a minigrad.Tensor or torch.Tensor, a graph node (such as z.grad_fn), "
        f"or a list or tuple of them; got {got}"
    )


def out_names_of(name_pairs):
    """``{id(object): name}`` and ``{(node, output_nr): name}`` from (object, name) pairs."""
    obj_names, out_names = {}, {}
    for obj, name in name_pairs:
        obj_names.setdefault(id(obj), name)
        if reading.is_tensor(obj) and obj.grad_fn is not None:
            out_names.setdefault((obj.grad_fn, obj.output_nr), name)
        elif reading.is_node(obj) and not reading.is_accumulate(obj):
            out_names.setdefault((obj, 0), name)
    return obj_names, out_names


class Snapshot:
    """What ``draw`` read from the graph, as plain data: no tensor or node is kept.

    Built in one pass: walk the nodes, number the steps in forward order,
    order the leaves by first use, name everything, decide what a large graph
    shows, and describe each shown step (its inputs, constants, saved values
    and attributes) and each leaf and output.  ``view`` (a ``recording.View``)
    replaces what is read with the graph as it was at one step of a recorded
    walk: the nodes that existed, the saved values' states then, the
    gradients sent so far.
    """

    def __init__(self, roots, names, marks, show_saved, show_values, show_attrs,
                 max_nodes, keep, max_attr_chars, view=None):
        self.show_values = show_values
        self.caption = view.caption if view is not None else None
        self.header = view.header if view is not None else None
        self.footnote = view.footnote if view is not None else None
        self.kind = view.kind if view is not None else "graph"
        obj_names, out_names = out_names_of(parse_names(names))
        lib = reading.library_of(roots[0])

        # --- roots: what was asked for
        start = []
        root_objs = []  # (kind, node, nr, tensor)
        acc_roots = set()  # leaves given as their AccumulateGrad node
        for r in roots:
            if reading.is_accumulate(r):
                root_objs.append(("leaf", None, 0, r.variable))
                acc_roots.add(id(r.variable))
            elif reading.is_node(r):
                root_objs.append(("node", r, 0, None))
                start.append(r)
            elif r.grad_fn is not None:
                root_objs.append(("output", r.grad_fn, r.output_nr, r))
                start.append(r.grad_fn)
            else:
                root_objs.append(("leaf" if r.requires_grad else "tensor", None, 0, r))
        nodes, consumers = reading.walk(start, view.visible if view is not None else None)

        # --- steps in forward order; leaves in order of first use
        steps = sorted((n for n in nodes if not reading.is_accumulate(n)), key=lib.seq)
        step_no = {n: k for k, n in enumerate(steps, 1)}
        acc = [n for n in nodes if reading.is_accumulate(n)]
        acc.sort(key=lambda n: min((step_no[c], i) for c, i in consumers[n]))
        leaves = [n.variable for n in acc]
        leaf_ids = {id(t) for t in leaves}
        for kind, _n, _nr, t in root_objs:
            if kind in ("leaf", "tensor") and id(t) not in leaf_ids:
                leaf_ids.add(id(t))
                leaves.append(t)
        leaf_key = {id(t): k for k, t in enumerate(leaves)}
        acc_of = {id(n.variable): n for n in acc}
        leaf_names = []
        unnamed = 0
        for t in leaves:
            name = obj_names.get(id(t))
            if name is None and id(t) in acc_of:
                name = obj_names.get(id(acc_of[id(t)]))
            if name is None:
                if t.requires_grad:
                    unnamed += 1
                    name = f"leaf {unnamed}"
                else:
                    name = "tensor"
            leaf_names.append(name)

        # --- names of the roots
        n_out = sum(1 for kind, *_ in root_objs if kind in ("output", "node"))
        self.roots = []
        for i, (kind, node, nr, t) in enumerate(root_objs, 1):
            default = False
            if kind in ("leaf", "tensor"):
                name = leaf_names[leaf_key[id(t)]]
            else:
                name = obj_names.get(id(t)) if t is not None else None
                name = name or out_names.get((node, nr)) or obj_names.get(id(node))
                default = name is None and kind == "output"
                if default:
                    name = "output" if n_out == 1 else f"output {i}"
                if name is not None:
                    out_names.setdefault((node, nr), name)
            self.roots.append({
                "kind": kind, "name": name, "nr": nr, "default_name": default,
                "node_name": reading.node_name(node) if node is not None else None,
                "step": step_no.get(node) if node is not None else None,
                "shape": shape_str(t.shape) if t is not None else None,
                "repr": one_line(repr(t)) if t is not None else None,
                "values": value_repr(t) if t is not None else None,
                "grad": view.output_grads.get((node, nr)) if view is not None else None,
            })
        self._out_names = out_names
        self._obj_names = obj_names
        self._step_no = step_no
        self._leaf_key = leaf_key
        self._leaf_names = leaf_names

        # --- marks (highlight, and the steps of a recorded walk)
        self.leaf_marks = {}
        step_marks = {}
        marked = []  # marked steps are drawn even in a collapsed graph
        for mark, objs in marks.items():
            for obj in objs:
                if reading.is_tensor(obj) and obj.grad_fn is not None:
                    obj = obj.grad_fn
                elif reading.is_tensor(obj) or reading.is_accumulate(obj):
                    t = obj.variable if reading.is_accumulate(obj) else obj
                    if id(t) in leaf_key:
                        self.leaf_marks.setdefault(leaf_key[id(t)], set()).add(mark)
                    continue
                if obj in step_no:
                    step_marks.setdefault(step_no[obj], set()).add(mark)
                    if mark not in SOFT_MARKS:
                        marked.append(obj)

        # --- counts, and which steps a big graph shows
        self.n_nodes = len(nodes)
        self.n_steps = len(steps)
        self.n_leaves = len(acc)
        self.n_constants = sum(1 for n in steps for nxt, _ in n.next_functions if nxt is None)
        self.collapsed = self.n_nodes > max_nodes and self.n_steps > 2 * keep
        if self.collapsed:
            shown = set(steps[:keep]) | set(steps[-keep:])
            shown.update(node for kind, node, *_ in root_objs if kind in ("output", "node"))
            shown.update(marked)
            shown = sorted(shown, key=lib.seq)
        else:
            shown = steps
        shown_set = set(shown)
        self.n_hidden = self.n_steps - len(shown)

        # leaves drawn: those a shown step uses, and leaves asked for as roots
        used = set()
        for n in shown:
            for nxt, _ in n.next_functions:
                if reading.is_accumulate(nxt):
                    used.add(leaf_key[id(nxt.variable)])
        for kind, _n, _nr, t in root_objs:
            if kind in ("leaf", "tensor"):
                used.add(leaf_key[id(t)])
        self.shown_leaves = sorted(used)
        self.hidden_leaves = len(leaves) - len(used)

        # the collapsed steps: each run of hidden steps between two drawn ones is a
        # "gap", drawn as one box; edges into and out of a gap go to its box
        shown_nums = [step_no[n] for n in shown]
        self.gaps = []  # (gap index, first step, last step)
        prev = 0
        for i, k in enumerate(shown_nums + [self.n_steps + 1]):
            if k > prev + 1:
                self.gaps.append((i, prev + 1, k - 1))
            prev = k

        def gap_of(n):
            return bisect.bisect_left(shown_nums, step_no[n])

        self.into_hidden = []  # (source box id, gap index)
        if self.collapsed:
            seen = set()
            for n in steps:
                if n in shown_set:
                    continue
                gap = gap_of(n)
                for nxt, _ in n.next_functions:
                    if nxt is None:
                        continue
                    if reading.is_accumulate(nxt):
                        k = leaf_key[id(nxt.variable)]
                        src = f"leaf{k + 1}" if k in used else None
                    elif nxt in shown_set:
                        src = f"node{step_no[nxt]}"
                    elif gap_of(nxt) != gap:
                        src = f"more{gap_of(nxt)}"
                    else:
                        src = None
                    if src is not None and (src, gap) not in seen:
                        seen.add((src, gap))
                        self.into_hidden.append((src, gap))

        # --- the shown steps
        self.steps = []
        for n in shown:
            k = step_no[n]
            entries = view.saved_entries(n) if view is not None else None
            if entries is None:
                entries = reading.saved_values(n)  # (also what tells a constant's value)
            consts = {}  # input index -> the saved value that is that constant
            for sv in entries:
                if (sv.index is not None and sv.index < len(n.next_functions)
                        and n.next_functions[sv.index][0] is None):
                    consts.setdefault(sv.index, sv)
            noted = reading.noted_constants(n)
            inputs = []
            for j, (nxt, nr) in enumerate(n.next_functions):
                if nxt is None:
                    sv = consts.get(j)
                    value = self._const_value(sv) if sv is not None else None
                    value = value or noted.get(j)
                    inputs.append({"kind": "constant", "text": value or "constant",
                                   "value": value, "saved": sv and (sv.name, sv.state)})
                elif reading.is_accumulate(nxt):
                    lk = leaf_key[id(nxt.variable)]
                    inputs.append({"kind": "leaf", "ref": lk, "text": leaf_names[lk]})
                else:
                    src = step_no[nxt]
                    gap = None if nxt in shown_set else gap_of(nxt)
                    inputs.append({"kind": "step", "ref": (src, nr, gap),
                                   "text": self._step_ref(nxt, nr),
                                   "label": out_names.get((nxt, nr))})
            saved = []
            if show_saved:
                for sv in entries:
                    ref, shape = self._saved_ref(sv)
                    merged = consts.get(sv.index) is sv
                    saved.append((sv.name, sv.state, ref, shape, merged))
            roots_here = [r for r in self.roots if r["step"] == k and r["kind"] == "output"]
            # (a step of a recording still names a newest node that is drawn as a root)
            root_names = {r["name"] for r in self.roots
                          if r["step"] == k and (view is None or r["kind"] != "node")}
            named = [nm for (node, _nr), nm in out_names.items()
                     if node is n and nm not in root_names]
            self.steps.append({
                "k": k, "name": reading.node_name(n), "inputs": inputs, "saved": saved,
                "attrs": reading.saved_attrs(n, max_attr_chars) if show_attrs else [],
                "outputs": roots_here, "named": named, "marks": step_marks.get(k, set()),
                "grads": view.edge_grads.get(n) if view is not None else None,
                "flow": view.flow.get(n) if view is not None else None,
                "rows": view.rows.get(n, []) if view is not None else [],
            })

        self.leaves = []
        for k in self.shown_leaves:
            t = leaves[k]
            self.leaves.append({
                "k": k, "name": leaf_names[k], "shape": shape_str(t.shape),
                "repr": one_line(repr(t)), "values": value_repr(t),
                "requires_grad": t.requires_grad, "marks": self.leaf_marks.get(k, set()),
                "accumulate_grad": id(t) in acc_of or id(t) in acc_roots,
                "grad": (view.leaf_grads.get(id(t)) if view is not None else
                         # drawn now: with its values, a leaf shows the .grad it holds now
                         fmt_value(t.grad) if show_values and t.grad is not None else None),
                "rows": (view.rows.get(acc_of[id(t)], []) if view is not None and id(t) in acc_of
                         else []),
            })
        # drop every reference into the graph
        del self._out_names, self._obj_names, self._step_no, self._leaf_key, self._leaf_names

    def _step_ref(self, node, nr):
        """How an earlier step's output is called: its name, or ``#2`` (``#2 output 1``)."""
        name = self._out_names.get((node, nr))
        if name is not None:
            return name
        ref = f"#{self._step_no[node]}"
        return ref if nr == 0 else f"{ref} output {nr}"

    def _const_value(self, sv):
        """The text of a constant input the node kept: its name, its value; None once freed."""
        t = sv.tensor
        if t is None:
            return None
        name = self._obj_names.get(id(t))
        if name is not None:
            return name
        text = getattr(t, "const_text", None)  # a recording's stub of a value since freed
        if text is not None:
            return text
        if reading.library_of(t) is None:
            return None
        return reading.constant_text(t)

    def _saved_ref(self, sv):
        """(what a live saved tensor is, its shape); (None, None) once freed."""
        t = sv.tensor
        if t is None or sv.state in ("freed", "just_freed"):
            return None, None
        shape = shape_str(t.shape)
        if id(t) in self._obj_names:
            return self._obj_names[id(t)], shape
        grad_fn = t.grad_fn
        if grad_fn is None and id(t) in self._leaf_key:
            return self._leaf_names[self._leaf_key[id(t)]], shape
        if sv.is_output:
            # the node's own output, saved as a detached alias (PyTorch's is_output)
            return (None if sv.name.startswith("result") else "its output"), shape
        if grad_fn is not None and grad_fn in self._step_no:
            name = self._out_names.get((grad_fn, t.output_nr))
            if name is not None:
                return name, shape
            return f"output of #{self._step_no[grad_fn]}", shape
        if not t.requires_grad:
            return self._const_value(sv) or "constant", shape
        return None, shape


# Marks that do not force a step to be drawn in a collapsed graph (a walk marks most nodes).
SOFT_MARKS = {"walked"}
