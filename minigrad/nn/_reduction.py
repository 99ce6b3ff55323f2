"""PyTorch's deprecated ``size_average`` / ``reduce`` arguments of the losses, as a reduction.

Source: ``torch/nn/_reduction.py`` (``legacy_get_string``).
"""

import warnings

__all__ = ["legacy_get_string", "reduction_of"]


def legacy_get_string(size_average, reduce, emit_warning=True):
    """The reduction PyTorch's deprecated ``size_average`` and ``reduce`` name.

    None counts as True; ``reduce=False`` is 'none', else ``size_average``
    picks 'mean' or 'sum'.  Warns (UserWarning) as PyTorch does, "size_average
    and reduce args will be deprecated, please use reduction='sum' instead."
    """
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' "
                      "instead.", stacklevel=4)
    return ret


def reduction_of(size_average, reduce, reduction):
    """``reduction``, unless one of the deprecated arguments is given (then theirs, with the warning)."""
    if size_average is None and reduce is None:
        return reduction
    return legacy_get_string(size_average, reduce)
