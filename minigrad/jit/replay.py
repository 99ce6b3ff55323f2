"""A compiled region: straight-line forward code, a backward plan made once, one graph node per call.

Eager execution pays for every operation on every call: the Python operator,
argument checks, a new graph node with its edges and saved tensors, and at
``backward()`` the engine's walk (dependency counts, a ready queue, gradient
buffers).  A compiled region pays most of that once, when it is compiled:

* **forward**: the recorded steps are written out as one Python function
  that calls each primitive's ``forward`` directly, in order, on local
  variables (``region.code`` shows it).  No operator dispatch, no node per
  operation: each step gets a plain ``ctx`` that keeps what its backward needs;
* **backward plan**: the order (the reverse of the forward order, which is
  the order the engine would take), which gradient goes where, where several
  gradients meet and are summed (fan-in), which need summing back over a
  broadcast dimension: all decided at compile time and written out as a second
  Python function (``region.backward_code``) that calls each primitive's
  ``backward`` directly;
* **one node**: the region's outputs share one ``CompiledFunctionBackward``
  node whose ``next_functions`` point at the region's inputs (a leaf's
  ``AccumulateGrad``, an earlier region's node, or ``(None, 0)`` for an input
  that needs no gradient).  The engine runs it as one step; it runs the plan.

The gradients are the eager ones exactly: the same backward formulas run, in
the engine's order, summing fan-in in the same order.  Saved values are freed
after the backward as in eager mode (unless ``retain_graph=True``): a second
backward through a region's output raises PyTorch's "Trying to backward
through the graph a second time ...".  A region's backward is not itself
differentiable: ``create_graph=True`` gives gradients whose own backward
raises PyTorch's "torch.compile with aot_autograd does not currently support
double backward".

Source: AOTAutograd (torch/_functorch/aot_autograd.py and
_aot_autograd/runtime_wrappers.py): the forward and backward are traced
ahead of time, and the compiled forward is wrapped in one autograd
``Function`` whose node is ``CompiledFunctionBackward``; its backward runs
the compiled backward.  The ``aot_eager`` backend runs both graphs without
code generation; here they are generated Python code over minigrad's primitives.

With ``backend="numpy"`` a region is written one level further down, as numpy
source on arrays (``codegen_numpy.py``; a step with no generated form calls its
primitive there):
the node is the same, its saved values are that code's arrays, and the
versions of those a caller can reach (the region's inputs and outputs, or what
a saved view was taken of) are checked in backward, as eager checks them.
"""

import numpy as np

from ..autograd import grad_mode
from ..autograd import grad_kinds as _grad_kinds
from ..autograd.function import FunctionCtx
from ..autograd import saved as _saved
from ..autograd import saved_edits as _edits
from ..autograd.graph import Node
from ..ops.reductions import SumDim as _SumDim
from ..tensor import Tensor
from ..creation import zeros
from ..autograd.saved_errors import raise_modified as _raise_modified
from .codegen_numpy import NoGeneratedForm, generate
from .plan import is_traceable, program_code, trace_step_backward
from .recording import Value

__all__ = ["CompiledFunctionBackward", "Region"]


_state = grad_mode._state
_DOUBLE_BACKWARD = "torch.compile with aot_autograd does not currently support double backward"


class _ReplayCtx(FunctionCtx):
    """The ``ctx`` a step's forward and backward share in a replay: attributes, saved tensors, no node."""

    __slots__ = ("__dict__",)
    _jit_saved = ()
    # the same tensors, kept where a node keeps them (saved_edits.keep_as_is), for formulas that
    # read a node's saved values and check their versions themselves; none by default
    _kept = _kept_versions = ()
    _materialize = True
    _non_differentiable = ()
    _dirty = ()

    def save_for_backward(self, *tensors):
        """Keep ``tensors`` for backward, as they are (the region holds them until freed)."""
        self._jit_saved = tensors
        _edits.keep_as_is(self, tensors)

    @property
    def saved_tensors(self):
        """The tensors ``forward`` saved."""
        return self._jit_saved


_Z = _ReplayCtx()  # the throwaway ctx of steps whose ctx is not needed


