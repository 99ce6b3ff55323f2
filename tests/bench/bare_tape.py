"""The bare tape: the least reverse-mode recording over numpy can do, as a bench baseline.

``make bench`` times the chain and the small MLP in it beside minigrad and
PyTorch, to say what minigrad's PyTorch behaviours cost: this walks the
graph as minigrad and PyTorch do (count each node's consumers, then take
the ready node with the highest sequence number; fan-in summed; broadcast
gradients summed back to their input's shape), and keeps nothing else.  No
version counters, hooks, anomaly mode, views, dtype rules, create_graph,
retain_graph or error checks; only the operations the two workloads use.
Not a library: ``minigrad`` is.

Its results equal minigrad's (the bench checks the gradients), and it does no
less arithmetic (a little more: it also computes the constants' gradients, under
1% of its time); the time between the two is bookkeeping.
"""

import heapq
import itertools
import types

import numpy as np

_sequence = itertools.count()


class Node:
    """One recorded op: the nodes behind its inputs, its saved arrays, its vector-Jacobian product."""

    __slots__ = ("seq", "next_functions", "saved", "vjp", "shapes")

    def __init__(self, next_functions, saved, vjp, shapes):
        self.seq = next(_sequence)
        self.next_functions = next_functions  # one per input; None for a constant
        self.saved = saved
        self.vjp = vjp        # (grad, saved) -> one gradient per input
        self.shapes = shapes  # each input's shape: where broadcast gradients are summed back to


class AccumulateGrad:
    """A leaf's node: the gradient that reaches it is added to ``tensor.grad``."""

    __slots__ = ("tensor", "next_functions")

    def __init__(self, tensor):
        self.tensor = tensor
        self.next_functions = ()


class Tensor:
    """A numpy array (``data``) with ``grad``, ``grad_fn`` and ``requires_grad``."""

    __slots__ = ("data", "grad", "grad_fn", "requires_grad", "_accumulate")

    def __init__(self, data, grad_fn=None, requires_grad=False):
        self.data = data
        self.grad = None
        self.grad_fn = grad_fn
        self.requires_grad = requires_grad or grad_fn is not None
        self._accumulate = None

    def _edge(self):
        if self.grad_fn is not None:
            return self.grad_fn
        if not self.requires_grad:
            return None
        if self._accumulate is None:
            self._accumulate = AccumulateGrad(self)
        return self._accumulate

    def _binary(self, other, ufunc, vjp, save):
        if not isinstance(other, Tensor):
            other = Tensor(np.asarray(other, self.data.dtype))
        a, b = self.data, other.data
        out = ufunc(a, b)  # (no np.errstate: the bench's values never overflow)
        if not (self.requires_grad or other.requires_grad):
            return Tensor(out)
        return Tensor(out, Node((self._edge(), other._edge()), (a, b) if save else None, vjp,
                                (a.shape, b.shape)))

    def __add__(self, other):
        return self._binary(other, np.add, _add_vjp, False)

    __radd__ = __add__

    def __mul__(self, other):
        return self._binary(other, np.multiply, _mul_vjp, True)

    __rmul__ = __mul__

    def __rsub__(self, other):
        return Tensor(np.asarray(other, self.data.dtype))._binary(self, np.subtract, _sub_vjp, False)

    def __matmul__(self, other):
        return self._binary(other, np.matmul, _matmul_vjp, True)

    def _unary(self, out, vjp, saved):
        return Tensor(out, Node((self._edge(),), saved, vjp, (self.data.shape,)))

    def relu(self):
        out = np.where(self.data < 0, self.data.dtype.type(0), self.data)  # -0.0, nan kept
        return self._unary(out, _relu_vjp, out)

    def tanh(self):
        out = np.tanh(self.data)
        return self._unary(out, _tanh_vjp, out)

    def sum(self):
        return self._unary(np.add.reduce(self.data, axis=None), _sum_vjp, self.data.shape)

    def mean(self):
        return self._unary(np.mean(self.data), _mean_vjp, self.data.shape)

    def __float__(self):
        return float(self.data)

    def backward(self):
        """Reverse mode from this scalar: each node runs once, after all its consumers."""
        consumers = {}
        stack = [self.grad_fn]
        while stack:  # 1. count each node's consumers
            for fn in stack.pop().next_functions:
                if fn is None:
                    continue
                if fn in consumers:
                    consumers[fn] += 1
                else:
                    consumers[fn] = 1
                    stack.append(fn)
        buffers = {}
        ready = [(0, self.grad_fn, np.ones((), self.data.dtype))]
        leaves = itertools.count(-(1 << 64))  # first, in the order they became ready (PyTorch)
        with np.errstate(all="ignore"):
            while ready:
                _, fn, grad = heapq.heappop(ready)  # 2. the ready node
                if type(fn) is AccumulateGrad:
                    t = fn.tensor
                    t.grad = grad if t.grad is None else t.grad + grad
                    continue
                grads = fn.vjp(grad, fn.saved)  # 3. run it, free its saved arrays
                fn.saved = None
                for nxt, g, shape in zip(fn.next_functions, grads, fn.shapes):
                    if nxt is None:
                        continue
                    if g.shape != shape:
                        g = _sum_to(g, shape)
                    old = buffers.pop(nxt, None)  # 4. into the input buffers (fan-in: sum)
                    g = g if old is None else old + g
                    left = consumers[nxt] - 1
                    consumers[nxt] = left
                    if left:
                        buffers[nxt] = g
                    else:
                        key = -nxt.seq if type(nxt) is Node else next(leaves)
                        heapq.heappush(ready, (key, nxt, g))


def _sum_to(g, shape):
    """``g`` summed over the dimensions broadcasting added or stretched, to ``shape``."""
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1)
    return np.add.reduce(g, axis=axes, keepdims=True).reshape(shape) if axes else g


def _add_vjp(grad, saved):
    return grad, grad


def _sub_vjp(grad, saved):
    return grad, -grad


def _mul_vjp(grad, saved):
    a, b = saved
    return grad * b, grad * a


def _matmul_vjp(grad, saved):
    a, b = saved
    return grad @ b.T, a.T @ grad


def _relu_vjp(grad, result):
    return (np.where(result <= 0, grad.dtype.type(0), grad),)


def _tanh_vjp(grad, result):
    return (grad * (1 - result * result),)


def _sum_vjp(grad, shape):
    return (np.broadcast_to(grad, shape),)


def _mean_vjp(grad, shape):
    return (np.broadcast_to(grad / np.prod(shape, dtype=grad.dtype), shape),)


def tensor(data, requires_grad=False):
    """A Tensor holding a copy of ``data`` as a numpy array (float32 for Python floats)."""
    array = np.array(data, dtype=np.float32 if isinstance(data, float) else None)
    return Tensor(array, requires_grad=requires_grad)


class SGD:
    """Plain gradient descent: ``p -= lr * p.grad``."""

    def __init__(self, params, lr):
        self.params, self.lr = list(params), lr

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        for p in self.params:
            p.data -= self.lr * p.grad


optim = types.SimpleNamespace(SGD=SGD)
