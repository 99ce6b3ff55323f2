"""The text form of a picture: what nbval compares, so deterministic and address-free.

For ``x = tensor(3., requires_grad=True); y = x * x; z = y + 1.0`` drawn
with ``names={"x": x, "y": y, "z": z}``::

    recorded graph of z: 2 nodes, 1 leaf, 1 constant input
      x: leaf, shape (), receives .grad
      #1 MulBackward0(x, x)         saved: self = x (alive), other = x (alive)  -> y
      #2 AddBackward0(y, constant)  -> output z, shape ()

One line per leaf (in order of first use), then one line per node (``#1``, ``#2``, ...) in the
order the forward pass recorded them, each with its inputs in
``next_functions`` order (a leaf's name, a named tensor, ``#n``, a
constant's value when the node kept it, else ``constant``), what it saved
(``name = what it is (state)``) and the tensor it produced.  After
``z.backward()`` the line of ``#1`` reads ``saved: self (freed), other (freed)``: a freed
value no longer refers to anything.  A graph of more than ``max_nodes`` nodes
lists its first and last nodes and ``... 980 more nodes (#11 to #990) ...``.
"""

from .values import plural

STATE_WORDS = {
    "alive": "alive",
    "freed": "freed",
    "modified": "modified in place",
    "packed": "packed by hook",
    "just_freed": "freed just now",
}


def saved_text(name, state, ref):
    word = STATE_WORDS[state]
    return f"{name} = {ref} ({word})" if ref else f"{name} ({word})"


def _counts(g):
    counts = [plural(g.n_steps, "node"), plural(g.n_leaves, "leaf", "leaves")]
    if g.n_constants:
        counts.append(plural(g.n_constants, "constant input"))
    return ", ".join(counts)


def text_of(g):
    """The deterministic text form of a ``Snapshot``: no addresses or ids, steps in forward order."""
    what = ", ".join(r["name"] or r["node_name"] for r in g.roots)
    of = "behind" if all(r["kind"] == "node" and r["name"] is None for r in g.roots) else "of"
    if g.header is not None:  # a step of a recording says what it shows
        lines = [f"{g.header}: " + ("nothing recorded" if g.n_steps == 0 else _counts(g))]
    elif g.n_steps == 0:
        why = ""
        if all(r["kind"] == "tensor" for r in g.roots):
            why = " (requires_grad=False)"
        lines = [f"recorded graph {of} {what}: nothing recorded{why}"]
    else:
        lines = [f"recorded graph {of} {what}: " + _counts(g)]
    if g.collapsed:
        lines.append(f"  (over a few hundred nodes: {g.n_hidden} of them collapsed)")
    for leaf in g.leaves:
        if g.show_values:
            desc = f"{leaf['name']}: leaf {leaf['repr']}"
        else:
            desc = f"{leaf['name']}: leaf, shape {leaf['shape']}"
        if leaf["grad"] is not None:
            desc += f", .grad = {leaf['grad']}"
        else:
            desc += ", receives .grad" if leaf["requires_grad"] else ", does not require grad"
        if leaf["marks"]:
            desc += "  [" + ", ".join(sorted(leaf["marks"])) + "]"
        lines.append("  " + desc)
    if g.hidden_leaves:
        lines.append(f"  ... {plural(g.hidden_leaves, 'more leaf', 'more leaves')} "
                     "used only by collapsed nodes ...")
    heads, tails = [], []
    for s in g.steps:
        heads.append(f"  #{s['k']} {s['name']}(" + ", ".join(i["text"] for i in s["inputs"]) + ")")
        parts = []
        if s["flow"]:
            parts.append(s["flow"])
        if s["saved"]:
            parts.append("saved: " + ", ".join(saved_text(n, st, ref)
                                               for n, st, ref, *_ in s["saved"]))
        if s["attrs"]:
            parts.append("attrs: " + ", ".join(f"{a}={v}" for a, v in s["attrs"]))
        for name in s["named"]:
            parts.append(f"-> {name}")
        for r in s["outputs"]:
            out = "-> " + r["name"] if r["default_name"] else f"-> output {r['name']}"
            out += f" = {r['repr']}" if g.show_values else f", shape {r['shape']}"
            if r["grad"] is not None:
                out += f", seeded with {r['grad']}"
            parts.append(out)
        if s["marks"]:
            parts.append("[" + ", ".join(sorted(s["marks"])) + "]")
        tails.append(parts)
    width = min(max((len(h) for h, t in zip(heads, tails) if t), default=0), 40)
    prev = 0
    for s, head, parts in zip(g.steps, heads, tails):
        if s["k"] > prev + 1:
            lo, hi = prev + 1, s["k"] - 1
            lines.append(f"  ... {plural(hi - lo + 1, 'more node')} (#{lo} to #{hi}) ...")
        prev = s["k"]
        lines.append((head.ljust(width) + "  " + "  ".join(parts)) if parts else head)
    if prev < g.n_steps:
        lines.append(f"  ... {plural(g.n_steps - prev, 'more node')} "
                     f"(#{prev + 1} to #{g.n_steps}) ...")
    if g.caption is not None:
        lines.insert(0, g.caption)
    if g.footnote:
        lines.append(g.footnote)
    return "\n".join(lines)
