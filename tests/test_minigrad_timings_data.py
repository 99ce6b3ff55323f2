"""The data file researcher lesson 3 reads for minigrad's timing claims.

``notebooks/researcher/data/minigrad_timings_03.json`` is written by
``tests/tools/record_minigrad_timings.py`` (``make record-minigrad-timings``): the
claims' timings in separate processes, as PyTorch's ``replicate`` runs.  These
tests check that the file has every field the lesson reads, in the form it
expects; that its numbers are consistent (a median inside its spread, the
script's sizes and rounds); that the runs are separate measurements; and that the
claims' directions stored with the data are the ones the script states.
"""

import json
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "notebooks" / "researcher" / "data" / "minigrad_timings_03.json"
SCRIPT = ROOT / "tests" / "tools" / "record_minigrad_timings.py"
sys.path.insert(0, str(ROOT / "tests" / "tools"))

import record_minigrad_timings as script  # noqa: E402
from test_torch_timings_data import assert_ratio  # noqa: E402  (one check of a stored ratio, shared)


@pytest.fixture(scope="module")
def data():
    return json.loads(DATA.read_text(encoding="utf-8"))


def test_says_where_when_and_with_what_it_was_recorded(data):
    about = data["recorded"]
    assert about["by"].startswith("tests/tools/record_minigrad_timings.py")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", about["date"])
    assert about["machine"]["cores"] >= 1 and about["machine"]["cpu"]
    assert set(about["versions"]) == {"minigrad", "numpy", "python"} and about["threads"] == 1
    assert about["clock"].startswith("time.process_time")


def test_the_claims_directions_are_the_scripts(data):
    # written in the script before recording and stored with the data: a direction changed afterwards
    # in one place and not the other fails here
    assert data["claims"] == json.loads(json.dumps(script.CLAIMS))
    for claim in data["claims"].values():
        assert claim["direction"] in ("above", "below", "inside") and claim["statistic"]
        if claim["direction"] == "inside":
            low, high = claim["null"]
            assert low < high
        else:
            assert isinstance(claim["null"], (int, float))


def test_the_runs_are_separate_processes_with_their_loads(data):
    runs = data["runs"]
    assert len(runs) >= 6                               # the runs' medians then have an exact 95% interval
    text = SCRIPT.read_text(encoding="utf-8")
    body = text.split("def record_runs(", 1)[1].split("\ndef ", 1)[0]
    assert "subprocess.run(" in body and '"--replicate-child"' in body and "for i in range(runs)" in body
    assert "record_runs(args.runs, args.rounds)" in text.split("def main(", 1)[1]
    for run in runs + data["fixed_allocator"]["runs"]:
        assert len(run["load_average_at_start"]) == len(run["load_average_at_end"]) == 3 and run["seconds"] > 0
    # separate measurements, not one copied: no two runs share a median
    medians = [run["mlp_step"]["ratio_to_eager"]["aot_eager"]["median"] for run in runs]
    assert len(set(medians)) == len(runs)


def test_the_fixed_allocator_runs_say_how_the_allocator_was_set(data):
    fixed = data["fixed_allocator"]
    assert fixed["environment"] == script.FIXED_ALLOCATOR and len(fixed["runs"]) >= 6
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", fixed["date"])
    # each process says what it ran with (read in the child): pinned there, glibc's defaults in the other runs
    for run in fixed["runs"]:
        assert run["allocator_environment"] == script.FIXED_ALLOCATOR
    for run in data["runs"]:
        assert run["allocator_environment"] == {k: None for k in script.FIXED_ALLOCATOR}


def test_the_large_sizes_count_each_timed_calls_page_faults(data):
    above = data["rounds_above_10000_elements"]
    for run in data["runs"] + data["fixed_allocator"]["runs"]:
        for row in run["recording_sweep"]:
            faults = row.get("minor_faults_per_timed_call")
            if row["elements"] < script.FAULTS_FROM:
                assert faults is None
                continue
            assert set(faults) == {"recording", "no_grad"}
            assert {len(v) for v in faults.values()} == {above}    # the kept rounds, the warm-up dropped
            assert all(isinstance(f, int) and f >= 0 for v in faults.values() for f in v)
        faults = run["controls_large"]["minor_faults_per_timed_call"]
        assert set(faults) == set(run["controls_large"]["per_pass_rounds_ms"])
        assert {len(v) for v in faults.values()} == {above}
        assert all(isinstance(f, int) and f >= 0 for v in faults.values() for f in v)


def test_each_run_has_what_the_lesson_reads(data):
    rounds, above = data["rounds"], data["rounds_above_10000_elements"]
    assert rounds >= 41 and above == script.rounds_for(10**6, rounds)
    for run in data["runs"] + data["fixed_allocator"]["runs"]:
        sweep = run["recording_sweep"]
        assert [row["elements"] for row in sweep] == script.SIZES
        for row in sweep:
            assert_ratio(row["ratio"])
            assert row["operations"] == 60 and row["calls_per_timed_call"] >= 1 and row["no_grad"]["median_ms"] > 0
        for key, sizes, n in [("controls", [10, 1_000], rounds), ("controls_large", [1_000_000], above)]:
            controls = run[key]
            assert controls["sizes"] == sizes and controls["rounds"] == n
            names = {f"{v} {size}" for v in ["recording", "no_grad", "no_grad keeping"] for size in sizes}
            assert set(controls["per_pass_rounds_ms"]) == names
            assert {len(times) for times in controls["per_pass_rounds_ms"].values()} == {n}
            assert all(t > 0 for times in controls["per_pass_rounds_ms"].values() for t in times)
        mlp = run["mlp_step"]
        assert mlp["rounds"] == 2 * rounds + 1 and set(mlp["per_step"]) == {"eager", *script.BACKENDS}
        step = run["chain_step_at_10"]
        assert step["elements"] == 10 and step["rounds"] == rounds
        for r in [*mlp["ratio_to_eager"].values(), *step["ratio_to_eager"].values()]:
            assert_ratio(r)


def test_the_file_is_as_the_script_writes_it():
    text = DATA.read_text(encoding="utf-8")
    assert text == script.dumps(json.loads(text)) + "\n"
