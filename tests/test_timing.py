"""minigrad.timing: the lessons' timing helper, on a fake clock (no real timing in tests).

Each variant advances the fake clock by a known amount, so medians, spreads and ratios
are known exactly; the order of calls, the warm-up and the collector are checked too.
"""

import gc
import math
import random

import pytest

from minigrad import timing


@pytest.fixture
def clock(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(timing.time, "perf_counter", lambda: now[0])
    return now


def test_variants_interleave_with_a_rotating_order_and_the_warmup_is_dropped(clock):
    calls = []

    def variant(name, cost):
        def run():
            calls.append(name)
            assert not gc.isenabled()  # the collector is off while timing
            clock[0] += cost
        return run

    t = timing.measure({"a": variant("a", 1.0), "b": variant("b", 3.0), "c": variant("c", 2.0)},
                       rounds=4, warmup=2)
    assert calls[:9] == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]
    assert len(calls) == 3 * 6
    assert t.times == {"a": [1.0] * 4, "b": [3.0] * 4, "c": [2.0] * 4}
    assert gc.isenabled()


def test_a_shuffled_order_varies_each_variants_predecessor_and_repeats_with_its_seed(clock):
    def run_order(**kwargs):
        calls = []
        variants = {name: (lambda name=name: calls.append(name)) for name in "abcd"}
        t = timing.measure(variants, rounds=20, warmup=1, **kwargs)
        rounds = [calls[i:i + 4] for i in range(0, len(calls), 4)]
        assert all(sorted(r) == list("abcd") for r in rounds)      # every variant once per round
        assert all(len(t.times[name]) == 20 for name in "abcd")      # the warm-up round dropped
        return rounds

    shuffled = run_order(order="shuffle", seed=3)
    assert shuffled == run_order(order="shuffle", seed=3)           # the seed fixes the orders
    assert shuffled != run_order(order="shuffle", seed=4)
    before_a = {r[r.index("a") - 1] for r in shuffled if r.index("a") > 0}
    assert len(before_a) >= 2                                       # a's predecessor varies
    rotated = run_order()                                           # the default: the rotation
    assert rotated[:4] == [list("abcd"), list("bcda"), list("cdab"), list("dabc")]
    assert {r[r.index("a") - 1] for r in rotated if r.index("a") > 0} == {"d"}


def test_medians_spreads_and_ratios_round_by_round(clock):
    costs = {"fast": iter([1, 2, 3, 4, 5, 100]), "slow": iter([2, 4, 6, 8, 10, 200])}

    def variant(name):
        def run():
            clock[0] += next(costs[name])
        return run

    t = timing.measure({"fast": variant("fast"), "slow": variant("slow")}, rounds=5, warmup=1)
    assert t.times["fast"] == [2, 3, 4, 5, 100]
    assert t.median("fast") == 4 and t.spread("fast") == (3, 5)
    r = t.ratio("slow", "fast")  # every round exactly 2, whatever the drift
    assert r == timing.Ratio(2.0, 2.0, 2.0)
    assert "fast" in repr(t) and "4000.000 ms (3000.000 ms to 5000.000 ms)" in repr(t)


def test_bad_calls_say_what_is_wrong():
    with pytest.raises(ValueError, match="at least one variant"):
        timing.measure({})
    with pytest.raises(ValueError, match="at least 3 rounds"):
        timing.measure({"a": lambda: None}, rounds=2)
    with pytest.raises(ValueError, match="'rotate' or 'shuffle'"):
        timing.measure({"a": lambda: None}, order="latin")


def test_the_collector_stays_off_if_it_was_off(clock):
    gc.disable()
    try:
        timing.measure({"a": lambda: None}, rounds=3, warmup=0)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_clock_can_be_given_and_is_the_one_read():
    now = [0.0]

    def fake_cpu_time():
        return now[0]

    def run():
        now[0] += 0.5

    t = timing.measure({"a": run, "b": run}, rounds=3, warmup=1, clock=fake_cpu_time)
    assert t.times == {"a": [0.5] * 3, "b": [0.5] * 3}


