"""Random autograd programs for the differential fuzzer (``differential.py``), one per seed.

A program is a list of ``(kind, source)`` steps written with the name
``torch``: ``("assign", "v3 = v1 * v2")`` binds a new tensor,
``("exec", ...)`` runs a statement (an in-place write, a ``no_grad`` block,
``backward()``), ``("eval", "v1.grad")`` looks at a value.  The generator
runs each candidate step in PyTorch as it goes: shapes, dtypes and
``requires_grad`` are read from PyTorch's result, and a step PyTorch rejects
is kept (now and then) as a step that must raise in minigrad too.

Only operations minigrad has are drawn: the fuzzer looks for differences in
what exists, not for what is missing.
"""

import random

__all__ = ["generate"]

FLOATS = (-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0)


class _Gen:
    def __init__(self, seed, torch):
        self.rng = random.Random(seed)
        self.torch = torch
        self.ns = {"torch": torch, "F": torch.nn.functional, "__name__": "__fuzz__"}
        self.program = []
        self.pool = []       # names of the tensors alive
        self.leaves = []     # names of leaves created with requires_grad=True
        self.retained = []   # non-leaves that retain_grad()
        self.count = 0
        self.errors = 0
        self.defined = False  # the custom Functions of _CUSTOM
        self.modules = []     # nn.Linear layers (their parameters' grads are looked at)

    # ---------------------------------------------------------- helpers

    def name(self):
        self.count += 1
        return f"v{self.count}"

    def t(self, name):
        return self.ns[name]

    def value(self, kind="float"):
        r = self.rng
        if kind == "int":
            return r.randint(-3, 3)
        if kind == "bool":
            return r.random() < 0.5
        if kind == "unit":
            return r.choice((0.0, 0.25, 0.5, 0.75, 1.0))
        if kind == "pos":
            return r.choice((0.25, 0.5, 1.0, 1.5, 2.0, 3.0))
        if r.random() < 0.7:
            return r.choice(FLOATS)
        return round(r.uniform(-3, 3), 2)

    def literal(self, shape, kind="float"):
        if not shape:
            return repr(self.value(kind))
        return "[" + ", ".join(self.literal(shape[1:], kind) for _ in range(shape[0])) + "]"

    def shape(self, max_dims=3):
        r = self.rng
        return tuple(r.randint(1, 4) for _ in range(r.randint(0, max_dims)))

    def constant(self, shape, kind="float", dtype=None):
        d = "" if dtype is None else f", dtype=torch.{dtype}"
        if kind == "int":
            d = ", dtype=torch.int64" if dtype is None else d
        return f"torch.tensor({self.literal(shape, kind)}{d})"

    def pick(self, pred=None):
        names = [n for n in self.pool if pred is None or pred(self.t(n))]
        if not names:
            return None
        # favour recent tensors: programs then build chains, not only fans
        weights = [1 + i for i in range(len(names))]
        return self.rng.choices(names, weights)[0]

    @staticmethod
    def is_float(t):
        return t.dtype.is_floating_point

    def dim(self, t, allow_bad=True):
        n = t.dim()
        if n == 0 or (allow_bad and self.rng.random() < 0.04):
            return self.rng.choice((0, -1, n, 2))
        return self.rng.randint(-n, n - 1)

    def broadcastable(self, shape):
        """A shape that broadcasts with ``shape``: itself, a suffix, or with some dims 1."""
        r = self.rng
        s = list(shape)
        choice = r.random()
        if choice < 0.3 or not s:
            return tuple(s)
        if choice < 0.5:
            return tuple(s[r.randint(0, len(s)):])
        return tuple(1 if r.random() < 0.4 else d for d in s)

    # --------------------------------------------------------- running

    def run(self, kind, src, keep_errors=0.25):
        """Try ``src`` in PyTorch; keep it (True) if it ran, or now and then if it raised."""
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                if kind == "eval":
                    eval(src, self.ns)  # noqa: S307
                else:
                    exec(src, self.ns)  # noqa: S102
            except Exception:  # noqa: BLE001
                self.torch.set_grad_enabled(True)
                if self.errors < 3 and self.rng.random() < keep_errors:
                    self.errors += 1
                    self.program.append(("exec" if kind == "assign" else kind, src))
                return False
        self.program.append((kind, src))
        return True

    def assign(self, expr, keep_errors=0.25):
        name = self.name()
        if self.run("assign", f"{name} = {expr}", keep_errors):
            if isinstance(self.ns.get(name), self.torch.Tensor):
                self.pool.append(name)
            return name
        return None

    # ---------------------------------------------------------- steps

    def leaf(self):
        r = self.rng
        shape = self.shape()
        dtype = r.choices(("float32", "float64", "int64", "bool"), (6, 2, 1, 0.5))[0]
        kind = {"int64": "int", "bool": "bool"}.get(dtype, "float")
        rg = dtype.startswith("float") and r.random() < 0.8
        d = "" if dtype == "float32" or kind != "float" else ", dtype=torch.float64"
        if kind == "int":
            d = ""
        name = self.assign(f"torch.tensor({self.literal(shape, kind)}{d}"
                           f"{', requires_grad=True' if rg else ''})", keep_errors=0)
        if name and rg:
            self.leaves.append(name)

    def unary(self):
        a = self.pick()
        if a is None:
            return
        r = self.rng
        ops = ["{a}.exp()", "{a}.log()", "{a}.sqrt()", "{a}.sin()", "{a}.cos()", "{a}.tanh()",
               "{a}.sigmoid()", "{a}.relu()", "{a}.abs()", "-{a}", "{a}.neg()", "{a}.square()",
               "{a}.reciprocal()", "{a} ** 2", "{a} ** 3", "{a} ** 0.5", "{a} ** -1", "2 ** {a}",
               "{a}.pow(1.5)", "torch.exp({a})", "torch.tanh({a})", "F.relu({a})",
               "torch.sigmoid({a})", "abs({a})", "{a}.clamp({lo}, {hi})", "{a}.clamp(min={lo})",
               "{a}.clamp(max={hi})", "{a}.clamp_min({lo})", "{a}.clamp_max({hi})",
               "torch.clamp({a}, {lo}, {hi})", "{a}.float()", "{a}.double()", "{a}.detach()",
               "{a}.clone()", "{a}.contiguous()", "{a} * 2", "3 - {a}", "{a} / 4", "2 / {a}",
               "{a} + 0.5", "{a}.to(torch.float64)", "{a}.long()", "{a}.bool()", "{a} > 0",
               "{a} == {a}", "~({a} > 1)", "torch.isnan({a})", "{a}.square().sqrt()",
               "torch.where({a} > 0, {a}, {a} * 0.1)", "{a}.type_as({b})", "{a}.norm()",
               "{a}.floor()", "{a}.ceil()", "{a}.trunc()", "torch.fix({a})", "{a}.round()",
               "{a}.round(decimals=1)", "torch.round({a}, decimals=-1)", "{a}.frac()", "{a}.sign()",
               "torch.sign({a})", "{a}.log1p()", "{a}.expm1()", "{a}.log2()", "torch.log10({a})",
               "{a} * {a}.round()"]
        lo = self.value()
        hi = lo + self.value("pos")
        b = self.pick() or a
        self.assign(r.choice(ops).format(a=a, b=b, lo=lo, hi=hi))

    def binary(self):
        a = self.pick()
        if a is None:
            return
        r = self.rng
        ta = self.t(a)
        if r.random() < 0.5:
            b = self.pick(lambda t: _broadcasts(t.shape, ta.shape)) or a
        else:
            shape = self.broadcastable(tuple(ta.shape))
            if r.random() < 0.2:
                shape = shape[::-1]  # sometimes one that does not broadcast
            b = self.constant(shape, r.choice(("float", "float", "pos", "int")))
        op = r.choice(("{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / {b}", "{b} * {a}",
                       "torch.add({a}, {b}, alpha=2)", "torch.sub({a}, {b})",
                       "torch.maximum({a}, {b})", "torch.minimum({a}, {b})",
                       "torch.where({a} > {b}, {a}, {b})", "{a} % {b}", "{a} // {b}",
                       "{a} ** {b}", "{a}.abs() ** {b}", "torch.clamp({a}, min={b})",
                       "{a}.clamp({b}, {b} + 1)", "{a}.clamp_max({b})", "{a} * {b} + {a}",
                       "torch.mul({a}, {b})", "torch.div({a}, {b})", "{a} < {b}",
                       "torch.div({a}, {b}, rounding_mode='floor')",
                       "{a}.div({b}, rounding_mode='trunc')", "torch.divide({a}, {b}, rounding_mode=None)",
                       "torch.fmax({a}, {b})", "{a}.fmin({b})", "torch.atan2({a}, {b})", "{a}.arctan2({b})",
                       "torch.lerp({a}, {b}, 0.3)", "{a}.lerp({b}, 0.75)", "torch.lerp({a}, {b}, {a}.sigmoid())",
                       "torch.addcmul({a}, {a}, {b}, value=0.5)", "{a}.addcmul({b}, {b})",
                       "torch.addcdiv({a}, {b}, {a}.abs() + 1, value=-2)", "{b}.addcdiv({a}, {b})"))
        self.assign(op.format(a=a, b=b))

    def reduction(self):
        a = self.pick()
        if a is None:
            return
        r = self.rng
        ta = self.t(a)
        d = self.dim(ta)
        k = r.random() < 0.4
        ops = ["{a}.sum()", "{a}.sum({d})", "{a}.sum({d}, keepdim={k})", "{a}.mean()",
               "{a}.mean({d}, keepdim={k})", "{a}.prod()", "{a}.prod({d}, keepdim={k})",
               "{a}.amax()", "{a}.amax({d}, keepdim={k})", "{a}.amin({d})", "{a}.max()",
               "{a}.min()", "{a}.max({d})[0]", "{a}.min({d}, keepdim={k}).values",
               "{a}.max({d}).indices", "{a}.logsumexp({d})", "{a}.softmax({d})",
               "{a}.log_softmax({d})", "F.softmax({a}, dim={d})", "{a}.var()", "{a}.std({d})",
               "{a}.var({d}, keepdim={k}, correction=0)", "{a}.norm()", "{a}.norm(dim={d})",
               "torch.sum({a}, dim=({d},))", "{a}.argmax()", "{a}.argmin({d})",
               "{a}.sum(dim=(0, -1))", "torch.mean({a}, {d})", "{a}.sort({d}).values",
               "{a}.sort({d}, descending=True)[0]", "{a}.argsort({d})", "{a}.topk(1, {d}).values",
               "{a}.all()", "{a}.any({d})", "torch.logsumexp({a}, {d}, keepdim={k})",
               "{a}.max(dim={d}, keepdim={k})[0]", "{a}.nansum()", "{a}.nansum({d}, keepdim={k})",
               "torch.nansum({a}.log(), dim=({d},))", "{a}.nanmean()", "{a}.log().nanmean({d}, keepdim={k})",
               "{a}.median()", "{a}.median({d}).values", "torch.median({a}, {d}, keepdim={k})[0]",
               "{a}.median({d}).indices", "{a}.cumsum({d})", "torch.cumsum({a}, dim={d}, dtype=torch.float64)",
               "{a}.cumprod({d})", "{a}.count_nonzero()", "torch.count_nonzero({a}, {d})", "torch.nonzero({a})",
               "{a}.nonzero(as_tuple=True)[0]", "torch.argwhere({a})"]
        op = r.choice(ops)
        if "median({d}" in op and any(st == 0 and n > 1 for st, n in zip(ta.stride(), ta.shape)):
            # PyTorch 2.13 reads past the values along a dim of stride 0 (an expanded
            # input: the README's differences by design); minigrad gives the median
            return
        if op.endswith("median({d}).indices") and self._ties(ta):
            # which of several equal medians is returned is unspecified (torch.median's
            # note), and PyTorch's pick on an expanded input is not the first: draw values
            op = op.replace(".indices", ".values")
        if ("sort" in op or "topk" in op) and self._ties(ta):
            # PyTorch leaves the order of ties unspecified (its note on topk, and sort
            # without stable=True): draw only the stable sort on tied values
            if "topk" in op:
                return
            op = op.replace("({d}", "(dim={d}, stable=True")  # stable= takes keywords only
        self.assign(op.format(a=a, d=d, k=k))

    def _ties(self, t):
        try:
            flat = t.detach().flatten()
            if flat.is_floating_point() and int(flat.isnan().sum()) > 1:
                return True  # (unique() counts each nan apart; to sort and topk they tie)
            return t.numel() > 1 and flat.unique().numel() < t.numel()
        except Exception:  # noqa: BLE001 - bool or 0-d odd cases: assume ties
            return True

    def shape_op(self):
        a = self.pick()
        if a is None:
            return
        r = self.rng
        ta = self.t(a)
        shape = tuple(ta.shape)
        n = len(shape)
        d, d2 = self.dim(ta), self.dim(ta)
        perm = list(range(n))
        r.shuffle(perm)
        numel = 1
        for s in shape:
            numel *= s
        target = _factor(numel, r)
        ops = [f"{a}.reshape(-1)", f"{a}.reshape({target})", f"{a}.view({target})",
               f"{a}.view(-1)", f"{a}.flatten()", f"{a}.unsqueeze({d})", f"{a}.unsqueeze(-1)",
               f"{a}.squeeze()", f"{a}.squeeze({d})", f"{a}.transpose({d}, {d2})",
               f"{a}.permute({tuple(perm)})", f"{a}.flip({d})", f"{a}.repeat({(2,) + (1,) * n})",
               f"{a}.expand({(2,) + shape})", f"{a}.movedim({d}, {d2})", f"{a}.t()",
               f"{a}.T", f"{a}.mT", f"{a}.contiguous()", f"torch.cat([{a}, {a}], {d})",
               f"torch.stack([{a}, {a} * 2], {r.randint(0, n)})", f"{a}.unbind({d})[0]",
               f"{a}.chunk(2, {d})[0]", f"{a}.split(1, {d})[-1]", f"{a}.narrow({d}, 0, 1)",
               f"{a}.select({d}, 0)", f"{a}.diag()", f"{a}.diagonal()", f"{a}.squeeze((0,))",
               f"{a}.flatten(1)", f"{a}.expand_as({a})", f"{a}.reshape_as({a})",
               f"{a}.unsqueeze(0).expand({(3,) + shape}).sum(0)", f"{a}.tril()", f"{a}.triu(1)",
               f"torch.tril({a}, -1)", f"{a}.triu(diagonal=-2)", f"{a}.roll(1)", f"{a}.roll(-2, {d})",
               f"torch.roll({a}, ({d}, 1), ({d}, {d2}))", f"torch.outer({a}.flatten(), {a}.flatten()[:2])"]
        self.assign(r.choice(ops))

    def index(self):
        a = self.pick(lambda t: t.dim() > 0 and t.shape[0] > 0)
        if a is None:
            return
        r = self.rng
        ta = self.t(a)
        s0 = ta.shape[0]
        i = r.randint(-s0, s0 - 1) if r.random() > 0.05 else s0
        lst = [r.randint(0, s0 - 1) for _ in range(r.randint(1, 3))]
        ops = [f"{a}[{i}]", f"{a}[{lst}]", f"{a}[1:]", f"{a}[:1]", f"{a}[::2]", f"{a}[...]",
               f"{a}[None]", f"{a}[..., 0]", f"{a}[{a} > 0]" if self.is_float(ta) else f"{a}[0:]",
               f"{a}[torch.tensor({lst})]", f"{a}[-1:]", f"{a}[:, 0]", f"{a}[0:{s0}]",
               f"{a}[()]", f"{a}[:, :]", f"{a}[:, None]", f"{a}[{i}:{i + 2}]",
               f"{a}.index_select(0, torch.tensor({lst}))",
               f"{a}.gather(0, torch.tensor({lst}).reshape({[len(lst)] + [1] * (ta.dim() - 1)})"
               f".expand({[len(lst)] + list(ta.shape[1:])}))"]
        self.assign(r.choice(ops))

    def product(self):
        a = self.pick(lambda t: t.dim() > 0 and t.dtype.is_floating_point)
        if a is None:
            return
        r = self.rng
        ta = self.t(a)
        shape = tuple(ta.shape)
        k = shape[-1]
        dt = "float64" if ta.dtype == self.torch.float64 else None
        choice = r.random()
        if choice < 0.25:
            other = self.constant((k,), dtype=dt)
        elif choice < 0.6:
            other = self.constant((k, r.randint(1, 3)), dtype=dt)
        elif choice < 0.8:
            other = self.constant((r.randint(1, 2), k, r.randint(1, 3)), dtype=dt)
        else:
            other = self.pick(lambda t: t.dim() > 0 and t.shape[0] == k and t.dtype == ta.dtype)
            if other is None:
                other = self.constant((k, 2), dtype=dt)
        src = r.choice((f"{a} @ {other}", f"torch.matmul({a}, {other})"))
        if r.random() < 0.3 and ta.dim() >= 2:
            src = f"{a}.mT @ {a}"  # a transposed (non-contiguous) left operand
        if r.random() < 0.15 and ta.dim() == 2:
            src = r.choice((f"{a}.mm({a}.t())", f"{a}.t().mv({a}[0])", f"{a}[0].dot({a}[-1])",
                            f"torch.addmm({self.constant((shape[0], 1))}, {a}, {a}.t())"))
        self.assign(src)

    def inplace(self):
        a = self.pick()
        if a is None:
            return
        r = self.rng
        ta = self.t(a)
        new = self.assign(f"{a}.clone()" if r.random() < 0.8 else f"{a} * 1")
        if new is None:
            return
        shape = tuple(ta.shape)
        val = self.constant(self.broadcastable(shape), "float") if r.random() < 0.5 else self.value()
        idx = "0" if shape and r.random() < 0.5 else ("..." if not shape else ":1")
        ops = [f"{new}.add_({val})", f"{new}.mul_({val})", f"{new}.sub_({val}, alpha=2)",
               f"{new}.div_(2)", f"{new}.clamp_({self.value()}, 3)", f"{new}.relu_()",
               f"{new}.exp_()", f"{new}.sigmoid_()", f"{new}.tanh_()", f"{new}.neg_()",
               f"{new}.zero_()", f"{new}.fill_({self.value()})", f"{new}.pow_(2)",
               f"{new}[{idx}] = {self.value()}", f"{new}[{idx}] = {a}[{idx}] * 2",
               f"{new}[{idx}].mul_(3)", f"{new}.copy_({a} * 2)", f"{new} += 1", f"{new} *= {a}",
               f"F.relu({new}, inplace=True)", f"{new}.clamp_min_(0)", f"{new}.abs_()",
               f"{new}.sqrt_()", f"{new}.index_add_(0, torch.tensor([0]), {new}[:1] * 2)"
               if shape else f"{new}.add_(1)", f"{new}.floor_()", f"{new}.round_(decimals=1)",
               f"{new}.sign_()", f"{new}.frac_()", f"{new}.log1p_()", f"{new}.expm1_()",
               f"{new}.cumsum_(0)", f"{new}.cumprod_(-1)", f"{new}.tril_()", f"{new}.triu_(1)",
               f"{new}.lerp_({a}, 0.5)", f"{new}.addcmul_({a}, {a}, value=2)", f"{new}.addcdiv_({a}, {a})",
               f"{new}.atan2_({a})"]
        if self.run("exec", r.choice(ops)):
            self.program.append(("eval", new))
        if r.random() < 0.2 and a in self.leaves:
            # a leaf written under no_grad (an optimizer's step); its views go on
            if self.run("exec", f"with torch.no_grad():\n    {a}.mul_(0.5)"):
                self.program.append(("eval", a))

    def no_grad(self):
        a = self.pick()
        if a is None:
            return
        name = self.name()
        op = self.rng.choice(("{a} * 2", "{a}.exp()", "{a}[0]" if self.t(a).dim() else "{a} + 1",
                              "{a}.sum()", "{a}.detach()", "{a}.view(-1)"))
        if self.run("exec", f"with torch.no_grad():\n    {name} = {op.format(a=a)}"):
            self.pool.append(name)
            self.program.append(("eval", name))

    def loss(self):
        a = self.pick(lambda t: t.dtype.is_floating_point and t.dim() > 0)
        if a is None:
            return
        r = self.rng
        ta = self.t(a)
        shape = tuple(ta.shape)
        target = self.constant(shape, "unit", "float64" if ta.dtype == self.torch.float64 else None)
        if ta.dim() == 2:
            cls = [r.randint(0, shape[1] - 1) for _ in range(shape[0])]
            ce = f"F.cross_entropy({a}, torch.tensor({cls}))"
            nll = f"F.nll_loss({a}.log_softmax(1), torch.tensor({cls}), reduction='sum')"
        else:
            ce = nll = f"F.mse_loss({a}, {target})"
        red = r.choice(("'mean'", "'sum'", "'none'"))
        self.assign(r.choice((ce, nll, f"F.mse_loss({a}, {target}, reduction={red})",
                              f"F.binary_cross_entropy_with_logits({a}, {target}, reduction={red})",
                              f"F.binary_cross_entropy({a}.sigmoid(), {target})",
                              f"torch.nn.MSELoss()({a}, {target})",
                              f"torch.nn.BCEWithLogitsLoss()({a}, {target})")))

    def misc(self):
        r = self.rng
        a = self.pick()
        if a is None:
            return
        ta = self.t(a)
        choice = r.random()
        try:
            has_grad_fn = ta.grad_fn is not None
        except RuntimeError:
            # a no_grad view whose base was written in place: reading its grad_fn raises
            # (PyTorch's "A view was created in no_grad mode ..."); retain_grad is no step for it
            has_grad_fn = False
        if choice < 0.4 and has_grad_fn:
            if self.run("exec", f"{a}.retain_grad()"):
                self.retained.append(a)
        elif choice < 0.6 and ta.requires_grad and ta._base is None:
            # (not on a view: PyTorch 2.13 crashes with a segmentation fault on
            # register_hook of a view that was written in place)
            self.run("exec", f"_h = {a}.register_hook(lambda g: g * 2)")
        elif choice < 0.8:
            self.assign(f"{a}.detach().requires_grad_()" if self.is_float(ta) else f"{a} * 1")
        else:
            self.program.append(("eval", f"({a}.requires_grad, {a}.is_leaf, {a}.shape == {a}.size())"))

    def views(self):
        a = self.pick(lambda t: t.dim() > 0 and t.shape[0] > 1 and t.dtype.is_floating_point)
        if a is None:
            return
        r = self.rng
        base = self.assign(f"{a}.clone()" if r.random() < 0.7 else f"{a} * 1")
        if base is None:
            return
        t = self.t(base)
        view = r.choice((f"{base}[1:]", f"{base}[0]", f"{base}.view(-1)",
                         f"{base}.t()" if t.dim() == 2 else f"{base}[..., :1]",
                         f"{base}.unsqueeze(0)", f"{base}[::2]", f"{base}.diagonal()"
                         if t.dim() == 2 else f"{base}[:1]"))
        v = self.assign(view)
        if v is None:
            return
        op = r.choice((f"{v}.mul_(2)", f"{v}.add_({self.value()})", f"{v}[0] = {self.value()}"
                       if self.t(v).dim() else f"{v}.zero_()", f"{v}.exp_()", f"{v}.clamp_(-1, 1)",
                       f"with torch.no_grad():\n    {v}.mul_(3)", f"{base}.mul_(0.5)",
                       f"with torch.no_grad():\n    {base}.add_(1)"))
        if self.run("exec", op):
            self.program.append(("eval", base))
            self.program.append(("eval", v))

    def custom(self):
        a = self.pick(lambda t: t.dtype.is_floating_point)
        if a is None:
            return
        if not self.defined:
            self.defined = True
            self.program.append(("exec", _CUSTOM))
            exec(_CUSTOM, self.ns)  # noqa: S102
        self.assign(self.rng.choice((f"Square.apply({a})", f"ScaleTwo.apply({a}, 1.5)[0]",
                                     f"ScaleTwo.apply({a}, -2.0)[1]", f"Inplace.apply({a} * 1)",
                                     f"Square.apply(Square.apply({a}))")))

    def grads_midway(self):
        a = self.pick(lambda t: t.requires_grad and t.dtype.is_floating_point)
        leaves = [n for n in self.leaves if n in self.pool]
        if a is None or not leaves:
            return
        r = self.rng
        chosen = r.sample(leaves, min(len(leaves), r.randint(1, 2)))
        create = r.random() < 0.3
        name = self.name()
        if create:
            name = "g" + name[1:]  # a gradient with a graph of its own (the fuzzer's graph2)
        if self.run("exec", f"{name} = torch.autograd.grad(({a} * {a}).sum(), [{', '.join(chosen)}], "
                            f"retain_graph=True, allow_unused=True, create_graph={create})",
                    keep_errors=1):
            self.program.append(("eval", name))

    def module(self):
        a = self.pick(lambda t: t.dim() > 0 and t.dtype == self.torch.float32)
        if a is None:
            return
        k = self.t(a).shape[-1]
        name = self.name()
        out = self.rng.randint(1, 3)
        src = (f"{name} = torch.nn.Linear({k}, {out})\nwith torch.no_grad():\n"
               f"    {name}.weight.copy_({self.constant((out, k))})\n"
               f"    {name}.bias.fill_({self.value()})")
        if self.run("exec", src, keep_errors=0):
            self.modules.append(name)
            self.assign(self.rng.choice((f"{name}({a})", f"torch.relu({name}({a}))",
                                         f"torch.nn.Sequential({name}, torch.nn.Tanh())({a})")))

    # ---------------------------------------------------------- finish

    def finish(self):
        r = self.rng
        out = self.pick(lambda t: t.requires_grad and t.dtype.is_floating_point)
        if out is None:
            return
        shape = tuple(self.t(out).shape)
        w = self.constant(shape)
        if not self.run("assign", f"loss = ({out} * {w}).sum()", keep_errors=0):
            return
        second = r.random() < 0.2
        leaf_vars = [n for n in self.leaves if n in self.pool]
        if second and leaf_vars:
            x = r.choice(leaf_vars)
            if self.run("exec", f"(g,) = torch.autograd.grad(loss, {x}, create_graph=True, "
                                f"allow_unused=True)", keep_errors=1):
                self.program.append(("eval", "g"))
                self.run("exec", f"(g * {self.constant(tuple(self.t(x).shape))}).sum().backward()"
                         f" if g is not None and g.requires_grad else None", keep_errors=1)
        else:
            retain = r.random() < 0.3
            inputs = ""
            if leaf_vars and r.random() < 0.2:
                inputs = f"inputs=[{r.choice(leaf_vars)}]"
            args = ", ".join(a for a in ("retain_graph=True" if retain else "", inputs) if a)
            self.run("exec", f"loss.backward({args})", keep_errors=1)
            if r.random() < 0.5:
                self.run("exec", "loss.backward()", keep_errors=1)  # again: accumulates or raises
        for n in leaf_vars + self.retained:
            self.program.append(("eval", f"{n}.grad"))
        for m in self.modules:
            self.program.append(("eval", f"{m}.weight.grad"))
            self.program.append(("eval", f"{m}.bias.grad"))


