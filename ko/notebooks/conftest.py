"""nbval of the Korean notebooks: the same known noise as ../../notebooks/conftest.py silences.
matplotlib prints "Matplotlib is building the font cache" the first time it is imported on a
fresh machine; building the cache now, in the pytest process, keeps it out of the notebooks.
Each notebook runs as it ran for the book (the hooks of ../../notebooks/conftest.py)."""

import matplotlib.font_manager  # noqa: F401  (builds the font cache on import)

from notebooks.conftest import pytest_runtest_setup, pytest_runtest_teardown  # noqa: F401
