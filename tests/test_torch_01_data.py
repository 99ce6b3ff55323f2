"""The data file researcher lesson 1 reads: PyTorch's side of two of its measurements.

``notebooks/researcher/data/torch_01.json`` is written by ``tests/tools/record_torch_01.py``
on real PyTorch.  These tests check that a stored or re-recorded file has the fields the
lesson prints, in the form it expects, and that its numbers agree with each other.
"""

import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = json.loads((ROOT / "notebooks" / "researcher" / "data" / "torch_01.json").read_text(encoding="utf-8"))
SCRIPT = (ROOT / "tests" / "tools" / "record_torch_01.py").read_text(encoding="utf-8")


def test_recorded_on_pytorch_with_machine_versions_and_date():
    rec = DATA["recorded"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", rec["date"])
    assert rec["versions"]["torch"].startswith("2.") and rec["machine"]["cores"] >= 1


def test_the_walk_over_the_recorded_tangent_names_pytorch_nodes():
    nodes = DATA["transpose_walk_nodes"]
    assert nodes and all(isinstance(n, str) and n.endswith("Backward0") for n in nodes)


def test_the_sweep_has_the_scripts_sizes_and_consistent_numbers():
    sweep = DATA["hvp_sweep"]
    sizes = [int(n.replace("_", "")) for n in re.search(r"^SIZES = \[(.*)\]", SCRIPT, re.M).group(1).split(",")]
    assert sweep["sizes"] == sizes and set(sweep["H_u_over_gradient"]) == {str(n) for n in sizes}
    pair = [int(n.replace("_", "")) for n in re.search(r"^PAIR = \((.*)\)", SCRIPT, re.M).group(1).split(",")]
    assert sweep["pair"] == pair == sizes[-2:]
    for r in [*sweep["H_u_over_gradient"].values(), sweep["gradient_growth_pair"], sweep["ratio_growth_pair"]]:
        low, high = r["iqr"]
        assert 0 < low <= r["median"] <= high


def test_the_script_records_torch_func_and_the_times_the_lesson_bounds_the_fixed_parts_with():
    # The lesson prints these fields when the recording has them (a recording older than the
    # script's torch.func variant lacks them); the script must write them, in this form.
    for field in ('"func_H_u_over_gradient"', '"func_equals_forward_over_reverse"', '"median_per_call_s"'):
        assert field in SCRIPT
    sweep = DATA["hvp_sweep"]
    if "func_H_u_over_gradient" in sweep:
        assert set(sweep["func_H_u_over_gradient"]) == set(sweep["H_u_over_gradient"])
        assert sweep["func_equals_forward_over_reverse"] is True
        for r in sweep["func_H_u_over_gradient"].values():
            low, high = r["iqr"]
            assert 0 < low <= r["median"] <= high
        times = sweep["median_per_call_s"]
        for n in sweep["sizes"]:
            assert times[f"gradient, n = {n}"] > 0 and times[f"H u, n = {n}"] > 0


def test_the_recording_turns_off_mmap_as_the_lesson_does():
    # glibc mmaps every block at or above its threshold, which cannot exceed 32 MB, the size of A
    # at n = 65,536: so both the script and the lesson set M_MMAP_MAX (-4) to 0, and check it took
    lesson = (ROOT / "notebooks" / "researcher" / "01_reverse_mode_as_vjps.ipynb").read_text(encoding="utf-8")
    for text in (SCRIPT, lesson):
        assert "mallopt(-4, 0) == 1" in text and "mallopt(-3" not in text


def test_the_script_records_pytorchs_count_of_sweeps_over_A():
    # the lesson prints PyTorch's count of products with A from the recording, when it has it (a
    # recording older than the script's count lacks it): f sweeps A once, the gradient twice
    assert '"products_with_A"' in SCRIPT
    if "products_with_A" in DATA:
        counts = DATA["products_with_A"]
        assert set(counts) == {"f", "gradient", "H_u_forward_over_reverse"}
        assert counts["f"] == 1 and counts["gradient"] == 2 and counts["H_u_forward_over_reverse"] >= 2


def test_the_script_counts_every_product_by_operand():
    # section 7's test of a hypothesis for PyTorch's ratio: products on a 64 x n operand that is not A
    # (A's tangent made zeros); the lesson prints "not recorded" for a recording older than the count
    assert '"products_by_operand"' in SCRIPT
    if "products_by_operand" in DATA:
        rec = DATA["products_by_operand"]
        assert set(rec["counts"]) == {"f", "gradient", "H_u_forward_over_reverse"}
        for name, c in rec["counts"].items():
            assert set(c) == {"with_A", "other_m_by_n", "other"}
            assert c["with_A"] == DATA["products_with_A"][name]
        assert rec["n_timed"] == DATA["hvp_sweep"]["pair"][1]
        for name in ("gradient", "H_u_forward_over_reverse"):
            s, c = rec["seconds_per_call"][name], rec["counts"][name]
            assert all((s[k] > 0) == (c[k] > 0) for k in c)


def test_the_script_records_the_zero_tangents_trace_and_the_intervals_the_checks_test():
    # section 7 prints these when the recording has them (a recording older than them lacks them): the
    # zero tensors made and the products run by H u, in dispatch order, and each per-round summary's
    # 95% bootstrap interval, which the lesson's checks on the recorded run test
    for field in ('"zeros_tangent_trace"', '"fixed_shift"', '"ci95"'):
        assert field in SCRIPT
    if "zeros_tangent_trace" in DATA:
        trace = DATA["zeros_tangent_trace"]
        products = sum(DATA["products_by_operand"]["counts"]["H_u_forward_over_reverse"].values())
        assert sum(re.match(r"(addmv|addmm|mv|mm)\(", t) is not None for t in trace) == products
        assert any(t.startswith("_efficientzerotensor(") for t in trace)
    sweep = DATA["hvp_sweep"]
    if "fixed_shift" in sweep:
        for r in [*sweep["H_u_over_gradient"].values(), sweep["ratio_growth_pair"], *sweep["fixed_shift"].values()]:
            low, high = r["ci95"]
            assert low <= r["median"] <= high


def test_the_script_times_the_two_suspects_for_pytorchs_ratio():
    # section 7 prints these when the recording has them: H u without create_graph=True over the
    # gradient, and one mv on the zero operand (strides (0, 0)) over one with A, at n = 65,536
    for field in ('"no_create_graph_H_u_over_gradient"', '"mv_zero_operand"'):
        assert field in SCRIPT
    sweep = DATA["hvp_sweep"]
    if "no_create_graph_H_u_over_gradient" in sweep:
        assert set(sweep["no_create_graph_H_u_over_gradient"]) == set(sweep["H_u_over_gradient"])
        assert sweep["no_create_graph_equals_forward_over_reverse"] is True
    if "mv_zero_operand" in DATA:
        rec = DATA["mv_zero_operand"]
        assert rec["n"] == sweep["pair"][1] and rec["zero_strides"] == [0, 0]
        for r in (rec["zero_over_A"], rec["zero_T_over_A_T"]):
            assert 0 < r["iqr"][0] <= r["median"] <= r["iqr"][1] and r["ci95"][0] <= r["median"] <= r["ci95"][1]


def test_the_recording_says_whether_pytorchs_gradient_carries_the_tangent_without_create_graph():
    # section 7 says PyTorch 2.13 carries the tangent through a walk not recorded and prints this field:
    # the script records it on the lesson's f_curved, x0 and u; the recorded answer is the claim's
    assert '"tangent_without_create_graph"' in SCRIPT and '"equal_to_H_u"' in SCRIPT
    rec = DATA["tangent_without_create_graph"]
    assert set(rec) == {"carried", "equal_to_H_u"} and isinstance(rec["carried"], bool)
    assert (rec["equal_to_H_u"] is None) == (not rec["carried"])
    assert rec["carried"] and rec["equal_to_H_u"] is True   # what the lesson's prose says of PyTorch 2.13
    for field, when in DATA["recorded"].get("re_recorded", {}).items():
        assert field in DATA and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", when["date"])


def test_the_profile_op_by_op_counts_the_products_the_script_counts_by_operand():
    prof, counts = DATA["op_profile"], DATA["products_by_operand"]["counts"]
    assert prof["n"] == DATA["hvp_sweep"]["pair"][1] and prof["rounds"] >= 5
    assert '"op_profile": op_profile' in SCRIPT and "torch.profiler.profile" in SCRIPT
    for name in ("gradient", "H_u_forward_over_reverse"):
        ops = prof[name]
        # every matrix product of one call ran as one addmv_ kernel: as many as counted by operand
        assert ops["aten::addmv_"]["calls"] == sum(counts[name].values())
        # the ops' self times add up to the call's total (medians over rounds, so nearly)
        assert 0.9 < sum(v["self_cpu_us"] for v in ops.values()) / prof[name + "_total_us"] < 1.1
    # H u costs more than the gradient, op by op as in the sweep
    assert prof["H_u_forward_over_reverse_total_us"] > 2 * prof["gradient_total_us"]