def test_the_bootstrap_interval_holds_the_median_and_narrows_with_more_rounds():
    import random
    rng = random.Random(1)
    def timings(rounds):
        b = [1.0 + rng.random() for _ in range(rounds)]
        return timing.Timings({"a": [v * (2.0 + rng.gauss(0, 0.2)) for v in b], "b": b})
    few, many = timings(15).ratio_ci("a", "b"), timings(400).ratio_ci("a", "b")
    for ci in (few, many):
        assert ci.low <= ci.median <= ci.high
    assert many.high - many.low < (few.high - few.low) / 2       # about 1/sqrt(rounds)
    assert many.low < 2.0 < many.high                           # the true median ratio, 2
    iqr = timings(400).ratio("a", "b")
    assert many.high - many.low < iqr.high - iqr.low            # the median's uncertainty, not the spread
    same = timing.Timings({"a": [2.0, 4.0, 6.0], "b": [1.0, 2.0, 3.0]}).ratio_ci("a", "b")
    assert same == timing.Ratio(2.0, 2.0, 2.0)                  # every round's ratio 2: no uncertainty
    t = timings(31)
    assert t.ratio_ci("a", "b", seed=3) == t.ratio_ci("a", "b", seed=3)


def test_the_ratio_of_two_independent_medians_has_an_interval_that_narrows_and_holds_the_truth():
    import random
    rng = random.Random(2)
    def samples(n, centre):
        return [centre * (1 + rng.gauss(0, 0.1)) for _ in range(n)]
    few = timing.median_ratio_ci(samples(11, 3.0), samples(15, 2.0))
    many = timing.median_ratio_ci(samples(400, 3.0), samples(400, 2.0))
    for ci in (few, many):
        assert ci.low <= ci.median <= ci.high
    assert many.high - many.low < (few.high - few.low) / 2       # about 1/sqrt(n)
    assert many.low < 1.5 < many.high                           # the true ratio of the medians
    assert not few.low <= 1.0 <= few.high                       # 3 against 2 at 10% noise: a difference
    assert timing.median_ratio_ci([4.0, 4.0], [2.0, 2.0, 2.0]) == timing.Ratio(2.0, 2.0, 2.0)
    a, b = samples(9, 1.0), samples(9, 1.0)
    assert timing.median_ratio_ci(a, b, seed=3) == timing.median_ratio_ci(a, b, seed=3)
    assert timing.median_ratio_ci(iter(a), iter(b)) == timing.median_ratio_ci(a, b)   # any iterables


def test_the_paired_ratio_of_medians_keeps_rounds_together_and_holds_the_truth():
    import random
    import statistics
    rng = random.Random(5)
    # each round has its own speed (a shared factor), and each value its own noise
    speed = [1 + rng.random() for _ in range(301)]
    a = [s * 3.0 * (1 + rng.gauss(0, 0.05)) for s in speed]
    b = [s * 2.0 * (1 + rng.gauss(0, 0.05)) for s in speed]
    paired = timing.paired_median_ratio_ci(a, b)
    assert paired.low <= paired.median <= paired.high
    assert paired.median == pytest.approx(statistics.median(a) / statistics.median(b))
    assert paired.low < 1.5 < paired.high                         # the true ratio
    # the rounds resampled together: narrower than treating the two samples as measured apart
    apart_ = timing.median_ratio_ci(a, b)
    assert paired.high - paired.low < (apart_.high - apart_.low) / 2
    assert timing.paired_median_ratio_ci([2.0, 4.0, 6.0], [1.0, 2.0, 3.0]) == timing.Ratio(2.0, 2.0, 2.0)
    assert timing.paired_median_ratio_ci(a, b, seed=3) == timing.paired_median_ratio_ci(a, b, seed=3)
    with pytest.raises(ValueError, match="not the same rounds"):
        timing.paired_median_ratio_ci([1.0, 2.0], [1.0])


def test_apart_is_true_only_for_intervals_that_do_not_overlap():
    assert timing.apart(timing.Ratio(1.0, 0.9, 1.1), timing.Ratio(1.3, 1.2, 1.4))
    assert timing.apart(timing.Ratio(1.3, 1.2, 1.4), timing.Ratio(1.0, 0.9, 1.1))
    assert not timing.apart(timing.Ratio(1.0, 0.9, 1.2), timing.Ratio(1.3, 1.2, 1.4))   # touching ends overlap
    assert not timing.apart(timing.Ratio(1.0, 0.5, 2.0), timing.Ratio(1.1, 1.0, 1.2))   # one inside the other


