"""Every registration slot is filled once minigrad is imported.

A lower layer that needs a higher one (tensor.py calling autograd's
``backward``, the repr asking forward mode for a tangent) offers a slot, a
module attribute set by a ``register_...`` function that the higher layer calls
when it loads (``tests/test_import_layers.py`` forbids the upward import).  A
slot left empty would fail only when the method is called: these tests fill
that gap.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import minigrad

MINIGRAD = Path(minigrad.__file__).resolve().parent

# (module, slot, its register function, what the slot must offer)
SLOTS = [
    ("minigrad.tensor", "_autograd", "register_autograd",
     ("backward", "note_detached", "refresh_view", "register_hook", "add_retain_hook")),
    ("minigrad._tensor_str", "_tangent_suffix", "register_tangent_suffix", ()),
    ("minigrad.jit.recording", "_namespace", "register_namespace", ("tensor", "zeros")),
    ("minigrad.autograd.function", "_fw_state", "register_forward_mode", ()),
    ("minigrad.autograd.function", "_fw_propagate", "register_forward_mode", ()),
    ("minigrad.autograd.grad_kinds", "ARRAYS", "register_grad_kinds", ("where", "sum_to")),
    ("minigrad.autograd.grad_kinds", "TENSORS", "register_grad_kinds", ("where", "sum_to")),
    ("minigrad.autograd.wrap_outputs", "_rebase_view_write", "register_view_write", ()),
    ("minigrad.autograd.function", "_formula_node", "register_formula_node", ()),
    ("minigrad.autograd.accumulate_grad", "_recorded_copy", "register_recorded_copy", ()),
    ("minigrad.autograd.view_history", "_view_ops", "register_view_ops",
     ("as_strided", "positions", "multi_view_name")),
    ("minigrad.ops.inplace", "_forward_mode", "register_forward_mode", ("copy_tangent",)),
    ("minigrad.autograd.forward_rules", "_BUILDERS", "register_rule_builder", ()),
    ("minigrad.random", "_tensor_class", "register_tensor", ("_make",)),
    ("minigrad.creation", "_alias", "register_alias", ()),
    ("minigrad.viz.render", "_STACKED", "register_stacked", ("svg", "png", "layout")),
]


def _module(name):
    __import__(name)
    return sys.modules[name]


@pytest.mark.parametrize("module, slot, register, offers", SLOTS,
                         ids=[f"{m}.{s}" for m, s, _, _ in SLOTS])
def test_slot_is_filled(module, slot, register, offers):
    mod = _module(module)
    value = getattr(mod, slot)
    assert value is not None and value != [], f"{module}.{slot} is empty after import minigrad"
    assert callable(getattr(mod, register))
    for name in offers:
        assert callable(getattr(value, name, None)), f"{module}.{slot} lacks {name}"


def test_every_register_function_is_listed():
    """A new slot (a module-level ``def register_...``) must be added to SLOTS."""
    found = set()
    for path in MINIGRAD.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parts = path.relative_to(MINIGRAD.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found |= {(module, node.name) for node in tree.body
                  if isinstance(node, ast.FunctionDef) and node.name.startswith("register_")}
    # torch.autograd.graph's public register_multi_grad_hook is PyTorch's API, not a slot
    found.discard(("minigrad.autograd.hooks", "register_multi_grad_hook"))
    found.discard(("minigrad.autograd.hooks", "register_hook"))
    found.discard(("minigrad.autograd.hooks", "register_post_accumulate_grad_hook"))
    listed = {(m, r) for m, _, r, _ in SLOTS}
    assert found == listed, (f"unlisted: {sorted(found - listed)}; "
                             f"listed but gone: {sorted(listed - found)}")


@pytest.mark.parametrize("module, slot", [(m, s) for m, s, _, _ in SLOTS],
                         ids=[f"{m}.{s}" for m, s, _, _ in SLOTS])
def test_slot_is_filled_when_its_module_is_imported_first(module, slot):
    """Importing the module on its own, in a fresh interpreter, fills its slot too."""
    code = (f"import sys, {module}; "  # (minigrad.tensor the attribute is the function tensor())
            f"value = sys.modules['{module}'].{slot}; "
            "sys.exit(0 if value is not None and value != [] else 1)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_torch_autograd_graph_names_are_set():
    """The package face sets what ``torch.autograd.graph`` offers beyond the core."""
    from minigrad.autograd import graph

    assert graph.save_on_cpu.__name__ == "save_on_cpu"
    assert graph.register_multi_grad_hook.__name__ == "register_multi_grad_hook"


def test_no_tensor_slots_left_in_autograd():
    """The autograd modules import Tensor; none keeps a ``_Tensor = None`` for tensor.py to fill."""
    found = [str(p.relative_to(MINIGRAD)) for p in (MINIGRAD / "autograd").rglob("*.py")
             if "_Tensor = None" in p.read_text(encoding="utf-8")]
    assert not found, found
