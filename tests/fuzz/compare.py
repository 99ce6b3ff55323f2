"""What the differential fuzzer (``differential.py``) compares after each step, and how.

``describe`` turns one step's result into plain data (dtype, shape, values,
``requires_grad``, ``is_leaf``, the ``grad_fn`` chain, ``repr``, ``_version``, the
node's ``_saved_*`` attributes) the same way
for both libraries; ``compare`` gives the kinds of difference between two
such descriptions (the kinds are explained in ``differential.py``).

Values are compared element by element: each element within a tolerance
relative to itself, with an absolute floor for elements near zero
(``TOLERANCE``), never relative to the tensor's largest value (a tensor-wide
scale would let ``[1000.0, 0.5]`` pass for ``[1000.0, 1.4]``).

The graph of a gradient taken with ``create_graph=True`` is made of backward
formulas, and minigrad's formulas are written with other ops than PyTorch's
fused kernels (the README's "Graphs made of backward formulas").  Such a
graph difference is ``graph2`` only when the first node where the two chains
part is one of ``GRAPH2_PAIRS``; any other difference is ``graph``.
"""

import math
import re
from itertools import zip_longest

import numpy as np

# (rtol, atol) per element: |a - b| <= atol + rtol * max(|a|, |b|).  float64 values may
# have come from float32 ones (x.double()): not much tighter than float32 relative to them
TOLERANCE = {"float32": (1e-4, 1e-5), "float64": (2e-6, 1e-9)}
_ADDR = re.compile(r"0x[0-9a-fA-F]+")
_GRAD_FN = re.compile(r",?\s*grad_fn=<\w+>")

# The first node where a second-order chain (a gradient taken with create_graph=True)
# differs: (PyTorch's node, minigrad's node), None where one chain has ended.  Each pair
# is a formula that PyTorch computes with a fused kernel or another op than minigrad's
# readable one (README, "Graphs made of backward formulas"); found by running the fuzzer
# (seeds 0:3000 and 930000:932000) and read one by one.  A pair not listed is ``graph``
# (the in-place writes' own nodes, CopySlices' CopyBackwards and CloneBackward0, an in-place
# op's clone of the value it overwrote, as_strided_backward's nodes, are PyTorch's).
GRAPH2_PAIRS = {
    # the losses' fused double backward: PyTorch's MseLossBackwardBackward0 (a node of its
    # own); minigrad's mse formula is elementary ops (a product, a reshape of the mean's grad)
    ("MseLossBackwardBackward0", "MulBackward0"),
    ("MseLossBackwardBackward0", "ViewBackward0"),
    # select's gradient: PyTorch's select_backward, minigrad's slice_backward
    ("SelectBackwardBackward0", "SliceBackwardBackward0"),
    # max, median, amax, fmax/fmin, atan2, std: PyTorch masks with masked_fill, minigrad
    # selects with where
    ("MaskedFillBackward0", "WhereBackward0"),
    # the gradient of a value picked by topk, sort, min/max over a dim or median: PyTorch
    # scatters it, minigrad adds, scatter-adds or records its value_selecting_reduction
    ("ScatterBackward0", "AddBackward0"),
    ("ScatterBackward0", "ScatterAddBackward0"),
    ("ScatterBackward0", "ValueSelectingReductionBackward0"),
    # index's gradient: PyTorch's _index_put_impl_, minigrad's index_put
    ("IndexPutImplBackward0", "IndexPutBackward0"),
    # mv's and outer's gradient: PyTorch's ger is a broadcast product of a reshape,
    # minigrad's an (n, 1) @ (1, m) product of unsqueezed vectors
    ("MulBackward0", "MmBackward0"),
    # sqrt's gradient divides by 2 * result: PyTorch multiplies by the number 2
    # (MulBackward1), minigrad by a tensor
    ("MulBackward1", "MulBackward0"),
    # a mean reduction's gradient (binary_cross_entropy_with_logits): PyTorch divides by
    # the count (DivBackward1), minigrad multiplies by its reciprocal
    ("DivBackward1", "MulBackward0"),
    # clamp with tensor bounds: PyTorch's formula adds the masked terms, minigrad
    # multiplies by the mask first
    ("AddBackward0", "MulBackward0"),
    # squeeze's gradient: PyTorch unsqueezes (and records nothing where no dim was
    # squeezed), minigrad reshapes
    ("UnsqueezeBackward0", "ViewBackward0"),
    ("AddBackward0", "ViewBackward0"),
    # transpose of a 0-d tensor: PyTorch's formula transposes the gradient (recorded),
    # minigrad's passes it on
    ("TransposeBackward0", "AddBackward0"),
    # cumprod's gradient: PyTorch writes slices in place (CopySlices), minigrad
    # concatenates them
    ("torch::autograd::CopySlices", "CatBackward0"),
}


