"""Timing a lesson can trust: variants interleaved round by round, collector off, medians and spread.

A lesson that claims "backward costs about twice forward" or "the compiled replay
is faster" measures it here, the way an experiment a researcher would accept is
run on a shared, noisy machine:

* every variant runs once per round, round after round, so a busy spell of the
  machine hits them all alike; the order within a round rotates, so that no
  variant always runs first (a position effect would look like a real difference);
  ``order="shuffle"`` draws each round's order at random instead (seeded, so a run
  repeats), so that no variant is always preceded by the same one either (a carry-over
  from one call to the next, such as a warm cache, then varies from round to round);
* the first rounds are a warm-up and are dropped;
* Python's garbage collector is off while timing (``gc.disable()``): a collection
  triggered by one variant's garbage would land on whichever runs next;
* on a machine other processes keep busy, ``clock=time.process_time`` times the
  process's CPU time: the time it spends waiting for the processor is not counted;
* what comes back is every round's time, so a cell prints the median with its
  spread (the interquartile range: half the rounds lie inside it) and a check
  tests a ratio computed round by round (each round's two times were taken a
  moment apart: their ratio cancels a slow spell of the machine that lasts the whole
  round, not one that catches a single variant).

Intervals that assume nothing about the times' distribution: ``median_ci`` (the median's exact interval
from order statistics, for the rounds' times or their ratios), ``sign_test`` (its exact p-value against a
predicted median) and ``holm`` (Holm's step-down adjustment, when a table makes several claims at once); ``median_ratio_ci`` and
``paired_median_ratio_ci`` (a ratio of two medians, the samples measured apart or in the same rounds).

``one_sided_sign_test`` is the sign test on a side predicted before the data, and ``Claims`` a family of
such claims on repeated recordings: each claim's verdict, its one-sided p (kept, not printed) and its printed
line, so that a lesson states a claim in one call.

Verdicts on those intervals, so that a lesson's cells show the measurement and the verdict, not its
plumbing: ``apart`` (two intervals that do not overlap), ``claimed`` (an effect shown in every recording
of a file), ``stored_ratio`` (a ratio as a recording file stores it) and ``differences`` (the extra one
variant takes over another, round by round, for a paired interval of two such extras).

``measure(variants, rounds=15, warmup=3)`` returns a ``Timings``::

    t = timing.measure({"forward": forward, "backward": forward_and_backward})
    print(t)                                   # median and interquartile range of each
    r = t.ratio("backward", "forward")         # a Ratio: .median, .low, .high (IQR)
    ci = t.ratio_ci("backward", "forward")     # the median with a 95% bootstrap interval
    ci = t.exact_ratio_ci("backward", "forward")   # the same median, its exact order-statistic interval
    assert 1.5 < r.median < 4                  # a band the claim predicts

Works the same with minigrad's and PyTorch's tensors (it times Python callables).
A teaching helper of minigrad's own, like ``memory``; PyTorch has none.
"""

import gc
import math
import random
import statistics
import time
from collections import namedtuple

__all__ = ["Claims", "Ratio", "Timings", "apart", "claimed", "differences", "holm", "measure", "median_ci",
           "median_ratio_ci", "not_all_overlapping", "one_sided_sign_test", "paired_median_ratio_ci", "sign_test",
           "stored_ratio"]

Ratio = namedtuple("Ratio", "median low high")
Ratio.__doc__ = """A ratio of two variants' times, round by round: its median and its
interquartile range (``low``, ``high``: the middle half of the rounds' ratios)."""


