"""kernels.teach.explore and widgets: the convolution widget, a run's summary and regime, and
notebook 03's computed sentences: the T4-code-path cell says what the two builds' times mean on
whatever GPU ran it, and without a GPU that nothing was timed."""

import ast
import json
import re

import pytest

import kernels
from kernels.teach import explore, widgets
from support import ROOT


@pytest.mark.parametrize("times, says, never", [
    ((None, None, 75), ["No GPU here", "compute_75"], "µs"),
    ((69.6, 83.4, 75, 90, "NVIDIA H200"),
     ["NVIDIA H200 (sm_90)", "83.4 µs", "69.6 µs", "1.20x", "20% more time"], None),
    ((100.0, 102.0, 75, 80, "NVIDIA A100"), ["within 5%"], "more time"),
    ((100.0, 90.0, 75, 80, "NVIDIA A100"), ["faster"], "more time"),
    ((100.0, 108.0, 75, 75, "Tesla T4"), ["same compute_75 code", "noise"], "more time"),
], ids=["no GPU", "slower", "a tie", "faster", "a T4"])
def test_the_older_build_sentence(times, says, never):
    """Without a GPU nothing was timed; a slower older build gets both times and its cost; a tie
    (within 5%), a faster older build or a T4's same code is never called a cost."""
    s = explore.older_build_sentence(*times)
    assert all(part in s for part in says) and (never is None or never not in s), s


def test_older_build_without_a_gpu_has_no_runs(monkeypatch):
    monkeypatch.setattr(explore, "gpu_available", lambda: False)
    cost = explore.older_build("async_halo", 75)
    assert cost.runs == [] and cost.sentence().startswith("No GPU here")


def test_convolution_widget_offers_only_valid_combinations():
    """Every variant with every N, tile, K, threads and stages the controls offer (stages for
    the staged variants only: the widget passes them to no other), for every generation the
    generation menu offers with it."""
    c = widgets.convolution_controls()
    assert c["versus"].options[0] == ("none", None)
    assert {v for _, v in c["versus"].options[1:]} == set(c["variant"].options)
    ks = range(c["k"].min, c["k"].max + 1)
    for variant in c["variant"].options:
        staged = kernels.variants.get(variant).staged
        for _, stages in c["stages"].options if staged else [("default", None)]:
            for _, threads in c["threads"].options:
                for tile in c["tile"].options:
                    for k in ks:
                        for n in (min(c["n"].options), max(c["n"].options)):
                            kernels.launch_config(n, k, tile, threads, variant, stages)
        c["variant"].value = variant
        for _, arch in c["arch"].options:
            assert arch is None or kernels.variants.get(variant).min_arch <= arch


def test_generations_follow_the_variants(monkeypatch):
    """On a GPU the generation menu offers A100 and T4 builds only when both variants run
    there; in the emulation there is nothing to choose."""
    monkeypatch.setattr(explore, "gpu_available", lambda: True)
    monkeypatch.setattr(explore, "target_arch", lambda: 90)
    monkeypatch.setattr(explore, "compute_capability", lambda: 90)
    assert explore.generation_choices("async_halo", None) == (
        ("sm_90 (this GPU)", None), ("sm_80 (as an A100)", 80), ("sm_75 (as a T4)", 75))
    assert explore.generation_choices("async_halo", "bulk") == (("sm_90 (this GPU)", None),)
    monkeypatch.setattr(explore, "target_arch", lambda: 80)
    assert explore.generation_choices("tiled_sync") == (
        ("sm_80 (as set by ASYNC_BOOK_ARCH)", None), ("sm_75 (as a T4)", 75))
    monkeypatch.setattr(explore, "gpu_available", lambda: False)
    assert explore.generation_choices("async_halo") == (("emulation", None),)
    assert explore.n_choices() == explore.N_CHOICES


def test_a_run_says_when_its_time_is_not_about_bandwidth():
    r = explore.run("async_halo", n=1000, tile=64, k=9)
    assert r.regime() == []   # the emulation: no timing, no cache
    r.median_us, r.copy_us, r.l2_bytes = 1.4, 1.2, 60 * 2**20
    assert [note.split(" — ")[0] for note in r.regime()] == ["L2-resident", "launch-bound"]
    assert "from N = 2²³ on, x and y outgrow it" in r.regime()[0]   # 8 x 2^23 B = 64 MiB
    r.l2_bytes = 4 * 2**20                                           # a T4's 4 MiB
    assert "from N = 2²⁰ on" in r.regime()[0]
    r.n, r.median_us = 2**26, 140.0
    assert r.regime() == []
    both = explore.compare(["async_halo", "pipelined"], n=1000, tile=64, k=9, stages=2)
    assert [(b.variant, b.stages, b.wrong) for b in both] == [("async_halo", None, 0),
                                                            ("pipelined", 2, 0)]


def test_explore_run_reports_correctness():
    r = explore.run("async_halo", n=1000, tile=64, k=9)
    assert r.wrong == 0 and r.max_error_over_bound <= 1
    bad = explore.run("puzzle28", n=1000, tile=64, k=9)
    assert bad.wrong > 0 and "WRONG" in bad.summary()


# --- the notebook itself --------------------------------------------------------------------

NOTEBOOK = ROOT / "notebooks" / "03_async_copy_convolution.ipynb"


CELLS = [(c["cell_type"], "".join(c["source"])) for c in json.loads(NOTEBOOK.read_text())["cells"]]
HINTS = [src for kind, src in CELLS if kind == "markdown" and src.startswith(":::{admonition} Hint")]


def test_every_glue_role_is_glued_by_a_cell():
    used = {m for kind, src in CELLS if kind == "markdown"
            for m in re.findall(r"\{glue:text\}`(\w+)`", src)}
    glued = {k.arg for kind, src in CELLS if kind == "code"
             for node in ast.walk(ast.parse(src.replace("%matplotlib inline", "")))
             if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "glue"
             for k in node.keywords if k.arg != "show"}
    assert used, "notebook 03 glues no number"
    assert used <= glued, f"glue roles without a glue() call: {used - glued}"


def test_hints_go_from_the_idea_to_the_code():
    """Each exercise has three hints in order: the idea and where (no code block), then the code."""
    titles = [re.search(r"Hint (\d): (.*)", h).groups() for h in HINTS]
    assert titles == [("1", "the idea"), ("2", "where"), ("3", "the code")] * 2
    assert ["```" in h for h in HINTS] == [False, False, True] * 2


@pytest.mark.parametrize("nth, solution", [(0, "kernels/async_halo.cu"),
                                            (1, "kernels/exercises/double_buffer.cu")])
def test_code_hints_are_the_solutions_lines(nth, solution):
    """Each exercise's last hint gives the code: every line of it (comments aside) is a line of
    the solution, so the hint cannot drift from the answer the check accepts."""
    code = re.search(r"```cuda\n(.*?)```", HINTS[3 * nth + 2], re.S).group(1)
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
    assert "native" in text and "compute_75" in text and "83.4" in text and "N = 2²⁴" in text
    assert "NVIDIA H200 (sm_90)" in cost.sentence() and "1.20x" in cost.sentence()
