"""Researcher lesson 2, "Try it yourself": a checkpointing schedule for k = 36 layers.

The learner gives segment sizes along a chain of 36 layers (all but the last segment
checkpointed, the last run normally; each layer is then evaluated at most twice) and
predicts the peak of saved activations.  The check measures the schedule with the
lesson's own ``schedule_step`` (on a chain built by its ``tanh_mlp``, fed by its
``batch``) and compares the peak with the least a schedule of this family can reach:
segment j of m_j layers is recomputed beside the inputs of segments 2, ..., j, so
(j - 1) + m_j <= M and k <= M(M + 1)/2 = C(M + 1, 2), Griewank's binomial bound in the
lesson's count.  Equal segments reach 11 at best (s = 6, the law (s - 1) + k/s).

``count(answer)`` reads a count as every check reads a number (``answers.number``), and
gives it back as an ``int`` when it is whole, so that a reply writes ``4``, not ``4.0``.
"""

import math

from .answers import NOT_GIVEN, Unreadable, number, reply

__all__ = ["check", "count", "least_peak"]


def count(answer, example="3"):
    """``answer`` read by ``answers.number``, as an ``int`` if whole; NOT_GIVEN for None."""
    value = number(answer, example=example)
    if value is NOT_GIVEN or not value.is_integer():
        return value
    return int(value)


def least_peak(k_layers, r=2):
    """The least M with k_layers <= C(M - 1 + r, r): Griewank's bound in the lesson's count."""
    return next(m for m in range(1, k_layers + 1) if math.comb(m - 1 + r, r) >= k_layers)


def _sizes(answer, k_layers):
    """``answer`` as a list of positive whole numbers adding up to ``k_layers``, else None."""
    try:
        sizes = [count(size) for size in answer]
    except (TypeError, Unreadable):
        return None
    if not sizes or any(s is NOT_GIVEN or not isinstance(s, int) or s < 1 for s in sizes):
        return None
    return sizes if sum(sizes) == k_layers else None


@reply
def check(my_sizes, my_peak, schedule_step, tanh_mlp, batch, k_layers=36):
    """Reply to ``my_sizes`` (segment sizes, first to last) and ``my_peak`` (in layer activations)."""
    if my_sizes is None or my_peak is None:
        print("No prediction yet: put your segment sizes and your peak in place of None above, run that"
              " cell, then this one.")
        print("Hint: while a segment is recomputed, what else is held? Write that sum for each segment.")
        return
    sizes = _sizes(my_sizes, k_layers)
    if sizes is None:
        raise Unreadable(f"Write a list of whole numbers adding up to {k_layers}, e.g. my_sizes = [12, 12, 12]"
                         f" (you wrote {my_sizes!r}).")
    try:
        peak = count(my_peak)
    except Unreadable:
        raise Unreadable(f"Write a number, e.g. my_peak = 3 (you wrote {my_peak!r}).") from None
    rows, width = 16, 8
    net = tanh_mlp(k_layers, width)
    x_small = batch(rows, width).requires_grad_()
    unit = rows * width * 4  # one layer's activation, float32, in bytes
    measured = schedule_step(net, x_small, sizes) // unit
    best = least_peak(k_layers)
    if measured == best:
        bound = "the least possible for this family: (j - 1) + m_j <= M for every segment j, so k <= M(M+1)/2"
        print(f"sizes {sizes}: right, measured peak {measured}, {bound}.")
    elif len(sizes) == 1:
        print("One segment, run normally, is no checkpointing: every layer's activation is kept.")
    else:
        print(f"sizes {sizes}: measured peak {measured}, not the least possible. While segment j is recomputed,"
              " the inputs of segments 2, ..., j are held beside its own activations; a good schedule keeps"
              " that sum the same for every segment.")
    if peak == measured:
        print(f"peak = {peak}: right for your sizes.")
    else:
        print(f"peak = {peak}: not the measured value for your sizes. Take the largest, over the segments,"
              " of the inputs held before it plus its own size (the last segment holds the inputs of all"
              " the others).")
