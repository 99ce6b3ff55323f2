"""The ``"numpy"`` backend: a compiled region written out as Python source over numpy arrays.

The ``aot_eager`` replay (``replay.py``) still calls each primitive's
``forward`` with a ``ctx`` on Tensors, and its backward calls the
primitives of each formula.  Here the region is written one step further
down: each operation is **one line of numpy on local arrays**, forward and
backward, with no Tensor, no ``ctx``, no node and no dispatch per step::

    def forward(v0):
        v2 = np.multiply(v0, K1)                 # MulBackward0
        v3 = RO(np.tanh, m_tanh, v2)             # TanhBackward0
        return (v3,), (v3,)                      # outputs, saved arrays

    def backward(saved, g0):
        v3, = saved
        G3 = g0
        G2 = None
        if G3 is not None:  # TanhBackward0
            G2 = G3 * OMS(v3)
        ...

The backward is planned when the region is compiled, as the replay's is: the
reverse of the forward order (the order the engine takes), the fan-in sums
in the order the engine adds them, the sums that undo broadcasting
(``FIT``, the engine's ``sum_to_array``), and which arrays each step needs
(the forward returns exactly those, and nothing else is kept).

**The same numbers as eager.**  Each line is the numpy call the primitive's
``forward`` makes (``quiet``'s Python-float path for 0-d values gives the same
bits, see ``ops/_util.quiet``), and each backward line is the primitive's
``formula`` as the engine runs it on arrays (``ARRAY_OPS``): ``rounded_once``
for tanh and exp, ``one_minus_square`` for tanh's gradient, the same
operand order.  ``tests/test_codegen_numpy.py`` asserts gradients equal to
eager bit for bit.

On one value (a 0-d step) add, sub, mul, div and neg are written as the
operator (``v2 = v0 * K1``): numpy's scalar arithmetic gives the ufunc's bits
for about a fifth of a ufunc call, which on one value is nearly all overhead.

**What has a generated form** (``RULES``, the table in ``codegen_rules.py``): add,
sub (alpha 1), mul, div, neg, reciprocal, rsub (``1 - x``), tanh, exp, log, sigmoid,
relu, sin, cos, abs, sqrt, where, pow by a number (not 0); mm, mv, dot, bmm, addmm
(``linear``; alpha and beta 1); basic indexing (``x[1:3]``, ``x[:, 2]``, ``x[0]``);
mse_loss; sum and mean (of all, or over dims, keepdim or not), softmax and
log_softmax (over a dim of a non-empty tensor); the views t, transpose, permute,
view/reshape, unsqueeze, squeeze, expand, and clone; on float32 or float64 with
one dtype per step (a Python number is welcome).  Comparisons and logic
(``x > 0.5``, ``lt(x, y)``, ``m & n``) are one line too, eager's own numpy call,
with no node.

Any other step (``clamp``, ``max(dim)``, ``cat``, ``~m``, a factory) **calls
its primitive**, as the ``aot_eager`` replay does, inside the generated code:
its ``forward`` with a ``ctx`` on Tensors wrapping the arrays (a tuple of
outputs taken apart), its ``backward`` in the backward, the line's comment
naming it (``# ClampBackward1: calls Clamp (no generated form yet)``);
``region.codegen_calls`` lists those steps and ``jit.explain`` prints them.
Only a region that cannot be written at all (sizes are dynamic, an output that
is a view made by a called primitive) runs as the ``aot_eager`` replay; ``region.codegen_fallback`` says
why and ``jit.explain`` prints it.

Source: the idea is Inductor's Python wrapper code (torch/_inductor/codegen/
wrapper.py), which also writes a region as one Python function; Inductor then
fuses the operations into C++ or Triton kernels, which this does not do.
"""

import math

import numpy as np

from ..ops import shape as Sh
from ..ops.activation_backward import one_minus_square
from ..ops.elementwise import _math_exp, rounded_once
from ..ops.formulas import ARRAY_OPS, select_array
from ..ops.power_kernels import pow_scalar_array
from ..ops.softmax_backward import log_softmax_backward_data, softmax_backward_data
from ..autograd import grad_mode
from ..autograd.validate import sum_to_array
from ..tensor import Tensor
from .codegen_rules import (_addmm, _check_step, _const, _expand, _log_softmax, _mse, _put,
                            _softmax, _view, rule_for)
from .recording import Value

