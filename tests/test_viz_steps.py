"""minigrad.viz.record_backward / record_forward: the walk itself, step by step.

The seed example (x = 3, y = x * x, z = y + 1) and a fan-in example are
checked against what PyTorch 2.13's engine does, observed with node pre- and
post hooks on the same graphs:

    seed:   AddBackward0 (1.) -> MulBackward0 (1.; sends 3. and 3.) -> AccumulateGrad (6.)
    fan-in: a = x * 2; b = a * a + a, x = 3:
            AddBackward0 (1.) -> MulBackward0 a*a (1.; sends 6., 6.)
            -> MulBackward0 x*2 (13. = 1. + 6. + 6., once) -> AccumulateGrad (26.)
"""

import re

import numpy as np
import pytest

import minigrad as mg
from minigrad import viz
from minigrad.autograd.graph import AccumulateGrad


def seed():
    x = mg.tensor(3.0, requires_grad=True)
    y = x * x
    z = y + 1.0
    return x, y, z


def fan_in():
    x = mg.tensor(3.0, requires_grad=True)
    a = x * 2
    b = a * a + a
    return x, a, b


def val(t):
    return None if t is None else t.tolist()


# ------------------------------------------------------------ record_backward

def test_seed_walk_order_names_and_values():
    x, y, z = seed()
    add, mul = z.grad_fn, y.grad_fn
    acc = mul.next_functions[0][0]
    steps = viz.record_backward(z, names={"x": x, "y": y, "z": z})
    assert len(steps) == 3
    assert steps.names == ["AddBackward0", "MulBackward0", "AccumulateGrad"]
    assert [s.node for s in steps] == [add, mul, acc]
    assert [s.index for s in steps] == [1, 2, 3]
    s1, s2, s3 = steps
    # AddBackward0: gets the seed 1., sends 1. to y's node and nothing to the constant
    assert val(s1.received) == 1.0
    assert [val(g) for g in s1.sent] == [1.0, None]
    assert s1.sent_to == ("y", "constant")
    assert s1.freed == () and s1.grad_updates == ()
    # MulBackward0: 1. in, 3. and 3. out (one per use of x), frees self and other
    assert val(s2.received) == 1.0
    assert [val(g) for g in s2.sent] == [3.0, 3.0]
    assert s2.sent_to == ("x", "x")
    assert s2.freed == ("self", "other")
    # AccumulateGrad runs ONCE with the fan-in sum 3. + 3. = 6.
    assert isinstance(s3.node, AccumulateGrad) and s3.name == "AccumulateGrad"
    assert val(s3.received) == 6.0
    assert [(i, nr, val(g)) for i, nr, g in s3.received_from] == [(2, 0, 3.0), (2, 0, 3.0)]
    assert s3.sent == ()
    (update,) = s3.grad_updates
    assert update.name == "x" and update.before is None and val(update.after) == 6.0
    # the walk was real
    assert val(x.grad) == 6.0
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        mul._saved_self


def test_seed_texts():
    x, y, z = seed()
    steps = viz.record_backward(z, names={"x": x, "y": y, "z": z})
    assert steps.texts == [
        "AddBackward0 received 1., sent 1. and None",
        "MulBackward0 received 1., sent 3. and 3., freed self and other",
        "AccumulateGrad received 3. + 3. = 6., set x.grad to 6.",
    ]
    assert steps.text == (
        "backward walk from z (seeded with 1.): 3 nodes run (2 recorded, 1 AccumulateGrad)\n"
        "  1. AddBackward0 received 1., sent 1. and None\n"
        "  2. MulBackward0 received 1., sent 3. and 3., freed self and other\n"
        "  3. AccumulateGrad received 3. + 3. = 6., set x.grad to 6."
    )
    assert repr(steps) == steps.text
    assert steps.start.text == "before the walk: backward() starts at z with gradient 1."
    assert steps[1].caption == ("backward 2 of 3: MulBackward0 received 1., sent 3. and 3., "
                                "freed self and other")
    assert repr(steps[1]) == steps[1].caption


