"""``jit.explain``: what compiling a function did, in the spirit of ``torch._dynamo.explain``.

A teaching helper (not a PyTorch name): it answers the questions a learner
has after ``minigrad.compile``: how many graphs were compiled, where the
graph broke and why, what each graph assumed (its guards), and, for every
recompile, which guard failed::

    >>> print(minigrad.jit.explain(f, x, w))      # compiles a fresh copy of f, calls it once
    Graph Count: 2
    Graph Break Count: 1
    Op Count: 4
    Break Reasons:
      Break Reason 1:
        Reason: generic_jump TensorVariable()
        Explanation: data-dependent branching: the code takes a Python decision on a tensor's value
        User Stack:
          <FrameSummary file f.py, line 4 in f>
    Ops per Graph:
      Ops 1:
        mul
        sum
        gt
      Ops 2:
        mul
    Out Guards:
      ...

``explain(cf)`` of a compiled function ``cf`` reports everything it did so
far (every call), including the recompiles and their guard failures;
``explain(f)(x, w)`` works as PyTorch's ``explain(f)(x, w)``.

What differs from PyTorch, and why: ``Op Count`` and ``Ops per Graph`` count
every recorded primitive (PyTorch counts the FX ``call_function`` nodes, so
``z.sum()``, a method call, is not counted there); guards are printed as one
readable line each (PyTorch prints its guard objects' fields); the
recompiles section is minigrad's (PyTorch logs them with
``TORCH_LOGS="recompiles"``).

Source: ``torch._dynamo.explain`` and ``ExplainOutput``
(torch/_dynamo/eval_frame.py, torch/_dynamo/backends/debugging.py).
"""

import traceback

__all__ = ["BreakReason", "ExplainOutput", "explain"]


class BreakReason:
    """One graph break: ``reason`` (PyTorch's text), ``explanation``, ``user_stack`` (FrameSummaries)."""

    def __init__(self, reason, explanation, user_stack):
        self.reason = reason
        self.explanation = explanation
        self.user_stack = user_stack

    def __repr__(self):
        return f"BreakReason(reason={self.reason!r}, user_stack={self.user_stack!r})"


class ExplainOutput:
    """The report ``explain`` returns; ``print`` it, or read its fields.

    Attributes:
        graphs (list[Region]): the compiled graphs (``.graph`` prints one, ``.code`` its generated code).
        graph_count (int), graph_break_count (int), op_count (int).
        break_reasons (list[BreakReason]).
        ops_per_graph (list[list[str]]): the primitives of each graph, in order.
        out_guards (list[Guard]): the guards of every compiled version.
        recompiles (list[dict]): per recompile, the version made and the guard failures, newest first.
        fallbacks (list[str]): why some calls ran eagerly.
        compile_times (str): seconds spent recording and compiling.
    """

    def __init__(self, state):
        self.graphs = list(state.graphs)
        self.graph_count = len(self.graphs)
        self.break_reasons = []
        for b in state.breaks:
            loc = b.get("location")
            stack = []
            if loc:
                stack.append(traceback.FrameSummary(loc[0], loc[1], loc[3] if len(loc) > 3 else "?",
                                                    line=loc[2] if len(loc) > 2 else None))
            from .breaks import _BREAK_EXPLANATIONS

            self.break_reasons.append(BreakReason(b["reason"], _BREAK_EXPLANATIONS.get(b["kind"]),
                                                  stack))
        self.graph_break_count = len(self.break_reasons)
        # one name per public call, as the graph text and PyTorch's FX graph name them
        self.ops_per_graph = [[n.kind.split("::", 1)[1] for n in g.graph.operations()]
                              for g in self.graphs]
        self.op_count = sum(len(o) for o in self.ops_per_graph)
        self.out_guards = [g for e in state.entries for g in e.guards.guards]
        self._versions = [list(e.guards.guards) for e in state.entries]
        self.recompiles = list(state.recompiles)
        self.fallbacks = list(state.fallbacks)
        self.compile_times = "compile time (s): " + ", ".join(f"{t:.4f}" for t in state.compile_seconds)

    def __str__(self):
        out = [f"Graph Count: {self.graph_count}",
               f"Graph Break Count: {self.graph_break_count}",
               f"Op Count: {self.op_count}"]
        if self.break_reasons:
            out.append("Break Reasons:")
            for i, b in enumerate(self.break_reasons, 1):
                out.append(f"  Break Reason {i}:")
                out.append(f"    Reason: {b.reason}")
                if b.explanation:
                    out.append(f"    Explanation: {b.explanation}")
                out.append("    User Stack:")
                for fs in b.user_stack:
                    out.append(f"      {fs!r}")
        if self.ops_per_graph:
            out.append("Ops per Graph:")
            for i, ops in enumerate(self.ops_per_graph, 1):
                out.append(f"  Ops {i}:")
                out.extend(f"    {op}" for op in ops)
        if self._versions:
            out.append("Out Guards:")
            for i, guards in enumerate(self._versions):
                if len(self._versions) > 1:
                    out.append(f"  Version {i}:")
                out.extend(f"  - {g}" for g in guards)
        if self.recompiles:
            out.append("Recompiles:")
            for r in self.recompiles:
                out.append(f"  Version {r['version']} triggered by the following guard failure(s):")
                out.extend(f"    - {f}" for f in r["failures"])
        gen = [(i, g) for i, g in enumerate(self.graphs, 1) if getattr(g, "backend", "") == "numpy"]
        if gen:
            out.append("Generated Code (backend 'numpy'):")
            for i, g in gen:
                if g._np is not None:
                    n = len(g.steps)
                    calls = list(dict.fromkeys(g.codegen_calls.values()))
                    out.append(f"  Graph {i}: numpy source, {n} operation{'s' if n != 1 else ''} "
                               "(region.code, region.backward_code)"
                               + (f"; calls the primitive for {', '.join(calls)}" if calls else ""))
                else:
                    out.append(f"  Graph {i}: runs as aot_eager: {g.codegen_fallback}")
        if self.fallbacks:
            out.append("Ran eagerly:")
            out.extend(f"  - {f}" for f in dict.fromkeys(self.fallbacks))
        return "\n".join(out) + "\n"

    __repr__ = __str__


def explain(fn, *args, **kwargs):
    """Report graphs, graph breaks (and why), guards and recompiles of compiling ``fn``.

    Args:
        fn: a function compiled with ``minigrad.compile`` (its report so far;
            called first with ``args`` if any are given), or a plain function
            (a fresh compiled copy is made and called once with ``args``).
            Called with PyTorch tensors, it reports what ``torch.compile``
            does instead (``torch._dynamo.explain``, see ``from_torch.py``), in
            the same form, so a lesson's cell prints alike on both.
        *args, **kwargs: the call to make.  With a plain function and no
            arguments, returns a function to call with them, as
            ``torch._dynamo.explain(fn)(*args)``.

    Returns:
        ExplainOutput: ``print`` it; its fields as PyTorch's ``ExplainOutput``.
    """
    state = getattr(fn, "_minigrad_compiled", None)
    if state is None:
        from .compile import compile as _compile
        from .from_torch import explain_torch, is_torch_object

        if not args and not kwargs:
            return lambda *a, **k: explain(fn, *a, **k)
        if any(is_torch_object(a) for a in list(args) + list(kwargs.values())):
            return explain_torch(fn, *args, **kwargs)  # PyTorch's tensors: PyTorch's compiler
        fn = _compile(fn, backend="aot_eager")
        state = fn._minigrad_compiled
        fn(*args, **kwargs)
    elif args or kwargs:
        fn(*args, **kwargs)
    return ExplainOutput(state)
