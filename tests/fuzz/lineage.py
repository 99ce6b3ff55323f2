"""Which of a fuzzed program's tensors descend from a value that may differ (``differential.py``).

A value that drifted (a last-bit difference turned large by a discontinuous
op, kind ``drift``) excuses the value differences of what is computed from
it, and only those; a step after which the two libraries no longer hold the
same tensors (one raised, the other did not) sets its names aside, and what
is computed from them is not compared.  ``Lineage`` follows the program's
names through its source text, conservatively:

* ``v5 = v3 * v4`` makes ``v5`` descend from ``v3``, ``v4`` and what they
  descend from;
* a statement (an in-place write, a ``no_grad`` block, ``backward()``) makes
  every name it mentions or assigns, and every tensor sharing memory with one
  of them (a view and its base), descend from all of those;
* ``backward()`` or ``autograd.grad`` of a root computed from a marked value
  marks the gradients of everything the root descends from: ``v1.grad`` after
  it is excused too.
"""

import re

_NAME = re.compile(r"\b[A-Za-z_]\w*\b")
_ASSIGNED = re.compile(r"^\s*\(?\s*([A-Za-z_]\w*)\s*,?\s*\)?\s*=[^=]", re.M)
_LIBRARY_NAMES = {"torch", "F", "__name__"}
_WRITES = re.compile(r"\w_\(|\]\s*=[^=]|[-+*/]=|inplace=True|\.apply\(")
_READS_GRAD = re.compile(r"\.grad\b(?!\s*\()")
_DIFFERENTIATES = re.compile(r"\.backward\(|autograd\.grad\(")


class Lineage:
    """Names that descend from a drifted (``"drift"``) or set-aside (``"apart"``) value."""

    def __init__(self):
        self.deps = {}     # name -> the names it was computed from, itself included
        self.marks = {}    # name -> "drift" or "apart": a value the libraries may not share
        self.grads = {}    # name -> mark: its .grad was accumulated through a marked value

    def names(self, src, ns):
        """The program's own names in ``src`` (tensors, modules, gradients, ``loss``)."""
        found = {n for n in _NAME.findall(src) if n in ns and n not in _LIBRARY_NAMES}
        return found | set(_ASSIGNED.findall(src))

    def _closure(self, names):
        out = set()
        for n in names:
            out |= self.deps.get(n, {n})
        return out

    def mark_of(self, kind, src, ns):
        """``"apart"``, ``"drift"`` or None: does the step read a marked value?"""
        names = self.names(src, ns)
        if kind == "assign":
            names -= {src.split("=", 1)[0].strip()}
        marks = {self.marks.get(n) for n in self._closure(names)}
        if _READS_GRAD.search(src):
            marks |= {self.grads.get(n) for n in names}
        return "apart" if "apart" in marks else "drift" if "drift" in marks else None

    def record(self, kind, src, ns_t, torch):
        """After a step ran (in PyTorch's namespace ``ns_t``): who descends from whom."""
        names = self.names(src, ns_t)
        if kind == "assign":
            target = src.split("=", 1)[0].strip()
            self.deps[target] = self._closure(names - {target}) | {target}
        elif kind == "exec":
            assigned = set(_ASSIGNED.findall(src))
            # a statement that only binds names (``g = torch.autograd.grad(...)``) writes none
            # of the others; an in-place one may write all it mentions, and their views
            group = (assigned if assigned and not _WRITES.search(src)
                     else names | _sharing_memory(names, ns_t, torch))
            deps = self._closure(names | group)
            for n in group:
                self.deps[n] = deps
            if _DIFFERENTIATES.search(src):
                mark = self.mark_of(kind, src, ns_t)
                if mark:
                    for n in deps:
                        _set(self.grads, n, mark)

    def mark(self, kind, src, ns_t, torch, how):
        """The step's values differ (``how``: "drift" or "apart"): mark what it made or wrote."""
        names = self.names(src, ns_t)
        if kind == "assign":
            names = {src.split("=", 1)[0].strip()}
        elif kind == "eval" and src.endswith(".grad"):
            for n in names:
                _set(self.grads, n, how)
            return
        group = names | _sharing_memory(names, ns_t, torch)
        for n in group:
            _set(self.marks, n, how)
        if _DIFFERENTIATES.search(src):
            for n in self._closure(group):
                _set(self.grads, n, how)


def _set(marks, name, how):
    """Mark ``name``; "apart" (not compared at all) outranks "drift" (values excused)."""
    if marks.get(name) != "apart":
        marks[name] = how


def _sharing_memory(names, ns, torch):
    """The names in ``ns`` whose tensors share memory with a tensor of ``names``."""
    def storage(t):
        try:
            return t.untyped_storage().data_ptr()
        except Exception:  # noqa: BLE001 - a tensor without storage shares nothing
            return None

    ptrs = {storage(ns[n]) for n in names if isinstance(ns.get(n), torch.Tensor)} - {None, 0}
    if not ptrs:
        return set()
    return {n for n, t in ns.items() if isinstance(t, torch.Tensor) and storage(t) in ptrs}