def _broadcasts(a, b):
    for x, y in zip(reversed(tuple(a)), reversed(tuple(b))):
        if x != y and x != 1 and y != 1:
            return False
    return True


def _factor(n, r):
    """A random shape with ``n`` elements (one or two dims, sometimes a -1)."""
    if n == 0:
        return (0,)
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    d = r.choice(divisors)
    if r.random() < 0.3:
        return (d, -1)
    return (d, n // d)


_STEPS = (("unary", 5), ("binary", 5), ("reduction", 3), ("shape_op", 4), ("index", 3),
          ("product", 2), ("inplace", 2), ("no_grad", 1), ("loss", 1), ("misc", 1), ("leaf", 1),
          ("views", 1.5), ("custom", 1), ("grads_midway", 0.7), ("module", 0.7))

# Custom Functions a program may use (defined once, when first used)
_CUSTOM = """class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g
class ScaleTwo(torch.autograd.Function):
    @staticmethod
    def forward(x, k):
        return x * k, x.exp()
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]
        ctx.save_for_backward(output[1])
    @staticmethod
    def backward(ctx, g1, g2):
        (e,) = ctx.saved_tensors
        return g1 * ctx.k + g2 * e, None
class Inplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g * 2"""


def generate(seed, torch):
    """The program of ``seed`` (a list of ``(kind, source)`` steps), PyTorch as the oracle."""
    g = _Gen(seed, torch)
    torch.manual_seed(seed)
    for _ in range(g.rng.randint(1, 3)):
        g.leaf()
    names, weights = zip(*_STEPS)
    for _ in range(g.rng.randint(3, 14)):
        try:
            getattr(g, g.rng.choices(names, weights)[0])()
        except (ValueError, IndexError, ZeroDivisionError):
            pass  # the generator met a shape it cannot use (an empty dim): next step
    g.finish()
    torch.set_grad_enabled(True)
    return g.program
