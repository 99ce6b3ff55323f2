"""Tests that need PyTorch: run by ``make test-torch`` (its .venv-torch has PyTorch 2.13 CPU).

PyTorch is never a dependency of ``make test``: without it these files are not
collected (``make test`` checks the same behaviour through the fixtures
recorded from PyTorch, tests/test_viz_fixtures.py); ``tests/tools/test_torch.py``
runs them and refuses to run without PyTorch.
"""

import importlib.util

if importlib.util.find_spec("torch") is None:
    collect_ignore_glob = ["test_*.py"]