class _RegionSaved:
    """What a compiled region's node saved: its steps' ctxs (``saved_edits.keep_elsewhere``).

    Held until a walk frees them (``retain_graph=False``); a second backward then
    raises, as PyTorch's does.
    """

    __slots__ = ()

    def free(self, node):
        node._ctxs = None

    def records(self, node):
        return ()

    def rebind_output(self, t, moved):
        pass  # (nothing it keeps is an output of its own)


_REGION_SAVED = _RegionSaved()


class CompiledFunctionBackward(Node):
    """The one graph node of a compiled region's outputs (PyTorch's ``CompiledFunctionBackward``).

    Attributes:
        next_functions: one ``(node, output_nr)`` pair per tensor input of the
            region, ``(None, 0)`` for one that does not require grad.

    Its backward runs the region's backward plan with the saved values of
    this call; they are freed afterwards (``retain_graph=False``).

    Raises (in backward):
        RuntimeError: PyTorch's "Trying to backward through the graph a second
            time ..." once freed.
    """

    def __init__(self, region, ctxs, edges, meta):
        Node.__init__(self)
        self._region = region
        self._ctxs = ctxs  # its steps' ctxs (numpy backend: the saved arrays); None once freed
        _edits.keep_elsewhere(self, _REGION_SAVED)
        self.next_functions = edges
        self._in_meta = meta
        # (shape, dtype) per output: an engine may size the gradient buffer of a node with
        # several outputs from it (the sizes of a dynamic region's first call; only the count
        # matters there)
        self._out_meta = region._out_meta

    def name(self):
        """``"CompiledFunctionBackward"``."""
        return type(self).__name__

    def __repr__(self):
        return f"<minigrad.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    def _num_outputs(self):
        return len(self._region.outputs)

    def apply(self, grads, F):
        if self._region._np is not None:  # the "numpy" backend: generated code over arrays
            return self._apply_numpy(grads, F)
        if not F.records:  # (written on Tensors: an ARRAYS walk wraps and unwraps)
            return F.from_tensors(self.apply(F.to_tensors(grads), _grad_kinds.TENSORS))
        ctxs = self._ctxs
        if ctxs is None:
            _saved.FREED.unpack()
        create_graph = _state.enabled
        _state.enabled = False  # the plan is not differentiable (as AOTAutograd's)
        region = self._region
        n = len(region.outputs)
        if len(grads) < n:  # (an engine may pass only the gradients up to the last one sent)
            grads = tuple(grads) + (None,) * (n - len(grads))
        try:
            out = region._backward(ctxs, *grads)
        finally:
            _state.enabled = create_graph
        if region._stale:  # the first backward traced the steps' formulas: write the plan again
            region._stale = False
            region._build()
        if create_graph:
            out = _double_backward_guard(out, grads)
        return out


    def _apply_numpy(self, grads, F):
        saved = self._ctxs
        if saved is None:
            _saved.FREED.unpack()
        for vc, version, data in self._np_checks:  # a saved input or output written in place
            if vc[0] != version:
                _raise_modified(Tensor._make(data, vc=vc), None, version, False)
        region = self._region
        n = len(region.outputs)
        if len(grads) < n:
            grads = tuple(grads) + (None,) * (n - len(grads))
        if not F.records:  # the usual walk: arrays in, arrays out
            return region._np_backward(saved, *grads)
        create_graph = _state.enabled
        _state.enabled = False
        try:
            out = region._np_backward(saved, *(None if g is None else g._data for g in grads))
        finally:
            _state.enabled = create_graph
        out = tuple(None if g is None else Tensor._make(g) for g in out)
        return _double_backward_guard(out, grads) if create_graph else out


class CompiledFunctionBackwardBackward(Node):
    """The node of gradients computed through a region with ``create_graph=True``: its backward raises."""

    def name(self):
        """``"CompiledFunctionBackwardBackward"``."""
        return type(self).__name__

    def __repr__(self):
        return f"<minigrad.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    def apply(self, grads, F):
        raise RuntimeError(_DOUBLE_BACKWARD)


def _double_backward_guard(out, grads):
    node = CompiledFunctionBackwardBackward()
    node.next_functions = tuple(
        ((g._grad_fn, g._output_nr) if g._grad_fn is not None else (g._accumulator(), 0))
        if g is not None and g._requires_grad else (None, 0) for g in grads)
    res = []
    for g in out:
        if g is not None:
            g = Tensor._make(g._data, grad_fn=node)
        res.append(g)
    return tuple(res)


