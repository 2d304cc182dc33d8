"""nbval compares every stream a cell writes, stderr included. Known noise is silenced here,
once, instead of ignoring whole cells:

- matplotlib prints "Matplotlib is building the font cache" the first time it is imported on a
  fresh machine; building the cache now, in the pytest process, keeps it out of the notebooks.
"""

import os

import matplotlib.font_manager  # noqa: F401  (builds the font cache on import)
import pytest

from kernels.teach.page import PREVIEW_ENV


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Each notebook runs as it ran for the book (widgets in their default state, no glue lines),
    from its kernel's start: the variable is set before nbval starts it."""
    os.environ[PREVIEW_ENV] = "1"


def pytest_runtest_teardown(item):
    os.environ.pop(PREVIEW_ENV, None)
