"""How the teaching tools read a graph: through what minigrad and PyTorch both expose.

``viz``, ``widgets`` and ``memory`` never reach into a library's private
storage to learn about a graph.  They read what PyTorch itself shows of a
recorded graph, which minigrad shows under the same names:

* a tensor's ``grad_fn``, ``output_nr``, ``requires_grad``, ``shape``, ``grad``;
* a node's ``next_functions`` (``(node, output_nr)`` pairs, ``(None, 0)`` for an
  input that needs no gradient), ``AccumulateGrad.variable`` (the leaf), and
  the order nodes were recorded in (PyTorch: ``node._sequence_nr()``);
* the values a node saved for backward, as its ``_saved_<name>`` attributes
  (``_saved_self``, ``_saved_other``, ``_saved_result``, ...).  Reading one
  returns the tensor while it is alive; once a backward without
  ``retain_graph=True`` has freed it, reading raises ``RuntimeError: Trying to
  backward through the graph a second time ...``: that error *is* the signal
  "freed" (PyTorch has no other).  A value changed in place since it was saved
  raises "... modified by an inplace operation": the state "modified";
* node pre-hooks and hooks (``register_prehook``, ``register_hook``) to watch a
  walk, and ``autograd.graph.saved_tensors_hooks`` to watch values being saved.

For minigrad's own graphs a few answers come from minigrad's records instead
of unpacking (so that no unpack hook runs while drawing, and a value held by a
pack hook shows as "packed by hook"); they are the same answers.

PyTorch is never imported here: a tensor is recognised as PyTorch's only if
``torch`` is already in ``sys.modules`` (the program imported it), so with
torch absent, or for minigrad's graphs, nothing changes.

``Library`` is the little that differs between the two (how to make a tensor,
how to call ``backward``, where a storage begins); ``library_of(obj)`` finds it.
"""

import sys

import numpy as np

__all__ = ["Library", "describe_type", "is_node", "is_tensor", "library_of", "library_named"]

_FREED_MARK = "backward through the graph a second time"
_MODIFIED_MARK = "modified by an inplace operation"


# ------------------------------------------------------------------ libraries

class Library:
    """One autograd library as the teaching tools use it: ``minigrad`` or ``torch``.

    Attributes:
        name (str): ``"minigrad"`` or ``"torch"``.
        module: the library's top-level module.
    """

    def __init__(self, name, module):
        self.name = name
        self.module = module

    def __repr__(self):
        return f"<autograd library {self.name}>"

    # --- types

    @property
    def Tensor(self):
        return self.module.Tensor

    def is_tensor(self, obj):
        return isinstance(obj, self.module.Tensor)

    def is_node(self, obj):
        return isinstance(obj, self.module.autograd.graph.Node)

    # --- making things

    def leaf(self, value):
        """A fresh float32 leaf that requires grad: ``tensor(float(value), requires_grad=True)``."""
        return self.module.tensor(float(value), requires_grad=True)

    def tensor(self, value, dtype=None):
        return self.module.tensor(value, dtype=dtype)

    def ones_like(self, t):
        return self.module.ones_like(t.detach())

    def backward(self, outputs, gradient, retain_graph, create_graph):
        return self.module.autograd.backward(outputs, gradient, retain_graph, create_graph)

    def saved_tensors_hooks(self, pack, unpack):
        return self.module.autograd.graph.saved_tensors_hooks(pack, unpack)

    def accumulator(self, leaf):
        """The ``AccumulateGrad`` node of a leaf that requires grad."""
        if self.name == "minigrad":
            return leaf._accumulator()
        # PyTorch makes it on first use and keeps it while a graph refers to it: use once
        return leaf.view_as(leaf).grad_fn.next_functions[0][0]

    # --- reading tensors

    def storage(self, t):
        """``(key, nbytes)`` of the memory ``t`` keeps alive: its whole storage, counted once.

        Two tensors over the same memory (a view, ``x`` saved twice) have the
        same key; the key is valid while something counted holds the storage.
        """
        if self.name == "minigrad":
            a = t._data
            while True:  # as_strided (expand) puts a DummyArray between view and base
                base = a.base
                if not isinstance(base, np.ndarray):
                    base = getattr(base, "base", None)
                if not isinstance(base, np.ndarray):
                    break
                a = base
            return ("minigrad", id(a)), int(a.nbytes)
        s = t.untyped_storage()
        return ("torch", s.data_ptr(), t.device.type), int(s.nbytes())

    def numpy(self, t):
        """The values of ``t`` as a numpy array (no copy where none is needed)."""
        if self.name == "minigrad":
            return t._data
        t = t.detach()
        if t.device.type != "cpu":
            t = t.cpu()
        try:
            return t.numpy()
        except TypeError:  # bfloat16 and friends have no numpy dtype
            return t.float().numpy()

    def copy(self, t):
        """A detached copy of ``t`` (None stays None)."""
        if t is None:
            return None
        if self.name == "minigrad":
            return t.detach()._copy()
        return t.detach().clone()

    # --- reading nodes

    def seq(self, node):
        """The order the node was recorded in (larger: later)."""
        if self.name == "minigrad":
            return node._seq
        return node._sequence_nr()


