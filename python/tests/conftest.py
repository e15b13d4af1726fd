"""Fixtures of kiln's own tests: a current kiln.pycuda context for each
test (on the backend KILN_BACKEND names, else Kiln's default), and a
seeded NumPy generator whose seed is printed on failure."""
import os

import numpy as np
import pytest

import kiln
import kiln.pycuda.driver as cuda
from kiln.pycuda.tools import clear_context_caches, make_default_context


@pytest.fixture
def context():
    """A current context, popped after the test."""
    cuda.init()
    made = make_default_context()
    yield made
    if cuda.Context.get_current() is made:
        made.pop()
    clear_context_caches()


@pytest.fixture
def kiln_context(context):
    """The kiln.Context under the current context."""
    return context.kiln_context


@pytest.fixture
def rng(request):
    """Random inputs, never all zeros; KILN_TEST_SEED replays a run."""
    seed = int(os.environ.get("KILN_TEST_SEED", np.random.SeedSequence().entropy % (1 << 32)))
    request.node.user_properties.append(("seed", seed))
    return np.random.default_rng(seed)


def pytest_report_header(config):
    return f"kiln {kiln.version()} on {kiln.default_backend()}"