def measure(variants, rounds=15, warmup=3, clock=None, order="rotate", seed=0):
    """Time each of ``variants`` (a dict of name: callable taking no argument) ``rounds`` times.

    Round after round, each variant runs once, in an order that rotates from one
    round to the next; the first ``warmup`` rounds are not kept; the collector is off
    while timing (and restored after).  ``clock`` is the function read before and after
    each call: wall-clock time (``time.perf_counter``) unless told otherwise; on a machine
    shared with other busy processes, ``time.process_time`` (this process's CPU time)
    leaves out the time the machine gives to them, which wall-clock time counts in
    whichever call it interrupts.  ``order="shuffle"`` runs each round in an order
    shuffled by ``random.Random(seed)`` in place of the rotation, so that each variant's
    predecessor changes from round to round.  Returns a ``Timings``.

    Raises:
        ValueError: no variants, fewer than 3 rounds (no spread to speak of), or an
            ``order`` other than ``"rotate"`` and ``"shuffle"``.
    """
    if not variants:
        raise ValueError("measure: give at least one variant to time")
    if rounds < 3:
        raise ValueError(f"measure: at least 3 rounds are needed for a spread, got {rounds}")
    if order not in ("rotate", "shuffle"):
        raise ValueError(f"measure: order is 'rotate' or 'shuffle', got {order!r}")
    clock = time.perf_counter if clock is None else clock
    names = list(variants)
    shuffler = random.Random(seed)
    times = {name: [] for name in names}
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for r in range(warmup + rounds):
            if order == "shuffle":
                this_round = shuffler.sample(names, len(names))
            else:
                shift = r % len(names)
                this_round = names[shift:] + names[:shift]
            for name in this_round:
                fn = variants[name]
                t0 = clock()
                fn()
                elapsed = clock() - t0
                if r >= warmup:
                    times[name].append(elapsed)
    finally:
        if was_enabled:
            gc.enable()
    return Timings(times)


def median_ratio_ci(a, b, level=0.95, resamples=2000, seed=0):
    """``median(a) / median(b)`` of two independent samples, with a bootstrap confidence interval.

    For two quantities measured apart (no round pairs an ``a`` with a ``b``, so
    ``Timings.ratio_ci`` does not apply): each resample draws ``a`` and ``b`` again with
    replacement, each on its own, and takes the ratio of their medians; ``low`` and ``high`` leave
    ``(1 - level) / 2`` of those ratios on each side.  An interval that excludes 1 says the two
    medians differ beyond both samples' noise.  ``seed`` fixes the resampling.  Returns a
    ``Ratio`` (median, low, high)."""
    a, b = list(a), list(b)
    rng = random.Random(seed)
    draws = (statistics.median(rng.choices(a, k=len(a))) / statistics.median(rng.choices(b, k=len(b)))
             for _ in range(resamples))
    return Ratio(statistics.median(a) / statistics.median(b), *_percentile_interval(draws, level))


def paired_median_ratio_ci(a, b, level=0.95, resamples=2000, seed=0):
    """``median(a) / median(b)`` of two samples taken in the same rounds, with a bootstrap interval.

    ``a[i]`` and ``b[i]`` come from round ``i`` (two extras from ``differences``, say: recording's
    extra over ``no_grad`` at two sizes).  Each resample draws the rounds with replacement, a round's
    two values together, and takes the ratio of the two medians; ``low`` and ``high`` leave
    ``(1 - level) / 2`` of those ratios on each side.  Unlike ``Timings.ratio_ci``, the median of the
    rounds' ratios, it estimates the ratio of the typical values themselves, and a round whose ``b``
    is near zero does not blow its ratio up.  ``seed`` fixes the resampling.  Returns a ``Ratio``
    (median, low, high).

    Raises:
        ValueError: ``a`` and ``b`` of different lengths (not the same rounds), or empty.
    """
    a, b = list(a), list(b)
    if len(a) != len(b) or not a:
        raise ValueError(f"paired_median_ratio_ci: {len(a)} and {len(b)} values, not the same rounds")
    rng = random.Random(seed)
    pairs = list(zip(a, b))

    def draw():
        sample = rng.choices(pairs, k=len(pairs))
        return statistics.median(x for x, _ in sample) / statistics.median(y for _, y in sample)

    draws = (draw() for _ in range(resamples))
    return Ratio(statistics.median(a) / statistics.median(b), *_percentile_interval(draws, level))


