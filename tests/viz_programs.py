"""Small programs whose pictures, walks and memory figures must read the same on both libraries.

Each program takes the library module (``minigrad``, or ``torch``) and returns
``{name: text}``: text forms of pictures (``.text``), their Graphviz sources
(``.source``: the picture itself, address-free), walk texts and memory
numbers.  ``tests/on_torch/test_viz_on_torch.py`` runs them on both libraries
and compares (under ``make test-torch``); ``tests/test_viz_fixtures.py``
compares minigrad's with what PyTorch gave when
``tests/fixtures/record_viz_torch.py`` recorded them (under ``make test``,
no PyTorch needed).
"""

from minigrad import memory, viz, widgets


def _picture(out, key, pic):
    out[key] = pic.text
    out[key + ".source"] = pic.source


def seed(torch):
    """x * x + 1: drawn before and after the walk, and the walk itself."""
    out = {}
    x = torch.tensor(3.0, requires_grad=True)
    y = x * x
    z = y + 1.0
    names = {"x": x, "y": y, "z": z}
    _picture(out, "before", viz.draw(z, names=names))
    steps = viz.record_backward(z, names=names)
    out["walk"] = steps.text
    for i in range(len(steps) + 1):
        _picture(out, f"step{i}", steps.draw(i, show_values=True))
    _picture(out, "after_walk", steps.after())
    _picture(out, "drawn_after", viz.draw(z, names=names))
    _picture(out, "drawn_after_values", viz.draw(z, names=names, show_values=True))
    out["grad"] = repr(x.grad)
    out["saved_bytes"] = repr(steps.saved_bytes)
    out["strip"] = viz.strip(steps).text
    try:
        y.grad_fn._saved_self
    except RuntimeError as err:
        out["freed_error"] = str(err)[:80]
    return out


def constants_and_fan_in(torch):
    """x * 2 (a kept constant), exp (a saved result), fan-in at x."""
    out = {}
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    b = x.exp()
    c = (a + b).sum()
    _picture(out, "draw", viz.draw(c, names={"x": x, "a": a, "c": c}))
    steps = viz.record_backward(c, names={"x": x, "a": a, "c": c})
    out["walk"] = steps.text
    _picture(out, "step3", steps.draw(3))
    out["grad"] = repr(x.grad)
    return out


def forward_and_backward(torch):
    """A beginner lesson's two recordings: the forward pass, then the walk back."""
    def walk_in(x):
        y = x ** 2
        z = y + 1
        return z

    out = {}
    trail = viz.record_forward(walk_in, torch.tensor(3.0, requires_grad=True))
    out["forward"] = trail.text
    for k in range(len(trail) + 1):
        _picture(out, f"forward{k}", trail.draw(k, show_values=True))
    walk = viz.record_backward(trail.result, names=trail.names)
    out["backward"] = walk.text
    out["backward_strip"] = viz.strip(walk, show_values=True).text
    out["forward_strip"] = viz.strip(trail, show_values=True).text
    return out


def journey(x):
    if x > 0:
        y = x ** 2
    else:
        y = x * 3
    z = y + 1
    return z


def explore_a_branch(torch):
    """The slider's function on both sides of its ``if``, on leaves of ``torch``."""
    out = {}
    for v in (2.0, -2.0):
        r = widgets.run_explore(journey, library=torch, x=v)
        out[f"text{v}"] = r.text
        _picture(out, f"picture{v}", r.picture)
        _picture(out, f"values{v}", r.draw(show_values=True))
    out["static"] = widgets.explore_static(journey, {"x": (-3.0, 3.0, 0.5, 2.0)},
                                           library=torch).text
    return out


def mse(w, b, x, y):
    return ((w * x + b - y) ** 2).mean()


