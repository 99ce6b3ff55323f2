"""Initial values for parameters (``torch.nn.init``).

Every function here fills its tensor *in place*, with recording off, and
returns it: ``init.uniform_(w, -b, b)``.  The draws are PyTorch's for a seed
(``minigrad.manual_seed``): ``uniform_`` and ``normal_`` draw in the tensor's
own dtype as ``Tensor.uniform_``/``Tensor.normal_`` do on the CPU
(``_random_kernels.uniform_between`` and ``normal``), so a model built after
``manual_seed(0)`` starts from PyTorch's weights (``nn.Linear``,
``nn.Embedding``).

``nn.Linear`` starts from ``kaiming_uniform_(weight, a=math.sqrt(5))``: with
PyTorch's gain for leaky ReLU, gain = sqrt(2 / (1 + a²)) = sqrt(1/3), so
bound = sqrt(3) · gain / sqrt(fan_in) = 1 / sqrt(fan_in), i.e. weights and
biases both uniform on (-1/√in, 1/√in).

Source: torch/nn/init.py (He et al. 2015, "Delving Deep into Rectifiers",
arXiv:1502.01852; Glorot & Bengio 2010).
"""

import math

import numpy as np

from .. import _random_kernels as _kernels
from ..random import default_generator

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"]


def _fill(tensor, values):
    """Write ``values`` into the tensor's own array and count the write.

    Written directly (``tensor._data[...] = values``), not with a recorded
    in-place operation: initialisation is not part of any graph, and it must
    keep the Parameter object (and any view of its memory) the same.  This is
    PyTorch's ``with torch.no_grad(): tensor.uniform_(a, b)``, which also
    bumps the tensor's version counter once.
    """
    tensor._data[...] = values
    tensor._shared_vc()[0] += 1
    return tensor


def _draw(tensor, kernel, *args, serial=None):
    """Fill ``tensor`` with ``kernel(generator, n, np_dtype, *args)`` in PyTorch's element order.

    The values are drawn in the order of the tensor's memory
    (``_random_kernels.in_memory_order``).  ``serial``: the keyword to pass the
    kernel when the tensor is not contiguous (``normal_`` then draws one value at a time).
    """
    arr = tensor._data
    extra = {} if arr.flags.c_contiguous or serial is None else {serial: True}
    values = kernel(*args[:1], arr.size, arr.dtype.type, *args[1:], **extra)
    return _fill(tensor, _kernels.in_memory_order(arr, values))


def calculate_gain(nonlinearity, param=None):
    """The recommended scale for a nonlinearity (``torch.nn.init.calculate_gain``).

    linear/conv/sigmoid: 1; tanh: 5/3; relu: √2; leaky_relu: √(2/(1+slope²))
    (slope 0.01 by default); selu: 3/4.

    Raises:
        ValueError: PyTorch's "Unsupported nonlinearity ..." or "negative_slope
            ... not a valid number".
    """
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out) of a weight of shape (out, in, *kernel), as PyTorch computes them.

    Raises:
        ValueError: "Fan in and fan out can not be computed for tensor with
            fewer than 2 dimensions".
    """
    shape = tensor.shape
    if len(shape) < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with values drawn from U(a, b) (``torch.nn.init.uniform_``); returns ``tensor``.

    ``tensor.uniform_(a, b)``: ``u · (b - a) + a`` in the tensor's dtype, one
    fused multiply-add (``uniform_kernel``, aten/src/ATen/native/cpu/DistributionTemplates.h).

    Raises:
        RuntimeError: PyTorch's "uniform_ expects to return a [from, to) range, but
            found from=1 > to=0" for ``a > b``.
    """
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={a:g} > to={b:g}")
    return _draw(tensor, _kernels.uniform_between, generator or default_generator, a, b)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with values drawn from N(mean, std²) (``torch.nn.init.normal_``); returns ``tensor``.

    ``tensor.normal_(mean, std)``: ``randn``'s values in the tensor's dtype,
    times ``std`` plus ``mean`` in one fused multiply-add (``normal_kernel``,
    aten/src/ATen/native/cpu/DistributionTemplates.h); a tensor that is not
    contiguous draws one double value at a time, as PyTorch's serial path.

    Raises:
        RuntimeError: PyTorch's "normal expects std >= 0.0, but found std -1" for ``std < 0``.
    """
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    return _draw(tensor, _kernels.normal, generator or default_generator, mean, std,
                 serial="serial")


def constant_(tensor, val):
    """Fill with ``val`` (``torch.nn.init.constant_``); returns ``tensor``."""
    return _fill(tensor, val)


def zeros_(tensor):
    """Fill with 0 (``torch.nn.init.zeros_``); returns ``tensor``."""
    return _fill(tensor, 0)


def ones_(tensor):
    """Fill with 1 (``torch.nn.init.ones_``); returns ``tensor``."""
    return _fill(tensor, 1)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with a = gain·√(6 / (fan_in + fan_out)) (``torch.nn.init.xavier_uniform_``)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std²) with std = gain·√(2 / (fan_in + fan_out)) (``torch.nn.init.xavier_normal_``)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound) with bound = √3 · gain / √fan (``torch.nn.init.kaiming_uniform_``).

    Args:
        tensor (Tensor): at least 2-d, shape (out, in, ...).
        a (float): the negative slope of the leaky ReLU that follows
            (``nn.Linear`` passes √5, giving bound = 1/√fan_in).
        mode: "fan_in" (default) or "fan_out".
        nonlinearity: "leaky_relu" (default) or "relu", ...
        generator: a ``minigrad.Generator``; default the global one.

    Returns:
        ``tensor``, filled in place.

    Raises:
        ValueError: for a tensor of fewer than 2 dims or an unknown mode.
    """
    if 0 in tensor.shape:
        import warnings

        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std²) with std = gain / √fan (``torch.nn.init.kaiming_normal_``); args as ``kaiming_uniform_``."""
    if 0 in tensor.shape:
        import warnings

        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)