_LIBS = {}


def _lib(name):
    lib = _LIBS.get(name)
    if lib is None:
        # a module of minigrad runs only once the package is imported: both are in sys.modules
        lib = _LIBS[name] = Library(name, sys.modules[name])
    return lib


def _torch():
    """The torch module if the program has imported it, else None (never imports it)."""
    return sys.modules.get("torch")


def library_of(obj):
    """The ``Library`` a tensor or graph node belongs to, or None for anything else."""
    from ..autograd.graph import Node
    from ..tensor import Tensor

    if isinstance(obj, (Tensor, Node)):
        return _lib("minigrad")
    torch = _torch()
    if torch is not None:
        try:
            if isinstance(obj, (torch.Tensor, torch.autograd.graph.Node)):
                return _lib("torch")
        except AttributeError:  # a torch still importing
            return None
    return None


def library_named(name):
    """``"minigrad"``, ``"torch"``, or either module, as a ``Library``; imports torch if named.

    Raises:
        ValueError: another name.
        ImportError: ``"torch"`` asked for but not installed.
    """
    if not isinstance(name, str):
        name = getattr(name, "__name__", None)
    if name == "minigrad":
        return _lib("minigrad")
    if name == "torch":
        if _torch() is None:
            import torch  # noqa: F401  (asked for by name)
        return _lib("torch")
    raise ValueError(f"library must be 'minigrad' or 'torch' (or the module), got {name!r}")


def library_used_by(fn, fallback_globals=None):
    """The library a function computes with: the one its code names (``torch.``), if any.

    Looks at the global names ``fn``'s code uses (``fn.__code__.co_names``, and
    those of the functions defined inside it) and at the variables it closes
    over, for a module that is minigrad or torch: a lesson's ``import minigrad
    as torch`` or ``import torch``.
    Then at ``fallback_globals`` (the caller's namespace).  None if neither says.
    """
    code = getattr(fn, "__code__", None)
    glb = getattr(fn, "__globals__", None)
    found = set()
    if code is not None and glb is not None:
        names = set(code.co_names)
        stack = [c for c in code.co_consts if hasattr(c, "co_names")]
        while stack:  # names used by nested functions and lambdas too
            c = stack.pop()
            names.update(c.co_names)
            stack.extend(k for k in c.co_consts if hasattr(k, "co_names"))
        for n in names:
            lib = _module_library(glb.get(n))
            if lib is not None:
                found.add(lib)
        for cell in getattr(fn, "__closure__", None) or ():  # a library imported in a function
            try:
                lib = _module_library(cell.cell_contents)
            except ValueError:  # an empty cell
                continue
            if lib is not None:
                found.add(lib)
    if len(found) == 1:
        return _lib(found.pop())
    if not found and fallback_globals is not None:
        lib = _module_library(fallback_globals.get("torch"))
        if lib is not None:
            return _lib(lib)
    return None


def _module_library(obj):
    name = getattr(obj, "__name__", None)
    if type(obj).__name__ != "module" or not isinstance(name, str):
        return None
    top = name.split(".")[0]
    if top == "minigrad":
        return "minigrad"
    if top == "torch" and _torch() is not None:
        return "torch"
    return None


def is_tensor(obj):
    """Whether ``obj`` is a minigrad or (already imported) PyTorch tensor."""
    lib = library_of(obj)
    return lib is not None and lib.is_tensor(obj)


def is_node(obj):
    """Whether ``obj`` is a graph node (a ``grad_fn``) of minigrad or (imported) PyTorch."""
    lib = library_of(obj)
    return lib is not None and lib.is_node(obj)


def describe_type(obj):
    """A type's full name, so that an error never says "expects a Tensor, got Tensor".

    ``torch.Tensor``, ``minigrad.Tensor``, ``torch.autograd.graph.Node``
    (``MulBackward0``), ``float``, ``numpy.ndarray``.
    """
    lib = library_of(obj)
    if lib is not None:
        if lib.is_tensor(obj):
            return f"{lib.name}.Tensor"
        return f"{lib.name}.autograd.graph.Node ({type(obj).__name__})"
    t = type(obj)
    mod = t.__module__
    if mod in ("builtins", "__main__") or not mod:
        return t.__qualname__
    return f"{mod.split('.')[0]}.{t.__qualname__}"


