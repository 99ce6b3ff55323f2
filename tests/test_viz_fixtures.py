"""minigrad's pictures, walks and memory figures equal what the same tools gave on PyTorch.

``tests/fixtures/viz_torch.json`` holds, for every program of
``tests/viz_programs.py``, the texts (and the SHA-256 of each picture's
Graphviz source) that ``viz``, ``widgets`` and ``memory`` produced on real
PyTorch 2.13 graphs (recorded by ``tests/fixtures/record_viz_torch.py``).
Here the same programs run on minigrad, with no PyTorch installed: what a
lesson shows from minigrad is what it shows from PyTorch.
"""

import json
from pathlib import Path

import pytest

import minigrad
from tests import viz_programs
from tests.fixtures.record_viz_torch import digest

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "viz_torch.json").read_text())


@pytest.mark.parametrize("program", sorted(viz_programs.PROGRAMS))
def test_minigrad_reads_as_pytorch(program):
    assert FIXTURE["torch"].startswith("2.13.0")
    expected = FIXTURE["programs"][program]
    got = digest({program: viz_programs.PROGRAMS[program](minigrad)})[program]
    assert sorted(got) == sorted(expected)
    for key in expected:
        assert got[key] == expected[key], key