def test_fan_in_sums_before_the_node_runs_once():
    x, a, b = fan_in()
    mul_a = a.grad_fn  # x * 2
    steps = viz.record_backward(b, names={"x": x, "a": a, "b": b})
    assert steps.names == ["AddBackward0", "MulBackward0", "MulBackward0", "AccumulateGrad"]
    assert [s.node for s in steps].count(mul_a) == 1  # runs once, with the sum
    add, sq, s_a, acc = steps
    assert [val(g) for g in add.sent] == [1.0, 1.0]
    assert [val(g) for g in sq.sent] == [6.0, 6.0]
    assert s_a.node is mul_a
    assert val(s_a.received) == 13.0
    assert sorted(val(g) for _i, _nr, g in s_a.received_from) == [1.0, 6.0, 6.0]
    assert [i for i, _nr, _g in s_a.received_from] == [1, 2, 2]
    assert [val(g) for g in s_a.sent] == [26.0, None]  # nothing to the constant 2
    assert s_a.freed == ("other",)  # x * 2 saved only the 2
    assert val(acc.received) == 26.0 and val(x.grad) == 26.0
    assert steps.texts == [
        "AddBackward0 received 1., sent 1. and 1.",
        "MulBackward0 (#2) received 1., sent 6. and 6., freed self and other",
        "MulBackward0 (#1) received 1. + 6. + 6. = 13., sent 26. and None, freed other",
        "AccumulateGrad received 26., set x.grad to 26.",
    ]


def test_received_and_sent_are_copies():
    x, _y, z = seed()
    steps = viz.record_backward(z)
    x.grad.zero_()  # changing .grad afterwards does not change the recording
    assert val(steps[2].grad_updates[0].after) == 6.0
    assert steps[2].received is not x.grad


def test_retain_graph_keeps_and_accumulates():
    x = mg.tensor(3.0, requires_grad=True)
    z = x * x
    first = viz.record_backward(z, retain_graph=True, names={"x": x, "z": z})
    assert first[0].freed == () and first[0].kept == ("self", "other")
    assert first.texts == [
        "MulBackward0 received 1., sent 3. and 3., kept self and other (retain_graph=True)",
        "AccumulateGrad received 3. + 3. = 6., set x.grad to 6.",
    ]
    second = viz.record_backward(z, names={"x": x, "z": z})
    assert second[0].freed == ("self", "other")
    assert second[1].text == "AccumulateGrad received 3. + 3. = 6., added it to x.grad: 6. -> 12."
    assert val(x.grad) == 12.0
    with pytest.raises(RuntimeError, match="second time"):
        viz.record_backward(z)


def test_hooks_are_removed_also_after_an_error():
    x = mg.tensor(3.0, requires_grad=True)
    z = x * x
    z.backward()
    node = z.grad_fn
    with pytest.raises(RuntimeError, match="second time"):
        viz.record_backward(z)
    assert not node._pre_hooks and not node._post_hooks
    y = x * x
    viz.record_backward(y)
    assert not y.grad_fn._pre_hooks and not y.grad_fn._post_hooks
    acc = y.grad_fn.next_functions[0][0]
    assert not acc._pre_hooks and not acc._post_hooks


def test_learner_hooks_still_run_and_are_seen():
    x = mg.tensor(3.0, requires_grad=True)
    y = x * x
    y.register_hook(lambda g: g * 10)
    z = y + y
    steps = viz.record_backward(z, names={"x": x, "y": y})
    assert steps[1].text == ("MulBackward0 received 20. (a hook changed 1. + 1.), sent 60. and 60., "
                             "freed self and other")
    assert val(x.grad) == 120.0