def test_stored_ratio_reads_the_median_and_the_95_percent_interval():
    assert timing.stored_ratio({"median": 1.5, "iqr": [1.2, 1.8], "ci95": [1.4, 1.6]}) == timing.Ratio(1.5, 1.4, 1.6)


def test_claimed_needs_the_effect_in_every_recording():
    above = lambda rec: rec > 1
    assert timing.claimed(above, [2, 3]) == "claimed: in both recordings"
    assert timing.claimed(above, [2, 0]) == "not claimed: in 1 of 2 recordings"
    assert timing.claimed(above, [0, 0]) == "not claimed: in 0 of 2 recordings"
    assert timing.claimed(above, [2]) == "one recording in this file, which shows it: True; not claimed"
    assert timing.claimed(above, [2, 2, 2]) == "claimed: in all 3 recordings"
    assert timing.claimed(above, [2, 0, 2]) == "not claimed: in 2 of 3 recordings"
    with pytest.raises(ValueError, match="at least one recording"):
        timing.claimed(above, [])


def test_differences_are_taken_round_by_round_and_make_a_paired_ratio():
    assert timing.differences([5.0, 7.0], [1.0, 3.0], per=2) == [2.0, 2.0]
    with pytest.raises(ValueError, match="not the same rounds"):
        timing.differences([1.0, 2.0], [1.0])
    # two extras from the same rounds: one twice the other in every round, whatever the round's speed
    slow, fast = [3.0, 6.0, 9.0, 12.0], [1.0, 2.0, 3.0, 4.0]
    extra_big, extra_small = timing.differences(slow, fast), timing.differences([2.0, 4.0, 6.0, 8.0], fast)
    r = timing.Timings({"big": extra_big, "small": extra_small}).ratio_ci("big", "small")
    assert r == timing.Ratio(2.0, 2.0, 2.0)