# PyTorch never warns about inf or nan in arithmetic: the generated forward runs inside
# np.errstate, entered as a decorator (half a with-statement's cost: no object per call)
@np.errstate(all="ignore")
def _quietly(forward, arrays):
    return forward(*arrays)


def _edge(t):
    fn = t._grad_fn
    return (fn, t._output_nr) if fn is not None else (t._accumulator(), 0)


_SUM_DIMS = {}  # (gradient shape, input shape) -> dims summed to undo broadcasting


def _acc(old, g, meta, node_name, index):
    """Add gradient ``g`` into ``old``, first summing it to the input's shape and dtype (as the engine).

    The sum is the one ``sum_to_size`` computes (``SumDim``'s forward), called
    directly: the same numbers without the operation call.
    """
    if g is None:
        return old
    shape, dt = meta
    gshape = g._data.shape
    if gshape != shape:
        key = (gshape, shape)
        dims = _SUM_DIMS.get(key)
        if dims is None:
            lead = len(gshape) - len(shape)
            if lead < 0 or any(s != 1 and s != d for s, d in zip(shape, gshape[lead:])):
                # the engine's (PyTorch's validate_outputs) error for a gradient of a wrong shape
                raise RuntimeError(
                    f"Function {node_name} returned an invalid gradient at index {index} - got "
                    f"{list(gshape)} but expected shape compatible with {list(shape)}")
            dims = _SUM_DIMS[key] = tuple(range(lead)) + tuple(
                lead + i for i, (s, d) in enumerate(zip(shape, gshape[lead:])) if s == 1 and d != 1)
        if dims:
            _Z.needs_input_grad = (False, False, False, False)
            g = _SumDim.forward(_Z, g, dims, True, None)
        if g._data.shape != shape:
            g = Tensor._make(g._data.reshape(shape))
    if g._data.dtype != dt:
        g = g.to(dt)
    return g if old is None else old + g


def _run_backward(spec, ctx, grads):
    """One step's backward, as ``BackwardNode._backward`` runs it (materialised zeros, arity check)."""
    cls, out_meta = spec
    if out_meta is not None and ctx._materialize:
        grads = tuple(zeros(shape, dtype=dt) if g is None else g for g, (shape, dt) in zip(grads, out_meta))
    out = cls.backward(ctx, *grads)
    if type(out) is not tuple:
        out = (out,)
    n = len(ctx.needs_input_grad)
    if len(out) != n:
        if len(out) > n and all(g is None for g in out[n:]):
            out = out[:n]
        else:
            raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of "
                               f"gradients (expected {n}, got {len(out)})")
    return out