# ------------------------------------------------------------- observing

def first_sentence(message):
    """The message up to its first newline or ``". "``, as the parity fixtures compare it."""
    line = message.split("\n", 1)[0]
    i = line.find(". ")
    return line if i < 0 else line[: i + 1]


def norm(text):
    """``text`` without addresses, and with ``minigrad.`` read as ``torch.``."""
    text = _ADDR.sub("0x", text)
    return re.sub(r"\bminigrad\.", "torch.", text)


def describe(obj, lib):
    """What one step's result looks like, as plain data both libraries can be compared by."""
    if isinstance(obj, lib.Tensor):
        return _describe_tensor(obj, lib)
    if isinstance(obj, (tuple, list)) and obj and all(isinstance(o, lib.Tensor) for o in obj):
        return {"seq": [_describe_tensor(o, lib) for o in obj]}
    if isinstance(obj, bool) or obj is None:
        return {"py": obj}
    if isinstance(obj, (int, float)):
        return {"py": obj}
    return None


def _describe_tensor(t, lib):
    d = t.detach()
    if getattr(d, "_is_zerotensor", None) is not None and d._is_zerotensor():
        d = lib.zeros_like(d)  # PyTorch's "efficient zero" tensors have no storage to list
    node = t.grad_fn
    return {
        "dtype": norm(str(t.dtype)),
        "shape": list(t.shape),
        "values": d.tolist(),
        "requires_grad": t.requires_grad,
        "is_leaf": t.is_leaf,
        "grad_fn": None if node is None else node.name(),
        "chain": _chain(node),
        "repr": norm(repr(t)),
        "version": t._version,
        "saved": _saved_attributes(node, lib),
    }


def _saved_attributes(node, lib):
    """``{name: value}`` of a node's ``_saved_*`` attributes (what it saved for backward),
    each a tensor's dtype, shape and values, a number, a sequence of them, or the first
    sentence of the error reading it raised (freed, say)."""
    if node is None:
        return {}
    out = {}
    for name in dir(node):
        if not name.startswith("_saved_"):
            continue
        try:
            out[name] = _plain(getattr(node, name), lib)
        except Exception as err:  # noqa: BLE001 - what reading it raises is compared too
            out[name] = ["raised", first_sentence(str(err))]
    return out


def _plain(v, lib):
    if isinstance(v, lib.Tensor):
        return {"dtype": norm(str(v.dtype)), "shape": list(v.shape), "values": v.detach().tolist()}
    if isinstance(v, (tuple, list)):
        return [_plain(x, lib) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return norm(str(v))  # a dtype, a layout, a memory format, ...


def _chain(node, limit=12):
    """Names along the first ``next_functions`` edge of each node, then each node's edge count."""
    out = []
    while node is not None and len(out) < limit:
        edges = node.next_functions
        out.append(f"{node.name()}/{len(edges)}")
        nxt = [fn for fn, _ in edges if fn is not None]
        node = nxt[0] if nxt else None
    return out


# ------------------------------------------------------------- comparing

def close(a, b, dtype):
    """Are two values (nested lists of numbers) equal within ``dtype``'s per-element tolerance?"""
    if isinstance(a, list) or isinstance(b, list):
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                and all(close(x, y, dtype) for x, y in zip(a, b)))
    if isinstance(a, bool) or isinstance(b, bool) or dtype not in TOLERANCE:
        return a == b
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    rtol, atol = TOLERANCE[dtype]
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _float32_exact(v):
    """True if every value is a float32 number: a float64 tensor whose values all are was
    computed in float32 and cast up (PyTorch casts a gradient to its input's dtype), so
    it carries float32's rounding, such as a sum's order of additions, not float64's."""
    if isinstance(v, list):
        return all(_float32_exact(x) for x in v)
    if not isinstance(v, float) or not math.isfinite(v):
        return True
    if v == 0.0 or v == int(v) and abs(v) < 2 ** 24:
        return True
    return abs(v) <= _FLOAT32_MAX and float(np.float32(v)) == v