def test_median_ci_takes_the_order_statistics_the_binomial_gives():
    # n = 15 at 95%: ranks 4 and 12 (coverage 1 - 2 * 576 / 32768 = 0.9648; ranks 5 and 11 give 0.8815)
    assert timing.median_ci(range(1, 16)) == timing.Ratio(8, 4, 12)
    # n = 6 at 95%: only the extremes (coverage 1 - 2 / 64 = 0.969); n = 9: ranks 2 and 8 (0.961)
    assert timing.median_ci([6, 1, 5, 2, 4, 3]) == timing.Ratio(3.5, 1, 6)
    assert timing.median_ci(range(1, 10)) == timing.Ratio(5, 2, 8)
    # a lower level narrows it: n = 15 at 80% gives ranks 5 and 11 (0.8815 >= 0.8; ranks 6 and 10 give 0.6982)
    assert timing.median_ci(range(1, 16), level=0.8) == timing.Ratio(8, 5, 11)
    with pytest.raises(ValueError, match="5 values cannot give a 95.0% interval"):
        timing.median_ci([1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match="0 values"):
        timing.median_ci([])


def test_median_ci_covers_the_true_median_as_often_as_it_says():
    rng, n, trials = random.Random(3), 21, 4000
    level = 1 - 2 * sum(math.comb(n, i) for i in range(6)) / 2 ** n   # ranks 6 and 16
    covered = 0
    for _ in range(trials):
        draws = [rng.expovariate(1.0) for _ in range(n)]   # skewed: true median ln 2
        ci = timing.median_ci(draws)
        covered += ci.low <= 0.6931471805599453 <= ci.high
    assert abs(covered / trials - level) < 0.015   # 0.9734 expected; binomial sd of the rate 0.0025


def test_exact_ratio_ci_is_median_ci_of_the_rounds_ratios():
    t = timing.Timings({"a": [float(v) for v in range(2, 32, 2)], "b": [1.0] * 15})   # ratios 2, 4, ..., 30
    assert t.exact_ratio_ci("a", "b") == timing.median_ci(t.ratios("a", "b")) == timing.Ratio(16.0, 8.0, 24.0)
    with pytest.raises(ValueError, match="5 values"):
        timing.Timings({"a": [1.0] * 5, "b": [1.0] * 5}).exact_ratio_ci("a", "b")


def test_exact_ratio_ci_covers_the_ratios_median_as_the_binomial_says():
    # 15 rounds: ranks 4 and 12, exact coverage 1 - 2 P(B <= 3), B ~ Binomial(15, 1/2) = 0.96484375
    rng, n, trials = random.Random(5), 15, 4000
    exact = 1 - 2 * sum(math.comb(n, i) for i in range(4)) / 2 ** n
    covered = 0
    for _ in range(trials):
        # each round: b ~ 1 + Exp(1), a = b * r with r lognormal (median of a / b: e^0.2)
        b = [1 + rng.expovariate(1.0) for _ in range(n)]
        a = [y * rng.lognormvariate(0.2, 0.3) for y in b]
        ci = timing.Timings({"a": a, "b": b}).exact_ratio_ci("a", "b")
        covered += ci.low <= math.exp(0.2) <= ci.high
    assert abs(covered / trials - exact) < 0.012   # binomial sd of the rate 0.0029


def test_sign_test_counts_signs_exactly_and_inverts_median_ci():
    assert timing.sign_test([1, 2, 3, 4, 5, 6], 0) == 2 / 64
    assert timing.sign_test([1, 2, 3, 4, 5, 6], 3.5) == 1.0
    assert timing.sign_test([1, 2, 3, 4, 5, 7], 2) == 2 * (1 + 5) / 32   # the tie at 2 dropped: 1 below of 5
    assert timing.sign_test([2, 2], 2) == 1.0
    values = [0.3, 1.7, 0.9, 1.1, 2.4, 0.6, 1.3, 1.9, 0.8, 1.05, 1.45, 2.2, 0.95, 1.6, 1.25]
    ci = timing.median_ci(values)
    for predicted in [0.1, 0.5, 0.85, 0.9, 0.92, 1.0, 1.2, 1.5, 1.65, 1.7, 1.75, 2.0, 3.0]:
        outside = predicted < ci.low or predicted > ci.high
        assert outside == (timing.sign_test(values, predicted) <= 0.05), predicted


def test_holm_steps_down_and_keeps_the_order_given():
    assert timing.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert timing.holm({"a": 0.5, "b": 0.01}) == {"a": 0.5, "b": 0.02}
    assert timing.holm([0.6, 0.7]) == [1.0, 1.0]   # 2 * 0.6 capped at 1, and no smaller after it
    assert timing.holm([]) == []


def test_claimed_names_its_recordings_as_told():
    above = lambda r: r > 1
    assert timing.claimed(above, [2, 3], name="recorded run") == "claimed: in both recorded runs"
    assert timing.claimed(above, [2, 0, 2], name="run") == "not claimed: in 2 of 3 runs"
    assert timing.claimed(above, [2], name="run") == "one run in this file, which shows it: True; not claimed"


def test_ratios_are_the_rounds_own(clock):
    costs = iter([1.0, 2.0, 1.0, 4.0, 1.0, 3.0])   # rotate: a, b | b, a | a, b

    def variant():
        clock[0] += next(costs)
    t = timing.measure({"a": variant, "b": variant}, rounds=3, warmup=0)
    assert t.ratios("b", "a") == [2.0, 1.0 / 4.0, 3.0]


def test_the_one_sided_sign_test_counts_only_the_predicted_side():
    assert timing.one_sided_sign_test([1, 2, 3, 4, 5, 6], 0, "above") == 1 / 64
    assert timing.one_sided_sign_test([1, 2, 3, 4, 5, 6], 0, "below") == 1.0   # all on the contrary side
    assert timing.one_sided_sign_test([1, 2, 3, 4, 5, 7], 2, "above") == 6 / 32   # the tie dropped: 1 below of 5
    assert timing.one_sided_sign_test([2, 2], 2, "below") == 1.0
    # half the two-sided p when the values lie on the predicted side
    values = [0.9, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7]
    assert timing.one_sided_sign_test(values, 1, "above") == timing.sign_test(values, 1) / 2
    # inside a band: the larger of the two one-sided p's, so one end not shown leaves it large
    assert timing.one_sided_sign_test([1.0] * 10, (0.8, 1.2), "inside") == 1 / 1024
    assert timing.one_sided_sign_test([1.0] * 9 + [1.3], (0.8, 1.2), "inside") == 11 / 1024
    assert timing.one_sided_sign_test([1.3] * 10, (0.8, 1.2), "inside") == 1.0
    with pytest.raises(ValueError, match="side"):
        timing.one_sided_sign_test(values, 1, "two")


def test_not_all_overlapping_names_the_quantities_whose_recordings_lie_apart():
    r = timing.Ratio
    got = timing.not_all_overlapping({"same": [r(1, 0.9, 1.1), r(1.05, 1.0, 1.2)],
                                      "apart": [r(1, 0.9, 1.1), r(1.3, 1.2, 1.4), r(1.0, 0.95, 1.05)]})
    assert got == ["apart"]


def test_claims_say_claimed_refuted_or_not_claimed_and_keep_the_stated_side(capsys):
    runs = [{"m": m, "low": m - 0.05, "high": m + 0.05} for m in [1.1, 1.2, 1.3, 1.15, 1.25, 1.12, 1.22, 1.18, 1.3, 1.21]]
    stated = {"up": {"null": 1, "direction": "above"}, "down": {"null": 1, "direction": "below"},
              "band": {"null": [0.8, 1.4], "direction": "inside", "statistic": "the ratio"},
              "down by 1.2": {"null": 1.2, "direction": "below"}}
    fam = timing.Claims("lib", runs, stated, {"later": {"null": 1, "direction": "above"}})
    fam.claim("up", lambda run: run["m"], 1, lambda run: run["low"] > 1)
    up = fam.claims["up"]
    assert up["verdict"] == "claimed: in all 10 runs" and up["p"] == 1 / 1024
    fam.claim("down", lambda run: run["m"], 1, lambda run: run["high"] < 1)
    down = fam.claims["down"]
    assert down["verdict"] == "refuted: in 0 of 10 runs, the runs' medians on the contrary side" and down["p"] == 1.0
    fam.claim("down by 1.2", lambda run: run["m"], None, lambda run: run["high"] < 1.2)
    near = fam.claims["down by 1.2"]
    assert near["verdict"].startswith("not claimed")           # medians on both sides of 1.2: neither
    assert fam.claim("band", lambda run: run["m"], None, lambda run: 0.8 < run["low"] and run["high"] < 1.4) is None
    band = fam.claims["band"]
    assert band["verdict"] == "claimed: in all 10 runs" and band["statistic"] == "the ratio"
    assert list(fam.claims) == ["up", "down", "down by 1.2", "band"]
    fam.claim("later", lambda run: run["m"], 1, lambda run: run["low"] > 1, post_hoc=True)
    fam.claim("up", lambda run: run["m"], 1, lambda run: True, runs=runs[:6], label="up, six runs")
    assert list(fam.exploratory) == ["later", "up, six runs"]
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("lib: up: claimed: in all 10 runs; the runs' medians 1.205 (95% interval 1.120 to 1.300),"
                      " predicted above 1")
    assert out[3].startswith("lib: band (the ratio): claimed") and out[5].startswith("lib (exploratory): up, six runs:")
    assert out[3].endswith("predicted inside [0.8, 1.4]") and band["p"] == 1 / 1024
    assert not any("p =" in line for line in out)           # the p-value is kept in the record, not printed
    assert up["values"] == [run["m"] for run in runs] and up["shown"] == [True] * 10 and down["shown"] == [False] * 10
    fam.claim("up", lambda run: run["m"], 1, lambda run: run["low"] > 1, label="up, overruled", runs=runs,
              overruled="not established (another block disagrees)")
    assert fam.exploratory["up, overruled"]["verdict"] == "not established (another block disagrees): in all 10 runs"
    fam.claim("down", lambda run: run["m"], 1, lambda run: False, label="down, overruled", runs=runs, overruled="x")
    assert fam.exploratory["down, overruled"]["verdict"].startswith("refuted")    # a refutation stands
    with pytest.raises(ValueError, match="stated"):
        fam.claim("up", lambda run: run["m"], 2, lambda run: True)
    assert fam.across(lambda run: timing.Ratio(run["m"], 0, 0)) == timing.median_ci([run["m"] for run in runs])