# ------------------------------------------------------------- reading nodes

def node_name(node):
    """The name a learner sees: the class name, as in the node's repr and in torchviz.

    Same as ``node.name()`` (``MulBackward0``) except for PyTorch's C++ nodes,
    whose ``name()`` is qualified (``torch::autograd::AccumulateGrad``).
    """
    return type(node).__name__


def is_accumulate(node):
    """Whether the node is a leaf's ``AccumulateGrad``."""
    return node is not None and type(node).__name__ == "AccumulateGrad"


def _name_key(name):
    """The order saved values are listed in: ``self``, ``other``, the rest, ``result`` last.

    One rule for both libraries (PyTorch's attributes come in alphabetical order,
    minigrad's in its own), so a graph reads the same in either.
    """
    base = name.split("[")[0]
    rank = {"self": 0, "other": 1}.get(base, 3 if base.startswith("result") else 2)
    return rank, name


class SavedValue:
    """One value a node saved for backward, as a picture needs it.

    Attributes:
        name (str): ``self``, ``other``, ``result``, ``saved_tensors[0]``, ...
        state (str): ``alive``, ``freed``, ``modified`` (changed in place since
            saved: backward would raise) or ``packed`` (held by a pack hook).
        tensor: the tensor while alive or modified (None once freed).
        is_output (bool): the node's own output (``result``).
        index (int | None): which ``next_functions`` entry it is the input of,
            where that is known (``self``: 0, ``other``: 1 for two inputs).
    """

    __slots__ = ("index", "is_output", "name", "state", "tensor")

    def __init__(self, name, state, tensor, is_output, index=None):
        self.name = name
        self.state = state
        self.tensor = tensor
        self.is_output = is_output
        self.index = index

    def __iter__(self):  # (name, state, tensor, is_output), as the old tuples
        return iter((self.name, self.state, self.tensor, self.is_output))


def _input_index(node, name):
    n = len(node.next_functions)
    if name == "self" and n >= 1:
        return 0
    if name == "other" and n == 2:
        return 1
    return None


def saved_values(node):
    """The values ``node`` saved for backward, in a fixed order, each in its state now.

    Never runs backward; for PyTorch it reads the ``_saved_*`` attributes (the
    only way PyTorch shows them), for minigrad its records of them.
    """
    lib = library_of(node)
    if lib is None:
        return []
    if lib.name == "minigrad":
        out = _minigrad_saved(node)
    else:
        out = _torch_saved(node)
    for v in out:
        v.index = _input_index(node, v.name)
    out.sort(key=lambda v: _name_key(v.name))
    return out


def _minigrad_saved(node):
    from ..memory import _MeterPacked

    fwd = getattr(type(node), "_forward_cls", None)
    if fwd is None or not hasattr(node, "_saved"):
        return []
    names = tuple(fwd.saved_names)
    out = []
    for i, s in enumerate(node._saved):
        name = names[i] if i < len(names) else f"saved_tensors[{i}]"
        if s is None:
            continue  # nothing was saved under this name (PyTorch's _saved_x is None)
        t = s.tensor
        if t is None and type(s.packed) is _MeterPacked:
            # a SavedTensorsMeter only counts: the value is as it was
            packed = s.packed
            t = packed.origin() if packed.origin is not None else None
            if t is None:
                t = packed.tensor
        if t is None:
            state = "packed" if s.packed is not None else "freed"
        else:
            vc = t._vc
            state = "modified" if vc is not None and vc[0] != s.version else "alive"
        out.append(SavedValue(name, state, t if state in ("alive", "modified") else None,
                              s.is_output))
    return out


def _torch_names(node):
    """PyTorch's saved tensors of ``node``: the ``_saved_x`` that have a ``_raw_saved_x``."""
    attrs = set(dir(node))
    names = [a[len("_saved_"):] for a in attrs
             if a.startswith("_saved_") and "_raw" + a in attrs]
    if not names and "saved_tensors" in attrs and hasattr(node, "_forward_cls"):
        return None  # a custom Function: ctx.saved_tensors
    return names


def _read(node, attr):
    """``(state, value)`` of one saved attribute: reading it is PyTorch's only signal."""
    try:
        return "alive", getattr(node, attr)
    except RuntimeError as err:
        msg = str(err)
        if _FREED_MARK in msg:
            return "freed", None
        if _MODIFIED_MARK in msg:
            return "modified", None
        return "packed", None