__all__ = ["NoGeneratedForm", "generate"]


class NoGeneratedForm(Exception):
    """A region (or one of its steps) has no numpy form: the reason, for ``explain``."""


def _fit(g, meta):
    """The engine's fit of a gradient to its input (``validate.fit_to_input`` on arrays)."""
    shape, dtype = meta
    if g.shape != shape:
        g = sum_to_array(g, shape)
    if g.dtype != dtype:
        g = g.astype(dtype)
    return g


def _uncallable(s):
    """None if step ``s`` can run as one call of its primitive inside generated code, else why not."""
    if not s.outputs:
        return f"{s.name} (no tensor output)"
    return None


def _is_view_step(s, rule):
    """Whether the step's output shares its input's memory (and, in eager, its version counter)."""
    if rule is not None:
        return rule.view
    if s.kind == "function":
        return bool(s.op._is_view)
    return s.name in ("detach", "to", "type")  # (``to`` may return its input itself)


# ---------------------------------------------------------------- a step that calls its primitive

def _tensor_sharing(data, t):
    """A Tensor over ``data`` (a view of ``t``'s memory) sharing ``t``'s version counter."""
    return Tensor._make(data, vc=t._shared_vc())


def _grad_array(g, meta, node_name, index):
    """A called primitive's gradient (a Tensor or None) as the engine takes it: fitted to the input.

    Raises:
        RuntimeError: the engine's "Function XBackward returned an invalid
            gradient at index i - got [..] but expected shape compatible with [..]".
    """
    if g is None:
        return None
    a = g._data
    shape = meta[0]
    if a.shape != shape:
        lead = a.ndim - len(shape)
        if lead < 0 or any(s != 1 and s != d for s, d in zip(shape, a.shape[lead:])):
            raise RuntimeError(
                f"Function {node_name} returned an invalid gradient at index {index} - got "
                f"{list(a.shape)} but expected shape compatible with {list(shape)}")
    return _fit(a, meta)


def _tensor_or_none(g):
    """A gradient for a called primitive with several outputs: a Tensor, or None (none came)."""
    return None if g is None else Tensor._make(g)


def _add(old, g):
    """Fan-in where a gradient may be None: the engine adds only what arrived."""
    if g is None:
        return old
    return g if old is None else old + g


def _call_helpers(ctx_cls, _run_backward):
    """The names a step that calls its primitive uses: the replay's ctx class and backward runner."""
    st = grad_mode._state

    def run_backward(spec, ctx, grads):  # grad mode off, as in the replay's backward
        prev, st.enabled = st.enabled, False
        try:
            return _run_backward(spec, ctx, grads)
        finally:
            st.enabled = prev

    def ctx_for(needs):
        c = ctx_cls()
        c.needs_input_grad = needs
        return c

    return {"T": Tensor._make, "TV": _tensor_sharing, "CTX": ctx_for, "RUN": run_backward,
            "GRAD": _grad_array, "ADD": _add, "TN": _tensor_or_none}


