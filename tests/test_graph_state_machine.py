"""The life of a graph, as a hypothesis state machine: record, walk, accumulate, free.

Rules make float64 leaves, combine live tensors (leaves and intermediates
alike, so the same tensor feeds several nodes: fan-in) with random unary and
binary operations, call ``backward`` on the sum of a random live tensor with or
without ``retain_graph``, reset gradients to None, walk a retained graph again,
and delete outputs.  Alongside, the machine keeps its own model of the program:
the expression tree of every tensor it made, which nodes a non-retained
backward has freed, and, per leaf, the gradient that should have accumulated,
computed independently by central differences in float64 on that expression
tree (numpy only: no minigrad in the reference).

After every step:

* every leaf's ``.grad`` equals the model's accumulated gradient (or is None
  when the model says so);
* a node that saved something has released it (``node._saved`` is None, or
  each saved entry has dropped its tensor) exactly when a non-retained
  backward has walked through it;
* with the garbage collector switched off for the whole run (so reference
  counting alone must free everything), the node of every deleted output
  that no live tensor still depends on is dead, and so is every tensor a node
  saved, unless something live still legitimately holds it.

And a backward must succeed when nothing it walks through has released saved
values, and must raise PyTorch's "Trying to backward through the graph a second
time" RuntimeError, leaving every ``.grad`` untouched, when the output it
starts from has.
"""

import gc
import weakref

import numpy as np
import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import minigrad

F64 = minigrad.float64
EPS = 1e-6
MAX_LEAVES = 5
MAX_LIVE = 10
MAGNITUDE = 50.0  # keep values (and so central differences) well conditioned
ERR_SECOND_TIME = "Trying to backward through the graph a second time"

SHAPES = [(), (3,), (2, 3)]  # any two of these broadcast together


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def _always(*values):
    return True


# name: (minigrad operation, numpy reference, saves a value for backward (as
# PyTorch's node does), precondition on the numpy input values)
UNARY = {
    "neg": (lambda t: -t, np.negative, False, _always),
    "exp": (lambda t: t.exp(), np.exp, True, lambda v: v.max(initial=-np.inf) < 3.5),
    "tanh": (lambda t: t.tanh(), np.tanh, True, _always),
    "sigmoid": (lambda t: t.sigmoid(), _sigmoid, True, _always),
    "sin": (lambda t: t.sin(), np.sin, True, _always),
    "cos": (minigrad.cos, np.cos, True, _always),
    "mul_scalar": (lambda t: t * 0.5, lambda v: v * 0.5, True, _always),
    "add_scalar": (lambda t: t + 1.0, lambda v: v + 1.0, False, _always),
    "rsub_scalar": (lambda t: 1.0 - t, lambda v: 1.0 - v, False, _always),
    "square": (lambda t: t ** 2, np.square, True, _always),
    "log": (lambda t: t.log(), np.log, True, lambda v: v.min(initial=np.inf) > 0.2),
    "sqrt": (minigrad.sqrt, np.sqrt, True, lambda v: v.min(initial=np.inf) > 0.2),
    "sum": (lambda t: t.sum(), lambda v: np.asarray(v.sum()), False, _always),
    "sum_dim0": (lambda t: t.sum(0), lambda v: v.sum(0), False, lambda v: v.ndim >= 1),
    "mean": (lambda t: t.mean(), lambda v: np.asarray(v.mean()), False, _always),
    "flatten": (lambda t: t.reshape(-1), lambda v: v.reshape(-1), False, _always),
    "transpose": (lambda t: t.T, lambda v: v.T, False, lambda v: v.ndim == 2),
}

BINARY = {
    "add": (lambda a, b: a + b, np.add, False, _always),
    "sub": (lambda a, b: a - b, np.subtract, False, _always),
    "mul": (lambda a, b: a * b, np.multiply, True, _always),
    "div": (lambda a, b: a / b, np.divide, True, lambda a, b: np.abs(b).min(initial=np.inf) > 0.5),
}


def released(node):
    """True once a node has let go of its saved values.

    (``node._saved`` becomes None, or each of its saved entries drops its
    tensor: either way nothing saved is reachable from the node any more.)
    """
    saved = node._saved
    if saved is None:
        return True
    return all(s is None or (s.tensor is None and s.packed is None)
               for s in saved)


def saved_tensors_of(node):
    """The tensors a node still holds for its backward."""
    saved = node._saved or ()
    return [s.tensor for s in saved if s is not None and s.tensor is not None]


