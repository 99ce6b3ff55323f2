"""The data file researcher lesson 3 reads: PyTorch's side of its measurements.

``notebooks/researcher/data/torch_timings_03.json`` is written by
``tests/tools/record_torch_timings.py`` (``make record-torch-timings``) on real
PyTorch.  The lesson reads its fields; these tests check that a stored or
re-recorded file has every one of them, in the form the lesson expects, and
that its numbers are consistent with each other (a median inside its
interquartile range, the sizes the script measures, the counts the graphs
imply), so that a broken recording fails here rather than in a lesson cell.
"""

import ast
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "notebooks" / "researcher" / "data" / "torch_timings_03.json"
LESSON = ROOT / "notebooks" / "researcher" / "03_define_by_run_vs_define_then_run.ipynb"


@pytest.fixture(scope="module")
def data():
    return json.loads(DATA.read_text(encoding="utf-8"))


def script_sizes():
    text = (ROOT / "tests" / "tools" / "record_torch_timings.py").read_text(encoding="utf-8")
    return [int(n.replace("_", "")) for n in re.search(r"^SIZES = \[(.*)\]", text, re.M).group(1).split(",")]


def assert_ratio(r):
    low, high = r["iqr"]
    assert 0 < low <= r["median"] <= high, r
    # the median's 95% bootstrap interval: around the median, and inside the rounds' spread's reach
    ci_low, ci_high = r["ci95"]
    assert 0 < ci_low <= r["median"] <= ci_high, r


def assert_timing(t):
    low, high = t["iqr_ms"]
    assert 0 < low <= t["median_ms"] <= high, t


