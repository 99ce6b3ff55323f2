"""minigrad.viz: the picture of a recorded graph and its deterministic text form.

The text form is what nbval compares in the lessons, so most checks here are
exact comparisons of it.  The pictures need Graphviz's ``dot``; tests that
render are skipped without it, except the ones that simulate its absence.
"""

import base64
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import minigrad as mg
from minigrad import viz

HAVE_DOT = shutil.which("dot") is not None
try:
    import graphviz  # noqa: F401

    HAVE_GRAPHVIZ = True
except ImportError:  # pragma: no cover - the test extra installs it
    HAVE_GRAPHVIZ = False
needs_dot = pytest.mark.skipif(not (HAVE_DOT and HAVE_GRAPHVIZ),
                               reason="needs Graphviz's dot and the graphviz package")

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def seed():
    """The lessons' first example: x = 3, y = x * x, z = y + 1."""
    x = mg.tensor(3.0, requires_grad=True)
    y = x * x
    z = y + 1.0
    return x, y, z


SEED_TEXT = """\
recorded graph of z: 2 nodes, 1 leaf, 1 constant input
  x: leaf, shape (), receives .grad
  #1 MulBackward0(x, x)          saved: self = x (alive), other = x (alive)
  #2 AddBackward0(#1, constant)  -> output z, shape ()"""

SEED_TEXT_FREED = """\
recorded graph of z: 2 nodes, 1 leaf, 1 constant input
  x: leaf, shape (), receives .grad
  #1 MulBackward0(x, x)          saved: self (freed), other (freed)
  #2 AddBackward0(#1, constant)  -> output z, shape ()"""


# ------------------------------------------------------------------ text form

def test_seed_text_before_backward():
    x, _y, z = seed()
    assert viz.draw(z, names={"x": x, "z": z}).text == SEED_TEXT


def test_seed_text_default_names():
    _x, _y, z = seed()
    assert viz.draw(z).text == (
        "recorded graph of output: 2 nodes, 1 leaf, 1 constant input\n"
        "  leaf 1: leaf, shape (), receives .grad\n"
        "  #1 MulBackward0(leaf 1, leaf 1)  saved: self = leaf 1 (alive), other = leaf 1 (alive)\n"
        "  #2 AddBackward0(#1, constant)    -> output, shape ()"
    )


def test_seed_text_after_backward_values_are_freed():
    x, y, z = seed()
    z.backward()
    assert viz.draw(z, names={"x": x, "z": z}).text == SEED_TEXT_FREED
    # what the picture says is what the graph does
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        _ = y.grad_fn._saved_self


def test_seed_text_after_retain_graph_values_stay_alive():
    x, y, z = seed()
    z.backward(retain_graph=True)
    assert viz.draw(z, names={"x": x, "z": z}).text == SEED_TEXT
    assert y.grad_fn._saved_self is x
    z.backward()
    assert viz.draw(z, names={"x": x, "z": z}).text == SEED_TEXT_FREED


def test_picture_is_a_snapshot():
    """A picture drawn before backward keeps showing the values alive; it holds no graph."""
    x, _y, z = seed()
    before = viz.draw(z, names={"x": x, "z": z})
    z.backward()
    assert before.text == SEED_TEXT
    assert viz.draw(z, names={"x": x, "z": z}).text == SEED_TEXT_FREED
    assert repr(before) == SEED_TEXT


def test_names_both_ways_and_intermediate_names():
    x, y, z = seed()
    expected = (
        "recorded graph of z: 2 nodes, 1 leaf, 1 constant input\n"
        "  x: leaf, shape (), receives .grad\n"
        "  #1 MulBackward0(x, x)         saved: self = x (alive), other = x (alive)  -> y\n"
        "  #2 AddBackward0(y, constant)  -> output z, shape ()"
    )
    assert viz.draw(z, names={"x": x, "y": y, "z": z}).text == expected
    assert viz.draw(z, names={x: "x", y: "y", z: "z"}).text == expected


def test_names_rejects_other_mappings():
    x, _y, z = seed()
    with pytest.raises(TypeError, match="names must"):
        viz.draw(z, names={"x": 3})
    with pytest.raises(TypeError, match="names must be a dict"):
        viz.draw(z, names=[x])