def test_vectors_and_big_tensors_print_compactly():
    w = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    steps = viz.record_backward((w * w).sum(), names={"w": w})
    assert steps.texts[2] == ("AccumulateGrad received [1., 2., 3.] + [1., 2., 3.] = [2., 4., 6.], "
                              "set w.grad to [2., 4., 6.]")
    e = viz.record_backward(w.exp(), gradient=mg.ones(3), names={"w": w})
    assert e.texts[0] == ("ExpBackward0 received [1., 1., 1.], sent [2.7183, 7.3891, 20.0855], "
                          "freed result")
    assert e.texts[1].endswith("added it to w.grad: [2., 4., 6.] -> [4.7183, 11.3891, 26.0855]")
    mg.manual_seed(0)
    m = mg.randn(4, 5, requires_grad=True)
    b = mg.randn(5, 3, requires_grad=True)
    steps = viz.record_backward((m @ b).sum(), names={"m": m, "b": b})
    assert steps.texts == [
        "SumBackward0 received 1., sent a (4, 3) tensor",
        "MmBackward0 received a (4, 3) tensor, sent a (4, 5) tensor and a (5, 3) tensor, "
        "freed self and mat2",
        "AccumulateGrad received a (4, 5) tensor, set m.grad to a (4, 5) tensor",
        "AccumulateGrad received a (5, 3) tensor, set b.grad to a (5, 3) tensor",
    ]


def test_several_outputs_and_a_leaf_output():
    x = mg.tensor(3.0, requires_grad=True)
    y = x * 2
    z = y * y
    steps = viz.record_backward([y, z], names={"x": x, "y": y, "z": z})
    assert steps.text.splitlines()[0] == ("backward walk from y and z (seeded with 1. and 1.): "
                                          "3 nodes run (2 recorded, 1 AccumulateGrad)")
    # y's node receives the seed given to y plus what z's node sends: 1. + 6. + 6.
    assert steps.texts[1] == ("MulBackward0 (#1) received 1. + 6. + 6. = 13., sent 26. and None, "
                              "freed other")
    leaf = mg.tensor(2.0, requires_grad=True)
    steps = viz.record_backward(leaf, names={"w": leaf})
    assert steps.texts == ["AccumulateGrad received 1., set w.grad to 1."]


def test_node_that_receives_nothing_does_not_run():
    class Blocker(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return None

    x = mg.tensor(3.0, requires_grad=True)
    z = Blocker.apply(x * x) + x
    steps = viz.record_backward(z, names={"x": x})
    assert steps.texts == [
        "AddBackward0 received 1., sent 1. and 1.",
        "BlockerBackward received 1., sent None",
        "MulBackward0 received None, so it did not run, freed self and other",
        "AccumulateGrad received 1., set x.grad to 1.",
    ]
    assert steps[2].ran is False and steps[2].sent is None


def test_saved_bytes_over_the_walk():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)  # 12 bytes
    # x * 2 saves the 2 (a wrapped Python number: 8 bytes, as PyTorch's wrapped numbers are
    # 64-bit); tanh saves its result (12 bytes)
    h = (x * 2).tanh()
    loss = h.sum()
    steps = viz.record_backward(loss)
    assert steps.names == ["SumBackward0", "TanhBackward0", "MulBackward0", "AccumulateGrad"]
    assert steps.saved_bytes == [20, 20, 8, 0, 0]
    assert [s.saved_bytes for s in steps] == [20, 8, 0, 0]
    assert steps.start.saved_bytes == 20


def test_output_without_grad_raises_pytorchs_error():
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        viz.record_backward(mg.tensor(1.0))
    with pytest.raises(TypeError, match="expects a minigrad.Tensor or torch.Tensor .* got float$"):
        viz.record_backward(3.0)


# ------------------------------------------------------------- step pictures

