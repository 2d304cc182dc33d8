"""Every GPU test is bounded: a kernel that deadlocks fails its test within two minutes."""

import importlib.util
from pathlib import Path

import pytest

# tests/conftest.py by its path: under `pytest` from the root, another conftest (the notebooks')
# may be the module named "conftest"
_SPEC = importlib.util.spec_from_file_location("tests_conftest",
                                               Path(__file__).with_name("conftest.py"))
conftest = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(conftest)


class _Item:
    def __init__(self, keywords, timeout=None):
        self.keywords, self.markers = keywords, [] if timeout is None else [timeout]

    def get_closest_marker(self, name):
        return next((m for m in self.markers if m.name == name), None)

    def add_marker(self, marker):
        self.markers.append(marker.mark if hasattr(marker, "mark") else marker)


def test_a_gpu_test_gets_two_minutes_for_its_body(monkeypatch):
    assert conftest.GPU_TEST_TIMEOUT_S <= 120
    monkeypatch.setattr(conftest.kernels, "gpu_available", lambda: True)
    gpu, cpu = _Item({"gpu": True}), _Item({})
    longer = _Item({"gpu": True}, pytest.mark.timeout(600).mark)
    conftest.pytest_collection_modifyitems(None, [gpu, cpu, longer])
    (limit,) = gpu.markers
    assert limit.args == (conftest.GPU_TEST_TIMEOUT_S,)
    assert limit.kwargs == {"method": "thread", "func_only": True}
    assert cpu.markers == [] and longer.markers[0].args == (600,)   # a test that says why
