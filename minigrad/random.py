"""PyTorch's CPU random number generator (``torch.Generator``, ``torch.random``).

PyTorch's CPU generator is a Mersenne Twister (mt19937) seeded with
``init_genrand`` on the seed's low 32 bits; the seed itself is kept whole
(a uint64: ``initial_seed()``).  numpy has the same engine
(``numpy.random.MT19937``, here fed the state PyTorch's seeding makes), so
minigrad draws the same 32-bit words, many at a time, and
``_random_kernels.py`` turns them into numbers as PyTorch's kernels do: after
``torch.manual_seed(s)``, ``rand``, ``randn``, ``randint``, ``randperm``,
``multinomial``, ``bernoulli``, ``normal``, the in-place fills (``uniform_``,
``normal_``, ``exponential_``, ``bernoulli_``, ``random_``), dropout's mask and
``nn.init``'s fills give
PyTorch's numbers.

A generator also holds the second value of its last double Box–Muller pair
(``randn`` of fewer than 16 values draws pairs and keeps the spare for the
next value), which ``manual_seed`` clears and ``get_state`` saves.

Source: aten/src/ATen/CPUGeneratorImpl.cpp, aten/src/ATen/core/MT19937RNGEngine.h,
torch/random.py.  This module imports nothing of minigrad's above the devices (layer 0).
"""

import functools
import os

import numpy as np

from ._device import check as _check_device
from ._device import device as _device_type

__all__ = ["Generator", "default_generator", "get_rng_state", "initial_seed", "manual_seed",
           "seed", "set_rng_state"]

# The Tensor class (for get_state), registered by creation.py when it loads: this module
# sits below the Tensor (layer 0), so it does not import it
_tensor_class = None


def register_tensor(cls):
    """Give ``get_state``/``set_state`` the Tensor class (called by ``creation.py``)."""
    global _tensor_class
    _tensor_class = cls


_N = 624  # mt19937's state: 624 words
_DEFAULT_SEED = 67280421310721  # c10::detail::default_rng_seed_val: a new Generator's seed
_U64 = 1 << 64
_STATE_SIZE = 5056  # sizeof(CPUGeneratorImplState)
# CPUGeneratorImplState's byte layout (the legacy TH struct, then the float cache)
_SEED, _LEFT, _SEEDED, _NEXT, _KEY, _NORMAL_Y, _NORMAL_VALID, _FLOAT_Y, _FLOAT_VALID = (
    0, 8, 12, 16, 24, 5024, 5040, 5048, 5052)


def _generator_draws_words():
    """Whether numpy's Generator over MT19937 draws the words as PyTorch pairs them.

    Its full-range uint32 integers should be the words themselves, its uint64
    ones ``random64()``, the first word the high half (numpy's C writes
    ``next() << 32 | next()``, an order C leaves to the compiler): checked once.
    """
    a, b = np.random.MT19937(1), np.random.MT19937(1)
    w = a.random_raw(6).tolist()
    g = np.random.Generator(b)
    return (g.integers(0, 1 << 32, size=2, dtype=np.uint32).tolist() == w[:2]
            and g.integers(0, 1 << 64, size=2, dtype=np.uint64).tolist()
            == [w[2] << 32 | w[3], w[4] << 32 | w[5]])


_GENERATOR_DRAWS_WORDS = _generator_draws_words()


@functools.lru_cache(maxsize=8)
def _genrand_key(seed):
    """The state ``init_genrand(seed & 0xffffffff)`` makes (numpy's legacy seeding is it).

    Remembered for the last few seeds (read-only): ``get_state`` compares against it on
    every call, and building it takes about 0.1 ms, which `torch.utils.checkpoint` paid
    per segment (it saves the generator's state for each)."""
    key = np.random.RandomState(seed & 0xFFFFFFFF).get_state(legacy=True)[1]
    key.flags.writeable = False
    return key