class Leaf:
    def __init__(self, index, value):
        self.index = index
        self.value = value  # float64 numpy array (the model's copy)
        self.tensor = minigrad.tensor(value.copy(), dtype=F64, requires_grad=True)
        self.expected = None  # the gradient the model expects in .grad


class Rec:
    """An intermediate tensor the machine made, and what the model knows about it."""

    def __init__(self, index, op, children, tensor, saves):
        self.index = index
        self.op = op
        self.children = children  # ("leaf", i) or ("rec", j) refs
        self.tensor = tensor  # None once deleted
        self.saves = saves
        node = tensor.grad_fn
        self.node_name = node.name()
        self.node_ref = weakref.ref(node)
        # weak references to every tensor the node saved (inputs, an output's
        # alias, a wrapped Python number)
        self.saved_refs = [weakref.ref(t) for t in saved_tensors_of(node)]


class GraphLife(RuleBasedStateMachine):
    """Record, walk, accumulate, free: one random program per example."""

    def __init__(self):
        super().__init__()
        self.gc_was_enabled = gc.isenabled()
        gc.disable()
        self.leaves = []
        self.recs = []
        self.freed = set()  # indices of recs whose node a non-retained backward walked
        self.backward_calls = 0

    def teardown(self):
        self.leaves.clear()
        self.recs.clear()
        if self.gc_was_enabled:
            gc.enable()

    # ------------------------------------------------------------ the model

    def live(self):
        return [("leaf", lf.index) for lf in self.leaves] + \
               [("rec", r.index) for r in self.recs if r.tensor is not None]

    def tensor_of(self, ref):
        kind, i = ref
        return self.leaves[i].tensor if kind == "leaf" else self.recs[i].tensor

    def value_of(self, ref, leaf_values, memo=None):
        """The numpy value of ``ref`` from the leaves' values, through the expression tree."""
        if memo is None:
            memo = {}
        kind, i = ref
        if kind == "leaf":
            return leaf_values[i]
        if i in memo:
            return memo[i]
        rec = self.recs[i]
        args = [self.value_of(c, leaf_values, memo) for c in rec.children]
        table = UNARY if len(args) == 1 else BINARY
        out = np.asarray(table[rec.op][1](*args), dtype=np.float64)
        memo[i] = out
        return out

    def subtree(self, ref):
        """Indices of the recs and of the leaves that ``ref`` depends on (itself included)."""
        recs, leaves, stack = set(), set(), [ref]
        while stack:
            kind, i = stack.pop()
            if kind == "leaf":
                leaves.add(i)
            elif i not in recs:
                recs.add(i)
                stack.extend(self.recs[i].children)
        return recs, leaves

    def blocked(self, ref):
        """True if walking back from ``ref`` reaches a node whose saved values were freed."""
        recs, _ = self.subtree(ref)
        return any(j in self.freed and self.recs[j].saves for j in recs)

    def numeric_grad(self, ref, leaf_index):
        """d sum(ref) / d leaf, by central differences on the expression tree (float64)."""
        values = [lf.value for lf in self.leaves]
        x = values[leaf_index].copy()
        values[leaf_index] = x
        grad = np.zeros_like(x)
        for j in np.ndindex(x.shape):
            old = x[j]
            x[j] = old + EPS
            plus = self.value_of(ref, values).sum()
            x[j] = old - EPS
            minus = self.value_of(ref, values).sum()
            x[j] = old
            grad[j] = (plus - minus) / (2 * EPS)
        return grad

    def add_rec(self, op, children, tensor, saves):
        rec = Rec(len(self.recs), op, children, tensor, saves)
        self.recs.append(rec)
        # the model's value and minigrad's forward agree
        expected = self.value_of(("rec", rec.index), [lf.value for lf in self.leaves])
        np.testing.assert_allclose(tensor.detach().numpy(), expected, rtol=1e-12, atol=1e-12)
        assert tuple(tensor.shape) == expected.shape

    # ------------------------------------------------------------ the rules

    @initialize(shape=st.sampled_from(SHAPES), seed=st.integers(0, 2**32 - 1))
    def first_leaf(self, shape, seed):
        self.make_leaf(shape, seed)

    @rule(shape=st.sampled_from(SHAPES), seed=st.integers(0, 2**32 - 1))
    def make_leaf(self, shape, seed):
        if len(self.leaves) >= MAX_LEAVES:
            return
        value = np.random.default_rng(seed).uniform(-1.5, 1.5, shape)
        self.leaves.append(Leaf(len(self.leaves), np.asarray(value, dtype=np.float64)))

    @rule(data=st.data(), op=st.sampled_from(sorted(UNARY)))
    def unary(self, data, op):
        if len(self.live()) >= MAX_LEAVES + MAX_LIVE:
            return
        fn, ref_fn, saves, pre = UNARY[op]
        src = data.draw(st.sampled_from(self.live()), label="input")
        v = self.value_of(src, [lf.value for lf in self.leaves])
        if not pre(v):
            return
        out = ref_fn(v)
        if not np.all(np.isfinite(out)) or np.abs(out).max(initial=0) > MAGNITUDE:
            return
        self.add_rec(op, (src,), fn(self.tensor_of(src)), saves)

    @rule(data=st.data(), op=st.sampled_from(sorted(BINARY)))
    def binary(self, data, op):
        if len(self.live()) >= MAX_LEAVES + MAX_LIVE:
            return
        fn, ref_fn, saves, pre = BINARY[op]
        live = self.live()
        a = data.draw(st.sampled_from(live), label="a")
        b = data.draw(st.sampled_from(live), label="b")  # may be a again: fan-in
        values = [lf.value for lf in self.leaves]
        va, vb = self.value_of(a, values), self.value_of(b, values)
        try:
            np.broadcast_shapes(va.shape, vb.shape)
        except ValueError:
            return
        if not pre(va, vb):
            return
        out = ref_fn(va, vb)
        if not np.all(np.isfinite(out)) or np.abs(out).max(initial=0) > MAGNITUDE:
            return
        self.add_rec(op, (a, b), fn(self.tensor_of(a), self.tensor_of(b)), saves)

    @rule(data=st.data(), retain=st.booleans())
    def backward(self, data, retain):
        """Backward from the sum of a live tensor: succeeds unless its graph was freed."""
        live = self.live()
        fine = [r for r in live if not self.blocked(r)]
        # a root whose own node released its saved values raises before
        # anything runs (so no .grad changes); a root that is fine itself but
        # reaches a freed node deeper down is not drawn: PyTorch would also
        # raise there, after accumulating whatever it reached first.
        freed = [r for r in live if r[0] == "rec" and r[1] in self.freed and self.recs[r[1]].saves]
        kinds = {"leaf": [r for r in fine if r[0] == "leaf"], "rec": [r for r in fine if r[0] == "rec"],
                 "freed": freed}
        kind = data.draw(st.sampled_from([k for k, v in kinds.items() if v]), label="kind")
        root = data.draw(st.sampled_from(kinds[kind]), label="root")
        t = self.tensor_of(root)
        event(f"backward from a {'freed' if root in freed else 'walkable'} {root[0]}, "
              f"retain_graph={retain}")
        if root in freed:
            with pytest.raises(RuntimeError, match=ERR_SECOND_TIME):
                t.sum().backward(retain_graph=retain)
            return
        recs, leaves = self.subtree(root)
        expected = {i: self.numeric_grad(root, i) for i in leaves}
        t.sum().backward(retain_graph=retain)
        self.backward_calls += 1
        for i, g in expected.items():
            lf = self.leaves[i]
            lf.expected = g if lf.expected is None else lf.expected + g
        if not retain:
            self.freed |= recs

    @rule(data=st.data())
    def backward_retained_then_again(self, data):
        """retain_graph=True, then the same graph again: both succeed, gradients add up."""
        fine = [r for r in self.live() if not self.blocked(r)]
        root = data.draw(st.sampled_from(fine), label="root")
        recs, leaves = self.subtree(root)
        expected = {i: self.numeric_grad(root, i) for i in leaves}
        s = self.tensor_of(root).sum()
        s.backward(retain_graph=True)
        for j in recs:
            node = self.recs[j].node_ref()
            assert node is not None
            if self.recs[j].saves:
                assert not released(node), f"{self.recs[j].node_name} released with retain_graph"
        s.backward()
        for i, g in expected.items():
            lf = self.leaves[i]
            lf.expected = 2 * g if lf.expected is None else lf.expected + 2 * g
        self.freed |= recs

    @rule(data=st.data())
    def backward_then_again_without_retain(self, data):
        """A second walk of a freed graph: raises if its output's node saved something.

        If nothing on the graph saved anything (sums, additions, reshapes), the
        second walk is allowed and accumulates again, as in PyTorch.
        """
        fine = [r for r in self.live() if r[0] == "rec" and not self.blocked(r)]
        if not fine:
            return
        root = data.draw(st.sampled_from(fine), label="root")
        recs, leaves = self.subtree(root)
        expected = {i: self.numeric_grad(root, i) for i in leaves}
        t = self.tensor_of(root)
        t.sum().backward()
        for i, g in expected.items():
            lf = self.leaves[i]
            lf.expected = g if lf.expected is None else lf.expected + g
        self.freed |= recs
        if self.recs[root[1]].saves:
            event("second walk of a freed graph: raises")
            with pytest.raises(RuntimeError, match=ERR_SECOND_TIME):
                t.sum().backward()
        elif not any(self.recs[j].saves for j in recs):
            event("second walk of a graph that saved nothing: allowed")
            t.sum().backward()
            for i, g in expected.items():
                self.leaves[i].expected = self.leaves[i].expected + g

    @rule(data=st.data())
    def zero_grad(self, data):
        """optimizer.zero_grad(): .grad = None on all leaves, or on one."""
        if data.draw(st.booleans(), label="all leaves"):
            targets = self.leaves
        else:
            targets = [data.draw(st.sampled_from(self.leaves), label="leaf")]
        for lf in targets:
            lf.tensor.grad = None
            lf.expected = None

    @rule(data=st.data())
    def delete_output(self, data):
        live = [r for r in self.recs if r.tensor is not None]
        if not live:
            return
        rec = data.draw(st.sampled_from(live), label="deleted")
        rec.tensor = None
        still_needed = any(rec.index in self.subtree(("rec", r.index))[0]
                           for r in self.recs if r.tensor is not None)
        event("deleted an output " + ("another one depends on" if still_needed else "nothing depends on"))

    # ------------------------------------------------------------ the invariants

    @invariant()
    def gradients_match_the_reference(self):
        for lf in self.leaves:
            g = lf.tensor.grad
            if lf.expected is None:
                assert g is None, f"leaf {lf.index}: expected no gradient, got {g!r}"
                continue
            assert g is not None, f"leaf {lf.index}: expected a gradient, got None"
            assert g.dtype == F64 and tuple(g.shape) == lf.value.shape
            np.testing.assert_allclose(g.numpy(), lf.expected, rtol=1e-5, atol=1e-6,
                                       err_msg=f"leaf {lf.index}")

    @invariant()
    def saved_values_released_exactly_after_a_walk(self):
        for rec in self.recs:
            node = rec.node_ref()
            if node is None:
                continue
            if rec.saves:
                assert saved_tensors_of(node) or released(node), f"{rec.node_name} saved nothing"
                assert released(node) == (rec.index in self.freed), (
                    f"rec {rec.index} ({rec.node_name}): saved released={released(node)}, "
                    f"walked without retain_graph={rec.index in self.freed}")
            else:
                assert not saved_tensors_of(node), f"{rec.node_name} saved {node._saved!r}"

    @invariant()
    def nothing_that_should_be_freed_is_alive(self):
        live_roots = [("rec", r.index) for r in self.recs if r.tensor is not None]
        needed = set()
        for ref in live_roots:
            needed |= self.subtree(ref)[0]
        for rec in self.recs:
            node = rec.node_ref()
            if rec.tensor is not None or rec.index in needed:
                assert node is not None, f"rec {rec.index}: node freed while still needed"
            else:
                assert node is None, (
                    f"rec {rec.index}: {rec.node_name} still alive after its output was deleted "
                    f"and nothing live depends on it (referrers: "
                    f"{[type(r).__name__ for r in gc.get_referrers(node)]})")
        # what may legitimately hold a saved tensor: a live tensor (a leaf, a
        # live output), a node that still keeps its saved values, and the base
        # of a view that is itself held
        held, stack = set(), [lf.tensor for lf in self.leaves]
        stack += [r.tensor for r in self.recs if r.tensor is not None]
        for rec in self.recs:
            node = rec.node_ref()
            if node is not None:
                stack += saved_tensors_of(node)
        while stack:
            t = stack.pop()
            if id(t) in held:
                continue
            held.add(id(t))
            if t._base is not None:
                stack.append(t._base)
        for rec in self.recs:
            for w in rec.saved_refs:
                obj = w()
                assert obj is None or id(obj) in held, (
                    f"rec {rec.index} ({rec.node_name}): a saved tensor is still alive "
                    f"(referrers: {[type(r).__name__ for r in gc.get_referrers(obj)]})")


GraphLife.TestCase.settings = settings(
    max_examples=30, stateful_step_count=20, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestGraphLife = GraphLife.TestCase


def test_gc_is_restored_after_the_machine():
    """The machine switches the collector off and must switch it back on."""
    assert gc.isenabled()
