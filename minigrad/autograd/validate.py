"""Each gradient a node sends fitted to its input: PyTorch's ``validate_outputs``.

A gradient whose shape differs from its input's because of broadcasting is
summed back to the input's shape, and its dtype is cast to the input's, in
this one place: the walk calls ``fit_to_input`` for every gradient it routes
(engine.py), and ``validate_outputs`` before a node's post-hooks see them.
A gradient that cannot be summed to the input's shape is a node's error.

Source: ``validate_outputs`` (torch/csrc/autograd/engine.cpp) and
``Tensor.sum_to_size``.
"""

import numpy as np

__all__ = ["fit_to_input", "sum_to_array", "validate_outputs"]


def fit_to_input(g, meta, node, index, arrays):
    """``g`` summed to its input's shape (undoing broadcasting) and cast to its dtype.

    ``meta``: the input's ``(shape, dtype)``; ``arrays``: ``g`` is a numpy
    array (a walk that records nothing), else a Tensor.

    Raises:
        RuntimeError: PyTorch's "Function XBackward0 returned an invalid
            gradient at index i - got [...] but expected shape compatible with [...]".
    """
    shape, dtype = meta
    if arrays:
        if g.shape != shape:
            g = sum_to_array(g, shape, node, index)
        if g.dtype is not dtype and g.dtype != dtype:
            g = g.astype(dtype)
        return g
    if g._data.shape != shape:
        _check_sum_to(g._data.shape, shape, node, index)
        g = g.sum_to_size(shape)
    if g._data.dtype != dtype:
        g = g.to(dtype)
    return g


def validate_outputs(node, out, arrays):
    """``out`` with each gradient fitted to its input (``fit_to_input``), as post-hooks see it."""
    meta = node._in_meta
    if meta is None:
        return out
    out = list(out)
    for i, g in enumerate(out[:len(meta)]):
        if g is not None and meta[i] is not None:
            out[i] = fit_to_input(g, meta[i], node, i, arrays)
    return tuple(out)


def _check_sum_to(gshape, shape, node, index):
    lead = len(gshape) - len(shape)
    if lead < 0 or any(s != 1 and s != g for s, g in zip(shape, gshape[lead:])):
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {index} - got "
            f"{list(gshape)} but expected shape compatible with {list(shape)}"
        )


def sum_to_array(g, shape, node=None, index=0):
    """``Tensor.sum_to_size`` on an array: sum the leading dims and the dims of size 1."""
    gshape = g.shape
    lead = len(gshape) - len(shape)
    if lead > 0 and gshape[lead:] == shape:  # only leading dims were added (a bias): the usual case
        return g.sum(axis=0) if lead == 1 else g.sum(axis=tuple(range(lead)))
    g = np.asarray(g)
    _check_sum_to(g.shape, shape, node, index)
    lead = g.ndim - len(shape)
    kept = tuple(lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1)
    if kept:
        g = np.sum(g, axis=tuple(range(lead)) + kept, keepdims=True)
        return g.reshape(shape) if lead else g
    return np.sum(g, axis=tuple(range(lead)))