def running_total(torch):
    """The developer lesson's mistake 1: a total that keeps three graphs, in recording order."""
    x_train = torch.tensor([0.0, 1.0, 2.0, 3.0])
    y_train = torch.tensor([1.0, 3.0, 5.0, 7.0])
    w = torch.tensor(0.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    total = 0.0
    losses = []
    for _ in range(3):
        loss = mse(w, b, x_train, y_train)
        losses.append(loss)
        total = total + loss
        loss.backward()
        with torch.no_grad():
            for p in (w, b):
                p -= 0.05 * p.grad
        w.grad = None
        b.grad = None
    out = {}
    _picture(out, "total", viz.draw(total, names={"w": w, "b": b, "total": total}))
    # one name for the three losses: the total's own steps are the ones they flow into
    _picture(out, "named", viz.draw(total, names={"w": w, "b": b, "total": total,
                                                   "loss": losses}))
    return out


def retained_and_modified(torch):
    """retain_graph keeps the saved values alive; an in-place change shows as modified."""
    out = {}
    x = torch.tensor(3.0, requires_grad=True)
    z = x * x
    z.backward(retain_graph=True)
    _picture(out, "retained", viz.draw(z, names={"x": x, "z": z}))
    steps = viz.record_backward(z, names={"x": x, "z": z})
    out["second_walk"] = steps.text
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    e = (v * 2).exp()
    e.mul_(2)
    out["modified"] = viz.draw(e, names={"v": v}).text
    return out


def matrices(torch):
    """Shapes and large tensors in the walk's text."""
    m = torch.arange(20.0).reshape(4, 5).requires_grad_()
    k = torch.ones(5, 3, requires_grad=True)
    steps = viz.record_backward((m @ k).sum(), names={"m": m, "k": k})
    return {"walk": steps.text}


def memory_figures(torch):
    """Each storage once; what only the graph keeps alive; the meter."""
    out = {}
    w = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(1.0, requires_grad=True)
    x_val = torch.linspace(0.0, 3.0, 1000)
    y_val = 2 * x_val + 1
    val_loss = mse(w, b, x_val, y_val)
    names = {"x_val": x_val, "y_val": y_val, "w": w, "b": b}
    out["saved_bytes"] = str(memory.saved_bytes(val_loss))
    out["saved_memory"] = memory.saved_memory(val_loss, namespace=names).text
    with memory.SavedTensorsMeter() as meter:
        history = []
        for epoch in range(4):
            history.append(mse(w, b, x_val, y_val))
            meter.record(epoch)
    out["meter"] = repr(meter.history)
    out["breakdown"] = meter.breakdown(namespace=dict(names, history=history)).text
    del history
    out["after_del"] = str(meter.bytes_alive)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    out["twice"] = str(memory.saved_bytes(x * x))
    loss = (x * 3).tanh().sum()
    out["walk_bytes"] = repr(viz.record_backward(loss).saved_bytes)
    # an expanded view holds only its base's storage, in first and second order
    with memory.SavedTensorsMeter() as meter:
        x = torch.arange(1.0, 9.0, requires_grad=True).reshape(2, 4)
        z = (x[:, :1].expand(2, 6) ** 2).sin().sum()
        meter.record("forward")
        (g,) = torch.autograd.grad(z, x, create_graph=True)
        meter.record("create_graph")
        out["expand_saved_bytes"] = f"{memory.saved_bytes(z)} {memory.saved_bytes(g)}"
        (g * g).sum().backward()
        meter.record("double backward")
    out["expand_meter"] = repr(meter.history)
    return out


def errors(torch):
    """Errors name what they got in full."""
    import numpy as np

    out = {}
    for key, bad in (("float", 3.0), ("ndarray", np.ones(2))):
        try:
            viz.draw(bad)
        except TypeError as err:
            out[f"draw_{key}"] = str(err)
    try:
        viz.record_backward([1, 2])
    except TypeError as err:
        out["record_backward"] = str(err)
    try:
        memory.saved_bytes("loss")
    except TypeError as err:
        out["saved_bytes"] = str(err)
    return out


PROGRAMS = {f.__name__: f for f in (seed, constants_and_fan_in, forward_and_backward,
                                    explore_a_branch, running_total, retained_and_modified,
                                    matrices, memory_figures, errors)}


def run_all(torch):
    """``{program: {name: text}}`` for every program, on the library ``torch``."""
    return {name: f(torch) for name, f in PROGRAMS.items()}