def test_show_values():
    x, _y, z = seed()
    assert viz.draw(z, names={"x": x, "z": z}, show_values=True).text == (
        "recorded graph of z: 2 nodes, 1 leaf, 1 constant input\n"
        "  x: leaf tensor(3., requires_grad=True), receives .grad\n"
        "  #1 MulBackward0(x, x)          saved: self = x (alive), other = x (alive)\n"
        "  #2 AddBackward0(#1, constant)  -> output z = tensor(10., grad_fn=<AddBackward0>)"
    )
    src = viz.draw(z, names={"x": x, "z": z}, show_values=True).source
    assert "tensor(3.)" in src and "tensor(10.)" in src
    assert "tensor(3.)" not in viz.draw(z).source


def test_show_values_after_backward_shows_the_grad():
    x, _y, z = seed()
    z.backward()
    names = {"x": x, "z": z}
    # drawn now, with its values: the leaf's .grad is one of them
    text = viz.draw(z, names=names, show_values=True).text
    assert text.splitlines()[1] == "  x: leaf tensor(3., requires_grad=True), .grad = 6."
    assert ".grad = 6." in viz.draw(z, names=names, show_values=True).source
    # without values, the shapes only, as before
    assert viz.draw(z, names=names).text.splitlines()[1] == "  x: leaf, shape (), receives .grad"
    assert ".grad = " not in viz.draw(z, names=names).source


def test_show_saved_false_and_show_attrs():
    x, _y, z = seed()
    text = viz.draw(z, names={"x": x, "z": z}, show_saved=False).text
    assert "saved" not in text
    assert "saved1_" not in viz.draw(z, show_saved=False, legend=False).source
    p = viz.draw(x ** 2, show_attrs=True)
    assert "attrs: exponent=2" in p.text
    assert "exponent=2" in p.source


def test_fan_in_and_constant_operand():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    b = x.exp()
    c = (a + b).sum()
    assert viz.draw(c, names={"x": x, "c": c}).text == (
        "recorded graph of c: 4 nodes, 1 leaf, 1 constant input\n"
        "  x: leaf, shape (2,), receives .grad\n"
        "  #1 MulBackward0(x, 2)  saved: other = 2 (alive)\n"
        "  #2 ExpBackward0(x)     saved: result (alive)\n"
        "  #3 AddBackward0(#1, #2)\n"
        "  #4 SumBackward0(#3)    -> output c, shape ()"
    )
    src = viz.draw(c).source
    # x feeds two steps: two edges leave its box
    assert src.count("leaf1 -> ") == 2
    # the (None, 0) of 2 is one box: the constant with its value, kept as `other`
    boxes = [ln for ln in src.splitlines() if ln.startswith("  const") and "->" not in ln]
    assert len(boxes) == 1 and "<B>2</B>" in boxes[0] and "kept as other:" in boxes[0]
    assert ">alive<" in boxes[0] and "constant_saved" not in boxes[0]
    assert "other = 2" not in src  # no second box for the same constant


def test_broadcast_add_and_matmul():
    A = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    B = mg.ones(3, 4, requires_grad=True)
    bias = mg.tensor([0.1, 0.2, 0.3, 0.4], requires_grad=True)
    out = A @ B + bias
    p = viz.draw(out, names={"A": A, "B": B, "bias": bias, "out": out})
    assert p.text == (
        "recorded graph of out: 2 nodes, 3 leaves\n"
        "  A: leaf, shape (2, 3), receives .grad\n"
        "  B: leaf, shape (3, 4), receives .grad\n"
        "  bias: leaf, shape (4,), receives .grad\n"
        "  #1 MmBackward0(A, B)       saved: self = A (alive), mat2 = B (alive)\n"
        "  #2 AddBackward0(#1, bias)  -> output out, shape (2, 4)"
    )
    for label in ("MmBackward0", "AddBackward0", "shape (4,)", "shape (2, 4)", "mat2 = A"[:4]):
        assert label in p.source