def median_ci(values, level=0.95):
    """The median of ``values`` with its exact, distribution-free confidence interval.

    For ``n`` independent draws of any continuous distribution, how many fall below its true median
    is Binomial(n, 1/2); so the interval from the ``j``-th smallest to the ``j``-th largest value
    covers the true median with probability ``1 - 2 P(B < j)``, whatever the distribution (Conover,
    *Practical Nonparametric Statistics*, 1999, sec. 3.2).  ``j`` is the largest with that coverage
    at least ``level``; the coverage reached is at least ``level`` (a discrete distribution seldom
    gives it exactly).  ``values`` are, say, the rounds' ratios of two variants
    (``Timings.ratios``) or one variant's times.  Returns a ``Ratio`` (median, low, high).

    Raises:
        ValueError: too few values for ``level`` (with ``n`` values the widest interval, smallest to
            largest, covers with probability ``1 - 2 ** (1 - n)``: 5 values reach 93.75%, 6 reach 96.9%).
    """
    values = sorted(values)
    n = len(values)
    j = _order_statistic_rank(n, level)
    return Ratio(statistics.median(values), values[j - 1], values[n - j])


def sign_test(values, predicted):
    """The exact two-sided p-value of the sign test of "the median of ``values`` is ``predicted``".

    Under that hypothesis each value (of independent draws) lies above ``predicted`` with
    probability 1/2, so the count above is Binomial(n, 1/2), ``n`` the values not equal to
    ``predicted`` (ties carry no sign and are dropped).  The p-value is twice the smaller tail, at
    most 1: small when nearly all values lie on one side.  It is the test ``median_ci`` inverts:
    ``predicted`` lies outside the interval at ``level`` exactly when the p-value is at most
    ``1 - level`` (for the coverages ``median_ci`` can reach).  With no untied value, returns 1.
    """
    above = sum(v > predicted for v in values)
    below = sum(v < predicted for v in values)
    n = above + below
    if n == 0:
        return 1.0
    return min(1.0, 2 * _binomial_cdf(min(above, below), n))


def one_sided_sign_test(values, predicted, side):
    """The exact one-sided p-value of the sign test, against "the median of ``values`` is ``predicted``",
    on the ``side`` predicted before the data.

    ``side="above"``: the alternative is a median above ``predicted``; the p-value is P(B >= the count
    above), B ~ Binomial(n, 1/2), ``n`` the values not equal to ``predicted`` (ties dropped).
    ``side="below"``: the mirror image.  ``side="inside"``: ``predicted`` is a band ``(low, high)`` and the
    alternative a median inside it; the p-value is the larger of the two one-sided p-values (above
    ``low``, below ``high``), the intersection-union test (Berger & Hsu 1996): the band is shown only
    if both of its ends are.  Values on the contrary side make the p-value large, never small: a test on
    the predicted side cannot claim the opposite effect (``Claims`` says "refuted" for that).
    With no untied value, returns 1.

    Raises:
        ValueError: a ``side`` other than ``"above"``, ``"below"`` and ``"inside"``.
    """
    if side == "inside":
        low, high = predicted
        return max(one_sided_sign_test(values, low, "above"), one_sided_sign_test(values, high, "below"))
    if side not in ("above", "below"):
        raise ValueError(f"one_sided_sign_test: side is 'above', 'below' or 'inside', got {side!r}")
    above = sum(v > predicted for v in values)
    below = sum(v < predicted for v in values)
    n = above + below
    if n == 0:
        return 1.0
    return _binomial_cdf(below if side == "above" else above, n)


def holm(pvalues):
    """Holm's step-down adjustment of several p-values tested together (Holm 1979).

    Claiming every effect whose adjusted p-value is at most ``alpha`` keeps the chance of any false
    claim among them at most ``alpha``, whatever their dependence.  The ``i``-th smallest p-value
    (from 1) is multiplied by ``m - i + 1`` (``m`` p-values), capped at 1, and made no smaller than
    the one before it.  ``pvalues`` is a sequence (a list comes back, in its order) or a mapping of
    name to p-value (a dict comes back, by name)."""
    if isinstance(pvalues, dict):
        return dict(zip(pvalues, holm(list(pvalues.values()))))
    p = list(pvalues)
    m = len(p)
    adjusted, running = [0.0] * m, 0.0
    for i, k in enumerate(sorted(range(m), key=lambda k: p[k])):
        running = max(running, min(1.0, (m - i) * p[k]))
        adjusted[k] = running
    return adjusted


