"""How values read in the pictures and texts: ``3.``, ``[1., 2.]``, ``a (3, 4) tensor``.

One formatter for both libraries (minigrad's printer, fed PyTorch's values as
numpy arrays), so that a graph reads the same whichever library recorded it.
"""

import re

_SHOW_ELEMENTS = 8  # tensors with more elements are described by their shape


def shape_str(shape):
    """``(2, 3)``; ``()`` for a scalar."""
    return str(tuple(int(s) for s in shape))


def one_line(text):
    return " ".join(text.split())


def value_repr(t):
    """The tensor's values as PyTorch prints them, without the autograd suffixes."""
    return repr(t.detach())


def fmt_value(t):
    """A tensor's values as PyTorch prints them, on one line, without ``tensor(...)``.

    ``3.``, ``[1., 2.]``, ``[[1., 2.], [3., 4.]]``; ``None`` for None; a
    tuple as ``(a, b)``; a tensor of more than 8 elements as ``a (3, 4) tensor``.
    """
    if t is None:
        return "None"
    if isinstance(t, tuple):
        return "(" + ", ".join(fmt_value(v) for v in t) + ")"
    from .._tensor_str import _body
    from .reading import library_of

    lib = library_of(t)
    a = lib.numpy(t)
    if a.size > _SHOW_ELEMENTS:
        return f"a {shape_str(a.shape)} tensor"
    if a.size == 0:
        return "[]"
    text = " ".join(line.strip() for line in _body(a, 0).split("\n"))
    return re.sub(r" {2,}", " ", text.replace("[ ", "[").replace("[ ", "["))


def and_list(items):
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def plural(n, word, plural=None):
    return f"{n} {word if n == 1 else (plural or word + 's')}"