def test_leaf_and_untracked_tensor_and_node():
    x = mg.tensor(3.0, requires_grad=True)
    assert viz.draw(x, names={"x": x}).text == (
        "recorded graph of x: nothing recorded\n"
        "  x: leaf, shape (), receives .grad"
    )
    assert viz.draw(x).source.count("shape=") >= 1  # a one-box graph
    c = mg.tensor([1.0, 2.0])
    assert viz.draw(c).text == (
        "recorded graph of tensor: nothing recorded (requires_grad=False)\n"
        "  tensor: leaf, shape (2,), does not require grad"
    )
    x, y, z = seed()
    assert viz.draw(z.grad_fn, names={"x": x}).text == (
        "recorded graph behind AddBackward0: 2 nodes, 1 leaf, 1 constant input\n"
        "  x: leaf, shape (), receives .grad\n"
        "  #1 MulBackward0(x, x)  saved: self = x (alive), other = x (alive)\n"
        "  #2 AddBackward0(#1, constant)"
    )
    # an AccumulateGrad node stands for its leaf
    acc = y.grad_fn.next_functions[0][0]
    assert isinstance(acc, mg.autograd.graph.AccumulateGrad)
    assert viz.draw(acc, names={"x": x}).text == viz.draw(x, names={"x": x}).text


def test_several_outputs():
    x = mg.tensor(3.0, requires_grad=True)
    y = x * 2
    z = y * y
    assert viz.draw([y, z], names={"x": x}).text == (
        "recorded graph of output 1, output 2: 2 nodes, 1 leaf, 1 constant input\n"
        "  x: leaf, shape (), receives .grad\n"
        "  #1 MulBackward0(x, 2)                saved: other = 2 (alive)  -> output 1, shape ()\n"
        "  #2 MulBackward0(output 1, output 1)  saved: self = output 1 (alive), "
        "other = output 1 (alive)  -> output 2, shape ()"
    )


def test_one_name_for_several_tensors_labels_each_edge():
    x = mg.tensor(2.0, requires_grad=True)
    losses = [x * 1.5, x * 2.5]
    total = losses[0] + losses[1]
    p = viz.draw(total, names={"x": x, "loss": losses, "total": total})
    assert p.text.splitlines()[2:] == [
        "  #1 MulBackward0(x, 1.5)      saved: other = 1.5 (alive)  -> loss",
        "  #2 MulBackward0(x, 2.5)      saved: other = 2.5 (alive)  -> loss",
        "  #3 AddBackward0(loss, loss)  -> output total, shape ()",
    ]
    assert p.source.count('<FONT COLOR="#555555">loss</FONT>') == 2  # on both edges
    with pytest.raises(TypeError, match="or to a list of them"):
        viz.draw(total, names={"loss": [x, 3.0]})


def test_bad_argument():
    with pytest.raises(TypeError, match=r"draw\(\) expects a minigrad.Tensor or torch.Tensor.*"
                       r"got float$"):
        viz.draw(3.0)
    with pytest.raises(TypeError, match=r"got numpy.ndarray$"):
        viz.draw(np.ones(2))
    with pytest.raises(TypeError, match=r"got a list of float, minigrad.Tensor$"):
        viz.draw([mg.tensor(1.0), 2.0])


def test_highlight():
    x, y, z = seed()
    p = viz.draw(z, names={"x": x, "z": z}, highlight=y.grad_fn)
    assert p.text.splitlines()[2].endswith("[highlight]")
    assert 'penwidth="3"' in p.source
    plain = viz.draw(z, names={"x": x, "z": z})
    assert 'penwidth="3"' not in plain.source
    # a collection, with a tensor standing for its grad_fn and a leaf for itself
    p = viz.draw(z, names={"x": x, "z": z}, highlight=[x, z])
    lines = p.text.splitlines()
    assert lines[1].endswith("[highlight]") and lines[3].endswith("[highlight]")
    assert not lines[2].endswith("[highlight]")
    assert p.source.count('penwidth="3"') == 2


def test_saved_states_packed_and_modified():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        q = x.exp()
    assert "saved: result (packed by hook)" in viz.draw(q).text
    c = mg.tensor([3.0, 4.0])
    y = x * c
    assert "MulBackward0(leaf 1, [3., 4.])  saved: other = [3., 4.] (alive)" in viz.draw(y).text
    c.add_(1.0)
    p = viz.draw(y)
    assert "saved: other = [4., 5.] (modified in place)" in p.text
    assert "modified in place" in p.source
    # an output saved by its node (exp saves its result), then changed in place
    b = (x * 2).exp()
    b.mul_(2)
    text = viz.draw(b, names={"x": x}).text
    assert "#2 ExpBackward0(#1)     saved: result (modified in place)" in text
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()


def test_copyslices_uses_the_class_name():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * 2
    a[0] = 5.0
    text = viz.draw(a, names={"x": x}).text
    assert "  #2 CopySlices(#1, constant)" in text
    assert "torch::" not in text


