"""minigrad: a small autograd engine that records, walks and frees its graph as PyTorch does.

Read it next to the lessons in ``notebooks/``; ``autograd/README.md`` follows
``z = x * y; z.sum().backward()`` through the core.  Where to look:

* ``tensor.py``: the Tensor and how it prints;
* ``autograd/function.py``: how an operation records its node; ``autograd/edges.py``: its edges;
* ``autograd/graph.py``: ``grad_fn`` nodes, ``next_functions``, ``AccumulateGrad``;
* ``autograd/saved.py``: a node's saved tensors, their version checks and their freeing;
* ``autograd/engine.py``: the backward walk;
* ``autograd/grad_mode.py``: ``no_grad`` and friends;
* ``ops/``: the primitives, each forward next to its vector-Jacobian product;
* ``jit/``: define-then-run: ``jit.trace`` and ``compile``;
* ``viz.py``: pictures of the recording (needs the ``graphviz`` package and ``dot``).

``import minigrad`` needs numpy only.
"""

import math
import sys

from . import (
    autograd,
    jit,
    linalg,
    nn,
    ops,
    optim,
    random,
    utils,
)
from ._device import (
    accelerator,
    backends,
    cpu,
    cuda,
    device,
    get_default_device,
    set_default_device,
)
from ._dtype import bool, dtype, float32, float64, get_default_dtype, int32, int64
from .autograd.anomaly import is_anomaly_enabled, set_detect_anomaly
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .creation import (
    BoolTensor,
    DoubleTensor,
    FloatTensor,
    Generator,
    IntTensor,
    LongTensor,
    arange,
    as_tensor,
    empty,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    manual_seed,
    rand,
    rand_like,
    randperm,
    randint,
    randn,
    randint_like,
    randn_like,
)
from .jit import compile  # define-then-run: minigrad/jit/compile.py (torch.compile)
from .ops import *
from .ops import __all__ as _ops_all
from .ops.random_fills import normal
from .parallel import get_num_threads, set_num_threads
from .random import default_generator, get_rng_state, initial_seed, seed, set_rng_state
from .serialization import load, save
from .tensor import Size, Tensor
from .creation import is_tensor, ones, ones_like, tensor, zeros, zeros_like

float = float32
double = float64
long = int64
int = int32  # (as torch.int: the builtin int is not used below)

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan

__version__ = "0.1.0"

__all__ = [
    "Tensor", "Size", "tensor", "is_tensor", "zeros", "ones", "zeros_like", "ones_like", "full",
    "full_like", "empty", "arange", "linspace", "eye", "randn", "rand", "randint", "randint_like", "randn_like",
    "rand_like", "randperm", "normal", "manual_seed", "seed", "initial_seed", "get_rng_state", "default_generator",
    "set_rng_state", "Generator", "from_numpy", "as_tensor",
    "FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor",
    "dtype", "float32", "float64", "int64", "int32", "bool", "float", "double", "long", "int",
    "get_default_dtype", "device", "cpu", "cuda", "accelerator", "backends", "set_default_device",
    "get_default_device", "pi", "e", "inf", "nan", "save", "load",
    "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
    "is_inference_mode_enabled", "is_anomaly_enabled", "set_detect_anomaly", "autograd", "nn",
    "optim", "utils", "linalg", "jit", "compile", "get_num_threads", "set_num_threads",
] + list(_ops_all)

# The package registers itself with the one module that reaches up to it: a jit Recorder
# wraps the functions of the package a lesson calls as ``torch``.
jit.recording.register_namespace(sys.modules[__name__])
