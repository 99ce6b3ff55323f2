"""``torch.autograd.graph.save_on_cpu``: saved tensors kept on the CPU, and moved back for backward.

A ``saved_tensors_hooks`` block, built on the core's pack/unpack hooks (it
sits above the core: ``minigrad.autograd`` sets it on ``autograd.graph``).

Source: torch/autograd/graph.py (``save_on_cpu``).
"""

from .. import _device
from ..creation import empty
from .saved import saved_tensors_hooks

__all__ = ["save_on_cpu"]


# The device namespaces minigrad offers, by name (minigrad.cpu, minigrad.cuda, ...)
_DEVICE_MODULES = {name: getattr(_device, name) for name in ("cpu", "cuda", "accelerator", "backends")}


class save_on_cpu(saved_tensors_hooks):
    """Keep the tensors saved inside the block on the CPU (``torch.autograd.graph.save_on_cpu``).

    PyTorch packs each saved tensor as ``(tensor.device, tensor.cpu())`` and
    moves it back to its device in unpack; on the CPU that is the tensor
    itself, so saved values behave exactly as without the block (an in-place
    write after the save is then seen by backward, unchecked, as in PyTorch).
    With ``pin_memory=True`` PyTorch packs a copy instead, so backward uses the
    value as it was saved; pinning itself needs ``device_type``'s module to be
    available (the CPU's is), else the copy is a plain one.

    Args:
        pin_memory (bool): pack a copy (pinned where ``device_type`` is available).
        device_type (str): the module whose ``is_available()`` decides pinning
            (``"cuda"`` by default; an unknown name means ``"cuda"``), as in PyTorch.

    Raises:
        RuntimeError: PyTorch's "pin_memory=True requires a CUDA or other
            accelerator backend; ..." when a tensor is saved with pinning
            asked for (``pin_memory=True, device_type="cpu"``).
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        # PyTorch: getattr(torch, device_type, torch.cuda)
        device_module = _DEVICE_MODULES.get(device_type, _device.cuda)

        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            if device_module.is_available():
                raise RuntimeError("pin_memory=True requires a CUDA or other accelerator "
                                   "backend; no pinned memory allocator is available on this "
                                   "system.")
            packed = empty(tensor.size(), dtype=tensor.dtype)
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)