def _torch_saved(node):
    names = _torch_names(node)
    out = []
    if names is None:
        state, value = _read(node, "saved_tensors")
        if state != "alive":
            # how many there were is not shown once freed: say it once
            return [SavedValue("saved_tensors", state, None, False)]
        for i, t in enumerate(value):
            out.append(SavedValue(f"saved_tensors[{i}]", "alive", t, False))
        return out
    for name in names:
        state, value = _read(node, "_saved_" + name)
        is_output = name.startswith("result")
        if state != "alive":
            out.append(SavedValue(name, state, None, is_output))
        elif value is None:
            continue  # not saved: its gradient is not needed
        elif isinstance(value, (list, tuple)):
            for i, t in enumerate(value):
                if t is not None:
                    out.append(SavedValue(f"{name}[{i}]", "alive", t, is_output))
        else:
            out.append(SavedValue(name, "alive", value, is_output))
    return out


def saved_attrs(node, max_chars):
    """A node's non-tensor saved values (``exponent``, ``self_sym_sizes``, ...) as text."""
    lib = library_of(node)
    if lib is None:
        return []
    if lib.name == "minigrad":
        fwd = getattr(type(node), "_forward_cls", None)
        names = list(fwd.saved_attrs) if fwd is not None else []
    else:
        attrs = set(dir(node))
        names = sorted(a[len("_saved_"):] for a in attrs
                       if a.startswith("_saved_") and "_raw" + a not in attrs)
    out = []
    for name in names:
        try:
            text = repr(getattr(node, "_saved_" + name) if lib.name == "torch"
                        else getattr(node, name, None))
        except RuntimeError:
            text = "(freed)"
        if len(text) > max_chars:
            text = text[: max_chars - 3] + "..."
        out.append((name, text))
    return out


def walk(start, visible=None):
    """Every node reachable from ``start`` through ``next_functions``, without recursion.

    Returns ``(nodes, consumers)``: ``nodes`` in discovery order; ``consumers``
    maps a node to the ``(consumer, edge index)`` pairs that point at it.
    Nodes are keyed by identity (they have no ``__eq__``), and the list keeps
    them alive (PyTorch makes a node's Python object on demand: holding it
    keeps the same object).  ``visible`` (a set of nodes, or None for all)
    limits the walk to those nodes and the ``AccumulateGrad`` nodes they point
    at: a forward recording draws its graph as it was a few steps in.
    """
    seen = set()
    nodes = []
    consumers = {}
    stack = []
    for n in start:
        if n not in seen:
            seen.add(n)
            nodes.append(n)
            stack.append(n)
    while stack:
        node = stack.pop()
        for i, (nxt, _nr) in enumerate(node.next_functions):
            if nxt is None:
                continue
            if visible is not None and nxt not in visible and not is_accumulate(nxt):
                continue
            consumers.setdefault(nxt, []).append((node, i))
            if nxt not in seen:
                seen.add(nxt)
                nodes.append(nxt)
                stack.append(nxt)
    return nodes, consumers


def is_python_number(t):
    """Whether a saved value is a Python number from the code (``x * 2``'s ``2``).

    PyTorch keeps them as 0-d int64 or float64 tensors without a flag a
    program can read (minigrad's flag is private), so one rule for both: a 0-d
    int64 or float64 tensor that needs no gradient.
    """
    try:
        return (tuple(t.shape) == () and not t.requires_grad and t.grad_fn is None
                and str(t.dtype).split(".")[-1] in ("int64", "float64"))
    except AttributeError:
        return False


_CONSTANTS = "minigrad.viz constants"  # the key of node.metadata where record_forward notes them


def note_constants(node, texts):
    """Remember how a node's constant inputs read (``{1: "1"}`` for ``y + 1``) on the node.

    ``record_forward`` sees the arguments of every operation it records; a
    constant the node does not save for backward (``y + 1`` keeps nothing) is
    otherwise gone from the graph.  The texts go into ``node.metadata`` (the
    dict PyTorch and minigrad offer for annotations), so every later picture
    of the same graph shows them.
    """
    if texts:
        node.metadata.setdefault(_CONSTANTS, {}).update(texts)


def noted_constants(node):
    """``{input index: text}`` noted by ``note_constants`` (empty if none)."""
    try:
        return dict(node.metadata.get(_CONSTANTS, {}))
    except (AttributeError, RuntimeError):
        return {}


def constant_text(t):
    """How a constant input reads: ``2``, ``1.5`` for a number, else its values."""
    if isinstance(t, (int, float)) and not isinstance(t, bool):
        return repr(t)
    lib = library_of(t)
    a = lib.numpy(t) if lib is not None else np.asarray(t)
    if a.shape == () and is_python_number(t):
        v = a.item()
        return repr(int(v)) if isinstance(v, (int, np.integer)) or a.dtype.kind in "iu" else repr(v)
    from .values import fmt_value

    return fmt_value(t)
