"""Shared fixtures for the library tests.

* ``rng``: a numpy Generator seeded with 0, so random test data is the same on every run;
* ``leaf``: makes float64 leaf tensors that require grad (float64 so that
  central finite differences are accurate to ~1e-10);
* grad mode is checked to be back on after every test, so a test that leaves
  recording switched off fails itself instead of breaking the ones after it;
* hypothesis: under CI (the ``CI`` environment variable set) examples are
  derandomized, so a run is reproducible; locally they vary from run to run,
  which keeps searching new inputs.
"""

import os

import numpy as np
import pytest
from hypothesis import settings

import minigrad

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def rng():
    """A numpy random Generator seeded with 0."""
    return np.random.default_rng(0)


@pytest.fixture
def leaf():
    """``leaf(data)``: a float64 leaf tensor with ``requires_grad=True``."""

    def make(data):
        return minigrad.tensor(data, dtype=minigrad.float64, requires_grad=True)

    return make


@pytest.fixture(autouse=True)
def _grad_mode_restored():
    assert minigrad.is_grad_enabled(), "grad mode was off when the test started"
    yield
    enabled = minigrad.is_grad_enabled()
    minigrad.set_grad_enabled(True)
    assert enabled, "the test left grad mode switched off"
