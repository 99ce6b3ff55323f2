"""How a tensor prints: PyTorch's layout, precision and scientific-notation rules.

A lesson prints tensors next to the text of the PyTorch lesson it retells, so
``print(x.grad)`` must give ``tensor(6.)`` exactly as PyTorch does.  The rules,
re-implemented here over numpy (source: ``torch/_tensor_str.py``):

* floats whose nonzero finite values are all whole print as ``6.``;
* otherwise 4 decimals (``0.6667``), all elements padded to one width;
* scientific notation (``1.0000e-05``) when the largest nonzero magnitude is
  over 1e8, the smallest under 1e-4, or their ratio over 1000;
* more than 1000 elements are summarised with ``...`` and 3 edge items;
* rows wrap at 80 characters; suffixes such as ``requires_grad=True`` and
  ``grad_fn=<AddBackward0>`` follow, wrapping onto a new line when too long.
"""

import math

import numpy as np

from . import _dtype

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80


class _Formatter:
    """Chooses one format (int-mode, fixed or scientific) and one width for all elements."""

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        mags = np.abs(finite.astype(np.float64))
        lo, hi = float(mags.min()), float(mags.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        vals = finite.tolist()
        if self.sci_mode:
            fmt = f"{{:.{PRECISION}e}}"
            self.max_width = max(self.max_width, *(len(fmt.format(v)) for v in vals))
        elif self.int_mode:
            self.max_width = max(self.max_width, *(len(f"{v:.0f}") + 1 for v in vals))
        else:
            fmt = f"{{:.{PRECISION}f}}"
            self.max_width = max(self.max_width, *(len(fmt.format(v)) for v in vals))

    def format(self, value):
        if self.floating:
            if self.sci_mode:
                s = "{:{w}.{p}e}".format(value, w=self.max_width, p=PRECISION)
            elif self.int_mode:
                s = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    s += "."
            else:
                s = "{:.{p}f}".format(value, p=PRECISION)
        elif isinstance(value, bool):
            s = str(value)
        else:
            s = f"{value}"
        return (self.max_width - len(s)) * " " + s


def _summarized(a):
    """The elements that will be shown (edges only) when summarising."""
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * EDGEITEMS:
        parts = [a[:EDGEITEMS], a[-EDGEITEMS:]]
    else:
        parts = [a]
    if a.ndim == 1:
        return np.concatenate(parts)
    rows = [_summarized(r) for p in parts for r in p]
    return np.stack(rows)


def _vector(a, indent, summarize, fmt):
    per_line = max(1, math.floor((LINEWIDTH - indent) / (fmt.max_width + 2)))
    if summarize and a.shape[0] > 2 * EDGEITEMS:
        data = (
            [fmt.format(v) for v in a[:EDGEITEMS].tolist()]
            + [" ..."]
            + [fmt.format(v) for v in a[-EDGEITEMS:].tolist()]
        )
    else:
        data = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(a, indent, summarize, fmt):
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector(a, indent, summarize, fmt)
    n = a.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        idx = list(range(EDGEITEMS)) + [None] + list(range(n - EDGEITEMS, n))
    else:
        idx = range(n)
    parts = ["..." if i is None else _nested(a[i], indent + 1, summarize, fmt) for i in idx]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _body(a, indent):
    if a.size == 0:
        return "[]"
    summarize = a.size > THRESHOLD
    fmt = _Formatter(_summarized(a) if summarize else a, a.dtype.kind == "f")
    return _nested(a, indent, summarize, fmt)


def _add_suffixes(text, suffixes, indent):
    out = [text]
    last = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        # wrap where PyTorch wraps: it says "torch." where minigrad says "minigrad."
        n = len(s.replace("minigrad.", "torch."))
        if last + n + 2 > LINEWIDTH:
            out.append(",\n" + " " * indent + s)
            last = indent + n
        else:
            out.append(", " + s)
            last += n + 2
    out.append(")")
    return "".join(out)


def tensor_repr(t, prefix="tensor("):
    """The string PyTorch's ``repr(tensor)`` gives for the same values and state.

    Args:
        t: a minigrad Tensor (any shape, any dtype).
        prefix: the opening, ``"tensor("``; ``Parameter`` wraps the result.

    Returns:
        str, e.g. ``"tensor([1., 2.], requires_grad=True)"``.
    """
    a = t._data
    indent = len(prefix)
    suffixes = []
    default = t.dtype in (_dtype.float32, _dtype.int64, _dtype.bool)
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append("size=" + str(tuple(a.shape)))
        if t.dtype is not _dtype.float32:
            suffixes.append("dtype=" + repr(t.dtype))
        body = "[]"
    else:
        if not default:
            suffixes.append("dtype=" + repr(t.dtype))
        body = _body(a, indent)
    try:
        grad_fn = t.grad_fn
        name = type(grad_fn).__name__
    except RuntimeError:  # a view whose memory was written in a way its history cannot follow
        grad_fn, name = True, "Invalid"  # (PyTorch's _tensor_str shows it so)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{name}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    tangent = _tangent_suffix(t) if _tangent_suffix is not None else None
    if tangent is not None:
        suffixes.append(tangent)
    return _add_suffixes(prefix + body, suffixes, indent)


# A dual tensor's ``tangent=...`` (forward mode): the repr asks forward_ad, a layer
# above the Tensor, which fills this slot once it is loaded.
_tangent_suffix = None


def register_tangent_suffix(fn):
    """Called by ``minigrad/autograd/forward_ad.py``: ``fn(t)`` gives ``"tangent=..."`` or None."""
    global _tangent_suffix
    _tangent_suffix = fn
