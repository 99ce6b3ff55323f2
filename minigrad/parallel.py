"""How many threads a CPU operation may use: ``set_num_threads`` / ``get_num_threads``.

minigrad computes with numpy, and the only numpy work that runs on several
threads is the BLAS library behind matrix products (``@``, ``mm``,
``addmm``): OpenBLAS or MKL start one thread per core for a large enough
product.  Timing a program on a shared machine is far steadier with one
thread (a product split over threads waits for the slowest of them), which
is why benchmarks call ``torch.set_num_threads(1)``; this is the same call
for minigrad.

The limit is applied through ``threadpoolctl`` (the package scikit-learn
uses for this), imported only when ``set_num_threads`` is called; without it
the number is remembered and a ``UserWarning`` says that BLAS is not limited.

Source: ``torch.set_num_threads`` and ``torch.get_num_threads``
(``THPModule_setNumThreads`` in torch/csrc/Module.cpp): the same argument
checks and messages.
"""

import os
import warnings

__all__ = ["get_num_threads", "set_num_threads"]

_state = {"threads": None, "limiter": None}


def _check(n):
    if type(n) is not int:
        raise RuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")


def set_num_threads(n):
    """Set the number of threads used for intra-op parallelism on CPU (numpy's BLAS).

    Args:
        n (int): a positive number of threads.

    Raises:
        RuntimeError: ``n`` is not an int ("set_num_threads expects an int,
            but got float") or not positive ("set_num_threads expects a
            positive integer"), as in PyTorch.

    Warns:
        UserWarning: ``threadpoolctl`` is not installed, so BLAS keeps its threads.
    """
    _check(n)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        warnings.warn("minigrad.set_num_threads: threadpoolctl is not installed, so numpy's "
                      "BLAS keeps its own number of threads (pip install threadpoolctl)",
                      stacklevel=2)
    else:
        # Applied when made, kept until the next call (the object is the undo record).
        _state["limiter"] = threadpool_limits(limits=n, user_api="blas")
    _state["threads"] = n


def get_num_threads():
    """The number of threads CPU operations may use (``torch.get_num_threads``).

    Returns:
        int: the number given to ``set_num_threads``; before any call, what
        BLAS uses (``threadpoolctl``'s report), else the number of CPUs.
    """
    if _state["threads"] is not None:
        return _state["threads"]
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return os.cpu_count() or 1
    counts = [info["num_threads"] for info in threadpool_info() if info.get("user_api") == "blas"]
    return max(counts) if counts else (os.cpu_count() or 1)
