"""Researcher lesson 3, "Try it yourself": graphs and graph breaks of two decisions in a row.

The learner predicts how many graphs compiling ``two_decisions`` makes on one call with
``x = torch.ones(3, requires_grad=True)``, and how many graph breaks.  The check runs
``explain`` on the lesson's own ``two_decisions`` (with the library the lesson imported as
``torch``: on PyTorch, ``explain`` reports what ``torch.compile`` does), only once both
answers are given.
"""

from ..jit import explain
from .answers import NOT_GIVEN, library_of, reply
from .researcher_02 import count

__all__ = ["check"]


@reply
def check(my_graphs, my_breaks, two_decisions):
    """Reply to ``my_graphs`` and ``my_breaks`` for one compiled call of ``two_decisions``."""
    graphs = count(my_graphs, example="my_graphs = 4")
    breaks = count(my_breaks, example="my_breaks = 4")
    if graphs is NOT_GIVEN or breaks is NOT_GIVEN:
        print("No prediction yet: put your two numbers in place of None above, run that cell, then this one.")
        print("Hint: each decision on a tensor's value is a cut; count the pieces between the cuts.")
        return
    report = explain(two_decisions, library_of(two_decisions).ones(3, requires_grad=True))
    said_breaks = f"{breaks} graph break" + ("" if breaks == 1 else "s")
    if breaks == report.graph_break_count:
        print(f"{said_breaks}: right, one per `if` on a tensor.")
    else:
        print(f"{said_breaks}: not what compiling did. A break is where Python needs a"
              " tensor's value to go on; how many such places are there?")
    if graphs == report.graph_count:
        print(f"{graphs} graphs: right, the pieces before, between and after the breaks.")
    elif graphs == 2 * report.graph_break_count + 1:
        print(f"{graphs} graphs: that would be one graph per branch of each `if`; but one call takes"
              " one side of each, and only what runs is compiled.")
    else:
        print(f"{graphs} graphs: count the pieces the breaks cut the function into, on this call.")