SEED_STEP_TEXTS = [
    """\
before the walk: backward() starts at z with gradient 1.
recorded graph of z: 2 nodes, 1 leaf, 1 constant input
  x: leaf, shape (), .grad = None
  #1 MulBackward0(x, x)         saved: self = x (alive), other = x (alive)  -> y
  #2 AddBackward0(y, constant)  -> output z, shape (), seeded with 1.""",
    """\
backward 1 of 3: AddBackward0 received 1., sent 1. and None
recorded graph of z: 2 nodes, 1 leaf, 1 constant input
  x: leaf, shape (), .grad = None
  #1 MulBackward0(x, x)         saved: self = x (alive), other = x (alive)  -> y
  #2 AddBackward0(y, constant)  received 1., sent 1. and None  -> output z, shape (), seeded with 1.  [current]""",
    """\
backward 2 of 3: MulBackward0 received 1., sent 3. and 3., freed self and other
recorded graph of z: 2 nodes, 1 leaf, 1 constant input
  x: leaf, shape (), .grad = None
  #1 MulBackward0(x, x)         received 1., sent 3. and 3.  saved: self (freed just now), other (freed just now)  -> y  [current]
  #2 AddBackward0(y, constant)  received 1., sent 1. and None  -> output z, shape (), seeded with 1.  [walked]""",
    """\
backward 3 of 3: AccumulateGrad received 3. + 3. = 6., set x.grad to 6.
recorded graph of z: 2 nodes, 1 leaf, 1 constant input
  x: leaf, shape (), .grad = 6.  [current]
  #1 MulBackward0(x, x)         received 1., sent 3. and 3.  saved: self (freed), other (freed)  -> y  [walked]
  #2 AddBackward0(y, constant)  received 1., sent 1. and None  -> output z, shape (), seeded with 1.  [walked]""",
]


def test_step_pictures_text():
    x, y, z = seed()
    steps = viz.record_backward(z, names={"x": x, "y": y, "z": z})
    texts = [steps.draw(i).text for i in range(4)]
    assert texts == SEED_STEP_TEXTS
    # draw(step) is step.draw(); the state before the walk is steps.start
    assert viz.draw(steps[1]).text == SEED_STEP_TEXTS[2]
    assert viz.draw(steps.start).text == SEED_STEP_TEXTS[0]
    assert viz.draw(steps).text == SEED_STEP_TEXTS[3]  # a recording draws its last state
    # drawn after the walk, state 0 still shows the saved values alive
    assert "self = x (alive)" in steps.draw(0).text
    assert steps.draw(2, caption=False).text == SEED_STEP_TEXTS[2].split("\n", 1)[1]


def test_step_pictures_are_deterministic_and_hold_no_addresses():
    def build():
        x, y, z = seed()
        steps = viz.record_backward(z, names={"x": x, "y": y, "z": z})
        return [steps.draw(i) for i in range(4)]

    a, b = build(), build()
    for p, q in zip(a, b):
        assert p.text == q.text and p.source == q.source
        assert not re.search(r"0x[0-9a-f]+", p.text + p.source)


def test_step_picture_source_marks():
    x, y, z = seed()
    steps = viz.record_backward(z, names={"x": x, "y": y, "z": z})
    p = steps.draw(2)
    src = p.source
    # the caption sits on top: the graph's label (the legend is a graph of its own, underneath)
    assert re.search(r'graph \[label=<<FONT POINT-SIZE="13"><B>backward 2 of 3: ', src)
    assert 'labelloc="t"' in src and "cluster" not in src
    assert "backward 2 of 3: MulBackward0 received 1., sent 3. and 3., freed self and other" in src
    # the current node: Okabe-Ito yellow, thick black border, and says so in its label
    assert re.search(r'node1 \[label=<.*backward 2 of 3:.*running now.*fillcolor="#F0E442"', src)
    # the walked node: thick black border, no yellow, "done" (not the leaf's blue border)
    walked = re.search(r'node2 \[label=<.*backward 1 of 3:.*done.*', src).group(0)
    assert 'color="#000000"' in walked and 'penwidth="3"' in walked
    assert "#0072B2" not in walked and "#F0E442" not in walked
    # gradients on the edges walked, and the seed on the output edge
    assert src.count('leaf1 -> node1 [color="#D55E00"') == 2
    assert "<B>3.</B>" in src and "<B>1.</B>" in src and "<B>seed 1.</B>" in src
    # the gradient arrows point from the output towards the leaves (dir=back on a recording edge)
    assert all('dir="back"' in ln for ln in src.splitlines() if 'color="#D55E00", penwidth' in ln)
    # the values just freed, on one page beside the step: names struck out, thick vermillion
    assert re.search(r'saved1 \[label=<<S><B>self</B></S><BR/><S><B>other</B></S><BR/>'
                     r'freed just now>.*penwidth="2"', src)
    # the legend explains what is drawn, each arrow drawn as a real edge in the picture's style
    legend = viz.legend.legend_source(*p.legend)
    for text in ("running now", "done: already run", "saved, freed just now",
                 "gradient, points back: from a node to its input, with its value"):
        assert text in legend, text
    assert re.search(r'-> a\d+ \[color="#D55E00", penwidth="2.5", dir="back"', legend)
    assert "recording, points forward" not in legend  # no grey arrow left at this step
    legend0 = viz.legend.legend_source(*steps.draw(0).legend)
    assert ("recording, points forward: from an input to the node that used it, and on to what it made"
            in legend0)
    assert re.search(r'-> a\d+ \[color="#8C8C8C", penwidth="1"', legend0)
    # before the walk nothing is marked, no gradient has moved except the seed
    src0 = steps.draw(0).source
    assert "running now" not in src0 and "<B>3.</B>" not in src0 and "seed 1." in src0


