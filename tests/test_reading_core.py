"""The reading core stays small enough to read in an afternoon: a line ceiling per file.

The reading core is what the lessons name and a learner opens (``../shared/DESIGN.md``):
Tensor's autograd state, Function and its ctx, the nodes and their saved values,
AccumulateGrad, the engine's walk.  Each ceiling is the file's length today; a
change may only keep or lower it (except, said beside the number, code moved
from one core file into another, or a registration slot that replaces an
upward import), and each step of the redesign (``../shared/REDESIGN.md``) lowers them to
its new counts, down to the target budgets (tensor, function, graph <= 400;
engine <= 250; saved <= 250; edges ~120; about 1,500 lines together).
"""

from pathlib import Path

import pytest

MINIGRAD = Path(__file__).resolve().parents[1] / "minigrad"

# file (relative to minigrad/): its ceiling in lines
CEILINGS = {
    "tensor.py": 345,  # (data conveniences, pickling, hooks, checks, autograd-only helpers moved out)
    "autograd/function.py": 371,  # (step 7: BackwardNode to graph.py; the unusual outputs to wrap_outputs.py, _saved_* attributes to saved_attrs.py)
    "autograd/graph.py": 265,  # (step 7: node hooks to node_hooks.py, the gradient kinds to grad_kinds.py; BackwardNode's PyNode parts to py_node.py; how .grad is stored to accumulate_grad.py)
    "autograd/saved.py": 163,  # (step 5: hooks in saved_hooks.py, later edits in saved_edits.py; fast paths in saved_fast.py)
    "autograd/edges.py": 71,  # (the general path as the idea; stale views and output_nr > 0 in edges_unusual.py; the fast path in edges_fast.py)
    "autograd/engine.py": 198,  # (the walk's state, root and grad-mode setting to graph_task.py, before_node to captures.py; route_gradients_fast in engine_fast.py)
}
TOTAL = 1413


def _lines(name):
    return len((MINIGRAD / name).read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("name", sorted(CEILINGS))
def test_reading_core_file_within_its_ceiling(name):
    n = _lines(name)
    assert n <= CEILINGS[name], (
        f"minigrad/{name} has {n} lines, over its ceiling of {CEILINGS[name]}: the reading core "
        "must not grow (move breadth out of it, into its own module)")


def test_reading_core_total():
    n = sum(_lines(name) for name in CEILINGS)
    assert n <= TOTAL, f"the reading core has {n} lines, over {TOTAL}"


def test_ceilings_follow_the_files_down():
    """A ceiling far above its file would let the file grow back unnoticed: lower it."""
    slack = {name: (_lines(name), ceiling) for name, ceiling in CEILINGS.items()
             if ceiling - _lines(name) > 20}
    assert not slack, f"lower these ceilings to the files' lengths (lines, ceiling): {slack}"


# ----------------------------------------------------------- saved values: one module

import ast  # noqa: E402

_STORAGE = {"_kept", "_kept_versions"}  # a node's saved entries and their versions
_SAVED_INTERNALS = {"pack_saved", "unpack_saved", "unpack_saved_one", "unpack_saved_arrays",
                    "release_saved", "saved_records", "_Freed", "_FREED", "_FREED_OUTPUT",
                    "_release_saved", "_has_saved"}


def _outside_saved_py():
    for path in sorted(MINIGRAD.rglob("*.py")):
        if path.relative_to(MINIGRAD).as_posix() not in ("autograd/saved.py",
                                                         "autograd/saved_edits.py",
                                                         "autograd/saved_fast.py"):
            yield path, ast.parse(path.read_text(encoding="utf-8"))


def test_only_saved_py_touches_a_nodes_saved_values():
    """Outside autograd/saved.py nothing reads or writes a node's saved storage (step 4),
    but saved_edits.py, which changes saved values after the fact (step 5).

    The one thing allowed elsewhere: a new node (or a class default) starting with
    the storage empty, ``node._kept = node._kept_versions = ()``; the slots come
    from ``saved.NODE_SLOTS``.  Nothing assigns ``._saved`` (the records are read
    with ``saved.records``).
    """
    found = []
    for path, tree in _outside_saved_py():
        empty_inits = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple) \
                    and not node.value.elts:
                empty_inits |= {id(t) for t in node.targets}
        for node in ast.walk(tree):
            name = (node.attr if isinstance(node, ast.Attribute)
                    else node.id if isinstance(node, ast.Name) else None)
            where = f"{path.relative_to(MINIGRAD)}:{getattr(node, 'lineno', '?')}"
            if name in _STORAGE and id(node) not in empty_inits:
                found.append(f"{where} {name}")
            elif name in _SAVED_INTERNALS:
                found.append(f"{where} {name}")
            elif name == "_saved" and isinstance(node, ast.Attribute) \
                    and isinstance(node.ctx, ast.Store):
                found.append(f"{where} assigns ._saved")
            elif isinstance(node, ast.Constant) and node.value in _STORAGE:
                found.append(f"{where} '{node.value}'")
    assert not found, "use the API of autograd/saved.py instead:\n  " + "\n  ".join(found)


def test_the_second_backward_error_is_raised_in_one_place():
    """PyTorch's "Trying to backward through the graph a second time ..." has one raise."""
    raises = []
    for path in sorted(MINIGRAD.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and any(
                    isinstance(a, ast.Name) and a.id == "ERR_BACKWARD_TWICE" for a in node.args):
                raises.append(f"{path.relative_to(MINIGRAD)}:{node.lineno}")
    assert len(raises) == 1 and raises[0].startswith("autograd/saved.py:"), raises


def test_nodes_and_saved_values_are_made_by_their_constructors():
    """No ``object.__new__`` under autograd/ sets slots behind a constructor's back (steps 5, 7)."""
    found = [path.name for path in sorted((MINIGRAD / "autograd").glob("*.py"))
             if "object.__new__" in path.read_text(encoding="utf-8")]
    assert not found, found


def test_each_node_has_one_backward_entry():
    """Every node class computes its vector-Jacobian product in ``apply(grads, F)`` alone
    (step 6): no ``_backward`` / ``_backward_arrays`` pair, and AccumulateGrad has one body."""
    import minigrad.jit  # noqa: F401 (its nodes too)
    from minigrad.autograd.graph import AccumulateGrad, Node

    seen, stack = [], [Node]
    while stack:
        cls = stack.pop()
        seen.append(cls)
        stack.extend(cls.__subclasses__())
    assert len(seen) > 100  # (every primitive's node class, so the walk did find them)
    two = [c.__qualname__ for c in seen if {"_backward", "_backward_arrays"} & set(vars(c))]
    assert not two, two
    assert "apply" in vars(AccumulateGrad)


def test_only_function_py_sets_the_tracer():
    """The jit reaches ``apply`` through ``tracing(hook)`` and ``untraced()`` (step 7):
    nothing outside autograd/function.py assigns ``_tracer``."""
    found = []
    for path in sorted(MINIGRAD.rglob("*.py")):
        if path == MINIGRAD / "autograd" / "function.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign))
                       else [])
            for t in targets:
                for sub in ast.walk(t):
                    name = sub.attr if isinstance(sub, ast.Attribute) else getattr(sub, "id", None)
                    if name == "_tracer":
                        found.append(f"{path.relative_to(MINIGRAD)}:{node.lineno}")
    assert not found, found