def compare(expected, actual, second_order=False, gradient=False):
    """The kinds of difference between two ``describe`` results (empty: they agree).

    ``second_order``: the result is a gradient taken with ``create_graph=True``, whose
    node names may differ as ``GRAPH2_PAIRS`` allows (kind ``graph2``).  ``gradient``:
    it is a ``.grad`` or what ``autograd.grad`` returned, whose ``_version`` counts the
    engine's own in-place additions into its buffers (not compared).
    """
    if expected is None or actual is None:
        return set() if (expected is None) == (actual is None) else {"value"}
    if "py" in expected or "py" in actual:
        e, a = expected.get("py", "?"), actual.get("py", "?")
        if isinstance(e, float) and isinstance(a, float):
            return set() if close(e, a, "float64") else {"value"}
        return set() if e == a else {"value"}
    if "seq" in expected or "seq" in actual:
        es, as_ = expected.get("seq"), actual.get("seq")
        if es is None or as_ is None or len(es) != len(as_):
            return {"value"}
        kinds = set()
        for e, a in zip(es, as_):
            kinds |= compare(e, a, second_order, gradient)
        return kinds
    kinds = set()
    dtype = expected["dtype"][6:]
    if dtype == "float64" and _float32_exact(expected["values"]) and _float32_exact(actual["values"]):
        dtype = "float32"  # computed in float32 in both (a float64 leaf's gradient through a float32 op)
    if (expected["dtype"] != actual["dtype"] or expected["shape"] != actual["shape"]
            or not close(expected["values"], actual["values"], dtype)):
        kinds.add("value")
    if expected["requires_grad"] != actual["requires_grad"] or expected["is_leaf"] != actual["is_leaf"]:
        kinds.add("graph")
    if expected["chain"] != actual["chain"]:
        allowed = second_order and graph_difference(expected, actual) in GRAPH2_PAIRS
        kinds.add("graph2" if allowed else "graph")
    if (_GRAD_FN.sub("", expected["repr"]) != _GRAD_FN.sub("", actual["repr"])
            and expected["values"] == actual["values"]):
        kinds.add("print")  # the same values printed otherwise (rounding noise is not this)
    if expected["version"] != actual["version"] and not gradient:
        kinds.add("version")
    if not second_order and not _same_saved(expected["saved"], actual["saved"], dtype):
        kinds.add("saved")  # (a graph of backward formulas saves what its formulas do)
    return kinds


def _same_saved(e, a, dtype):
    """Do two nodes' saved attributes agree (names, and values within ``dtype``'s tolerance)?"""
    if isinstance(e, dict) and isinstance(a, dict):
        if "values" in e and "values" in a:
            t = e["dtype"][6:]
            return (e["dtype"] == a["dtype"] and e["shape"] == a["shape"]
                    and close(e["values"], a["values"], t if t in TOLERANCE else dtype))
        return e.keys() == a.keys() and all(_same_saved(e[k], a[k], dtype) for k in e)
    if isinstance(e, list) and isinstance(a, list):
        return len(e) == len(a) and all(_same_saved(x, y, dtype) for x, y in zip(e, a))
    if isinstance(e, float) and isinstance(a, float):
        return close(e, a, "float64")
    return e == a


def graph_difference(expected, actual):
    """The first node where two ``grad_fn`` chains part: ``(PyTorch's, minigrad's)`` names.

    None stands for a chain that has ended; a node of the same name with another
    number of edges gives that name twice.  None (no pair) if the chains agree.
    """
    for e, a in zip_longest(expected["chain"], actual["chain"]):
        if e != a:
            return (e and e.rsplit("/", 1)[0], a and a.rsplit("/", 1)[0])
    return None


def graph_differences(expected, actual):
    """Every first parting ``graph_difference`` of two results (a sequence gives several)."""
    if not isinstance(expected, dict) or not isinstance(actual, dict):
        return []
    if "seq" in expected and "seq" in actual:
        return [p for e, a in zip(expected["seq"], actual["seq"]) for p in graph_differences(e, a)]
    if "chain" not in expected or "chain" not in actual:
        return []
    pair = graph_difference(expected, actual)
    return [] if pair is None else [pair]
