"""Researcher lesson 2, "Try it yourself": a checkpointing schedule for k = 40 layers.

The learner gives segment sizes along a chain of 40 layers (all but the last segment
checkpointed, the last run normally; each layer is then evaluated at most twice) and
predicts the peak of saved activations.  The check measures the schedule with the
lesson's own ``schedule_step`` (on a chain built by its ``tanh_mlp``, fed by its
``batch``), counting the layer evaluations with a forward hook on every ``Linear``, and
checks the peak against the least a schedule of this family can reach: segment j of m_j
layers is recomputed beside the inputs of segments 2, ..., j, so (j - 1) + m_j <= M and
k <= M(M + 1)/2 = C(M + 1, 2), this family's bound (equal in number to Griewank's
binomial bound; the lesson shows no mapping between the two counts).  40 is not
triangular, so several schedules reach that peak; among them the check asks for the
fewest evaluations (``least_evaluations``: only the last segment is not recomputed).

``count(answer)`` reads a count as every check reads a number (``answers.number``), and
gives it back as an ``int`` when it is whole, so that a reply writes ``4``, not ``4.0``.
"""

import math

from .answers import NOT_GIVEN, Unreadable, number, reply

__all__ = ["check", "count", "least_evaluations", "least_peak"]


def count(answer, example="3"):
    """``answer`` read by ``answers.number``, as an ``int`` if whole; NOT_GIVEN for None."""
    value = number(answer, example=example)
    if value is NOT_GIVEN or not value.is_integer():
        return value
    return int(value)


def least_peak(k_layers, r=2):
    """The least M with k_layers <= C(M - 1 + r, r): this family's bound (for r = 2), a number
    equal to Griewank's."""
    return next(m for m in range(1, k_layers + 1) if math.comb(m - 1 + r, r) >= k_layers)


def least_evaluations(k_layers, m):
    """The fewest layer evaluations, k plus the layers recomputed, of a schedule with peak m.

    With s segments, segment j holds at most m - (j - 1) layers; every layer but the last
    segment's is evaluated twice, so the last segment is made as long as the others allow.
    """
    best = None
    for s in range(1, m + 1):
        caps = [m - j for j in range(s)]
        last = min(caps[-1], k_layers - (s - 1))
        if last >= 1 and s - 1 <= k_layers - last <= sum(caps[:-1]):
            best = max(best or 0, last)
    return 2 * k_layers - best


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
def check(my_sizes, my_peak, schedule_step, tanh_mlp, batch, k_layers=40):
    """Reply to ``my_sizes`` (segment sizes, first to last) and ``my_peak`` (in layer activations)."""
    if my_sizes is None or my_peak is None:
        print("No prediction yet: put your segment sizes and your peak in place of None above,")
        print("run that cell, then this one.")
        print("Hint: while a segment is recomputed, what else is held? Write that sum for each segment.")
        return
    sizes = _sizes(my_sizes, k_layers)
    if sizes is None:
        raise Unreadable(f"Write a list of whole numbers adding up to {k_layers}, e.g. my_sizes = [20, 20]"
                         f" (you wrote {my_sizes!r}).")
    try:
        peak = count(my_peak)
    except Unreadable:
        raise Unreadable(f"Write a number, e.g. my_peak = 3 (you wrote {my_peak!r}).") from None
    rows, width = 16, 8
    net = tanh_mlp(k_layers, width)
    x_small = batch(rows, width).requires_grad_()
    unit = rows * width * 4  # one layer's activation, float32, in bytes
    evaluations = [0]

    def count_evaluation(module, inputs, output):
        evaluations[0] += 1

    hooks = [layer.register_forward_hook(count_evaluation) for layer in list(net)[0::2]]  # the Linears
    measured = schedule_step(net, x_small, sizes) // unit
    for hook in hooks:
        hook.remove()
    best = least_peak(k_layers)
    if measured == best and evaluations[0] == least_evaluations(k_layers, best):
        bound = "the least possible for this family: (j - 1) + m_j <= M for every segment j, so k <= M(M+1)/2"
        fewest = (f"{evaluations[0]} layer evaluations = 2k - (the last segment's size), the fewest at that peak:"
                  " only the last segment is evaluated once, and with s segments it holds at most M - (s - 1)"
                  " layers while all s hold at most sM - s(s - 1)/2")
        print(f"sizes {sizes}: right, measured peak {measured}, {bound}; {fewest}.")
    elif measured == best:
        print(f"sizes {sizes}: measured peak {measured}, the least possible, but {evaluations[0]} layer"
              " evaluations, not the fewest at that peak: which layers are evaluated only once?")
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