def test_fan_in_picture_shows_each_contribution():
    x, a, b = fan_in()
    steps = viz.record_backward(b, names={"x": x, "a": a, "b": b})
    p = steps.draw(3)
    assert p.text.splitlines()[3] == (
        "  #1 MulBackward0(x, 2)   received 1. + 6. + 6. = 13., sent 26. and None  "
        "saved: other (freed just now)  -> a  [current]")
    src = p.source
    assert src.count('node1 -> node2 [color="#D55E00"') == 2  # 6. and 6.
    assert 'node1 -> node3 [color="#D55E00"' in src  # 1.
    assert "received 1. + 6. + 6. = 13." in src


def test_walk_over_a_collapsed_graph_keeps_the_current_step():
    x = mg.tensor(1.0, requires_grad=True)
    v = x
    for _ in range(1000):
        v = v * 1.001
    steps = viz.record_backward(v, names={"x": x})
    assert len(steps) == 1001
    text = steps.draw(500).text
    assert text.startswith("backward 500 of 1001: MulBackward0 (#501) received ")
    lines = text.splitlines()
    assert any(ln.startswith("  #501 MulBackward0(#500, 1.001)") and ln.endswith("[current]")
               for ln in lines)
    assert "  ... 490 more nodes (#11 to #500) ..." in lines
    assert len(lines) < 40


# ------------------------------------------------------------ record_forward

def f(x):
    y = x * x
    z = y + 1
    return z


def test_record_forward_order_names_and_texts():
    steps = viz.record_forward(f, 3.0)
    assert len(steps) == 2
    assert steps.tape == ["MulBackward0", "AddBackward0"]
    assert steps.texts == [
        "#1 MulBackward0(x, x) recorded, saves self and other",
        "#2 AddBackward0(y, 1) recorded, saves nothing",
    ]
    assert steps[0].inputs == ("x", "x") and steps[0].saved == ("self", "other")
    assert steps[1].inputs == ("y", "1") and steps[1].saved == ()
    assert steps.text == (
        "forward recording of f(x): 2 nodes recorded\n"
        "  #1 MulBackward0(x, x) recorded, saves self and other\n"
        "  #2 AddBackward0(y, 1) recorded, saves nothing"
    )
    assert set(steps.names) == {"x", "y", "z"}
    z = steps.result
    assert z.grad_fn is steps[1].node and steps[0].node is z.grad_fn.next_functions[0][0]
    (x,) = steps.inputs
    assert x.requires_grad and x.is_leaf and val(x) == 3.0 and val(z) == 10.0
    assert steps.start.text == "before the forward pass: nothing recorded yet; inputs x"