def apart(a, b):
    """Whether two intervals do not overlap: ``a.high < b.low`` or ``b.high < a.low``.

    ``a`` and ``b`` are ``Ratio``s (or anything with ``low`` and ``high``), such as the 95% intervals of
    one ratio in two recordings: apart, they differ beyond either recording's own noise."""
    return a.high < b.low or b.high < a.low


def stored_ratio(r):
    """A ratio as a recording file stores it, ``{"median": m, "ci95": [low, high], ...}``, as a ``Ratio``
    of its median and 95% interval."""
    return Ratio(r["median"], *r["ci95"])


def claimed(test, recordings, name="recording"):
    """The verdict on an effect recorded more than once: ``test(recording)`` must hold in every one.

    ``recordings`` is a list of the recordings (any objects ``test`` reads).  With two, the verdict is
    ``"claimed: in both recordings"`` or ``"not claimed: in k of 2 recordings"``; with one, what it
    shows and ``"not claimed"`` (a single recording is not repeated); with more, ``"claimed: in all n
    recordings"`` or ``"not claimed: in k of n recordings"``.  ``name`` is what the verdict calls one
    recording (``name="recorded run"`` gives "claimed: in both recorded runs").

    Raises:
        ValueError: no recordings.
    """
    if not recordings:
        raise ValueError("claimed: give at least one recording")
    shown = [bool(test(rec)) for rec in recordings]
    if len(shown) == 1:
        return f"one {name} in this file, which shows it: {shown[0]}; not claimed"
    if all(shown):
        return f"claimed: in both {name}s" if len(shown) == 2 else f"claimed: in all {len(shown)} {name}s"
    return f"not claimed: in {sum(shown)} of {len(shown)} {name}s"


def not_all_overlapping(intervals):
    """The names whose intervals do not all overlap: ``intervals`` maps a name to a list of ``Ratio``s (one
    quantity's 95% interval in each recording); a name is returned when some two of its intervals lie apart
    (the smallest ``high`` below the largest ``low``), that is, when the recordings differ by more than
    each one's own noise."""
    return [name for name, rs in intervals.items() if min(r.high for r in rs) < max(r.low for r in rs)]


