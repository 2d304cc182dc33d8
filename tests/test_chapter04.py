"""kernels.measure.recorded: what notebook 04 reads from the recordings beyond its tables."""

import pytest

from kernels.measure import recorded


@pytest.fixture(scope="module")
def result():
    return recorded.load()


def _row(name, tile=256, threads=256, blocks=8, k=5, ratio=1.0, **config):
    return {"name": name, "n": 2**20, "k": k, "ratio": ratio, "median_us": 100 * ratio,
            "config": {"tile": tile, "threads": threads, "blocks_per_sm": blocks, **config}}


def test_configuration_shared_and_differing():
    rows = {"a": _row("a"), "b": _row("b"), "c": _row("c", tile=1024)}
    assert recorded.configuration(rows, ("a", "b")) == {"tile": 256, "threads": 256, "blocks_per_sm": 8}
    with pytest.raises(ValueError, match="different"):
        recorded.configuration(rows, ("a", "c"))
    with pytest.raises(ValueError, match="no row"):
        recorded.configuration(rows, ("a", "z"))


def test_one_tile_in_flight():
    assert recorded.one_tile_in_flight(_row("a")) == 8 * 260 * 4   # 8 blocks x (256 + 4) floats


def test_recorded_puzzle_configuration(result):
    at = recorded.rows_at(result)
    c = recorded.configuration(at, ("naive", "tiled_sync", "async_halo", "puzzle28"))
    assert c["tile"] == 256 and c["threads"] == 256
    needed = recorded.littles_law(result)["needed"]
    assert recorded.one_tile_in_flight(at["async_halo"]) < needed   # below what the copy rate needs


def test_asynchrony_neither_costs_nor_gains_at_k5(result):
    """04: the tuned asynchronous kernels and the control tie at K = 5, within the drift."""
    at = recorded.rows_at(result)
    c = recorded.against_control(result, at)
    assert set(recorded.tuned_asynchronous(result)) == {"pipelined", "bulk", "warp_specialized"}
    assert c["lo"] <= c["hi"]
    assert all(abs(c[s] / c["control"] - 1) < recorded.RUN_TO_RUN for s in ("lo", "hi"))
    with pytest.raises(ValueError):
        recorded.against_control(result, {"copy": at["copy"]})


def test_schedule_gap(result):
    gap = recorded.schedule_gap(result)
    assert gap and set(gap) <= set(result["configs"])
    for g in gap.values():
        assert g["persistent"] > g["per_tile"]   # same bytes in flight, persistent slower


def test_drift_seen(result):
    rec = recorded.load("h200_roofline")
    seen = recorded.drift_seen(result, rec)
    assert 0 < seen < recorded.RUN_TO_RUN          # the margin sits above what was seen
    assert recorded.drift_seen(result, result) == 0
    with pytest.raises(ValueError):
        recorded.drift_seen(result, {"rows": []})