def test_custom_function_saved_tensors():
    class Cube(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x

    x = mg.tensor(2.0, requires_grad=True)
    y = Cube.apply(x)
    assert viz.draw(y, names={"x": x}).text.splitlines()[2] == (
        "  #1 CubeBackward(x)  saved: saved_tensors[0] = x (alive)  -> output, shape ()"
    )
    y.backward()
    assert "saved: saved_tensors[0] (freed)" in viz.draw(y).text


# ------------------------------------------------------- identity, determinism

def test_nodes_keyed_by_identity_two_saved_boxes_for_one_tensor():
    """x * x saves self and other, both x (one array): two lines on the step's page, not one."""
    x = mg.tensor(3.0, requires_grad=True)
    z = x * x
    p = viz.draw(z, names={"x": x})
    assert "saved: self = x (alive), other = x (alive)" in p.text
    src = p.source
    # one page beside the step (both alive), on its row, joined to it by one dashed line
    page = next(ln for ln in src.splitlines() if ln.startswith("  saved1 ["))
    assert "<B>self = x</B><BR/><B>other = x</B>" in page
    assert "{rank=same; node1; saved1}" in src
    assert len(re.findall(r"  (saved1 -> node1|node1 -> saved1) \[style=\"dashed\"", src)) == 1
    # two saved tensors of different nodes over the same memory also stay apart
    v = x.reshape(1)
    w = x.reshape(1)
    u = v * w
    page = next(ln for ln in viz.draw(u).source.splitlines() if ln.startswith("  saved3 ["))
    assert "<B>self = output of #1</B><BR/><B>other = output of #2</B>" in page


def _build_seed_picture():
    x, _y, z = seed()
    return viz.draw(z, names={"x": x, "z": z})


def test_text_and_source_are_deterministic():
    a, b = _build_seed_picture(), _build_seed_picture()
    assert a.text == b.text
    assert a.source == b.source
    assert "0x" not in a.source and "0x" not in a.text  # no addresses
    # the source names boxes by step number, never by id()
    _x, y, z = seed()
    assert str(id(y.grad_fn)) not in viz.draw(z).source


@needs_dot
def test_svg_is_deterministic():
    a, b = _build_seed_picture(), _build_seed_picture()
    assert a.svg().encode() == b.svg().encode()
    assert a.png()[:8] == PNG_MAGIC


def test_source_has_expected_labels():
    x, _y, z = seed()
    src = viz.draw(z, names={"x": x, "z": z}).source
    assert src.startswith("digraph autograd {")
    for label in ("<B>MulBackward0</B>", "<B>AddBackward0</B>", "<B>x</B>", "<B>z</B>",
                  "<B>self = x</B>", "<B>other = x</B>", "shape (), alive", "#1", "#2",
                  "leaf:", "AccumulateGrad", "(None, 0)"):
        assert label in src, label
    assert "node1 -> node2" in src and "leaf1 -> node1" in src and "node2 -> out1" in src
    z.backward()
    p = viz.draw(z, names={"x": x, "z": z})
    # freed: the names struck out, the word "freed" (not the "not saved" of a constant)
    assert "<S><B>self</B></S><BR/><S><B>other</B></S><BR/>freed" in p.source
    assert "alive" not in p.source
    # the legend is a graph of its own, under the picture; it explains what is drawn
    assert "legend" not in p.source
    kinds, _marks, edge_kinds = p.legend
    assert {"leaf", "function", "output", "saved_freed", "constant"} <= kinds
    assert viz.draw(z, legend=False).legend is None


# ------------------------------------------------------------ Jupyter display

@needs_dot
def test_mimebundle_has_svg_png_and_text():
    x, _y, z = seed()
    p = viz.draw(z, names={"x": x, "z": z})
    data, metadata = p._repr_mimebundle_()
    assert set(data) == {"text/plain", "image/svg+xml", "image/png"}
    assert data["text/plain"] == SEED_TEXT
    # the picture and its legend under it, one SVG; still marked as Graphviz's
    assert data["image/svg+xml"].lstrip().startswith("<!-- Generated by graphviz")
    assert data["image/svg+xml"].count("<svg") == 3
    assert "<svg" in data["image/svg+xml"] and "MulBackward0" in data["image/svg+xml"]
    png = base64.b64decode(data["image/png"])
    assert png.startswith(PNG_MAGIC)
    assert p.png().startswith(PNG_MAGIC)
    w, h = metadata["image/png"]["width"], metadata["image/png"]["height"]
    assert 100 < w < 2000 and 100 < h < 2000
    data, _ = p._repr_mimebundle_(include={"text/plain"})
    assert set(data) == {"text/plain"}
    data, _ = p._repr_mimebundle_(exclude={"image/png"})
    assert set(data) == {"text/plain", "image/svg+xml"}


@needs_dot
def test_save(tmp_path):
    _x, _y, z = seed()
    p = viz.draw(z)
    p.save(tmp_path / "g.png")
    assert (tmp_path / "g.png").read_bytes().startswith(PNG_MAGIC)
    p.save(tmp_path / "g.svg")
    assert "<svg" in (tmp_path / "g.svg").read_text()
    p.save(tmp_path / "g.dot")
    assert (tmp_path / "g.dot").read_text() == p.source
    p.save(tmp_path / "g.txt")
    assert (tmp_path / "g.txt").read_text() == p.text + "\n"
    with pytest.raises(ValueError, match="save\\(\\) writes"):
        p.save(tmp_path / "g.jpg")


# ------------------------------------------------------------- large graphs

def test_collapsed_drawing_of_a_1000_step_chain():
    x = mg.tensor(1.0, requires_grad=True)
    v = x
    for _ in range(1000):
        v = v * 1.001
    t0 = time.perf_counter()
    p = viz.draw(v, names={"x": x})
    assert time.perf_counter() - t0 < 2.0
    lines = p.text.splitlines()
    assert lines[0] == "recorded graph of output: 1000 nodes, 1 leaf, 1000 constant inputs"
    assert lines[1] == "  (over a few hundred nodes: 980 of them collapsed)"
    assert lines[3].startswith("  #1 MulBackward0(x, 1.001)")
    assert "  ... 980 more nodes (#11 to #990) ..." in lines
    assert lines[-1].startswith("  #1000 MulBackward0(#999, 1.001)")
    assert lines[-1].endswith("-> output, shape ()")
    assert len(lines) == 3 + 20 + 1
    src = p.source
    assert src.count("<B>MulBackward0</B>") == 20
    assert "... 980 more nodes ..." in src and "this graph has 1000 nodes recorded" in src
    assert "(1001 with AccumulateGrad):" in src and "only the first and last are drawn" in src
    assert "#11 to #990" not in src  # the first box of hidden nodes says what the graph holds
    assert "node10 -> more10 " in src and "more10 -> node991 " in src
    # below the threshold nothing is collapsed
    w = x
    for _ in range(100):
        w = w * 1.001
    assert "more nodes" not in viz.draw(w).text
    assert "more nodes" in viz.draw(w, max_nodes=50).text


def test_collapsed_graph_keeps_highlighted_steps():
    """A highlighted step in the middle is drawn, with one "more nodes" box on each side."""
    x = mg.tensor(1.0, requires_grad=True)
    v = x
    middle = None
    for i in range(1000):
        v = v * 1.001
        if i == 499:
            middle = v
    p = viz.draw(v, names={"x": x}, highlight=middle)
    lines = p.text.splitlines()
    assert "  ... 489 more nodes (#11 to #499) ..." in lines
    assert "  ... 490 more nodes (#501 to #990) ..." in lines
    assert any(ln.startswith("  #500 MulBackward0(#499, 1.001)")
               and ln.endswith("[highlight]") for ln in lines)
    src = p.source
    assert src.count("<B>MulBackward0</B>") == 21
    assert "... 490 more nodes ..." in src and "#501 to #990" in src  # the second box says which
    for edge in ("node10 -> more10 ", "more10 -> node500 ", "node500 -> more11 ",
                 "more11 -> node991 "):
        assert edge in src, edge


@needs_dot
def test_collapsed_picture_renders_fast():
    x = mg.tensor(1.0, requires_grad=True)
    v = x
    for _ in range(1000):
        v = v * 1.001
    t0 = time.perf_counter()
    assert viz.draw(v).png().startswith(PNG_MAGIC)
    assert time.perf_counter() - t0 < 10.0


def test_100000_deep_graph_draws_without_recursion():
    x = mg.tensor(1.0, requires_grad=True)
    v = x
    for _ in range(100_000):
        v = v + 1.0
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        p = viz.draw(v, names={"x": x})
    finally:
        sys.setrecursionlimit(limit)
    assert p.text.splitlines()[0] == (
        "recorded graph of output: 100000 nodes, 1 leaf, 100000 constant inputs")
    assert "  ... 99980 more nodes (#11 to #99990) ..." in p.text
    assert p.source.count("<B>AddBackward0</B>") == 20


# ---------------------------------------------------------- missing Graphviz

def test_missing_dot_gives_one_clear_error(monkeypatch, tmp_path):
    pytest.importorskip("graphviz")
    x, _y, z = seed()
    p = viz.draw(z, names={"x": x, "z": z})
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no dot
    with pytest.raises(viz.GraphvizMissingError) as info:
        p.svg()
    err = info.value
    assert isinstance(err, RuntimeError)
    msg = str(err)
    assert "`dot`" in msg
    for how in ("conda install -c conda-forge graphviz", "apt-get install graphviz",
                "brew install graphviz", "winget install graphviz"):
        assert how in msg
    assert err.__cause__ is None and err.__suppress_context__  # no deep traceback chain
    with pytest.raises(viz.GraphvizMissingError):
        p.png()
    # the text still works, and Jupyter gets the text plus the message
    assert p.text == SEED_TEXT
    data, metadata = p._repr_mimebundle_()
    assert set(data) == {"text/plain"}
    assert data["text/plain"].startswith(SEED_TEXT + "\n\n(no picture: ")
    assert "brew install graphviz" in data["text/plain"]
    assert metadata == {}


def test_executable_not_found_from_pipe(monkeypatch):
    graphviz = pytest.importorskip("graphviz")

    def no_dot(self, *args, **kwargs):
        raise graphviz.ExecutableNotFound(("dot",))

    monkeypatch.setattr(graphviz.Source, "pipe", no_dot)
    _x, _y, z = seed()
    with pytest.raises(viz.GraphvizMissingError, match="dot"):
        viz.draw(z).png()


def test_missing_python_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)  # import graphviz now raises ImportError
    _x, _y, z = seed()
    p = viz.draw(z)
    with pytest.raises(viz.GraphvizMissingError, match="`graphviz` Python package") as info:
        p.svg()
    assert "pip install graphviz" in str(info.value)
    assert set(p._repr_mimebundle_()[0]) == {"text/plain"}