class Claims:
    """A family of claims tested on repeated recordings (runs), each claim stated before recording.

    ``stated`` maps a claim's key to ``{"null": ..., "direction": "above" | "below" | "inside"}`` (and
    optionally ``"statistic"``, what the claim measures), as a recording script stores them before it
    records; ``stated_post_hoc`` the same for claims read off the data first (exploratory).  ``claim``
    tests one, prints its line and keeps it: in ``claims`` (one family, for ``holm``) or, post hoc or on
    other recordings, in ``exploratory`` (listed apart, not adjusted).  ``library`` starts each line,
    ``name`` is what a line calls one recording.
    """

    def __init__(self, library, runs, stated, stated_post_hoc=None, name="run"):
        self.library, self.runs, self.name = library, runs, name
        self.stated, self.stated_post_hoc = stated, stated_post_hoc or {}
        self.claims, self.exploratory = {}, {}

    def claim(self, key, stat, null, shows, post_hoc=False, runs=None, label=None, overruled=None):
        """Test the claim ``key``, print its line and keep its record (a dict: ``between``, ``null``, ``side``,
        ``p``, ``verdict``, ``statistic``, and each run's ``values`` and ``shown``) in ``claims`` or
        ``exploratory``, under ``label`` or ``key``.

        ``stat(run)``: a run's value (its median); the runs' values are tested against the stated null
        by ``one_sided_sign_test`` on the stated side, and their median given with its distribution-free
        interval of coverage at least 95% (``median_ci``).  ``shows(run)``: that run's own 95% interval lies beyond the null on that side.
        The verdict: "claimed" if every run shows it (``claimed``); "refuted" if the runs' medians' 95%
        interval lies wholly on the contrary side of the null (outside the band, for "inside"); else
        "not claimed".  ``null``, if given, must equal the stated one (a check that the lesson tests what
        was stated); ``None`` takes the stated one.  ``runs`` (other recordings than the family's) and
        ``post_hoc`` put the claim among the exploratory ones, under ``label`` (default ``key``).
        ``overruled``: a verdict set by another test (say "not established (the other block disagrees)",
        no colon), which replaces "claimed" or "not claimed" before the runs' count; a refutation stands.
        The printed line gives the verdict, the runs' medians with their interval and the predicted side, not
        the p-value: the verdict rests on the every-run rule, and the record keeps ``p`` (the one-sided sign
        test, or for a band ("inside") the intersection-union test: two one-sided sign tests) for ``holm``.

        Raises:
            KeyError: ``key`` was not stated.
            ValueError: ``null`` differs from the stated one.
        """
        pre = (self.stated_post_hoc if post_hoc else self.stated)[key]
        if null is not None and null != pre["null"]:
            raise ValueError(f"{key}: the null {null!r} differs from the one stated before recording, {pre['null']!r}")
        null, side, rs = pre["null"], pre["direction"], self.runs if runs is None else runs
        values = [stat(run) for run in rs]
        between = median_ci(values)
        shown = [bool(shows(run)) for run in rs]
        verdict = claimed(lambda i: shown[i], range(len(rs)), name=self.name)
        if _contrary(between, null, side):
            verdict = "refuted: " + verdict.split(": ", 1)[1] + f", the {self.name}s' medians on the contrary side"
        elif overruled is not None:
            verdict = f"{overruled}: " + verdict.split(": ", 1)[1]
        exploratory = post_hoc or runs is not None
        c = (self.exploratory if exploratory else self.claims)[label or key] = {
            "between": between, "null": null, "side": side, "p": one_sided_sign_test(values, null, side),
            "verdict": verdict, "statistic": pre.get("statistic"), "values": values, "shown": shown}
        print(f"{self.library}{' (exploratory)' if exploratory else ''}: {label or key}"
              f"{' (' + c['statistic'] + ')' if c['statistic'] else ''}: {verdict}; the {self.name}s' medians"
              f" {between.median:.3f} (95% interval {between.low:.3f} to {between.high:.3f}), predicted {side} {null}")

    def across(self, get):
        """``get(run)``: a ``Ratio``; the median of the runs' medians with its distribution-free interval of
        coverage at least 95% (``median_ci``): the spread between runs."""
        return median_ci([get(run).median for run in self.runs])


def _contrary(between, null, side):
    """Whether the interval ``between`` lies wholly on the side of ``null`` contrary to ``side``."""
    if side == "above":
        return between.high < null
    if side == "below":
        return between.low > null
    return between.high < null[0] or between.low > null[1]


def differences(a, b, per=1):
    """``(a_i - b_i) / per`` round by round, for two variants' times from the same rounds.

    The extra time one variant takes over another (recording over not recording, say), divided by
    ``per`` (the number of operations, for an extra per operation).  Two such lists taken in the same
    rounds make a ``Timings``, whose ``ratio_ci`` is a paired interval of the two extras' ratio.

    Raises:
        ValueError: ``a`` and ``b`` of different lengths (not the same rounds).
    """
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise ValueError(f"differences: the two variants have {len(a)} and {len(b)} rounds, not the same rounds")
    return [(x - y) / per for x, y in zip(a, b)]


