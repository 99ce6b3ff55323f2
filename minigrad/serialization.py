"""``save`` and ``load``: tensors, state dicts and checkpoints to a file and back.

``minigrad.save(model.state_dict(), "model.pt")`` and
``model.load_state_dict(minigrad.load("model.pt"))`` work as in PyTorch.  The
file is a pickle; each tensor is stored as its values (bytes, dtype, shape)
and its ``requires_grad`` flag, never its history: a tensor that was part of
a graph comes back as a leaf, and a leaf's ``.grad`` is not stored (as in
PyTorch).  ``copy.deepcopy`` of a leaf copies its ``.grad`` too, and refuses a
non-leaf, as PyTorch does.

By default ``load`` is ``weights_only``, as PyTorch's since 2.6: it rebuilds
only tensors, dtypes, devices, numbers, strings and the containers of a
checkpoint (dicts, lists, tuples, ``OrderedDict``); anything else needs
``weights_only=False``, for files you trust.

The files are minigrad's own format: PyTorch cannot read them, nor minigrad
PyTorch's (its zip archive of storages).

Source: ``torch.save`` / ``torch.load`` (torch/serialization.py),
``Tensor.__reduce_ex__`` and ``Tensor.__deepcopy__`` (torch/_tensor.py).
"""

import io
import os
import pickle

import numpy as np

from . import _dtype
from .tensor import Tensor

__all__ = ["load", "save"]

_WEIGHTS_ONLY_HINT = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, "
    "do those steps only if you trust the source of the checkpoint. \n\t(1) Re-running "
    "`minigrad.load` with `weights_only` set to `False` will likely succeed, but it can result "
    "in arbitrary code execution. Do it only if you got the file from a trusted source.\n"
    "WeightsUnpickler error: Unsupported global: GLOBAL {name} was not an allowed global by "
    "default.")


_CUDA_MESSAGE = (
    "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
    "False. If you are running on a CPU-only machine, please use torch.load with "
    "map_location=torch.device('cpu') to map your storages to the CPU.")
# set by load(map_location=...) for a place no tensor can go: the error raised
# when a tensor is met (a file without tensors loads, as in PyTorch)
_placing_error = [None]


def _rebuild_tensor(data, dtype_name, shape, requires_grad):
    """A leaf tensor from stored values (what a pickled Tensor calls to come back).

    Raises:
        RuntimeError: PyTorch's "Attempting to deserialize object on a CUDA
            device but torch.cuda.is_available() is False. ..." inside
            ``load(..., map_location="cuda")``; its messages for "cpu:0" and "mps".
    """
    if _placing_error[0] is not None:
        raise RuntimeError(_placing_error[0])
    arr = np.frombuffer(data, dtype=_dtype._by_name(dtype_name).np).reshape(shape).copy()
    return Tensor._make(arr, requires_grad=requires_grad)


def _rebuild_parameter(data, dtype_name, shape, requires_grad):
    """A ``Parameter`` from stored values."""
    from .nn.parameter import Parameter

    return Parameter(_rebuild_tensor(data, dtype_name, shape, False), requires_grad)


def reduce_tensor(t, rebuild=_rebuild_tensor):
    """What pickling a tensor stores: its values and ``requires_grad`` (``Tensor.__reduce_ex__``)."""
    arr = t._data  # tobytes() reads in C order whatever the layout (0-d stays 0-d)
    return (rebuild, (arr.tobytes(order="C"), t.dtype.name, arr.shape, t._requires_grad))


def deepcopy_tensor(t, memo):
    """``copy.deepcopy`` of a leaf: values, ``requires_grad`` and ``.grad`` (``Tensor.__deepcopy__``).

    Raises:
        RuntimeError: PyTorch's "Only Tensors created explicitly by the user
            (graph leaves) support the deepcopy protocol at the moment. ..."
    """
    import copy

    if t._grad_fn is not None:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
            "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
            "because of a torch.nn.utils.weight_norm usage, see "
            "https://github.com/pytorch/pytorch/pull/103001")
    if id(t) in memo:
        return memo[id(t)]
    rebuild, args = reduce_tensor(t, _rebuild_parameter if type(t).__name__ == "Parameter"
                                  else _rebuild_tensor)
    new = rebuild(*args)
    memo[id(t)] = new
    if t._grad is not None:
        new._grad = copy.deepcopy(t._grad, memo)
    return new