def test_import_minigrad_does_not_import_graphviz():
    code = (
        "import sys, minigrad, minigrad.viz\n"
        "x = minigrad.tensor(3., requires_grad=True)\n"
        "p = minigrad.viz.draw(x * x + 1.0)\n"
        "assert p.text and p.source\n"
        "assert 'graphviz' not in sys.modules, 'graphviz was imported'\n"
        "print('ok')\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                         timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_public_api_has_docstrings():
    for obj in (viz, viz.draw, viz.GraphPicture, viz.GraphPicture.svg, viz.GraphPicture.png,
                viz.GraphPicture.save, viz.GraphvizMissingError):
        doc = obj.__doc__ or ""
        assert len(doc) > 40, obj
    assert "Source:" in viz.draw.__doc__ and "Raises:" in viz.draw.__doc__
    assert "Returns:" in viz.draw.__doc__ and "Args:" in viz.draw.__doc__


def test_freed_values_look_unlike_values_never_saved():
    """Issue 25: a freed value (a page or a kept constant) is struck out and dashed; a constant
    never saved is a dotted oval that says so; the legend shows each as the picture draws it."""
    x = mg.tensor(-2.0, requires_grad=True)
    z = x * 3 + 1                      # MulBackward0 keeps the 3 as `other`; AddBackward0 keeps nothing
    before = viz.draw(z).source
    z.backward()
    p = viz.draw(z)
    kept = next(ln for ln in p.source.splitlines() if ln.startswith("  const1_2 ["))
    never = next(ln for ln in p.source.splitlines() if ln.startswith("  const2_2 ["))
    assert "<S>kept as other</S>" in kept and "<BR/>freed>" in kept and 'style="dashed"' in kept
    assert "not saved" in never and 'style="dotted"' in never and "<S>" not in never
    # before the walk the 3 was kept and alive: orange, no strike
    alive = next(ln for ln in before.splitlines() if ln.startswith("  const1_2 ["))
    assert "<S>" not in alive and "alive" in alive and "#F7D999" in alive
    legend = viz.legend.legend_source(*p.legend)
    assert "constant input that was kept, freed by the walk (struck out)" in legend
    assert re.search(r's\d+ \[label=<<S>kept</S>>, shape="ellipse", style="dashed"', legend)
    assert re.search(r's\d+ \[label="", shape="ellipse", style="dotted"', legend)
    # the same graph keeps its layout before and after the walk: same boxes, same edges
    assert (re.findall(r"^  (\w+) \[label", before, re.M)
            == re.findall(r"^  (\w+) \[label", p.source, re.M))
    assert (re.findall(r"^  (\w+ -> \w+)", before, re.M)
            == re.findall(r"^  (\w+ -> \w+)", p.source, re.M))


@needs_dot
def test_layout_crosses_no_arrows_pages_beside_their_step_and_fits_the_page():
    """Issue 25: x * y + x * 2 (developer lesson 3) drawn with no arrow crossing another, each
    page of saved values on its step's row next to it; a training loop's copies of the graph
    read left to right in recording order; no picture wider than 1,000 CSS pixels."""
    from minigrad.viz.render import _layout_score, _plain

    x = mg.tensor(3.0, requires_grad=True)
    y = mg.tensor(4.0, requires_grad=True)
    z = (x * y) + (x * 2)
    walk = viz.record_backward(z, names={"x": x, "y": y, "z": z})
    for p in (walk.draw(0), walk.after()):
        # (pages apart from their step, pages between their step and another box, crossings)
        assert _layout_score(p.source) == (0, 0, 0)
    # a loop adding up its losses: three copies joined by the running total's AddBackward0
    w = mg.tensor(0.0, requires_grad=True)
    xs = mg.tensor([0.0, 1.0, 2.0, 3.0])
    total, losses = 0.0, []
    for _ in range(3):
        loss = ((w * xs - xs) ** 2).mean()
        losses.append(loss)
        total = total + loss
        loss.backward()
    p = viz.draw(total, names={"w": w, "loss": losses, "total": total})
    xs_of = {}
    for line in _plain(p.source).splitlines():
        parts = line.split()
        if parts[0] == "node" and parts[1].startswith("node"):
            xs_of[int(parts[1][4:])] = float(parts[2])
    muls = [k for k in sorted(xs_of) if f"  #{k} MulBackward0(w" in p.text]
    assert len(muls) == 3 and xs_of[muls[0]] < xs_of[muls[1]] < xs_of[muls[2]]
    assert 'ordering="in"' in p.source and "ordering" not in walk.after().source
    width_pt = float(re.search(r'<svg width="([\d.]+)pt"', p.bare().svg()).group(1))
    assert width_pt <= 10.4 * 72 + 1


@needs_dot
def test_a_page_sits_on_its_steps_outer_side_never_between_two_steps():
    """Developer lesson 1 draws z = x * y + x * 2: #1 (x * y) and #2 (x * 2) on one row.  #1's
    page (self = x, other = y) once sat between #2 and #1 and read as #2's; laid out, it is
    on the side of #1 away from #2, and #2's constant on the side of #2 away from #1."""
    x = mg.tensor(3.0, requires_grad=True)
    y = mg.tensor(4.0, requires_grad=True)
    z = x * y + x * 2
    p = viz.draw(z, names={"x": x, "y": y, "z": z})  # as the lesson draws it
    assert "#1 MulBackward0(x, y)" in p.text and "saved: self = x (alive), other = y (alive)" in p.text
    at = _centres(p.source)
    one, two = at["node1"], at["node2"]
    assert abs(one[1] - two[1]) < 1e-6  # one row: the case where a page can land between
    page = at["saved1"]
    assert abs(page[1] - one[1]) < 1e-6
    assert (page[0] - one[0]) * (two[0] - one[0]) < 0  # #1's page: away from #2
    const = at["const2_2"]
    assert (const[0] - two[0]) * (one[0] - two[0]) < 0  # #2's 2: away from #1


def _rows_beside(source):
    """``{step box: [the boxes on its row by rank=same]}``, from a picture's DOT source."""
    rows = {}
    for line in source.splitlines():
        m = re.fullmatch(r"  \{rank=same; (node\d+(?:; \w+)*)\}", line)
        if m:
            step, *beside = m.group(1).split("; ")
            assert step not in rows  # one group a step
            rows[step] = beside
    return rows


def _centres(source):
    """``{box: (x, y)}`` as Graphviz lays ``source`` out (inches)."""
    from minigrad.viz.render import _plain

    return {p[1]: (float(p[2]), float(p[3])) for p in map(str.split, _plain(source).splitlines())
            if p and p[0] == "node"}


def test_saved_values_are_grouped_with_the_step_that_saved_them():
    """Issue 25: each saved value, a page or a constant the step kept, is in one rank=same
    group with its step; so is a constant it did not keep (one oval, one place: beside the
    step it goes into)."""
    x = mg.tensor(-2.0, requires_grad=True)
    z = x * 3 + 1                        # #1 keeps the 3 (other); #2 keeps nothing
    p = viz.draw(z)
    assert _rows_beside(p.source) == {"node1": ["const1_2"], "node2": ["const2_2"]}
    # a step with both: c / x keeps c (self, a constant) and x (other, on a page)
    c = mg.tensor(2.0)
    q = viz.draw((c / x) * 5, names={"x": x, "c": c})
    assert "saved: self = c (alive), other = x (alive)" in q.text
    assert _rows_beside(q.source) == {"node1": ["const1_1", "saved1"], "node2": ["const2_2"]}
    # seed: the page of #1; the 1 of #2 (not kept)
    _x, _y, s = seed()
    assert _rows_beside(viz.draw(s).source) == {"node1": ["saved1"], "node2": ["const2_2"]}
    # with show_saved=False no page; a kept constant is still drawn kept, beside its step
    assert _rows_beside(viz.draw(x * 3, show_saved=False).source) == {"node1": ["const1_2"]}


@needs_dot
def test_saved_values_sit_beside_their_step_and_their_arrows_keep_their_direction():
    """Issue 25: laid out, a saved value is on its step's row with no other box between them;
    a step's kept constant and its page are on either side of it; a kept constant's dotted
    arrow still points into the step, whichever side it is on."""
    from minigrad.viz.render import _layout_score

    x = mg.tensor(-2.0, requires_grad=True)
    c = mg.tensor(2.0)
    z = (c / x) * 5 + 1
    walk = viz.record_backward(z, names={"x": x, "c": c, "z": z})
    pictures = [walk.draw(i) for i in range(len(walk) + 1)] + [walk.after()]
    for p in pictures:
        # (saved values apart from their step, between it and another box, crossings)
        assert _layout_score(p.source) == (0, 0, 0)
        at = _centres(p.source)
        for step, beside in _rows_beside(p.source).items():
            for box in beside:
                assert abs(at[box][1] - at[step][1]) < 1e-6, (step, box)
        const, page, step = at["const1_1"][0], at["saved1"][0], at["node1"][0]
        assert (const - step) * (page - step) < 0  # on either side of #1
        for k, j in (("1", "1"), ("2", "2"), ("3", "2")):
            into = f'const{k}_{j} -> node{k} [style="dotted"'
            back = re.search(rf'node{k} -> const{k}_{j} \[style="dotted"[^]]*dir="back"', p.source)
            assert (into in p.source) != bool(back)  # drawn one way: into the step
    # the same graph keeps its layout over the walk: the same boxes, joined the same way
    edges = {tuple(re.findall(r"^  (\w+ -> \w+)", p.source, re.M)) for p in pictures}
    assert len(edges) == 1
    # a training loop: three kept constants, each beside its own MulBackward0, and the
    # constants not kept beside their own steps (not between another step and its constant)
    w = mg.tensor(0.0, requires_grad=True)
    xs = mg.tensor([0.0, 1.0, 2.0, 3.0])
    total = 0.0
    for _ in range(3):
        total = total + ((w * xs - xs) ** 2).mean()
    p = viz.draw(total, names={"w": w, "total": total})
    rows = _rows_beside(p.source)
    kept = [b for beside in rows.values() for b in beside
            if re.search(rf"^  {b} \[label=<.*kept as other", p.source, re.M)]
    assert len(kept) == 3 and all(rows[f"node{b[5:].split('_')[0]}"] == [b] for b in kept)
    assert sum(len(beside) for beside in rows.values()) == 7 + 3  # 7 constants, 3 pages
    assert _layout_score(p.source)[0] == 0
    boxes = [b for beside in rows.values() for b in beside]
    assert len(boxes) == len(set(boxes))  # no box beside two steps