def generate(region, ctx_cls, run_backward):
    """Forward and backward source of ``region`` over numpy, and their namespace.

    A step with a rule in ``RULES`` (or a comparison) is one line of numpy.  Any
    other step (a primitive with no rule yet, ``~m``, a factory) calls its primitive,
    as the ``aot_eager`` replay does: its ``forward`` with a ``ctx``, on
    Tensors wrapping the arrays (a region input is passed as the caller's
    tensor itself, so what the primitive saves carries the caller's version
    counter and its own backward checks it, as eager's does); in backward its
    ``backward`` through the replay's runner, each gradient fitted to its
    input as the engine fits it.  The line's comment says so.

    Args:
        region (Region): the region (``replay.py``).
        ctx_cls, run_backward: the replay's ``_ReplayCtx`` and ``_run_backward``,
            which a step that calls its primitive uses (passed in: replay.py
            imports this module).

    Returns:
        (code, backward_code, ns, watched, calls, takes_tensors, memory): ``ns`` holds
        the constants the code reads; ``watched``, for each array the forward
        hands to the backward, the Value whose version guards it (itself, or
        the value a view of it was taken from); ``calls``, ``{step index:
        why}`` for the steps that call their primitive (empty when all is
        numpy); ``takes_tensors``: the forward's last parameter ``TS`` is
        the caller's tensors (a called step reads one); ``memory``, per output,
        None, or for a view the Value whose memory (and version counter) it shares.

    Raises:
        NoGeneratedForm: why the region cannot be written at all (sizes are
            dynamic, an output that is a view made by a called primitive).
    """
    if region.dynamic:
        raise NoGeneratedForm("sizes are dynamic (the generated code bakes sizes in)")
    calls = {k: w for k, w in ((k, _check_step(s)) for k, s in enumerate(region.steps)) if w}
    whys = [w for w in (_uncallable(region.steps[k]) for k in calls) if w]
    if whys:
        raise NoGeneratedForm("no generated form for " + ", ".join(dict.fromkeys(whys)))
    rule_of = {k: (None if k in calls else rule_for(s)) for k, s in enumerate(region.steps)}
    made = {id(o) for s in region.steps for o in s.outputs}
    views = {id(o) for k, s in enumerate(region.steps) if _is_view_step(s, rule_of[k])
             for o in s.outputs}
    for v in region.outputs:
        if id(v) not in made:
            raise NoGeneratedForm("an output that no step of the region makes")
    ns = {"np": np, "RO": rounded_once, "m_tanh": math.tanh, "m_exp": _math_exp,
          "OMS": one_minus_square, "PSA": pow_scalar_array, "EXPAND": ARRAY_OPS.expand,
          "DIVS": ARRAY_OPS.div_scalar, "FIT": _fit, "SEL": select_array, "SOFTMAX": _softmax,
          "SGN": ARRAY_OPS.sgn,
          "LOG_SOFTMAX": _log_softmax, "SMB": softmax_backward_data,
          "LSMB": log_softmax_backward_data, "VIEW": _view, "EXPANDW": _expand,
          "SUM_TO": ARRAY_OPS.sum_to, "PRESERVE": Sh._preserve_order, "ADDMM": _addmm,
          "PUT": _put, "MSE": _mse}
    if calls:
        ns.update(_call_helpers(ctx_cls, run_backward))
    names = {id(v): f"v{v.index}" for v in region.inputs}
    pos_in = {id(v): i for i, v in enumerate(region.inputs)}
    root = {}  # a view's value -> the value whose memory it shares

    def ref(a):
        if isinstance(a, Value):
            n = names.get(id(a))
            if n is not None:
                return n
            if a.kind == "wrapped":  # a Python number, as ops' operands() passes it
                n = names[id(a)] = f"K{a.index}"
                ns[n] = a.tensor._data.item()
                return n
            raise NoGeneratedForm(f"a value read before it is made (v{a.index})")
        if isinstance(a, (tuple, list)) and any(isinstance(e, Value) for e in a):
            return [ref(e) for e in a]  # (where's boxed condition: a rule reads a[0][0])
        return _const(ns, a)

    def tensor_ref(a, pos, s):
        """What a step that calls its primitive passes for argument ``a``: a Tensor, mostly."""
        if isinstance(a, (tuple, list)) and any(isinstance(e, Value) for e in a):
            inner = "".join(tensor_ref(e, (pos, j), s) + ", " for j, e in enumerate(a))
            return f"({inner})" if isinstance(a, tuple) else f"[{inner}]"
        if not isinstance(a, Value):
            return _const(ns, a)
        if a.kind == "wrapped":  # the wrapped number's tensor, as recorded
            ns[f"KT{a.index}"] = a.tensor
            return f"KT{a.index}"
        if pos in s.data_pos:  # the primitive was given the array itself
            return ref(a)
        if id(a) in pos_in:  # the caller's tensor: its version counter is the one saved
            return f"TS[{pos_in[id(a)]}]"
        r = root.get(id(a))
        if r is not None and id(r) in pos_in:  # a view of the caller's tensor: its counter
            return f"TV({ref(a)}, TS[{pos_in[id(r)]}])"
        return f"T({ref(a)})"

    records = region.records
    grad_values = {id(v) for v in region.inputs if v.requires_grad}
    out_ids = {id(v) for v in region.outputs}
    takes_tensors = False
    blocks = []  # the forward's lines, one list per step
    bwd_steps = []
    saved, saved_ids = [], set()  # Values (arrays) and, for a called step, its ctx's name
    for k, s in enumerate(region.steps):
        o = s.outputs[0]
        out = f"v{o.index}"
        grad_step = bool(records and s.kind == "function"
                         and any(v.requires_grad for v in s.outputs))
        block = []
        if k in calls:
            args = [tensor_ref(x, i, s) for i, x in enumerate(s.args)]
            takes_tensors = takes_tensors or any("TS[" in x for x in args)
            if s.kind == "function":
                ns[f"F{k}"], ns[f"N{k}"] = s.op.forward, s.needs
                node = s.op._backward_cls.__name__
                if grad_step:
                    block.append(f"    c{k} = CTX(N{k})")
                ctx = f"c{k}" if grad_step else f"CTX(N{k})"
                call = f"F{k}({ctx}" + "".join(", " + x for x in args) + ")"
            else:  # a comparison, a factory: no node in eager either
                ns[f"P{k}"] = s.op
                node = s.name
                if s.kwargs:
                    ns[f"KW{k}"] = s.kwargs
                call = f"P{k}(" + ", ".join(args + ([f"**KW{k}"] if s.kwargs else [])) + ")"
            why = calls[k].split(" (", 1)[-1].rstrip(")")
            comment = f"  # {node}: calls {s.op.__name__} ({why})"
            if s.out_tuple:  # several outputs: a tuple, its tensors taken apart
                block.append(f"    _t = {call}".ljust(48) + comment)
                for v in s.outputs:
                    if id(v) in out_ids:
                        block.append(f"    t{v.index} = _t[{v.out_nr}]")
                        block.append(f"    v{v.index} = t{v.index}._data")
                    else:
                        block.append(f"    v{v.index} = _t[{v.out_nr}]._data")
                block.append("    del _t")
            elif id(o) in out_ids:  # an output: its Tensor is returned (and its version counter)
                block.append(f"    t{o.index} = {call}".ljust(48) + comment)
                block.append(f"    {out} = t{o.index}._data")
            else:
                block.append(f"    {out} = {call}._data".ljust(48) + comment)
        else:
            a = [ref(x) for x in s.args]
            rule = rule_of[k]
            if rule.op and not o.shape:  # one value: the operator (numpy's scalar arithmetic)
                expr = f"{rule.op}{a[0]}" if len(s.args) == 1 else f"{a[0]} {rule.op} {a[1]}"
            else:
                expr = rule.fwd(a, s, ns)
            block.append(f"    {out} = {expr}".ljust(48) + f"  # {rule.node}")
        blocks.append(block)
        for v in s.outputs:
            names[id(v)] = f"v{v.index}"
            if _is_view_step(s, rule_of[k]) and s.args and isinstance(s.args[0], Value):
                root[id(v)] = root.get(id(s.args[0]), s.args[0])
        if grad_step:
            grad_values.update(id(v) for v in s.outputs if v.requires_grad)
            bwd_steps.append((k, s, None if k in calls else a, out))
            if k in calls:
                saved.append(f"c{k}")  # the step's ctx: what its forward saved
            else:
                for w in rule_of[k].saves(s):
                    v = o if w == "out" else (w if isinstance(w, Value) else s.args[w])
                    if isinstance(v, Value) and v.kind != "wrapped" and id(v) not in saved_ids:
                        saved_ids.add(id(v))
                        saved.append(v)
    # a value neither saved nor an output is dropped after its last read (eager frees it then too)
    keep = saved_ids | out_ids | set(pos_in)
    last = {}
    for k, s in enumerate(region.steps):
        for x in s.args:
            for x in (x if isinstance(x, (tuple, list)) else (x,)):
                if isinstance(x, Value) and x.kind != "wrapped" and id(x) not in keep:
                    last[id(x)] = k
    drops = {}
    for i, k in last.items():
        drops.setdefault(k, []).append(names[i])
    fwd = ["def forward(" + ", ".join([names[id(v)] for v in region.inputs]
                                      + (["TS"] if takes_tensors else [])) + "):"]
    for k, block in enumerate(blocks):
        fwd.extend(block)
        if k in drops:
            fwd.append("    del " + ", ".join(sorted(drops[k], key=lambda n: int(n[1:]))))
    called_out = {id(v) for k, s in enumerate(region.steps) if k in calls for v in s.outputs}
    out_list = "".join((f"t{v.index}" if id(v) in called_out else names[id(v)]) + ", "
                       for v in region.outputs)
    saved_list = "".join((v if isinstance(v, str) else names[id(v)]) + ", " for v in saved)
    fwd.append(f"    return ({out_list}), ({saved_list})")
    code = "\n".join(fwd) + "\n"

    # the backward plan: reverse order, fan-in summed in the engine's order, broadcasting undone
    bwd = ["def backward(saved" + "".join(f", g{k}" for k in range(len(region.outputs))) + "):"]
    if saved:
        bwd.append(f"    {saved_list}= saved")
    gname = {id(v): f"G{v.index}" for v in list(region.inputs) + [o for s in region.steps
                                                                   for o in s.outputs]
             if id(v) in grad_values}
    seeded = {gname[id(v)]: f"g{k}" for k, v in enumerate(region.outputs) if id(v) in gname}
    for g in sorted(set(gname.values()), key=lambda n: int(n[1:])):
        bwd.append(f"    {g} = {seeded.get(g, 'None')}")
    written = set(seeded)
    for k, s, a, out in reversed(bwd_steps):
        o = s.outputs[0]
        if k in calls:
            node = s.op._backward_cls.__name__
            outs = [gname[id(v)] for v in s.outputs if id(v) in gname]
            cond = " or ".join(f"{g} is not None" for g in outs)
            bwd.append(f"    if {cond}:  # {node}: calls {s.op.__name__}.backward")
            if s.out_tuple:  # one gradient per output slot (zeros where none came: RUN)
                slots = ["None"] * (max(v.out_nr for v in s.outputs) + 1)
                for v in s.outputs:
                    if id(v) in gname:
                        slots[v.out_nr] = f"TN({gname[id(v)]})"
                grads = "(" + "".join(g + ", " for g in slots) + ")"
                ns[f"S{k}"] = (s.op, tuple((v.shape, v.dtype) for v in s.outputs))
            else:
                grads = f"(T({outs[0]}),)"
                ns[f"S{k}"] = (s.op, None)
            ns[f"NM{k}"] = node
            bwd.append(f"        r = RUN(S{k}, c{k}, {grads})")
            for pos, edge, v in s.routed_inputs(gname):
                tgt = gname[id(v)]
                expr = f"GRAD(r[{pos}], {_const(ns, (v.shape, v.dtype))}, NM{k}, {edge})"
                bwd.append(f"        {tgt} = ADD({tgt}, {expr})")
                written.add(tgt)
            bwd.append("        del r, " + ", ".join(outs))
            continue
        g = gname[id(o)]
        rule = rule_of[k]
        bwd.append(f"    if {g} is not None:  # {rule.node}")
        grads = rule.bwd(a, out, g, s, ns)
        for pos in sorted(grads):
            v = s.args[pos]
            if not (isinstance(v, Value) and id(v) in gname and s.needs[pos]):
                continue
            expr = grads[pos]
            ew = rule.elementwise
            if ew and (ew is True or pos in ew) and v.shape != o.shape:  # summed back over broadcasting
                expr = f"FIT({expr}, {_const(ns, (v.shape, v.dtype))})"
            tgt = gname[id(v)]
            if tgt in written:  # fan-in: added in the order the engine adds into its buffer
                bwd.append(f"        {tgt} = {expr} if {tgt} is None else {tgt} + {expr}")
            else:  # no step before this one writes it: still None here
                written.add(tgt)
                bwd.append(f"        {tgt} = {expr}")
        bwd.append(f"        del {g}")  # (its last use: the engine drops it here too)
    ret = "".join((gname[id(v)] if id(v) in gname else "None") + ", " for v in region.inputs)
    bwd.append(f"    return ({ret})")
    backward_code = "\n".join(bwd) + "\n"
    # what to check the versions of: the saved value, or the tensor it is a view of
    # an output that is a view shares its memory's version counter, as eager's: the memory
    # of a region input (the caller's counter), of another output, or of a value only the
    # region sees (one counter made per call); and a saved array is checked against the
    # counter of its memory (itself, or what a view of it was taken from)
    called_views = {id(o) for k in calls for o in region.steps[k].outputs if id(o) in views}
    memory = []
    for v in region.outputs:
        r = root.get(id(v)) if id(v) in views else None
        if id(v) in called_views or (r is not None and id(r) in called_out):
            raise NoGeneratedForm("an output that is a view made by a step that calls its "
                                  "primitive (its version counter is that primitive's)")
        memory.append(r)
    watched = [root.get(id(v), v) for v in saved if not isinstance(v, str)]
    return (code, backward_code, ns, watched, {k: calls[k] for k in sorted(calls)}, takes_tensors,
            memory)