def _binomial_cdf(k, n):
    """P(B <= k) for B ~ Binomial(n, 1/2), exactly (integers until the one division)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n


def _order_statistic_rank(n, level):
    """The largest ``j`` whose order statistics ``j`` and ``n + 1 - j`` (from 1) bound the median
    with coverage ``1 - 2 P(B <= j - 1)`` at least ``level``, B ~ Binomial(n, 1/2)."""
    if n == 0 or 1 - 2 * _binomial_cdf(0, n) < level:
        raise ValueError(f"median_ci: {n} values cannot give a {level:.1%} interval of the median "
                         f"(the widest, smallest to largest, covers {max(0.0, 1 - 2 * 0.5 ** n):.2%})")
    j = 1
    while j + 1 <= (n + 1) // 2 and 1 - 2 * _binomial_cdf(j, n) >= level:
        j += 1
    return j


def _percentile_interval(draws, level):
    """The percentile bootstrap's interval: the draws' values that leave ``(1 - level) / 2`` of
    them on each side (``low``, ``high``)."""
    draws = sorted(draws)
    last, tail = len(draws) - 1, (1 - level) / 2
    return draws[int(tail * last)], draws[int(round((1 - tail) * last))]


def _quartiles(values):
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


class Timings:
    """The times ``measure`` took, in seconds: ``times[name]`` is one value per kept round."""

    def __init__(self, times):
        self.times = times

    def median(self, name):
        """The median time of variant ``name``, in seconds."""
        return statistics.median(self.times[name])

    def spread(self, name):
        """``(low, high)``: the interquartile range of ``name``'s times, in seconds."""
        return _quartiles(self.times[name])

    def ratio(self, a, b):
        """``a``'s time over ``b``'s, round by round: a ``Ratio`` (median, interquartile range)."""
        ratios = [x / y for x, y in zip(self.times[a], self.times[b])]
        low, high = _quartiles(ratios)
        return Ratio(statistics.median(ratios), low, high)

    def ratios(self, a, b):
        """``a``'s time over ``b``'s in each round, in round order (for ``median_ci`` or ``sign_test``)."""
        return [x / y for x, y in zip(self.times[a], self.times[b])]

    def ratio_ci(self, a, b, level=0.95, resamples=2000, seed=0):
        """The median of ``a``'s time over ``b``'s, round by round, with a bootstrap confidence interval.

        The rounds are resampled with replacement ``resamples`` times (a round's two times stay
        together) and the median ratio taken each time; ``low`` and ``high`` are the percentiles
        that leave ``(1 - level) / 2`` of those medians on each side.  Where the interquartile range
        says how the rounds spread, this says how well their median is known: two medians whose
        intervals do not overlap differ beyond the rounds' own noise.  ``seed`` fixes the resampling.
        Returns a ``Ratio`` (median, low, high)."""
        ratios = [x / y for x, y in zip(self.times[a], self.times[b])]
        rng = random.Random(seed)
        draws = (statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(resamples))
        return Ratio(statistics.median(ratios), *_percentile_interval(draws, level))

    def exact_ratio_ci(self, a, b, level=0.95):
        """The median of ``a``'s time over ``b``'s, round by round, with its exact, distribution-free interval.

        ``median_ci`` of the rounds' ratios (``ratios``): the interval runs from the ``j``-th smallest to
        the ``j``-th largest ratio, ``j`` from Binomial(n, 1/2), and covers the median of the ratios'
        distribution with probability at least ``level`` whatever that distribution, if the rounds are
        independent draws of it (15 rounds at 95%: the 4th and 12th ratios, coverage 96.5%).  Unlike
        ``ratio_ci`` no resampling: the same rounds always give the same interval.  Returns a ``Ratio``
        (median, low, high).

        Raises:
            ValueError: too few rounds for ``level`` (5 rounds cannot give 95%).
        """
        return median_ci(self.ratios(a, b), level)

    def __repr__(self):
        rounds = len(next(iter(self.times.values())))
        width = max(len(name) for name in self.times)
        lines = [f"median (interquartile range) of {rounds} interleaved rounds, collector off:"]
        for name in self.times:
            low, high = self.spread(name)
            lines.append(f"  {name:<{width}}  {_ms(self.median(name))} ({_ms(low)} to {_ms(high)})")
        return "\n".join(lines)


def _ms(seconds):
    return f"{seconds * 1e3:.3f} ms"
