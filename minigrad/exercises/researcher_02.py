"""Researcher lesson 2, "Try it yourself": the best number of checkpointed segments for k = 36.

The learner predicts the number of segments s for which ``checkpoint_sequential`` keeps
the smallest peak of saved activations on a chain of 36 layers, and that peak in layer
activations.  The check measures every divisor of 36 with the lesson's own ``train_step``
(on a chain built by its ``tanh_mlp``, fed by its ``batch``) and compares.

``count(answer)`` reads a count as every check reads a number (``answers.number``), and
gives it back as an ``int`` when it is whole, so that a reply writes ``s = 4``, not ``4.0``.
"""

from .answers import NOT_GIVEN, Unreadable, number, reply

__all__ = ["check", "count"]


def count(answer, example="3"):
    """``answer`` read by ``answers.number``, as an ``int`` if whole; NOT_GIVEN for None."""
    value = number(answer, example=example)
    if value is NOT_GIVEN or not value.is_integer():
        return value
    return int(value)


def _divisors(k):
    return [s for s in range(1, k + 1) if k % s == 0]


@reply
def check(my_segments, my_peak, train_step, tanh_mlp, batch, k_layers=36):
    """Reply to ``my_segments`` (s) and ``my_peak`` (in layer activations) for ``k_layers``."""
    try:
        segments, peak = count(my_segments), count(my_peak)
    except Unreadable:
        raise Unreadable(f"Write numbers, e.g. my_segments = 3 (you wrote {my_segments!r}"
                         f" and {my_peak!r}).") from None
    if segments is NOT_GIVEN or peak is NOT_GIVEN:
        print("No prediction yet: put your two numbers in place of None above, run that cell, then this one.")
        print("Hint: count what is kept after the forward pass, as a function of s.")
        return
    rows, width = 16, 8
    net = tanh_mlp(k_layers, width)
    x_small = batch(rows, width).requires_grad_()
    unit = rows * width * 4  # one layer's activation, float32, in bytes
    peaks = {s: train_step(net, x_small, s)[1] // unit for s in _divisors(k_layers)}
    s_best = min(peaks, key=peaks.get)
    if segments == s_best:
        print(f"s = {segments}: right, the measured optimum.")
    elif segments == 1:
        print("s = 1 is no checkpointing: every layer's activation is kept, as large a peak as there is.")
    elif segments == k_layers:
        print(f"s = {k_layers}: every layer its own segment, so every layer's input is a kept boundary:"
              " no saving at all.")
    else:
        print(f"s = {segments}: measured peak {peaks.get(segments, f'n/a (not a divisor of {k_layers})')};"
              " the kept boundaries and one segment's activations pull in opposite directions: where do"
              " they balance?")
    if peak == peaks[s_best]:
        print(f"peak = {peak}: right, (s - 1) + k/s at the optimum.")
    else:
        print(f"peak = {peak}: not the measured value. After the forward pass: s - 1 kept segment"
              " inputs, plus the last segment, run normally, with its k/s activations.")
