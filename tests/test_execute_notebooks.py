"""``make execute`` (tests/tools/execute_notebooks.py): a second run leaves a lesson as it is.

Addresses and timings differ on every run; what nbval does not compare must
not make ``make execute`` rewrite a lesson, and everything it does compare must.
"""

import importlib.util
import json
import pathlib

import nbformat

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("execute_notebooks",
                                               ROOT / "tests" / "tools" / "execute_notebooks.py")
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)
RULES = tool._sanitize_rules()


def _notebook(timing="ratio 1.93", listing="<AddBackward0 object at 0x7f00>", timing_outputs=1,
              check="ratio within its band: True"):
    nb = nbformat.v4.new_notebook()
    timed = nbformat.v4.new_code_cell("print(ratio)", id="timed")
    timed.metadata["tags"] = ["nbval-ignore-output"]
    timed.outputs = [nbformat.v4.new_output("stream", name="stdout", text=timing + "\n")
                     for _ in range(timing_outputs)]
    plain = nbformat.v4.new_code_cell("print(z.grad_fn)", id="plain")
    plain.outputs = [nbformat.v4.new_output("stream", name="stdout", text=listing + "\n")]
    checked = nbformat.v4.new_code_cell("print(check)", id="checked")
    checked.outputs = [nbformat.v4.new_output("stream", name="stdout", text=check + "\n")]
    nb.cells = [timed, plain, checked]
    return nbformat.writes(nb)


def test_other_timings_and_addresses_leave_the_file_as_stored():
    stored = _notebook()
    rerun = _notebook(timing="ratio 2.41", listing="<AddBackward0 object at 0x55aa>")
    assert tool._comparable(rerun, RULES) == tool._comparable(stored, RULES)


def test_a_changed_check_or_output_rewrites_the_file():
    stored = _notebook()
    assert tool._comparable(_notebook(check="ratio within its band: False"), RULES) != \
        tool._comparable(stored, RULES)
    assert tool._comparable(_notebook(listing="<MulBackward0 object at 0x7f00>"), RULES) != \
        tool._comparable(stored, RULES)
    # a timing cell that now prints more (or less) is a change too
    assert tool._comparable(_notebook(timing_outputs=2), RULES) != tool._comparable(stored, RULES)


def test_a_real_second_run_with_a_timing_cell_changes_nothing(tmp_path):
    nb = nbformat.v4.new_notebook()
    timed = nbformat.v4.new_code_cell(
        "import time\nt0 = time.perf_counter_ns()\nprint(f'took {time.perf_counter_ns() - t0} ns')",
        id="timed")
    timed.metadata["tags"] = ["nbval-ignore-output"]
    nb.cells = [timed, nbformat.v4.new_code_cell("print(6 * 7)", id="plain")]
    path = tmp_path / "lesson.ipynb"
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
    assert tool.execute(path, timeout=60)
    first = path.read_text(encoding="utf-8")
    assert "".join(json.loads(first)["cells"][1]["outputs"][0]["text"]) == "42\n"
    assert tool.execute(path, timeout=60)
    assert path.read_text(encoding="utf-8") == first


def _one_timing_cell(tmp_path, source):
    """A lesson file of one cell tagged nbval-ignore-output, not yet run."""
    nb = nbformat.v4.new_notebook()
    timed = nbformat.v4.new_code_cell(source, id="timed")
    timed.metadata["tags"] = ["nbval-ignore-output"]
    nb.cells = [timed]
    path = tmp_path / "lesson.ipynb"
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
    return path


def test_changed_code_in_a_timing_cell_is_stored_with_its_own_outputs(tmp_path):
    path = _one_timing_cell(tmp_path, "print('took', 5, 'ns')")
    assert tool.execute(path, timeout=60)
    stored = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
    assert tool.stamped_fingerprint(stored) == tool.sources_fingerprint(stored)
    # the timing cell's code changes; its output has the same kind: still written anew
    stored.cells[0].source = "print('took', 7, 'ns')"
    path.write_text(nbformat.writes(stored) + "\n", encoding="utf-8")
    assert tool.execute(path, timeout=60)
    again = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
    assert "".join(again.cells[0].outputs[0]["text"]) == "took 7 ns\n"
    assert tool.stamped_fingerprint(again) == tool.sources_fingerprint(again)


def test_store_timings_keeps_this_runs_timings(tmp_path):
    path = _one_timing_cell(tmp_path, "import time\nprint('clock', time.time_ns())")

    def clock():
        cell = json.loads(path.read_text(encoding="utf-8"))["cells"][0]
        return int("".join(cell["outputs"][0]["text"]).split()[1])

    assert tool.execute(path, timeout=60)
    first = clock()
    assert tool.execute(path, timeout=60)          # only the timing differs: kept as stored
    assert clock() == first
    assert tool.execute(path, timeout=60, store_timings=True)
    assert clock() > first