FORWARD_TEXTS = [
    """\
before the forward pass: nothing recorded yet; inputs x
recorded so far: nothing recorded
  x: leaf, shape (), receives .grad""",
    """\
forward 1 of 2: #1 MulBackward0(x, x) recorded, saves self and other
recorded so far: 1 node, 1 leaf
  x: leaf, shape (), receives .grad
  #1 MulBackward0(x, x)  saved: self = x (alive), other = x (alive)  -> y  [new]""",
    """\
forward 2 of 2: #2 AddBackward0(y, 1) recorded, saves nothing
recorded so far: 2 nodes, 1 leaf, 1 constant input
  x: leaf, shape (), receives .grad
  #1 MulBackward0(x, x)  saved: self = x (alive), other = x (alive)  -> y
  #2 AddBackward0(y, 1)  -> output z, shape ()  [new]""",
]


def test_record_forward_pictures_grow_step_by_step():
    steps = viz.record_forward(f, 3.0)
    assert [steps.draw(k).text for k in range(3)] == FORWARD_TEXTS
    src1 = steps.draw(1).source
    assert "AddBackward0" not in src1  # not recorded yet
    assert "just recorded" in src1 and "MulBackward0" in src1
    # a backward afterwards does not change the pictures of the forward steps
    steps.result.backward()
    assert steps.draw(1).text == FORWARD_TEXTS[1]
    # the 1 of y + 1 is not saved by AddBackward0, but record_forward saw it used: any later
    # picture of this graph shows it (noted in the node's metadata)
    assert "#2 AddBackward0(y, 1)" in viz.draw(steps.result, names=steps.names).text
    assert "<B>1</B>" in viz.draw(steps.result).source
    assert "not saved" in steps.draw(2).source and "for backward" in steps.draw(2).source


def test_record_forward_several_inputs_some_unused_yet():
    def g(x, w, b):
        h = x * w
        return h.tanh() + b

    steps = viz.record_forward(g, 1.0, 2.0, 0.5)
    assert steps.tape == ["MulBackward0", "TanhBackward0", "AddBackward0"]
    assert steps.texts[2] == "#3 AddBackward0(#2, b) recorded, saves nothing"
    # b is drawn on its own until the step that uses it
    text1 = steps.draw(1).text.splitlines()
    assert text1[1] == "recorded so far: 1 node, 2 leaves"
    assert "  b: leaf, shape (), receives .grad" in text1


def test_record_forward_keeps_history_of_inputs_apart():
    x = mg.tensor(2.0, requires_grad=True)
    a = x * 3  # recorded before: not a step of this recording

    def g(a):
        return a * a

    steps = viz.record_forward(g, a, names={"x": x})
    assert steps.tape == ["MulBackward0"]
    assert steps.texts == ["#2 MulBackward0(a, a) recorded, saves self and other"]
    assert "#1 MulBackward0(x, 3)" in steps.draw(0).text


def test_record_forward_branch_changes_the_recording():
    def branchy(x):
        if x > 0:
            return x * x
        return x * 3

    pos = viz.record_forward(branchy, 2.0)
    neg = viz.record_forward(branchy, -1.0)
    assert pos.tape == neg.tape == ["MulBackward0"]
    assert pos.texts == ["#1 MulBackward0(x, x) recorded, saves self and other"]
    assert neg.texts == ["#1 MulBackward0(x, 3) recorded, saves other"]


def test_record_forward_of_nothing_recorded():
    steps = viz.record_forward(lambda x: x.detach() * 2, 1.0)
    assert len(steps) == 0 and steps.tape == []
    assert steps.draw().text.splitlines()[0] == "before the forward pass: nothing recorded yet; inputs x"


def test_record_forward_restores_the_profiler():
    import sys

    calls = []

    def profiler(frame, event, arg):
        calls.append(event)

    sys.setprofile(profiler)
    try:
        viz.record_forward(f, 1.0)
        assert sys.getprofile() is profiler
    finally:
        sys.setprofile(None)
    assert calls  # the previous profiler kept being called


