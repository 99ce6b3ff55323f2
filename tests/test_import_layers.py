"""minigrad's layers import one way: each module imports only its own layer and those below.

The layers (``../shared/DESIGN.md``, ``REDESIGN.md``'s yardsticks), lowest first:

0. dtypes, devices and the autograd leaves that import nothing of minigrad;
1. the Tensor;
2. the autograd core (nodes, saved values, edges, Function, the engine);
3. the operations and their formulas;
4. the rest of ``minigrad.autograd`` (forward mode, checks, the functional API) and its face;
5. nn, optim, utils, serialization;
6. jit;
7. the teaching UI: viz, widgets, memory;
8. ``minigrad`` itself.

A lower layer that needs a higher one gets it through a registration (a slot
the higher layer fills when it loads), never by importing it inside a
function.  The upward imports that are left are listed in ``ALLOWED_UPWARD``;
each step of the redesign deletes the entries it removes (a stale entry fails
too), so the list only shrinks.  The source is read with ``ast``
(``tests/tools/import_graph.py``); nothing is imported.
"""

import collections
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))
import import_graph  # noqa: E402 (tests/tools/import_graph.py)

# Each module by name; ``name.*`` gives a whole package one layer.  A new module
# outside those packages fails test_every_module_has_a_layer until it is placed here.
LAYERS = {
    0: ["_dtype", "_device", "_layout", "_tensor_checks", "parallel", "_random_kernels", "random",
        "autograd.grad_mode", "autograd.removable_handle", "autograd.saved_errors"],
    1: ["tensor", "_tensor_str", "creation"],
    2: ["autograd.graph", "autograd.saved", "autograd.saved_edits", "autograd.saved_hooks",
        "autograd.edges", "autograd.edges_unusual", "autograd.function", "autograd.engine", "autograd.anomaly",
        "autograd.hooks", "autograd.view_history", "autograd.validate", "autograd.captures",
        "autograd.saved_attrs", "autograd.wrap_outputs", "autograd.saved_fast", "autograd.edges_fast", "autograd.paths",
        "autograd.engine_fast", "autograd.node_hooks", "autograd.grad_kinds",
        "autograd.graph_task", "autograd.py_node", "autograd.accumulate_grad"],
    3: ["ops", "ops.*", "linalg"],
    4: ["autograd", "autograd.forward_ad", "autograd.forward_rules",
        "autograd.functional", "autograd.gradcheck", "autograd.gradcheck_forward",
        "autograd.gradgradcheck", "autograd.once_differentiable", "autograd.save_on_cpu",
        "autograd.variable"],
    5: ["nn", "nn.*", "optim", "optim.*", "utils", "utils.*", "serialization"],
    6: ["jit", "jit.*"],
    7: ["viz", "viz.*", "widgets", "memory", "timing", "on_pytorch", "exercises", "exercises.*"],
    8: [""],  # minigrad itself
}

# (importer, imported), names relative to minigrad ("" is minigrad itself).  Imports inside
# functions count: they are edges all the same, only hidden.  Which step removes each:
# ../shared/REDESIGN.md.
ALLOWED_UPWARD = set()  # (empty since step 8: a lower layer registers a slot instead)

# The import circles among module-level imports (package faces aside) may only shrink:
# each circle found must lie inside one of these.
KNOWN_CIRCLES = [
]
LARGEST_CIRCLE = 2

# Import statements of minigrad's own modules inside functions: hidden edges.  This
# number may only go down; lower it when a change removes some (the test says to).
IMPORTS_IN_FUNCTIONS = 205
# ... and in the reading core, by file (none at the end of the redesign).
READING_CORE_IMPORTS_IN_FUNCTIONS = {
    "tensor": 0, "autograd.function": 0, "autograd.graph": 0,
    "autograd.engine": 0, "autograd.edges": 0, "autograd.saved": 0,
}

PACKAGE = import_graph.PACKAGE


def _short(module):
    return module[len(PACKAGE) + 1:] if module != PACKAGE else ""


def layer_of(module):
    """The layer of a module given by its short name, or None if it has none."""
    for layer, names in LAYERS.items():
        for name in names:
            if module == name or (name.endswith(".*") and module.startswith(name[:-1])):
                return layer
    return None


@pytest.fixture(scope="module")
def scanned():
    return import_graph.scan()


@pytest.fixture(scope="module")
def upward(scanned):
    imports, _ = scanned
    found = collections.defaultdict(list)
    for imp in imports:
        source, target = _short(imp.source), _short(imp.target)
        if layer_of(source) is not None and layer_of(target) is not None \
                and layer_of(source) < layer_of(target):
            found[source, target].append(imp)
    return found


def test_every_module_has_a_layer():
    missing = sorted(_short(m) for m in import_graph.modules() if layer_of(_short(m)) is None)
    assert not missing, (f"give these modules a layer in LAYERS ({__file__}): {missing}")


def test_no_upward_import_beyond_the_allowed(upward):
    new = {pair: imps for pair, imps in upward.items() if pair not in ALLOWED_UPWARD}
    lines = [f"{source} (layer {layer_of(source)}, line "
             + ", ".join(str(i.line) + (" in a function" if i.in_function else "") for i in imps)
             + f") imports {target or PACKAGE} (layer {layer_of(target)})"
             for (source, target), imps in sorted(new.items())]
    assert not new, ("upward imports: a lower layer must not import a higher one (register a slot "
                     "that the higher layer fills instead):\n  " + "\n  ".join(lines))


def test_no_stale_allowed_entry(upward):
    stale = sorted(ALLOWED_UPWARD - set(upward))
    assert not stale, f"these upward imports are gone: delete them from ALLOWED_UPWARD: {stale}"


def test_the_package_itself_is_imported_by_none_of_its_modules(scanned):
    imports, _ = scanned
    found = sorted(f"{_short(i.source)}:{i.line}" for i in imports if i.target == PACKAGE)
    assert not found, f"modules importing the top package {PACKAGE}: {found}"


def test_module_level_circles_only_shrink(scanned):
    imports, _ = scanned
    circles = [{_short(m) for m in c} for c in import_graph.circles(imports)]
    assert max((len(c) for c in circles), default=0) <= LARGEST_CIRCLE, circles
    new = [sorted(c) for c in circles if not any(c <= known for known in KNOWN_CIRCLES)]
    assert not new, f"new module-level import circles (or new members in one): {new}"


def test_imports_inside_functions_only_go_down(scanned):
    _, count = scanned
    assert count <= IMPORTS_IN_FUNCTIONS, (
        f"{count} import statements inside functions, more than the {IMPORTS_IN_FUNCTIONS} "
        "allowed: import at module level from a lower layer, or register a slot")
    assert count == IMPORTS_IN_FUNCTIONS, (
        f"down to {count}: lower IMPORTS_IN_FUNCTIONS in {__file__} to {count}")


def test_reading_core_imports_inside_functions_only_go_down(scanned):
    imports, _ = scanned
    statements = collections.Counter(
        _short(source) for source, line in {(i.source, i.line) for i in imports if i.in_function})
    counts = {name: statements[name] for name in READING_CORE_IMPORTS_IN_FUNCTIONS}
    assert counts == READING_CORE_IMPORTS_IN_FUNCTIONS, (
        f"imports inside functions in the reading core are now {counts}: none may be added; "
        "lower READING_CORE_IMPORTS_IN_FUNCTIONS where they went down")
