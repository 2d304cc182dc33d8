"""Notebook 01 (halo regions): the numbers its sentences glue (``kernels.teach.halo``), checked
against what the sentences around them say, and every glue role of the page against its cells."""

import re

import nbformat
import numpy as np
import pytest

import kernels
from kernels.teach import halo
from support import ROOT

NOTEBOOK = "01_halo_regions.ipynb"
P = kernels.PUZZLE28


def seed_run(backend="emulate"):
    """The notebook's inputs (seed 28) and both kernels' outputs."""
    rng = np.random.default_rng(28)
    x = rng.standard_normal(P.n, dtype=np.float32)
    w = rng.standard_normal(P.k, dtype=np.float32)
    return (x, w, kernels.conv1d(x, w, "puzzle28", backend=backend, **P.launch),
            kernels.conv1d(x, w, "async_halo", backend=backend, **P.launch))


def test_the_picture_answer():
    """'Each block has K - 1 = 4 halo cells ... Of the 16 in all, 4 are zeros.'"""
    counts = halo.halo_counts(n=100, tile=32, k=5)
    assert counts == {"halo_per_block": "4", "halo_total": "16", "halo_zero": "4",
                      "halo_share": "11.1%"}
    cells = halo.halo_cells(n=100, tile=32, k=5)
    assert {c.block for c in cells if c.source == "zero"} == {0, 3}   # block 0's left, the last's right


@pytest.mark.parametrize("n, tile, k", [(100, 32, 5), (1000, 64, 4), (16384, 256, 5), (33, 32, 32),
                                        (32, 32, 1)])   # the puzzle's: "4 of 260, 1.5%"
def test_halo_counts_agree_with_the_cells(n, tile, k):
    cells = halo.halo_cells(n, tile, k)
    counts = halo.halo_counts(n, tile, k)
    blocks = -(-n // tile)
    assert int(counts["halo_total"]) == len(cells) == blocks * (k - 1)
    assert int(counts["halo_per_block"]) == k - 1
    # zeros only past the ends: the first block's left halo, the last blocks' right halo
    assert int(counts["halo_zero"]) == sum(not 0 <= c.index < n for c in cells)
    assert counts["halo_share"] == f"{(k - 1) / (tile + k - 1):.1%}"


def test_what_the_puzzle_answer_and_the_error_map_say():
    x, w, y_puzzle, y_halo = seed_run()
    s = halo.puzzle_errors(y_puzzle, y_halo, x, w, tile=P.tile)
    tiles = P.n // P.tile
    assert s["p28_wrong"] == str(4 * tiles) and s["p28_tiles"] == str(tiles) == "64"
    assert s["p28_positions"] == "0, 1, 254 and 255"
    assert s["p28_in_test"] == "2"                     # "Outputs 0 and 1"
    assert s["correct_wrong"] == "0"
    assert 0 < int(s["correct_share"].rstrip("%")) <= 100   # "stays under it everywhere"
    # "errors from .. to .., .. at the median, where rounding allows at most ..": the smallest
    # wrong error is still far above the largest allowance
    ref, bound = kernels.reference(x, w), kernels.error_bound(x, w)
    errors = np.abs(y_puzzle - ref)[kernels.wrong_outputs(y_puzzle, x, w)]
    assert errors.min() > 10 * bound.max()
    assert s["p28_error_max"] == f"{errors.max():.1f}" and s["p28_error_median"] == f"{np.median(errors):.1f}"


@pytest.mark.parametrize("value, text", [(0.000188, "2 × 10⁻⁴"), (5.01e-06, "5 × 10⁻⁶"),
                                         (6.4967, "6.5"), (0.1, "0.1"), (3e-12, "3 × 10⁻¹²")])
def test_small_numbers_as_a_sentence_writes_them(value, text):
    assert halo._power_of_ten(value) == text


@pytest.mark.gpu
def test_the_gpu_and_the_emulation_give_the_same_numbers():
    """The page's claim: live on a GPU or emulated, the counts are the same, and the outputs
    agree to the last bit or nearly."""
    x, w, gpu_puzzle, gpu_halo = seed_run("gpu")
    _, _, emu_puzzle, emu_halo = seed_run("emulate")
    gpu = halo.puzzle_errors(gpu_puzzle, gpu_halo, x, w, tile=P.tile)
    emu = halo.puzzle_errors(emu_puzzle, emu_halo, x, w, tile=P.tile)
    assert gpu == emu
    np.testing.assert_array_equal(np.asarray(gpu_puzzle.get() if hasattr(gpu_puzzle, "get")
                                             else gpu_puzzle)[kernels.wrong_outputs(emu_puzzle, x, w)],
                                  emu_puzzle[kernels.wrong_outputs(emu_puzzle, x, w)])


@pytest.mark.parametrize("edition", ["notebooks", "ko/notebooks"])
def test_every_glue_role_names_a_glued_value(edition):
    """Each {glue:text} role names a value a code cell's stored outputs glue."""
    nb = nbformat.read(ROOT / edition / NOTEBOOK, as_version=4)
    roles = {name for cell in nb.cells if cell.cell_type == "markdown"
             for name in re.findall(r"\{glue:text\}`(\w+)`", cell.source)}
    glued = {out.get("metadata", {}).get("scrapbook", {}).get("name")
             for cell in nb.cells for out in cell.get("outputs", [])}
    assert roles and roles <= glued, roles - glued


def test_the_page_says_where_its_numbers_come_from():
    nb = nbformat.read(ROOT / "notebooks" / NOTEBOOK, as_version=4)
    top = nb.cells[0].source
    assert "live" in top and "emulation" in top and "no timings" in top
