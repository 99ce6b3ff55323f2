"""What ``make test-torch`` found when it last ran a lesson on real PyTorch.

Every lesson imports minigrad *as* ``torch``, so every output on its page is
minigrad's.  ``make test-torch`` (``tests/tools/test_torch.py``) runs a copy of
the lesson with ``import torch`` on PyTorch 2.13 and compares each output with
the stored one; when a lesson passes, it writes what it compared to
``notebooks/torch_check.json``.  ``on_pytorch(lesson)`` prints that record, so a
reader of a stored page sees the evidence, not only the claim.  A test
(``tests/test_torch_record.py``) fails when the record was made from other code
than the lesson's, or when the page shows an older record.

A teaching helper of minigrad's own (PyTorch has no such module).
"""

import json
import pathlib

__all__ = ["on_pytorch", "RECORD_NAME"]

RECORD_NAME = "torch_check.json"


def _record_file():
    """The record beside the lessons: the kernel runs in ``notebooks/<tier>/`` (or in
    test-torch's copy of that folder, beside a copy of the record)."""
    for folder in (pathlib.Path.cwd(), pathlib.Path.cwd().parent):
        if (folder / RECORD_NAME).is_file():
            return folder / RECORD_NAME
    return None


def on_pytorch(lesson):
    """Print what ``make test-torch`` compared for ``lesson`` (``"developer/01_….ipynb"``).

    Prints one paragraph: the PyTorch version and date of the run, how many code
    cells' outputs were compared with this page's and found equal, and how many
    are not compared (tagged ``torch-output-differs`` or ``nbval-ignore-output``;
    the lesson says why at each).  Prints that no record was found when the file or the lesson's entry
    is missing (a copy of the lesson outside the repository).
    """
    path = _record_file()
    entry = json.loads(path.read_text(encoding="utf-8")).get(lesson) if path else None
    if entry is None:
        print(f"No record of a run on PyTorch for {lesson} here (notebooks/{RECORD_NAME} "
              "is written by `make test-torch`).")
        return
    print(f"`make test-torch` ran this lesson on PyTorch {entry['torch']} ({entry['date']}):\n"
          f"  {entry['compared']} of its {entry['code_cells']} code cells' outputs compared with "
          "this page's: all equal (object addresses aside)"
          + ("." if not entry["not_compared"] else
             f";\n  {entry['not_compared']} not compared (tagged: outputs that differ between the "
             "libraries or from run to run; the lesson says why at each)."))