def test_import_minigrad_viz_imports_no_widget_or_plot_library():
    import subprocess
    import sys

    code = ("import sys, minigrad, minigrad.viz, minigrad.widgets, minigrad.memory\n"
            "x = minigrad.tensor(3., requires_grad=True)\n"
            "s = minigrad.viz.record_backward(x * x + 1.0)\n"
            "assert s.draw(1).text\n"
            "for m in ('graphviz', 'ipywidgets', 'matplotlib'):\n"
            "    assert m not in sys.modules, m\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_float64_and_numpy_values_survive():
    x = mg.tensor([0.5, 1.5], dtype=mg.float64, requires_grad=True)
    steps = viz.record_backward((x * x).sum(), names={"x": x})
    np.testing.assert_allclose(steps[-1].grad_updates[0].after.numpy(), [1.0, 3.0])
    assert steps.texts[-1] == ("AccumulateGrad received [0.5000, 1.5000] + [0.5000, 1.5000] = "
                               "[1., 3.], set x.grad to [1., 3.]")


def test_public_api_has_docstrings():
    for obj in (viz.record_backward, viz.record_forward, viz.BackwardRecording, viz.BackwardStep,
                viz.ForwardRecording, viz.ForwardStep, viz.BackwardStep.draw,
                viz.BackwardRecording.state):
        assert len(obj.__doc__ or "") > 40, obj
    for name in ("record_backward", "record_forward", "BackwardRecording", "BackwardStep",
                 "ForwardRecording", "ForwardStep", "draw", "GraphPicture"):
        assert name in viz.__all__
    assert "Returns:" in viz.record_backward.__doc__ and "Args:" in viz.record_backward.__doc__


# ---------------------------------------------------------------------- a strip's layout (issue 25)

class _Panel:
    """A stand-in picture: only the size of its SVG matters to the layout."""

    def __init__(self, w_pt, h_pt):
        self.w, self.h = w_pt, h_pt

    def svg(self):
        return (f'<svg width="{round(self.w)}pt" height="{round(self.h)}pt" '
                f'viewBox="0.00 0.00 {self.w:.2f} {self.h:.2f}" xmlns="http://www.w3.org/2000/svg">'
                "</svg>")


def _strip_of(*sizes_pt):
    from minigrad.viz.strip import StripPicture

    return StripPicture([_Panel(w, h) for w, h in sizes_pt], [""] * len(sizes_pt), "t", "")


def test_a_strip_draws_each_panel_full_size_in_rows_of_at_most_three():
    import sys

    strip_module = sys.modules["minigrad.viz.strip"]
    k = 4 / 3 * strip_module.PANEL_SCALE  # CSS pixels a point: a lone picture's, and 1% more
    assert strip_module.PANEL_SCALE >= 1.0
    # six narrow panels: three a row, each at its exact size (from the viewBox, not rounded)
    s = _strip_of(*[(200.3, 150.0)] * 6)
    boxes, width, height, legend = s.layout()
    assert s.columns() == 3 and legend is None
    assert [(round(x), round(y)) for x, y, _w, _h in boxes] == [
        (0, 0), (284, 0), (567, 0), (0, 216), (284, 216), (567, 216)]
    assert all(w == pytest.approx(200.3 * k) and h == pytest.approx(150 * k) for *_, w, h in boxes)
    assert isinstance(width, int) and isinstance(height, int)  # whole pixels: exact in the SVG
    assert width <= strip_module._WIDTH and width >= 3 * 200.3 * k
    # panels of a small graph (about 400 pt): two a row, the columns aligned
    s = _strip_of((370, 380), (390, 400), (400, 410), (380, 430))
    boxes, width, _h, _ = s.layout()
    assert s.columns() == 2 and width <= strip_module._WIDTH
    assert boxes[1][0] == boxes[3][0] and boxes[0][1] == boxes[1][1] < boxes[2][1] == boxes[3][1]
    # a wide panel (a graph of two leaves, a constant and two saved values): a row of its own
    s = _strip_of((700, 360), (700, 380), (760, 410))
    boxes, _w, _h, _ = s.layout()
    assert s.columns() == 1 and len({y for _x, y, _w2, _h2 in boxes}) == 3
