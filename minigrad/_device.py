"""Devices: minigrad computes with numpy, on the CPU, and says so in PyTorch's words.

Nearly every PyTorch tutorial starts by choosing a device::

    device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
    model = NeuralNetwork().to(device)
    X = torch.rand(1, 28, 28, device=device)

The same lines run here: ``device("cpu")`` is the only device there is,
``cuda.is_available()`` and ``accelerator.is_available()`` are False, every
tensor's ``.device`` is ``device(type='cpu')``, and asking for CUDA fails as a
PyTorch build without CUDA fails ("Torch not compiled with CUDA enabled").

Source: ``torch.device`` (c10/core/Device.cpp for the parsing and its
messages), ``torch.cuda.is_available``, ``torch.accelerator``,
``torch.set_default_device``.
"""

import re
import types

__all__ = ["accelerator", "backends", "cuda", "device", "get_default_device", "set_default_device"]

# The device types PyTorch's parser knows, in the order its message lists them.
_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
          "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_STRING = re.compile(r"([a-zA-Z_]+)(?::([0-9]+))?")


class device:
    """Where a tensor lives (``torch.device``): here always ``device(type='cpu')``.

    ``device("cpu")``, ``device("cuda:1")``, ``device("cuda", 0)`` and
    ``device(other_device)`` parse as in PyTorch; only the CPU can hold a
    tensor (see ``check``).

    Attributes:
        type (str): ``"cpu"``, ``"cuda"``, ...
        index (int | None): the device number, None when not given.

    Raises:
        RuntimeError: PyTorch's "Device string must not be empty", "Invalid
            device string: 'cpu:x'", "Expected one of cpu, cuda, ... device
            type at start of device string: gpu".
    """

    __slots__ = ("index", "type")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            # PyTorch reads a bare number as an accelerator's index
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({type.__class__.__name__})")
        if not type:
            raise RuntimeError("Device string must not be empty")
        m = _STRING.fullmatch(type)
        if m is None:
            raise RuntimeError(f"Invalid device string: '{type}'")
        kind, number = m.group(1), m.group(2)
        if kind not in _TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of "
                               f"device string: {kind}")
        if number is not None:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was "
                                   f"passed explicitly: {type}")
            index = int(number)
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative, got {index}")
        self.type, self.index = kind, index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


CPU = device("cpu")
_default = [None]  # set_default_device's choice (None: the CPU)


def check(dev):
    """Accept ``dev`` (None, a string or a device) if it is the CPU; else PyTorch's error.

    Every factory's ``device=`` argument and ``Tensor.to(device)`` go through here.

    Raises:
        AssertionError: "Torch not compiled with CUDA enabled" for CUDA, as a
            CPU-only PyTorch build raises.
        RuntimeError: "PyTorch is not linked with support for mps devices" for
            MPS; for any other device, that minigrad computes on the CPU only.
    """
    if dev is None:
        dev = _default[0]
        if dev is None:
            return CPU
    d = dev if isinstance(dev, device) else device(dev)
    if d.type == "cpu":
        return d
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    raise RuntimeError(f"PyTorch is not linked with support for {d.type} devices"
                       + ("" if d.type == "mps" else " (minigrad computes on the CPU only)"))


def set_default_device(device):
    """Choose the device factories use by default (``torch.set_default_device``): the CPU or None.

    Raises:
        AssertionError / RuntimeError: as ``check``, for any device but the CPU.
    """
    _default[0] = None if device is None else check(device)


def get_default_device():
    """The device factories use by default (``torch.get_default_device``): ``device(type='cpu')``."""
    return _default[0] or CPU


def _false():
    return False


def _zero():
    return 0


def _namespace(name, doc, **functions):
    mod = types.ModuleType(name, doc)
    for key, fn in functions.items():
        setattr(mod, key, fn)
    return mod


def _current_accelerator(check_available=False):
    """None: this machine, as minigrad sees it, has no accelerator (``torch.accelerator``)."""
    return None


def _no_cuda(*args, **kwargs):
    raise AssertionError("Torch not compiled with CUDA enabled")


cuda = _namespace(
    "minigrad.cuda",
    "CUDA in a CPU-only build (``torch.cuda``): never available.",
    is_available=_false, device_count=_zero, is_initialized=_false,
    manual_seed=lambda seed: None, manual_seed_all=lambda seed: None,
    synchronize=lambda device=None: None, empty_cache=lambda: None,
    current_device=_no_cuda, get_device_name=_no_cuda, set_device=_no_cuda,
)
cpu = _namespace(
    "minigrad.cpu",
    "The CPU as a device module (``torch.cpu``): always available, one device.",
    is_available=lambda: True, device_count=lambda: 1, current_device=lambda: "cpu",
    is_initialized=lambda: True, synchronize=lambda device=None: None,
)
accelerator = _namespace(
    "minigrad.accelerator",
    "The current accelerator (``torch.accelerator``): there is none, the CPU computes.",
    is_available=_false, device_count=_zero, current_accelerator=_current_accelerator,
    synchronize=lambda device=None: None,
)
backends = _namespace(
    "minigrad.backends",
    "Backend switches (``torch.backends``): MPS and cuDNN are never available.",
    mps=_namespace("minigrad.backends.mps", "Apple's MPS: not available.",
                   is_available=_false, is_built=_false),
    cudnn=_namespace("minigrad.backends.cudnn", "cuDNN: not available.",
                     is_available=_false, enabled=False, deterministic=False, benchmark=False),
)