def test_says_where_when_and_with_what_it_was_recorded(data):
    about = data["recorded"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", about["date"])
    assert about["versions"]["torch"].split("+")[0] == "2.13.0"
    assert about["versions"]["numpy"] and about["versions"]["python"]
    assert about["machine"]["cpu"] and about["machine"]["cores"] >= 1
    assert about["threads"] == 1 and about["rounds"] >= 41   # the machine is shared: enough rounds for steady medians
    assert "interleaved" in about["method"]


def test_recorded_on_the_lessons_clock(data):
    # the lesson puts its live ratios beside these: both must be taken on the same clock
    lesson = json.loads(LESSON.read_text(encoding="utf-8"))
    source = "".join("".join(c["source"]) for c in lesson["cells"] if c["cell_type"] == "code")
    clock = re.search(r"^cpu_time = (time\.\w+)", source, re.M).group(1)
    assert data["recorded"]["clock"].split()[0] == clock
    script = (ROOT / "tests" / "tools" / "record_torch_timings.py").read_text(encoding="utf-8")
    assert re.search(r"^CLOCK = (time\.\w+)", script, re.M).group(1) == clock


def test_sweeps_cover_the_scripts_sizes_with_spreads(data):
    sizes = script_sizes()
    assert [row["elements"] for row in data["recording_sweep"]] == sizes
    assert [row["elements"] for row in data["compile_sweep"]] == sizes
    assert {row["operations"] for row in data["recording_sweep"]} == {60}   # 20 steps, 3 operations each
    for row in data["recording_sweep"]:
        assert_ratio(row["ratio"])
        assert_timing(row["recording"])
        assert_timing(row["no_grad"])
        assert row["calls_per_timed_call"] >= 1
    for row in data["compile_sweep"]:
        for name in ["eager", "aot_eager", "inductor", "eager forward", "inductor forward"]:
            assert_timing(row[name])
        for backend in ["aot_eager", "inductor"]:
            assert_ratio(row["ratio_to_eager"][backend])
        assert_ratio(row["forward_ratio_inductor_to_eager"])


def test_no_grad_rounds_per_pass(data):
    # the lesson's interval of t_10 / t_1000 (timing.median_ratio_ci) resamples these rounds: one time
    # per kept round, in ms per pass, whose median is the stored no_grad median over the calls per timed call
    rows = [row for rec in [data, data.get("repeat", {})] for row in rec.get("recording_sweep", [])
            if "no_grad_per_pass_rounds_ms" in row]
    about = data["recorded"]
    for row in rows:
        times = row["no_grad_per_pass_rounds_ms"]
        kept = about["rounds"] if row["elements"] <= 10_000 else about["rounds_above_10000_elements"]
        assert len(times) == kept and all(t > 0 for t in times), row["elements"]
        ordered = sorted(times)
        median = (ordered[(kept - 1) // 2] + ordered[kept // 2]) / 2
        assert median == pytest.approx(row["no_grad"]["median_ms"] / row["calls_per_timed_call"], rel=1e-9)


def test_the_lessons_sizes_are_the_recorded_ones(data):
    lesson = json.loads(LESSON.read_text(encoding="utf-8"))
    source = "".join("".join(c["source"]) for c in lesson["cells"] if c["cell_type"] == "code")
    listed = re.search(r"^sizes = \[(.*)\]", source, re.M).group(1)
    assert [int(n.replace("_", "")) for n in listed.split(",")] == script_sizes()


def test_mlp_step_and_first_calls(data):
    mlp = data["mlp_step"]
    for name in ["eager", "aot_eager", "inductor"]:
        assert_timing(mlp["per_step"][name])
    for name in ["aot_eager", "inductor"]:
        assert_ratio(mlp["ratio_to_eager"][name])
    calls = data["first_call"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", calls["date"])
    assert len(calls["load_average_at_start"]) == len(calls["load_average_at_end"]) == 3
    for backend in ["aot_eager", "inductor"]:
        first = calls[backend]
        assert len(first["samples_s"]) == len(first["cpu_samples_s"]) >= 5   # several cold starts, not one
        assert first["median_s"] == sorted(first["samples_s"])[len(first["samples_s"]) // 2]
        assert first["cpu_median_s"] == sorted(first["cpu_samples_s"])[len(first["cpu_samples_s"]) // 2]
        assert all(cpu > 0 for cpu in first["cpu_samples_s"])
        # a second fresh function in each process, after its one-off start-up
        second = first["second_function_cpu_samples_s"]
        assert len(second) == len(first["second_function_samples_s"]) == len(first["cpu_samples_s"])
        assert first["second_function_cpu_median_s"] == sorted(second)[len(second) // 2]
        assert all(0 < s for s in second)
    # Inductor compiles C++: its cold first call is longer than aot_eager's in every sample, on both clocks
    assert min(calls["inductor"]["samples_s"]) > max(calls["aot_eager"]["samples_s"])
    assert min(calls["inductor"]["cpu_samples_s"]) > max(calls["aot_eager"]["cpu_samples_s"])



def test_first_call_cpu_counts_the_compiler_processes():
    # the lesson says the first calls' CPU seconds are the process's own plus its waited-for children's
    # (the C++ compiler), with Inductor's compile workers off: the recording script must time them so
    text = (ROOT / "tests" / "tools" / "record_torch_timings.py").read_text(encoding="utf-8")
    child = text.split("def first_call_child(", 1)[1].split("\ndef ", 1)[0]
    assert "time.process_time()" in child and "getrusage(resource.RUSAGE_CHILDREN)" in child
    assert 'TORCHINDUCTOR_COMPILE_THREADS="1"' in text
    lesson = LESSON.read_text(encoding="utf-8")
    assert "RUSAGE_CHILDREN" in lesson and "TORCHINDUCTOR_COMPILE_THREADS=1" in lesson

def test_inductors_code_for_the_chain(data):
    code = data["inductor_code"]
    forward, backward = code["graphs"]
    assert forward["kernels"] and backward["kernels"]
    assert all(k.startswith("cpp_fused_") for k in forward["kernels"] + backward["kernels"])
    assert forward["buffers_allocated"] >= 1 and backward["buffers_allocated"] >= 1
    assert any(a.startswith("tangents") for a in backward["inputs"])
    assert "def call(" in forward["wrapper_call"]
    assert code["forward_kernel_head"].startswith('extern "C"')
    assert code["forward_kernel_lines"] > len(code["forward_kernel_head"].splitlines())


def test_branches_guards_export_and_cond(data):
    b = data["branches"]
    counts = [row["graphs_so_far"] for row in b["graphs_after_each_call"]]
    assert counts == sorted(counts) and counts[-1] == len(b["ops_per_graph"])
    assert [row["value"] for row in b["graphs_after_each_call"]] == pytest.approx([36.0, 1.3, 36.0])
    tree = b["guard_tree_of_g"]
    for needed in ["GLOBAL_STATE", "TENSOR_MATCH: check_tensor(L['x']", "TENSOR_MATCH: check_tensor(L['w']",
                   "NO_TENSOR_ALIASING"]:
        assert needed in tree
    assert not re.search(r"\.py:\d+", tree)          # the script's file and lines are left out
    assert b["fullgraph"]["raised"] and b["fullgraph"]["first_line"]
    assert b["export_strict_True"]["raised"] and b["export_strict_False"]["raised"]
    cond = b["cond"]
    assert "torch.ops.higher_order.cond" in cond["exported_graph"]
    assert sorted(cond["branches"]) == ["false_graph_0", "true_graph_0"]
    for call in cond["compiled_fullgraph_calls"]:
        assert call["graphs_so_far"] == 1
        assert call["value"] == pytest.approx(call["eager_value"])
    # Dynamo's own words: one break in g, and the guard on the closed-over float failing once (not at 3.0)
    ex = b["dynamo_explain_g"]
    assert ex["graph_count"] == 2 and ex["graph_break_count"] == len(ex["break_reasons"]) == 1
    failed = [row["failed_guard"] for row in b["dynamo_scale_guard"]]
    assert [row["scale"] for row in b["dynamo_scale_guard"]] == [2.0, 0.5, 0.5, 2.0, 3.0]
    assert failed[0] is None and failed[1] and "scale" in failed[1] and failed[2:] == [None, None, None]


def test_recompiles(data):
    rec = data["recompiles"]
    limit = rec["recompile_limit"]
    fixed, auto = rec["graphs_after_sizes_2_to_13_dynamic_False"], rec["graphs_after_sizes_2_to_13_dynamic_None"]
    assert len(fixed) == len(auto) == 12
    assert fixed == [min(i + 1, limit) for i in range(12)]  # one version per size, up to the limit
    assert max(auto) < max(fixed)
    assert str(limit) in rec["limit_message_first_line"]
    assert rec["limit_message_last_reason"].startswith("last reason:") and "size mismatch" in rec["limit_message_last_reason"]
    before, after = rec["graphs_before_and_after_set_num_threads"]
    assert after == before + 1


def test_saved_tensors_counted_two_ways(data):
    saved = data["saved_tensors"]
    n = saved["elements"]
    assert n in script_sizes()
    graph = saved["aot_eager_backward_inputs"]
    assert graph["gradients_in"] and all(name.startswith("tangents") for name in graph["gradients_in"])
    # the two counts of aot_eager's plan share no code: the hooks at run time, the graph's inputs
    hooks = saved["aot_eager_hooks"]
    assert hooks["count"] == len(graph["saved"]) and hooks["bytes"] == graph["bytes"]
    for counted in [saved["eager_hooks"], hooks]:
        assert 0 < counted["storages"] <= counted["count"]
        assert counted["bytes"] >= counted["storages"] * 4      # at least one float32 each
    # the chain's arrays are float32 of n elements: the bytes are whole arrays and scalars
    assert graph["bytes"] % 4 == 0 and graph["bytes"] <= len(graph["saved"]) * 4 * n
    assert graph["operations"] and all(count > 0 for count in graph["operations"].values())


def test_forward_split_at_the_large_sizes(data):
    rows = data["forward_split"]["rows"]
    assert [row["elements"] for row in rows] == [n for n in script_sizes() if n >= 100_000]
    for row in rows:
        for name in ["eager step", "aot_eager step", "recording forward", "no_grad forward", "aot_eager forward"]:
            low, high = row[name]["iqr_ms"]
            assert 0 < low <= row[name]["median_ms"] <= high
        # a forward is part of a step: its median below the step's
        assert row["recording forward"]["median_ms"] < row["eager step"]["median_ms"]
        assert row["aot_eager forward"]["median_ms"] < row["aot_eager step"]["median_ms"]
        for r in row["ratio"].values():
            assert_ratio(r)


def test_aot_eagers_extra_fitted_against_the_operations(data):
    per_op = data["per_op"]
    rows = per_op["rows"]
    ops = [row["operations"] for row in rows]
    assert ops == sorted(ops) and len(ops) >= 3
    # longer chains call more aten operations in both graphs
    for kind in ["aten_calls_forward_graph", "aten_calls_backward_graph"]:
        calls = [row[kind] for row in rows]
        assert calls == sorted(calls) and calls[0] < calls[-1]
    assert all(row["eager_step_us"] > 0 and row["aot_eager_step_us"] > 0 for row in rows)
    fit = per_op["fit_extra_against_aten_calls"]
    for key in ["fixed_us", "per_call_us"]:
        low, high = fit[f"{key}_ci95"]
        assert low <= fit[key] <= high
    # the fit passes near the medians it was made from (within the spread of a loaded machine)
    for row in rows:
        calls = row["aten_calls_forward_graph"] + row["aten_calls_backward_graph"]
        predicted = fit["fixed_us"] + fit["per_call_us"] * calls
        assert abs(predicted - row["extra_us"]) < 0.5 * max(abs(row["extra_us"]), predicted)
    code = per_op["generated_code_5_operations"]
    assert "torch.ops.aten." in code["forward"] and "torch.ops.aten." in code["backward"]
    # the loop the lesson prints beside that code is the recording script's op_chain as it stands
    script = (ROOT / "tests" / "tools" / "record_torch_timings.py").read_text(encoding="utf-8")
    defined = [ast.get_source_segment(script, node) for node in ast.walk(ast.parse(script))
               if isinstance(node, ast.FunctionDef) and node.name == "op_chain"]
    assert per_op["op_chain_source"] == defined[0] and len(defined) == 1
    mlp = per_op["mlp"]
    assert mlp["aten_calls_forward_graph"] > 0 and mlp["aten_calls_backward_graph"] > 0
    assert mlp["eager_step_us"] > 0 and mlp["aot_eager_step_us"] > 0


def test_decompositions_make_inductors_plan(data):
    saved = data["saved_tensors"]
    # aot_eager_decomp_partition (Inductor's decompositions and partitioner, no codegen) saves what Inductor saves
    assert saved["aot_eager_decomp_partition_hooks"]["count"] == saved["inductor_hooks"]["count"]
    assert saved["inductor_hooks"]["count"] < saved["aot_eager_hooks"]["count"]
    # its two differences from aot_eager's min-cut plan apart: the decompositions alone give Inductor's plan,
    # the configuration patch alone aot_eager's
    assert saved["decompositions_no_patch_hooks"] == saved["aot_eager_decomp_partition_hooks"]
    assert saved["patch_no_decompositions_hooks"] == saved["aot_eager_hooks"]


def test_page_faults_and_the_list_guard(data):
    # parts added to the script after the stored recording: checked once a re-recording holds them
    if "page_faults" not in data or "dynamo_list_guard" not in data["branches"]:
        pytest.skip("recorded before the script counted page faults and Dynamo's guard on a list element")
    faults = data["page_faults"]
    assert [row["elements"] for row in faults["rows"]] == [n for n in script_sizes() if n >= 100_000]
    for row in faults["rows"]:
        assert row["pages_per_array"] == row["elements"] * 4 / faults["page_bytes"]
        for name in ["eager step", "aot_eager step"]:
            low, high = row[name]["range"]
            assert 0 <= low <= row[name]["median"] <= high
    listed = data["branches"]["dynamo_list_guard"]
    # Dynamo guards the element itself: the changed element fails a guard, and the value follows it
    assert "factors" in listed["failed_guard"] and listed["compiled"] == listed["eager"] == 6.0 * listed["element"]


def test_the_second_recording_and_the_scale_versions(data):
    # written by the script since the lesson's rule for recorded effects asks for two recordings;
    # a file recorded before that holds neither, and the lesson then claims no recorded timing
    if "repeat" not in data:
        pytest.skip("recorded before the script made a second recording")
    repeat = data["repeat"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", repeat["date"])
    for key in ["recording_sweep", "compile_sweep"]:
        assert [row["elements"] for row in repeat[key]] == [row["elements"] for row in data[key]]
    for row in repeat["recording_sweep"]:
        assert_ratio(row["ratio"])
    for row in repeat["compile_sweep"]:
        for backend in ["aot_eager", "inductor"]:
            assert_ratio(row["ratio_to_eager"][backend])
        assert_ratio(row["forward_ratio_inductor_to_eager"])
    for name in ["aot_eager", "inductor"]:
        assert_ratio(repeat["mlp_step"]["ratio_to_eager"][name])
    for recording in [data, repeat]:                      # Inductor against the same graphs unfused
        for row in recording["compile_sweep"]:
            assert_ratio(row["step_ratio_inductor_to_decomp_partition"])
    b = data["branches"]
    assert b["print_runs_per_call"] == [1, 1, 1]          # the print runs between the pieces, every call
    versions = b["dynamo_scale_versions"]
    assert sorted(versions) == ["automatic_dynamic_shapes=False", "automatic_dynamic_shapes=True"]
    for v in versions.values():
        counts = v["graphs_after_each_call"]
        assert len(counts) == 5 and counts == sorted(counts) and counts[-1] == len(v["scale_guards_per_version"])
        assert all(lines and all("L['scale']" in line for line in lines) for lines in v["scale_guards_per_version"])
        assert not any(re.search(r"\.py:\d+", line) for lines in v["scale_guards_per_version"] for line in lines)
    at_1m = data["saved_tensors"]["at_1000000_elements"]
    assert at_1m["elements"] == 1_000_000 and at_1m["aot_eager_hooks"]["count"] == len(at_1m["aot_eager_backward_inputs"]["saved"])


def script_save_all_sizes():
    text = (ROOT / "tests" / "tools" / "record_torch_timings.py").read_text(encoding="utf-8")
    return [int(n.replace("_", "")) for n in re.search(r"^SAVE_ALL_SIZES = \((.*)\)", text, re.M).group(1).split(",") if n.strip()]


def test_inductor_saving_all_at_the_slow_sizes(data):
    # Inductor whose partitioner recomputes nothing, against eager and against Inductor, at the sizes the
    # script names (a file recorded before the script timed it holds none: the lesson prints "not recorded")
    recordings = [data] + ([data["repeat"]] if "repeat" in data else [])
    rows = [row for rec in recordings for row in rec["compile_sweep"]
            if "step_ratio_inductor_to_inductor_saving_all" in row]
    if not rows:
        pytest.skip("recorded before the script timed Inductor saving all")
    for rec in recordings:
        timed = [row["elements"] for row in rec["compile_sweep"] if "step_ratio_inductor_to_inductor_saving_all" in row]
        assert timed == [n for n in script_save_all_sizes() if n in [row["elements"] for row in rec["compile_sweep"]]]
    for row in rows:
        assert_ratio(row["step_ratio_inductor_to_inductor_saving_all"])
        assert sorted(row["step_ratio_to_eager"]) == ["aot_eager_decomp_partition", "inductor saving all"]
        for r in row["step_ratio_to_eager"].values():
            assert_ratio(r)
        # saving all keeps the twenty tanh results (the hooks' count); Inductor's own plan keeps two
        assert row["inductor_saving_all_saved_tensors"] == 20 and row["inductor_saved_tensors"] == 2


def test_controls_time_both_sizes_in_the_same_rounds(data):
    # the constant-c test and the keeping control: six variants, every one with a time per pass in every round
    controls = data["controls"]
    assert controls["sizes"] == [10, 1_000] and controls["operations"] == 60
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", controls["date"]) and len(controls["load_average_at_start"]) == 3
    rounds = controls["per_pass_rounds_ms"]
    names = {f"{v} {n}" for v in ["recording", "no_grad", "no_grad keeping"] for n in controls["sizes"]}
    assert set(rounds) == names
    assert {len(times) for times in rounds.values()} == {controls["rounds"]} and controls["rounds"] >= 41
    assert all(t > 0 for times in rounds.values() for t in times)
    # the kernels at 10 elements: one fused loop for the forward and one for the backward, as at 1,000
    kernels = controls["inductor_kernels_at_10_elements"]
    assert len(kernels["forward"]) == len(kernels["backward"]) == 1
    assert [len(g["kernels"]) for g in data["inductor_code"]["graphs"]] == [1, 1]


def child_runs_of(part):
    """A part recorded as separate processes (``store_child_runs``): at least six runs (their medians then have
    an exact 95% interval), a date, and each run's load averages and duration; returns the runs."""
    assert len(part["runs"]) >= 6 and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", part["date"])
    for run in part["runs"]:
        assert len(run["load_average_at_start"]) == len(run["load_average_at_end"]) == 3 and run["seconds"] > 0
    return part["runs"]


def test_the_replication_runs_in_separate_processes(data):
    # the lesson's recorded timing claims rest on these runs: each a fresh process, one after another
    replication = data["replicate"]
    runs = child_runs_of(replication)
    text = (ROOT / "tests" / "tools" / "record_torch_timings.py").read_text(encoding="utf-8")
    body = text.split("def record_replicate(", 1)[1].split("\ndef ", 1)[0]
    assert "subprocess.run(" in body and '"--replicate-child"' in body and "for i in range(runs)" in body
    for run in runs:
        assert [row["elements"] for row in run["recording_sweep"]] == script_sizes()
        assert [row["elements"] for row in run["compile_sweep"]] == script_sizes()
        for name in ["aot_eager", "inductor"]:
            assert_ratio(run["mlp_step"]["ratio_to_eager"][name])
        for row in run["recording_sweep"]:
            assert_ratio(row["ratio"])
        for row in run["compile_sweep"]:
            for r in [*row["ratio_to_eager"].values(), row["forward_ratio_inductor_to_eager"],
                      row["step_ratio_inductor_to_decomp_partition"]]:
                assert_ratio(r)
        controls = run["controls"]
        assert controls["sizes"] == [10, 1_000] and controls["rounds"] == replication["rounds"]
        assert {len(times) for times in controls["per_pass_rounds_ms"].values()} == {controls["rounds"]}
        large = run["controls_large"]                   # the keeping control where the sweeps take fewer rounds
        assert large["sizes"] == [100_000, 1_000_000] and large["rounds"] == replication["rounds_above_10000_elements"]
        assert {len(times) for times in large["per_pass_rounds_ms"].values()} == {large["rounds"]}
        # Inductor's values against eager's at every size: a difference, measured (not a flag)
        assert [row["elements"] for row in run["inductor_against_eager"]] == script_sizes()
        assert all(row[f"max_abs_difference_{k}"] >= 0 for row in run["inductor_against_eager"] for k in ["output", "gradient"])
        # and each result's error against float64, in its own float32 spacings: measured, so positive somewhere
        errors = [row[f"max_spacings_from_float64_{k}_{who}"] for row in run["inductor_against_eager"]
                  for k in ["output", "gradient"] for who in ["eager", "inductor"]]
        assert min(errors) >= 0 and max(errors) > 0
        # the tanh calls counted in Inductor's kernels: each kernel has its vector and its scalar loop body,
        # so a kernel computing all twenty tanh calls it 40 times; the backward recomputes fewer than it
        kernels = run["inductor_kernels"]
        assert kernels["forward_kernel_tanh_calls"] == 2 * 20
        assert 0 < kernels["backward_kernel_tanh_calls"] < kernels["forward_kernel_tanh_calls"]
        empty = run["empty_compiled_call"]
        assert sorted(empty["per_step_us_rounds"]) == ["aot_eager", "eager", "inductor"]
        assert {len(v) for v in empty["per_step_us_rounds"].values()} == {empty["rounds"]}
        for r in empty["ratio_to_eager"].values():
            assert_ratio(r)
        (faults,) = run["page_faults"]["rows"]
        assert faults["elements"] == 1_000_000
        for name in ["eager step", "aot_eager step", "inductor step", "aot_eager_decomp_partition step"]:
            low, high = faults[name]["range"]
            assert 0 <= low <= faults[name]["median"] <= high
    # separate measurements, not one copied: no two runs share a median
    medians = [run["mlp_step"]["ratio_to_eager"]["inductor"]["median"] for run in runs]
    assert len(set(medians)) == len(runs)
    # the kernels' sources stored once, from the first run, and counted as the script counts them
    first = runs[0]["inductor_kernels"]
    for part in ["forward", "backward"]:
        assert first[f"{part}_kernel_tanh_calls"] == len(re.findall(r"\btanh\(", first[f"{part}_kernel_source"]))
        assert all(f"{part}_kernel_source" not in run["inductor_kernels"] for run in runs[1:])


def test_the_claims_sides_are_the_scripts(data):
    # written in the script before recording and stored with the runs: a side or null changed afterwards in
    # one place and not the other fails here; and the lesson tests each stored claim under the same name
    import sys
    sys.path.insert(0, str(ROOT / "tests" / "tools"))
    import record_torch_timings as script

    replication = data["replicate"]
    for key, pre in [("claims", script.TORCH_CLAIMS), ("exploratory", script.TORCH_EXPLORATORY)]:
        assert replication[key] == {name: {"null": null, "direction": side} for name, (null, side) in pre.items()}
        assert all(c["direction"] in ("above", "below") for c in replication[key].values())
    source = "".join("".join(c["source"]) for c in json.loads(LESSON.read_text(encoding="utf-8"))["cells"])
    # the lesson's claims read their nulls and sides from the stored ones (timing.Claims checks each null); the
    # claims it tests are the stored ones less those it names as pruned after recording (PRUNED), each stored
    assert 'timing.Claims("PyTorch", runs, replication["claims"], replication["exploratory"])' in source
    assert 'assert set(PRUNED) <= set(replication["claims"])' in source
    assert 'assert set(claims) == set(replication["claims"]) - set(PRUNED)' in source


def test_the_file_is_as_the_script_writes_it():
    # the recording script's form: json with indent=1, each list of numbers on one line; the same data as JSON
    import sys
    sys.path.insert(0, str(ROOT / "tests" / "tools"))
    from record_torch_timings import dumps

    text = DATA.read_text(encoding="utf-8")
    assert text == dumps(json.loads(text)) + "\n"
    sample = {"a": [1, 2.5], "b": ["x", {"c": []}], "d": "[1,2]"}
    assert json.loads(dumps(sample)) == sample and '"a": [1, 2.5]' in dumps(sample)


def test_the_direct_calls_run_in_separate_processes(data):
    # the MLP step's compiled graph called directly against the same through torch.compile, and the same three
    # on a step of x * 1.0, in the same rounds: each run a fresh process; direct and guarded give the same
    # results; each round's six step times kept, the MLP's ratios computed from them
    direct = data["mlp_direct"]
    for run in child_runs_of(direct):
        assert run["direct_equals_guarded"] is True and run["rounds"] == direct["rounds"]
        rounds = run["per_step_us_rounds"]
        assert set(rounds) == {"eager", "guarded", "direct", "one eager", "one guarded", "one direct"}
        assert all(len(v) == direct["rounds"] and min(v) > 0 for v in rounds.values())
        for name in ["guarded", "direct"]:
            assert_ratio(run["ratio_to_eager"][name])
            ratios = sorted(a / b for a, b in zip(rounds[name], rounds["eager"]))
            assert run["ratio_to_eager"][name]["median"] == pytest.approx(ratios[len(ratios) // 2], rel=1e-9)


def test_the_sweeps_page_faults_run_in_separate_processes(data):
    # the recording sweep at 100,000 and 1,000,000 elements with the keeping control, each timed call's minor page
    # faults kept (warm-up dropped), one count per kept round; and entering and leaving no_grad alone, per entry
    part = data["sweep_faults"]
    for run in child_runs_of(part):
        assert [row["elements"] for row in run["rows"]] == [100_000, 1_000_000]
        assert 0 < run["no_grad_context_us"] < 100
        for row in run["rows"]:
            assert_ratio(row["ratio"])
            assert_ratio(row["ratio_keeping"])
            for name in ["recording", "no_grad", "no_grad keeping"]:
                assert_timing(row[name])
                counts = row["minor_faults_per_timed_call"][name]
                assert len(counts) == part["rounds"] and min(counts) >= 0 and all(isinstance(c, int) for c in counts)


def test_the_print_splits_noisy_into_two_graphs(data):
    # Dynamo's graphs of the lesson's noisy: the operations before the print, then those after it
    assert data["branches"]["noisy_ops_per_graph"] == [["mul", "sum"], ["mul"]]
