"""Notebook 03's computed sentences: the T4-code-path cell says what the two builds' times mean on
whatever GPU ran it, and without a GPU that nothing was timed."""

import pytest

from kernels.teach import explore


def test_no_gpu_sentence_says_nothing_was_timed():
    s = explore.older_build_sentence(None, None, 75)
    assert s.startswith("No GPU here") and "compute_75" in s and "µs" not in s


def test_slower_older_build_states_both_times_and_the_cost():
    s = explore.older_build_sentence(69.6, 83.4, 75, 90, "NVIDIA H200")
    assert "NVIDIA H200 (sm_90)" in s and "83.4 µs" in s and "69.6 µs" in s
    assert "1.20x" in s and "20% more time" in s


def test_a_tie_is_called_a_tie():
    s = explore.older_build_sentence(100.0, 102.0, 75, 80, "NVIDIA A100")
    assert "within 5%" in s and "more time" not in s


def test_faster_older_build_is_not_called_a_cost():
    s = explore.older_build_sentence(100.0, 90.0, 75, 80, "NVIDIA A100")
    assert "faster" in s and "more time" not in s


def test_on_a_t4_both_lines_are_the_same_code():
    s = explore.older_build_sentence(100.0, 108.0, 75, 75, "Tesla T4")
    assert "same compute_75 code" in s and "noise" in s and "more time" not in s


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan")])
def test_times_must_be_positive(bad):
    with pytest.raises((ValueError, TypeError)):
        explore.older_build_sentence(bad, 10.0, 75)


def test_older_build_without_a_gpu_has_no_runs(monkeypatch):
    monkeypatch.setattr(explore, "gpu_available", lambda: False)
    cost = explore.older_build("async_halo", 75)
    assert cost.runs == [] and cost.sentence().startswith("No GPU here")
    with pytest.raises(ValueError):
        explore.older_build("no_such_variant", 75)


# --- the notebook itself --------------------------------------------------------------------

import ast
import json
import re
from support import ROOT

NOTEBOOK = ROOT / "notebooks" / "03_async_copy_convolution.ipynb"


def _cells():
    return [(c["cell_type"], "".join(c["source"])) for c in json.loads(NOTEBOOK.read_text())["cells"]]


def _glued_names() -> set[str]:
    names = set()
    for kind, src in _cells():
        if kind != "code":
            continue
        for node in ast.walk(ast.parse(src.replace("%matplotlib inline", ""))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "glue":
                names.update(k.arg for k in node.keywords if k.arg != "show")
    return names


def test_every_glue_role_is_glued_by_a_cell():
    used = {m for kind, src in _cells() if kind == "markdown"
            for m in re.findall(r"\{glue:text\}`(\w+)`", src)}
    assert used, "notebook 03 glues no number"
    assert used <= _glued_names(), f"glue roles without a glue() call: {used - _glued_names()}"


def test_hints_go_from_the_idea_to_the_code():
    """Each exercise has three hints in order: the idea and where (no code block), then the code."""
    titles = [re.search(r"Hint (\d) \(([^)]*)\)", src).groups() for kind, src in _cells()
              if kind == "markdown" and src.startswith(":::{admonition} Hint")]
    assert titles == [("1", "the idea"), ("2", "where"), ("3", "the code")] * 2
    hints = [src for kind, src in _cells() if kind == "markdown" and src.startswith(":::{admonition} Hint")]
    assert ["```" in h for h in hints] == [False, False, True] * 2


@pytest.mark.parametrize("nth, solution", [(0, "kernels/async_halo.cu"),
                                            (1, "kernels/exercises/double_buffer.cu")])
def test_code_hints_are_the_solutions_lines(nth, solution):
    """Each exercise's last hint gives the code: every line of it (comments aside) is a line of
    the solution, so the hint cannot drift from the answer the check accepts."""
    hints = [src for kind, src in _cells() if kind == "markdown" and "Hint 3 (the code)" in src]
    assert len(hints) == 2
    code = re.search(r"```cuda\n(.*?)```", hints[nth], re.S).group(1)
    solution_lines = {l.strip() for l in (ROOT / solution).read_text().splitlines()}
    for line in code.splitlines():
        line = line.strip()
        if line and not line.startswith("//"):
            assert line in solution_lines, f"hint line not in {solution}: {line!r}"


def test_older_build_on_a_gpu_tables_both_builds(monkeypatch):
    """The GPU path with the runs faked: the table has one row per build, the sentence both times."""
    import numpy as np
    fake = {None: 69.6, 75: 83.4}

    def run(variant, n, tile, k, arch=None, **_):
        z = np.zeros(1, np.float32)
        return explore.Run(variant, n, tile, k, "GPU", z, z, z, 0, 0.0, 0.28, fake[arch],
                           arch=arch, copy_us=33.5)

    monkeypatch.setattr(explore, "gpu_available", lambda: True)
    monkeypatch.setattr(explore, "run", run)
    monkeypatch.setattr(explore, "compute_capability", lambda: 90)
    import kernels.device
    monkeypatch.setattr(kernels.device, "device_info", lambda: {"device": "NVIDIA H200"})
    cost = explore.older_build("async_halo", 75, n=2**24)
    text = str(cost.table())
    assert "native" in text and "compute_75" in text and "83.4" in text and "N = 2^24" in text
    assert "NVIDIA H200 (sm_90)" in cost.sentence() and "1.20x" in cost.sentence()