class Region:
    """One compiled graph: steps between two graph breaks, as generated forward and backward code.

    Args:
        raw_steps (list[Step]): the recorded steps between two graph breaks, in order.
        outputs (list[Value]): the values that leave the region (read later
            by another region, a decision, or the function's result).
        number (int): its number among the graphs compiled (1, 2, ...).
        records (bool): whether calls record a node (grad mode was on and an input requires grad).
        dynamic (bool): some sizes of the inputs may change between calls: the
            backward reads the shapes of this call, and formulas are not traced.

    Attributes:
        steps (list[Step]): the steps kept (those the outputs need: dead code is dropped).
        inputs (list[Value]): what the steps read and do not make, in order:
            the function's inputs, captured tensors, earlier regions' outputs.
        code (str): the generated forward; backward_code (str): the backward plan.
        graph (Graph): the region as a TorchScript-style static graph (see ``graph.py``).
    """

    def __init__(self, raw_steps, outputs, number, records, rec=None, dynamic=False,
                 backend="aot_eager"):
        self.backend = backend  # "numpy": generated numpy code where every step has a form
        self.dynamic = dynamic  # some input sizes are not guarded (automatic dynamic shapes)
        self._programs = {}   # step index -> its traced backward (plan.py), or False
        self._stale = False
        self.raw_steps = list(raw_steps)
        self.outputs = list(outputs)
        self.number = number
        self.records = records
        self._rec = rec
        self._build()

    def _select(self):
        """Keep the steps the outputs need; find the inputs (values read from outside)."""
        made = {id(o): s for s in self.raw_steps for o in s.outputs}
        need = {id(o) for o in self.outputs}
        keep = []
        for s in reversed(self.raw_steps):
            if any(id(o) in need for o in s.outputs):
                keep.append(s)
                for a in s.args:
                    for e in (a if isinstance(a, (tuple, list)) else (a,)):
                        if isinstance(e, Value):
                            need.add(id(e))
        keep.reverse()
        self.steps = keep
        inputs, seen = [], set()
        for s in keep:
            for a in s.args:
                for e in (a if isinstance(a, (tuple, list)) else (a,)):
                    if (isinstance(e, Value) and id(e) not in made and id(e) not in seen
                            and e.kind != "wrapped"):
                        seen.add(id(e))
                        inputs.append(e)
        rank = {"input": 0, "captured": 1, "step": 2, "scalar": 3}
        inputs.sort(key=lambda v: (rank[v.kind], v.pos if v.kind == "input" else v.index))
        self.inputs = inputs

    def __repr__(self):
        return f"<compiled graph {self.number}: {len(self.steps)} operations>"

    @property
    def op_names(self):
        """The primitives' names in order (``["mul", "sum", "gt"]``)."""
        return [s.name for s in self.steps]

    def _trace_step(self, k, spec, ctx, grads):
        out, prog = trace_step_backward(_run_backward, spec, ctx, grads)
        self._programs[k] = prog or False
        self._stale = True
        return out

    def add_output(self, value):
        """Let one more value of the region leave it (a later region, on another path, reads it)."""
        if all(value is not o for o in self.outputs):
            self.outputs.append(value)
            self._programs = {}  # the steps kept, so their indices, may change
            self._build()

    # ------------------------------------------------------------ code generation

    def _build(self):
        self._select()
        ns = {"Ctx": _ReplayCtx, "Z": _ReplayCtx(), "RUN": _run_backward, "ACC": _acc,
              "RUNT": self._trace_step}
        names = {}
        for v in self.inputs:
            names[id(v)] = f"v{v.index}"

        def ref(a, path=None, data=frozenset()):
            if isinstance(a, Value):
                n = names.get(id(a))
                if n is None:  # a wrapped number or a captured tensor not passed in: a constant
                    n = f"K{a.index}"
                    ns[n] = a.tensor
                return n + "._data" if path in data else n
            if isinstance(a, (tuple, list)) and any(isinstance(e, Value) for e in a):
                inner = ", ".join(ref(e, (path, j), data) for j, e in enumerate(a))
                return f"({inner},)" if isinstance(a, tuple) else f"[{inner}]"
            key = f"A{len(ns)}"
            ns[key] = a
            return key

        grad_values = {id(v) for v in self.inputs if v.requires_grad}
        fwd = ["def forward(" + ", ".join(names[id(v)] for v in self.inputs) + "):"]
        ctx_names = []
        bwd_steps = []
        for k, s in enumerate(self.steps):
            args = ", ".join(ref(a, i, s.data_pos) for i, a in enumerate(s.args))
            outs = [f"v{o.index}" for o in s.outputs]
            grad_step = (self.records and s.kind == "function"
                         and any(o.requires_grad for o in s.outputs))
            if s.kind == "function":
                ns[f"F{k}"] = s.op.forward
                ns[f"N{k}"] = s.needs
                if grad_step:
                    c = f"c{k}"
                    fwd.append(f"    {c} = Ctx(); {c}.needs_input_grad = N{k}")
                    ctx_names.append(c)
                    bwd_steps.append((k, s, c))
                else:
                    c = "Z"
                    fwd.append(f"    Z.needs_input_grad = N{k}")
                call = f"F{k}({c}" + (", " + args if args else "") + ")"
            else:
                ns[f"P{k}"] = s.op
                ns[f"KW{k}"] = s.kwargs
                call = f"P{k}({args}" + (f", **KW{k}" if s.kwargs else "") + ")"
            if s.out_tuple:
                fwd.append(f"    _t = {call}")
                for o in s.outputs:
                    fwd.append(f"    v{o.index} = _t[{o.out_nr}]")
            elif outs:
                fwd.append(f"    {outs[0]} = {call}")
            else:
                fwd.append(f"    {call}")
            for o in s.outputs:
                names[id(o)] = f"v{o.index}"
                if o.requires_grad:
                    grad_values.add(id(o))
        shape_slot = {}
        if self.dynamic:
            # sizes are not fixed: the forward hands the backward the shapes it must sum back to
            for _, s, _ in bwd_steps:
                for _, _, a in s.routed_inputs(grad_values):
                    shape_slot.setdefault(id(a), (len(shape_slot), a))
            if shape_slot:
                fwd.append("    SH = (" + "".join(f"{names[id(a)]}._data.shape, "
                                                   for _, a in shape_slot.values()) + ")")
                ctx_names.append("SH")
        # the shared throwaway ctx lets go of what the last step put in it
        fwd.append("    Z.__dict__.clear()")
        out_list = ", ".join(names[id(v)] for v in self.outputs)
        ctx_list = ", ".join(ctx_names)
        fwd.append(f"    return ({out_list}{',' if len(self.outputs) == 1 else ''}), "
                   f"({ctx_list}{',' if len(ctx_names) == 1 else ''})")
        self.code = "\n".join(fwd) + "\n"

        # the backward plan: reverse order, explicit fan-in, broadcasting undone per edge
        bwd = ["def backward(ctxs" + "".join(f", g{k}" for k in range(len(self.outputs))) + "):"]
        if ctx_names:
            bwd.append(f"    {ctx_list}{',' if len(ctx_names) == 1 else ''} = ctxs")
        gvars = sorted(grad_values)
        gname = {}
        for v in list(self.inputs) + [o for s in self.steps for o in s.outputs]:
            if id(v) in grad_values:
                gname[id(v)] = f"G{v.index}"
        seeded = {}
        for k, v in enumerate(self.outputs):
            if id(v) in gname:
                seeded[gname[id(v)]] = f"g{k}"
        for i in sorted({gname[i] for i in gvars if i in gname}, key=lambda n: int(n[1:])):
            bwd.append(f"    {i} = {seeded.get(i, 'None')}")
        for k, s, c in reversed(bwd_steps):
            outs = [gname.get(id(o), "None") for o in s.outputs]
            if not s.out_tuple and s.outputs:
                grads = f"({outs[0]},)"
                out_meta = None
            else:
                # one gradient slot per output of the forward (None where it gave no tensor)
                slots = ["None"] * (max(o.out_nr for o in s.outputs) + 1)
                for o, g in zip(s.outputs, outs):
                    slots[o.out_nr] = g
                grads = "(" + ", ".join(slots) + ",)"
                out_meta = tuple((o.shape, o.dtype) for o in s.outputs)
            ns[f"S{k}"] = (s.op, out_meta)
            cond = " or ".join(f"{g} is not None" for g in outs if g != "None") or "False"
            bwd.append(f"    if {cond}:  # {s.name}")
            prog = self._programs.get(k)
            if prog:  # traced once (plan.py): its primitives, called directly
                bwd.extend(program_code(k, prog, ns, outs, c))
            elif prog is None and out_meta is None and is_traceable(s.op) and not self.dynamic:
                # (a traced formula bakes sizes in: not for a region whose sizes may change)
                bwd.append(f"        r = RUNT({k}, S{k}, {c}, {grads})")  # traced this time
            else:
                bwd.append(f"        r = RUN(S{k}, {c}, {grads})")
            for pos, edge, a in s.routed_inputs(gname):
                if self.dynamic:
                    ns[f"D{a.index}"] = a.dtype
                    meta = f"(SH[{shape_slot[id(a)][0]}], D{a.index})"
                else:
                    ns[f"M{a.index}"] = (a.shape, a.dtype)
                    meta = f"M{a.index}"
                ns[f"NM{k}"] = s.op._backward_cls.__name__
                bwd.append(f"        {gname[id(a)]} = ACC({gname[id(a)]}, r[{pos}], "
                           f"{meta}, NM{k}, {edge})")
        bwd.append("    Z.__dict__.clear()")
        ret = ", ".join(gname.get(id(v), "None") if v.requires_grad else "None" for v in self.inputs)
        bwd.append(f"    return ({ret}{',' if len(self.inputs) == 1 else ''})")
        self.backward_code = "\n".join(bwd) + "\n"

        exec(compile(self.code, f"<minigrad compiled graph {self.number} forward>", "exec"), ns)
        exec(compile(self.backward_code, f"<minigrad compiled graph {self.number} backward>",
                     "exec"), ns)
        self._forward = ns["forward"]
        self._backward = ns["backward"]
        self._meta = tuple((v.shape, v.dtype) for v in self.inputs)
        self._out_meta = tuple((v.shape, v.dtype) for v in self.outputs)
        self._out_grad = tuple(v.requires_grad for v in self.outputs)
        self._in_grad = tuple(v.requires_grad for v in self.inputs)
        self._np = None
        self.codegen_fallback = None  # why a "numpy" region runs the aot_eager replay instead
        self.codegen_calls = {}  # its steps that call their primitive in the numpy code, and why
        if self.backend == "numpy":
            self._build_numpy()

    def _build_numpy(self):
        """Write the region as numpy source (``codegen_numpy.py``), or note why it falls back."""
        try:
            code, backward_code, ns, saved, calls, takes_tensors, memory = generate(
                self, _ReplayCtx, _run_backward)
        except NoGeneratedForm as e:
            self.codegen_fallback = str(e)
            return
        # the steps with no generated form, which call their primitive: {step index: why}
        self.codegen_calls = calls
        self._np_takes_tensors = takes_tensors
        self.aot_code, self.aot_backward_code = self.code, self.backward_code
        self.code, self.backward_code = code, backward_code
        exec(compile(code, f"<minigrad numpy graph {self.number} forward>", "exec"), ns)
        exec(compile(backward_code, f"<minigrad numpy graph {self.number} backward>", "exec"), ns)
        self._np = (ns["forward"], ns["backward"])
        self._np_backward = ns["backward"]
        # each output's version counter: its own, or, for a view, its memory's: a region
        # input's ("in", i), another output's ("out", k), or one made per call ("new", j)
        pos_in = {id(v): i for i, v in enumerate(self.inputs)}
        pos_out = {id(v): k for k, v in enumerate(self.outputs) if memory[k] is None}
        fresh = {}
        shared = []
        for r in memory:
            shared.append(None if r is None else ("in", pos_in[id(r)]) if id(r) in pos_in else
                          ("out", pos_out[id(r)]) if id(r) in pos_out else
                          ("new", fresh.setdefault(id(r), len(fresh))))
        self._np_shared = tuple(shared) if any(shared) else None
        self._np_fresh = len(fresh)
        # the saved arrays a caller can reach (an input's, an output's): versions checked in
        # backward, as eager checks every saved tensor's; the others only the region sees
        watch = []
        for v in saved:
            w = ("in", pos_in[id(v)]) if id(v) in pos_in else (
                ("out", pos_out[id(v)]) if id(v) in pos_out else
                ("new", fresh[id(v)]) if id(v) in fresh else None)
            if w is not None and w not in watch:
                watch.append(w)
        self._np_watch = tuple(watch)

    # ------------------------------------------------------------ running

    def run(self, tensors):
        """Run the region's forward on ``tensors`` (one per input); returns its output tensors.

        With grad recording, the outputs that require grad get one
        ``CompiledFunctionBackward`` node, ``output_nr`` their position.
        """
        if self._np is not None:
            return self._run_numpy(tensors)
        st = _state
        prev, prev_quiet = st.enabled, st.numpy_quiet
        st.enabled = False
        st.numpy_quiet = True
        quiet = np.errstate(all="ignore")  # PyTorch never warns about inf or nan in arithmetic
        quiet.__enter__()
        try:
            outs, ctxs = self._forward(*tensors)
        finally:
            quiet.__exit__(None, None, None)
            st.enabled, st.numpy_quiet = prev, prev_quiet
        if self.records:
            edges = tuple(_edge(t) if g else (None, 0) for t, g in zip(tensors, self._in_grad))
            meta = self._meta if not self.dynamic else tuple(
                (t._data.shape, t._data.dtype) for t in tensors)
            node = CompiledFunctionBackward(self, ctxs, edges, meta)
            outs = list(outs)
            for k, (t, g) in enumerate(zip(outs, self._out_grad)):
                if g:
                    # a new tensor object over the same values: a step may have saved `t`
                    # itself, and node -> saved t -> node would be a reference cycle
                    t = outs[k] = Tensor._make(t._data, grad_fn=node, vc=t._shared_vc())
                    if k:
                        t._output_nr = k
        return outs

    def _run_numpy(self, tensors):
        arrays = [t._data for t in tensors]
        if not self.codegen_calls:
            outs, saved = _quietly(self._np[0], arrays)
        else:  # a step calls its primitive: recording off, as in the replay
            st = _state
            prev, prev_quiet = st.enabled, st.numpy_quiet
            st.enabled, st.numpy_quiet = False, True
            try:
                outs, saved = (_quietly(self._np[0], arrays + [tensors]) if self._np_takes_tensors
                               else _quietly(self._np[0], arrays))
            finally:
                st.enabled, st.numpy_quiet = prev, prev_quiet
        make = Tensor._make
        shared = self._np_shared
        if shared is not None:
            return self._outputs_sharing(outs, saved, tensors, shared)
        if not self.records:
            return [make(o._data, vc=o._shared_vc()) if isinstance(o, Tensor) else make(o)
                    for o in outs]
        edges = tuple(_edge(t) if g else (None, 0) for t, g in zip(tensors, self._in_grad))
        node = CompiledFunctionBackward(self, saved, edges, self._meta)
        res = []
        for k, (o, g) in enumerate(zip(outs, self._out_grad)):
            if isinstance(o, Tensor):  # made by a step that called its primitive: its version counter
                t = make(o._data, grad_fn=node if g else None, vc=o._shared_vc())
            else:
                t = make(o, grad_fn=node) if g else make(o)
            if k:
                t._output_nr = k
            res.append(t)
        checks = []
        for kind, i in self._np_watch:
            t = tensors[i] if kind == "in" else res[i]
            vc = t._shared_vc()
            checks.append((vc, vc[0], t._data))
        node._np_checks = tuple(checks)
        return res

    def _outputs_sharing(self, outs, saved, tensors, shared):
        """``_run_numpy``'s outputs when some is a view: it shares its memory's version counter.

        As the aot_eager replay's outputs: a view of a region input shares the
        caller's counter (and, when it records no node, has that input as its
        ``_base``); a view of another output, that output's; a view of a value
        only the region sees, one counter made for this call.
        """
        make = Tensor._make
        fresh = [[0] for _ in range(self._np_fresh)]
        records = self.records
        node = None
        if records:
            edges = tuple(_edge(t) if g else (None, 0) for t, g in zip(tensors, self._in_grad))
            node = CompiledFunctionBackward(self, saved, edges, self._meta)
        res = [None] * len(outs)
        for k in sorted(range(len(outs)), key=lambda k: shared[k] is not None):  # roots first
            o, g, w = outs[k], records and self._out_grad[k], shared[k]
            vc, base = None, None
            if isinstance(o, Tensor):  # made by a step that called its primitive
                o, vc = o._data, o._shared_vc()
            elif w is not None:
                kind, i = w
                if kind == "in":
                    vc = tensors[i]._shared_vc()
                    base = None if g else tensors[i]
                else:
                    vc = res[i]._shared_vc() if kind == "out" else fresh[i]
            t = make(o, grad_fn=node if g else None, vc=vc, base=base)
            if k:
                t._output_nr = k
            res[k] = t
        if records:
            checks = []
            for kind, i in self._np_watch:
                vc = (tensors[i] if kind == "in" else res[i])._shared_vc() if kind != "new" \
                    else fresh[i]
                checks.append((vc, vc[0], next(t._data for t in res if t._vc is vc)
                               if kind == "new" else (tensors[i] if kind == "in" else res[i])._data))
            node._np_checks = tuple(checks)
        return res

    @property
    def graph(self):
        """The region as a static graph (TorchScript-style text; ``viz.draw`` draws it)."""
        from .aten import build_graph

        sub = _SubRecording(self, self._rec)
        return build_graph(sub, [_name(v, self._rec) for v in self.inputs])

    def __minigrad_draw__(self, **kwargs):
        from .draw import draw_graph

        return draw_graph(self.graph, **kwargs)


def _name(v, rec):
    if v.source:
        s = v.source
        return s[3:s.index("']")] if s.startswith("L['") else s
    return v.name or f"v{v.index}"


class _SubRecording:
    """A region seen as a recording of its own (for ``build_graph``)."""

    def __init__(self, region, rec):
        self.inputs = region.inputs
        self.steps = region.steps
        self.groups = rec.groups if rec is not None else {}
        self.names = {o: o.name for s in region.steps for o in s.outputs if o.name}
        self.output = tuple(region.outputs)