class Generator:
    """A source of random numbers that gives PyTorch's numbers for a seed (``torch.Generator``).

    ``Generator()`` starts from PyTorch's default seed, 67280421310721;
    ``manual_seed(s)`` restarts it (and returns it, so
    ``g = Generator().manual_seed(42)`` works).

    Args:
        device: only the CPU (``"cpu"``, the default).

    Attributes:
        device: ``device(type='cpu')``.

    Raises:
        RuntimeError: for a CUDA device, PyTorch's "Cannot get CUDA generator
            without ATen_cuda library."; another device as ``torch.device`` checks it.
    """

    def __init__(self, device="cpu"):
        d = _device_type(device)
        if d.type == "cuda":
            raise RuntimeError("Cannot get CUDA generator without ATen_cuda library. PyTorch "
                               "splits its backend into two shared libraries: a CPU library and "
                               "a CUDA library (minigrad computes on the CPU only).")
        self.device = _check_device(d)
        self._bitgen = np.random.MT19937()
        self._numpy = np.random.Generator(self._bitgen)  # shares the state: for _words32/_random64
        self._set_seed(_DEFAULT_SEED)

    def _set_seed(self, seed):
        self._seed = seed
        self._bitgen.state = {"bit_generator": "MT19937",
                              "state": {"key": _genrand_key(seed), "pos": _N}}
        self._next_double = None  # the spare of the last double Box–Muller pair
        self._next_float = None  # PyTorch's float cache: kept only for get_state/set_state

    def _words(self, n):
        """The next ``n`` 32-bit outputs of mt19937, in order (a uint64 array)."""
        return self._bitgen.random_raw(n)

    # For speed, the two below draw through numpy's Generator (when it gives the same
    # words: _generator_draws_words): 32-bit words take half random_raw's memory, and
    # a 64-bit draw is one C call for two words (what float32 and float64 uniforms read)

    def _words32(self, n):
        """The same words as ``_words(n)``, as a uint32 array."""
        if _GENERATOR_DRAWS_WORDS:
            return self._numpy.integers(0, 1 << 32, size=n, dtype=np.uint32)
        return self._bitgen.random_raw(n).astype(np.uint32)

    def _random64(self, n):
        """``n`` of PyTorch's ``random64()``: two words each, the first the high half (uint64)."""
        if _GENERATOR_DRAWS_WORDS:
            return self._numpy.integers(0, 1 << 64, size=n, dtype=np.uint64)
        w = self._bitgen.random_raw(2 * n).reshape(n, 2)
        return (w[:, 0] << np.uint64(32)) | w[:, 1]

    def manual_seed(self, seed):
        """Restart from ``seed`` (an int, -2⁶³ <= seed < 2⁶⁴; negatives wrap); returns self.

        Raises:
            RuntimeError: "manual_seed expected a long, but got float" for a non-int (bool too).
            ValueError: "Overflow when unpacking long long" outside that range.
        """
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, (bool, np.bool_)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if not -(1 << 63) <= seed < _U64:
            raise ValueError("Overflow when unpacking long long")
        self._set_seed(seed % _U64)
        return self

    def seed(self):
        """Restart from a nondeterministic 64-bit seed (from the OS) and return it."""
        s = int.from_bytes(os.urandom(8), "little")
        self._set_seed(s)
        return s

    def initial_seed(self):
        """The seed last set (an int in [0, 2⁶⁴))."""
        return self._seed

    def get_state(self):
        """The whole state as PyTorch lays it out: 5056 bytes (``CPUGeneratorImplState``).

        Returns:
            Tensor: int64, shape (5056,), one byte (0..255) per element; PyTorch
            gives the same bytes as a uint8 tensor (minigrad has no uint8).
            ``torch.ByteTensor(state.tolist())`` in PyTorch loads it.
        """
        raw = np.zeros(_STATE_SIZE, dtype=np.uint8)
        st = self._bitgen.state["state"]
        key, pos = st["key"], int(st["pos"])
        # mt19937 counts down ``left`` and up ``next``; right after seeding next is 0, not 624
        fresh = pos == _N and np.array_equal(key, _genrand_key(self._seed))
        _put(raw, _SEED, np.uint64, self._seed)
        _put(raw, _LEFT, np.int32, _N + 1 - pos)
        _put(raw, _SEEDED, np.int32, 1)
        _put(raw, _NEXT, np.uint64, 0 if fresh else pos)
        raw[_KEY:_KEY + 8 * _N] = key.astype(np.uint64).view(np.uint8)
        if self._next_double is not None:
            _put(raw, _NORMAL_Y, np.float64, self._next_double)
            _put(raw, _NORMAL_VALID, np.int32, 1)
        if self._next_float is not None:
            _put(raw, _FLOAT_Y, np.float32, self._next_float)
            raw[_FLOAT_VALID] = 1
        return _tensor_class._make(raw.astype(np.int64))

    def set_state(self, new_state):
        """Restore a state from ``get_state`` (or PyTorch's bytes, as an int64 or bool tensor).

        Raises:
            TypeError: "expected a torch.ByteTensor, but got list" for a non-tensor;
                "RNG state must be a torch.ByteTensor" for a float tensor.
            RuntimeError: "Expected a CPUGeneratorImplState of size 5056 but found the
                input RNG state size to be 10"; "Invalid mt19937 state" (PyTorch's checks).
        """
        if not isinstance(new_state, _tensor_class):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        data = new_state._data
        if data.dtype.kind == "f":
            raise TypeError("RNG state must be a torch.ByteTensor")
        if data.size != _STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found "
                               f"the input RNG state size to be {data.size}")
        raw = data.reshape(-1).astype(np.uint8)
        left, seeded = _get(raw, _LEFT, np.int32), _get(raw, _SEEDED, np.int32)
        nxt = _get(raw, _NEXT, np.uint64) & 0xFFFFFFFF
        if not (seeded and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        key = raw[_KEY:_KEY + 8 * _N].view(np.uint64).astype(np.uint32)
        self._bitgen.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": _N + 1 - left}}
        self._seed = _get(raw, _SEED, np.uint64)
        self._next_double = (_get(raw, _NORMAL_Y, np.float64)
                             if _get(raw, _NORMAL_VALID, np.int32) else None)
        self._next_float = _get(raw, _FLOAT_Y, np.float32) if raw[_FLOAT_VALID] else None
        return self

    def __repr__(self):
        return f"<minigrad.Generator object at {hex(id(self))}>"


def _put(raw, offset, np_dtype, value):
    size = np.dtype(np_dtype).itemsize
    raw[offset:offset + size] = np.array([value], dtype=np_dtype).view(np.uint8)


def _get(raw, offset, np_dtype):
    size = np.dtype(np_dtype).itemsize
    return raw[offset:offset + size].view(np_dtype)[0].item()


# PyTorch seeds its default generator from the OS; minigrad starts it from 0 so that a
# lesson that forgets manual_seed still prints the same numbers on every run
default_generator = Generator().manual_seed(0)


def manual_seed(seed):
    """Seed the default generator (``torch.manual_seed``); returns it.

    ``int(seed)`` first, as PyTorch: ``manual_seed(1.5)`` seeds 1, ``manual_seed("3")`` 3.

    Raises:
        TypeError: Python's, from ``int(None)`` and the like.
        ValueError: "Overflow when unpacking long long" outside [-2⁶³, 2⁶⁴).
    """
    return default_generator.manual_seed(int(seed))


def seed():
    """Seed the default generator from the OS and return the seed (``torch.seed``)."""
    return default_generator.seed()


def initial_seed():
    """The default generator's seed (``torch.initial_seed``)."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state (``torch.get_rng_state``): see ``Generator.get_state``."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore the default generator's state (``torch.set_rng_state``)."""
    default_generator.set_state(new_state)
