"""The data file researcher lesson 2 reads: PyTorch's CPU memory during its checkpointing walk.

``notebooks/researcher/data/torch_memory_02.json`` is written by
``tests/tools/record_torch_memory.py`` on real PyTorch.  These tests check that
a stored or re-recorded file has the fields the lesson reads, for the chain and
the numbers of segments the script measures, and that its numbers are
consistent (the peak of the walk is at least what was alive when it started,
and is the bytes alive from the forward pass plus the walk's allocations listed
as alive at it; the reentrant walks, and the control walks on an input that requires grad, keep
after the forward pass what the others keep; the k = 24 walks keep what the count says, and their
prediction was stored before they were measured, as was the shrinking walks'; the divisor walks, recorded
twice, agree to the byte; the timing's stored ratios are its stored times', in
the single recording and in each run of the replication, whose order is the recorded shuffle's;
the machine is named).
"""

import datetime
import json
import pathlib
import random
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "notebooks" / "researcher" / "data" / "torch_memory_02.json"
SCRIPT = ROOT / "tests" / "tools" / "record_torch_memory.py"


def script_constant(name):
    return re.search(rf"^{name} = (.*)$", SCRIPT.read_text(encoding="utf-8"), re.M).group(1)


def test_the_file_names_its_recording():
    data = json.loads(DATA.read_text(encoding="utf-8"))
    assert data["torch"].startswith("2.")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", data["recorded"])
    assert data["cpu"].strip() and re.fullmatch(r"\d+\.\d+.*", data["numpy"])


def test_the_chain_and_segments_are_the_scripts():
    data = json.loads(DATA.read_text(encoding="utf-8"))
    depth, width, rows = (int(v) for v in script_constant("DEPTH, WIDTH, ROWS").split(","))
    assert data["chain"] == {"depth": depth, "width": width, "rows": rows, "activation_bytes": rows * width * 4}
    segments = json.loads(script_constant("SEGMENTS"))
    assert sorted(int(s) for s in data["walks"]) == segments


def test_each_walk_peaks_at_or_above_its_start():
    data = json.loads(DATA.read_text(encoding="utf-8"))
    for walk in data["walks"].values():
        assert 0 < walk["after_forward_bytes"] <= walk["peak_in_backward_bytes"], walk


@pytest.mark.parametrize("variant", ["walks_reentrant", "walks_grad_input"])
def test_the_other_walks_keep_what_the_non_reentrant_keep(variant):
    # walks_reentrant: use_reentrant=True; walks_grad_input: the control, use_reentrant=False on
    # the same input requiring grad, which separates the variant's change from its input's
    data = json.loads(DATA.read_text(encoding="utf-8"))
    assert data[variant].keys() == data["walks"].keys()
    for s, walk in data[variant].items():
        assert walk["after_forward_bytes"] == data["walks"][s]["after_forward_bytes"], s
        assert walk["after_forward_bytes"] <= walk["peak_in_backward_bytes"], s



@pytest.mark.parametrize("variant", ["walks", "walks_reentrant", "walks_grad_input"])
def test_the_peak_is_its_listed_allocations(variant):
    # where the walk peaks (node, operator) and what is alive there: the forward pass's bytes plus the
    # walk's allocations grouped by the node and operator that made them, which must add up to the peak
    data = json.loads(DATA.read_text(encoding="utf-8"))
    for s, walk in data[variant].items():
        node, op = walk["peak_at"]
        assert node and op.startswith(("aten::", "-")), (s, walk["peak_at"])
        groups = walk["walk_allocations_alive_at_peak"]
        assert all(group["count"] >= 1 and group["bytes"] > 0 for group in groups), s
        assert 0 < walk["forward_bytes_alive_at_peak"] <= walk["after_forward_bytes"], s
        assert walk["forward_bytes_alive_at_peak"] + sum(g["bytes"] for g in groups) == walk["peak_in_backward_bytes"], s