_ALLOWED = {
    ("minigrad.serialization", "_rebuild_tensor"),
    ("minigrad.serialization", "_rebuild_parameter"),
    ("minigrad._dtype", "_by_name"),
    ("minigrad._device", "device"),
    ("minigrad.tensor", "Size"),
    ("collections", "OrderedDict"),
    ("_codecs", "encode"),  # how protocol 2 stores bytes
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("builtins", "complex"),
    ("builtins", "slice"),
}


class _WeightsUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(_WEIGHTS_ONLY_HINT.format(name=f"{module}.{name}"))


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Write ``obj`` (a tensor, a state dict, a checkpoint dict, ...) to ``f`` (``torch.save``).

    Args:
        obj: anything picklable; tensors are stored as values and ``requires_grad``.
        f (str | os.PathLike | file object): where to write (opened in binary mode).
        pickle_module: the module that pickles (default ``pickle``).
        pickle_protocol (int): as PyTorch's default, 2.
    """
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            pickle_module.dump(obj, fh, protocol=pickle_protocol)
    else:
        pickle_module.dump(obj, f, protocol=pickle_protocol)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Read back what ``save`` wrote (``torch.load``).

    Args:
        f (str | os.PathLike | file object): where to read from.
        map_location: a device, a string naming one, ``{"cpu": device}`` or a
            function (ignored); the CPU is the only one that can hold a tensor.
        weights_only (bool | None): None or True (the default, as PyTorch's
            since 2.6) rebuild only tensors and plain data; False any object
            (only for files you trust).

    Returns:
        the object saved; tensors are leaves on the CPU.

    Raises:
        FileNotFoundError: for a path that does not exist.
        RuntimeError: PyTorch's "Attempting to deserialize object on a CUDA
            device ..." when ``map_location`` is CUDA and the file holds a tensor;
            PyTorch's "don't know how to restore data location ..." for
            ``"cpu:0"`` and "Storage device not recognized: mps" for MPS; for
            another device, ``device``'s errors.
        pickle.UnpicklingError: PyTorch's "Weights only load failed. ..." for
            an object other than tensors and plain data when ``weights_only``.
    """
    from ._device import check, device

    target = map_location
    if isinstance(target, dict):  # {"cpu": where}: the CPU is where every tensor was saved
        target = target.get("cpu", target.get(device("cpu"), None))
    error = None
    if target is not None and not callable(target):
        where = device(target)
        if where.type == "cpu" and where.index is not None:
            # PyTorch's restore_location knows "cpu", not "cpu:0"
            error = ("don't know how to restore data location of "
                     f"torch.storage.UntypedStorage (tagged with {where})")
        elif where.type == "mps":
            error = "torch.UntypedStorage(): Storage device not recognized: mps"
        elif where.type == "cuda":
            error = _CUDA_MESSAGE
        else:
            check(target)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    buf = io.BytesIO(data)
    _placing_error[0] = error
    try:
        if weights_only is False:
            return (pickle_module or pickle).load(buf, **pickle_load_args)
        return _WeightsUnpickler(buf, **pickle_load_args).load()
    finally:
        _placing_error[0] = None


def _reduce_ex(t, protocol):
    """``Tensor.__reduce_ex__`` (pickling, ``minigrad.save``): the values and
    ``requires_grad``, never the history (``reduce_tensor``)."""
    return reduce_tensor(t)


# Pickling and deepcopy of a Tensor are carried out here, attached to the class
# (tensor.py sits below this module).
Tensor.__reduce_ex__ = _reduce_ex
Tensor.__deepcopy__ = deepcopy_tensor