@pytest.mark.parametrize("variant", ["walks_k24_reentrant", "walks_k24_grad_input"])
def test_the_predicted_configuration_is_the_scripts(variant):
    # the k = 24 chain the lesson predicts before it was recorded: the script's segments, each
    # keeping after the forward pass what the count says, (s - 1) + 24 / s activations and the loss
    data = json.loads(DATA.read_text(encoding="utf-8"))
    depth, segments = script_constant("DEPTH_PREDICTED, SEGMENTS_PREDICTED").split("#")[0].split(", ", 1)
    assert sorted(int(s) for s in data[variant]) == json.loads(segments)
    one = data["chain"]["activation_bytes"]
    for s, walk in data[variant].items():
        law = (int(s) - 1) + int(depth) // int(s)
        assert walk["after_forward_bytes"] == law * one + 4, s
        assert walk["after_forward_bytes"] <= walk["peak_in_backward_bytes"], s


def test_the_k24_prediction_was_stored_before_its_measurement():
    # the script writes its prediction into the file, with the second, before it measures the k = 24
    # walks; each walk's measurement starts after that second. The prediction covers the script's
    # segments, and its numbers are its rule's: one activation plus one Linear's weight and bias
    # gradients (PyTorch: at every s; minigrad: where a segment has more than one layer)
    data = json.loads(DATA.read_text(encoding="utf-8"))
    predicted = data["predicted_k24"]

    def second(stamp):
        return datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S UTC")

    for variant in ["walks_k24_reentrant", "walks_k24_grad_input"]:
        assert second(predicted["written"]) < second(data["when_recorded"][variant]["measured_from"]), variant
    depth, segments = script_constant("DEPTH_PREDICTED, SEGMENTS_PREDICTED").split("#")[0].split(", ", 1)
    width = data["chain"]["width"]
    rise = data["chain"]["activation_bytes"] + (width * width + width) * 4
    assert predicted["torch_reentrant_minus_control_bytes"] == {s: rise for s in data["walks_k24_reentrant"]}
    assert predicted["minigrad_extra_rise_bytes"] == {
        str(s): rise if int(depth) // s > 1 else 0 for s in json.loads(segments)}


def test_each_runs_timing_ratios_are_its_times():
    # in every run of timing_s2_runs, every round's ratios recomputed from its stored times: the added
    # time over the unit, its part in the first forward pass, the rest (the walk), and on PyTorch the
    # attribution variants' parts
    runs = json.loads(DATA.read_text(encoding="utf-8"))["timing_s2_runs"]["runs"]
    assert runs
    for run in runs:
        T, ratios = run["times_s"], run["ratios"]
        assert all(len(times) == run["rounds"] for times in T.values())
        assert all(t > 0 for times in T.values() for t in times)

        def per_unit(a, b, r):
            return (T[b][r] - T[a][r]) / T["layers 1-8"][r]

        for r in range(run["rounds"]):
            added, first = per_unit("s = 1", "s = 2", r), per_unit("forward, s = 1", "forward, s = 2", r)
            assert ratios["added"][r] == pytest.approx(added, rel=1e-12)
            assert ratios["first_pass"][r] == pytest.approx(first, rel=1e-12)
            assert ratios["walk"][r] == pytest.approx(added - first, rel=1e-12, abs=1e-12)
            if run["library"] == "torch":
                assert ratios["rng_state"][r] == pytest.approx(
                    per_unit("s = 2, rng not preserved", "s = 2", r), rel=1e-12)
                assert ratios["empty_checkpoint"][r] == pytest.approx(
                    per_unit("s = 1", "s = 1, empty checkpoint", r), rel=1e-12)


def test_the_s2_runs_are_separate_processes_in_the_recorded_shuffled_order():
    # timing_s2_runs: the PyTorch runs and MINIGRAD_RUNS minigrad runs per heap condition, each a fresh
    # process with its own date, versions and load, one after another in the order random.Random(seed)
    # shuffles them into; the kept-heap runs really had their heap kept; the attribution's prediction
    # was written before any run ended
    replicated = json.loads(DATA.read_text(encoding="utf-8"))["timing_s2_runs"]
    runs = replicated["runs"]
    minigrad_runs = int(script_constant("MINIGRAD_RUNS").split("#")[0])
    torch_runs = sum(run["library"] == "torch" for run in runs)
    assert torch_runs >= 7        # the fewest whose two sign tests can both reject at 0.05 after Holm's adjustment
    order = [("torch", "default")] * torch_runs + [("minigrad", "default"), ("minigrad", "kept")] * minigrad_runs
    random.Random(replicated["seed"]).shuffle(order)
    assert [f"{run['library']} {run['heap']}" for run in runs] == replicated["order"] == [f"{a} {b}" for a, b in order]
    assert all(run["heap_kept"] == (run["heap"] == "kept") for run in runs)
    dates = [datetime.datetime.strptime(run["date"], "%Y-%m-%d %H:%M:%S UTC") for run in runs]
    assert dates == sorted(dates) and len(set(dates)) == len(dates)
    written = datetime.datetime.strptime(replicated["predicted_attribution"]["written"], "%Y-%m-%d %H:%M:%S UTC")
    # before the first run STARTED: its end (the child's date, truncated to the second) less its duration
    # (rounded to 0.1 s); the prediction's second must end before the earliest start those allow
    first_start = dates[0] - datetime.timedelta(seconds=runs[0]["seconds"] + 0.05)
    assert written + datetime.timedelta(seconds=1) <= first_start
    for run in runs:
        assert run["version"].startswith("2.") if run["library"] == "torch" else run["version"]
        assert re.fullmatch(r"\d+\.\d+.*", run["numpy"]) and run["machine"] and len(run["load_average_at_start"]) == 3


def test_each_s2_runs_ratios_are_its_times():
    # every run's ratios recomputed from its own stored times, round by round
    for run in json.loads(DATA.read_text(encoding="utf-8"))["timing_s2_runs"]["runs"]:
        T, ratios = run["times_s"], run["ratios"]
        assert all(len(times) == run["rounds"] and all(t > 0 for t in times) for times in T.values())
        pairs = {"added": ("s = 1", "s = 2"), "first_pass": ("forward, s = 1", "forward, s = 2")}
        if run["library"] == "torch":
            pairs.update(rng_state=("s = 2, rng not preserved", "s = 2"), empty_checkpoint=("s = 1", "s = 1, empty checkpoint"))
        assert set(ratios) == {*pairs, "walk"}
        for r in range(run["rounds"]):
            for name, (a, b) in pairs.items():
                assert ratios[name][r] == pytest.approx((T[b][r] - T[a][r]) / T["layers 1-8"][r], rel=1e-12)
            assert ratios["walk"][r] == pytest.approx(ratios["added"][r] - ratios["first_pass"][r], rel=1e-12, abs=1e-12)


def _kept(walk):
    assert walk["forward_bytes_alive_at_peak"] + sum(g["bytes"] for g in walk["walk_allocations_alive_at_peak"]) \
        == walk["peak_in_backward_bytes"]
    assert 0 < walk["after_forward_bytes"] <= walk["peak_in_backward_bytes"]
    return walk["after_forward_bytes"]


def test_any_s_keeps_the_count_after_the_forward_pass():
    # k = 16, one module per layer, every s: M(s) = (s - 1) + k - (s - 1) floor(k/s) activations and the loss
    data = json.loads(DATA.read_text(encoding="utf-8"))
    one, k = data["chain"]["activation_bytes"], data["chain"]["depth"]
    walks = data["walks_any_s"]["walks"]
    assert sorted(int(s) for s in walks) == list(range(1, k + 1))
    for s, walk in walks.items():
        s = int(s)
        count = k if s == 1 else (s - 1) + k - (s - 1) * (k // s)
        assert _kept(walk) == count * one + 4, s


def test_shrinking_segments_keep_the_count_after_the_forward_pass():
    # every k from 2 to 48 whose shrinking schedule has more than one segment: segments of M, M - 1, ...
    # layers (M the least with k <= M(M + 1)/2), the last taking the rest; kept after the forward pass:
    # the inputs of segments 2, ..., and the last segment's activations, and the loss
    data = json.loads(DATA.read_text(encoding="utf-8"))
    one = data["chain"]["activation_bytes"]
    walks = data["walks_shrinking"]["walks"]
    expected = []
    for k in range(2, 49):
        m = next(m for m in range(1, k + 1) if m * (m + 1) // 2 >= k)
        sizes = [min(m - j, k - sum(range(m, m - j, -1))) for j in range(m) if k - sum(range(m, m - j, -1)) > 0]
        if len(sizes) > 1:
            expected.append(str(k))
            assert walks[str(k)]["sizes"] == sizes, k
    assert list(walks) == expected
    for k, walk in walks.items():
        assert _kept(walk) == (len(walk["sizes"]) - 1 + walk["sizes"][-1]) * one + 4, k


def test_the_shrinking_prediction_was_stored_before_its_measurement_and_is_its_formula():
    # predicted_shrinking: written, with its second, before walks_shrinking was measured; its peaks are
    # its formula's at every k: (m + 2) activations + the k - m later layers' weight and bias gradients
    # + 8 bytes, m the first segment's layers
    data = json.loads(DATA.read_text(encoding="utf-8"))
    predicted = data["predicted_shrinking"]

    def second(stamp):
        return datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S UTC")

    assert second(predicted["written"]) < second(data["walks_shrinking"]["measured_from"])
    one, width = data["chain"]["activation_bytes"], data["chain"]["width"]
    walks = data["walks_shrinking"]["walks"]
    assert predicted["peak_in_backward_bytes"].keys() == walks.keys()
    for k, walk in walks.items():
        m = walk["sizes"][0]
        assert predicted["peak_in_backward_bytes"][k] == (m + 2) * one + (int(k) - m) * (width * width + width) * 4 + 8


def test_the_two_recordings_of_the_divisor_walks_agree():
    # walks (tanh_mlp) and walks_any_s (one module per layer) are the same computation at the s that
    # divide k: the same peak and the same forward bytes alive at it, to the byte; a recording whose
    # variable held the output would keep one activation more in one of them
    data = json.loads(DATA.read_text(encoding="utf-8"))
    any_s = data["walks_any_s"]["walks"]
    for s, walk in data["walks"].items():
        for field in ["after_forward_bytes", "peak_in_backward_bytes", "forward_bytes_alive_at_peak"]:
            assert any_s[s][field] == walk[field], (s, field)


# walk_peak_rule as committed in 0205abd (2026-12-07 14:35 UTC), verbatim but for the comments; the gradient size
# was then the global `layer_gradients`, since made an argument with that default
RULE_AT_0205ABD = '''
def walk_peak_rule(sizes, one_bytes):
    k, alive, done = sum(sizes), [], 0
    for j, size in enumerate(sizes, 1):
        done += size
        if j < len(sizes):
            alive.append((j - 1 + size + 2) * one_bytes + (k - done) * layer_gradients + 8)
        else:
            alive.append((j - 1 + size + 1) * one_bytes + layer_gradients + 8)
    return max(alive)
'''


def committed_rule(layer_gradients):
    """RULE_AT_0205ABD as a function of (sizes, activation bytes), with that gradient size."""
    namespace = {"layer_gradients": layer_gradients}
    exec(RULE_AT_0205ABD, namespace)
    return namespace["walk_peak_rule"]


def test_the_new_chain_was_predicted_before_it_was_measured_and_the_rule_holds():
    # predicted_new_chain: the walk-peak rule and the count, on a chain (k, width, batch) other than
    # the lesson's, written with its second before walks_new_chain was measured. The stored prediction is the
    # rule's (recomputed here from the chain alone), the chain is the script's, and the recording meets
    # it to the byte at every s, after the forward pass and at the walk's peak
    data = json.loads(DATA.read_text(encoding="utf-8"))
    predicted, measured = data["predicted_new_chain"], data["walks_new_chain"]

    def second(stamp):
        return datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S UTC")

    assert second(predicted["written"]) < second(data["when_recorded"]["walks_new_chain"]["measured_from"])
    chain = json.loads(script_constant("NEW_CHAIN").split("#")[0].strip().replace("'", '"'))
    assert predicted["chain"] == measured["chain"] == chain
    assert (chain["depth"], chain["width"], chain["rows"]) != tuple(data["chain"][f] for f in ["depth", "width", "rows"])
    k, one, grads = chain["depth"], chain["rows"] * chain["width"] * 4, (chain["width"] ** 2 + chain["width"]) * 4
    rule = committed_rule(grads)
    for s in chain["segments"]:
        sizes = [k] if s == 1 else [k // s] * (s - 1) + [k - (s - 1) * (k // s)]
        assert predicted["peak_in_backward_bytes"][str(s)] == rule(sizes, one), s
        assert predicted["after_forward_bytes"][str(s)] == (len(sizes) - 1 + sizes[-1]) * one + 4, s
    assert list(measured["walks"]) == [str(s) for s in chain["segments"]]
    for s, walk in measured["walks"].items():
        assert walk["after_forward_bytes"] == predicted["after_forward_bytes"][s], s
        assert walk["peak_in_backward_bytes"] == predicted["peak_in_backward_bytes"][s], s


def test_the_best_equal_splits_are_the_least_count_divisors_and_keep_the_count():
    # walks_equal_best: at every k of walks_shrinking, each divisor s of k with the least (s - 1) + k/s,
    # keeping after the forward pass that many activations and the loss, to the byte
    data = json.loads(DATA.read_text(encoding="utf-8"))
    equal, one = data["walks_equal_best"]["walks"], data["chain"]["activation_bytes"]
    assert equal.keys() == data["walks_shrinking"]["walks"].keys()
    for k, walks in equal.items():
        laws = {s: (s - 1) + int(k) // s if s > 1 else int(k) for s in range(1, int(k) + 1) if int(k) % s == 0}
        assert sorted(int(s) for s in walks) == [s for s, law in laws.items() if law == min(laws.values())], k
        for s, walk in walks.items():
            assert walk["after_forward_bytes"] == laws[int(s)] * one + 4, (k, s)
            assert walk["after_forward_bytes"] <= walk["peak_in_backward_bytes"], (k, s)


def test_the_lessons_walk_peak_rule_gives_the_committed_rules_bytes():
    # the lesson's walk_peak_rule, taken from its cell, against the rule as committed in 0205abd: the same
    # bytes at every stored case (k = 16 at every recorded s, the shrinking schedules, the k = 20 chain with
    # its own gradient size), so the page's "the rule did not change" is checked, not said
    lesson = ROOT / "notebooks" / "researcher" / "02_memory_and_checkpointing.ipynb"
    cells = ["".join(c["source"]) for c in json.loads(lesson.read_text(encoding="utf-8"))["cells"]]
    source = next(c for c in cells if "def walk_peak_rule" in c)
    now = {}
    exec(next(line for c in cells for line in c.splitlines() if line.startswith("layer_gradients =")), now)   # its one definition
    exec(source[:source.index("\nprint(")], now)
    data = json.loads(DATA.read_text(encoding="utf-8"))
    one, width = data["chain"]["activation_bytes"], data["chain"]["width"]
    cases = [(now["segments_of"](16, int(s)), one, (width * width + width) * 4) for s in data["walks_any_s"]["walks"]]
    cases += [(w["sizes"], one, (width * width + width) * 4) for w in data["walks_shrinking"]["walks"].values()]
    chain = data["walks_new_chain"]["chain"]
    cases += [(now["segments_of"](chain["depth"], int(s)), chain["rows"] * chain["width"] * 4,
               (chain["width"] ** 2 + chain["width"]) * 4) for s in data["walks_new_chain"]["walks"]]
    for sizes, one_bytes, grads in cases:
        assert now["walk_peak_rule"](sizes, one_bytes, grads) == committed_rule(grads)(sizes, one_bytes), sizes
    assert now["layer_gradients"] == (width * width + width) * 4
