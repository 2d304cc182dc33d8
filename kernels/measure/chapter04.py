"""What notebook 04 reads from the recordings beyond :mod:`kernels.measure.recorded`: the
configuration of the table's one-output kernels, the bytes they keep in flight, what asynchrony
costs against the synchronous control, the gap between the two schedules at one stage, and the
drift seen between two recordings of the same kernels. No GPU needed."""

from __future__ import annotations

from .. import variants as V


def configuration(rows: dict[str, dict], names) -> dict:
    """The tile, threads and blocks per SM that the rows of ``names`` (from
    :func:`recorded.rows_at`) share; ``ValueError`` if they differ or one is missing."""
    names = tuple(names)
    if not names:
        raise ValueError("name at least one row")
    missing = [n for n in names if n not in rows]
    if missing:
        raise ValueError(f"no row for {', '.join(missing)}")
    seen = {(rows[n]["config"]["tile"], rows[n]["config"]["threads"],
             rows[n]["config"]["blocks_per_sm"]) for n in names}
    if len(seen) != 1:
        raise ValueError(f"{', '.join(names)} ran in different configurations: {sorted(seen)}")
    tile, threads, blocks = seen.pop()
    return {"tile": tile, "threads": threads, "blocks_per_sm": blocks}


def one_tile_in_flight(row: dict) -> float:
    """Bytes of input one SM has requested while its blocks wait, for a kernel that copies one
    tile and its halos (tile + K - 1 floats, 4 bytes each) per block and waits for it: blocks
    resident per SM x that tile's bytes."""
    c = row["config"]
    return c["blocks_per_sm"] * (c["tile"] + row["k"] - 1) * 4


def tuned_asynchronous(result: dict) -> tuple[str, ...]:
    """The asynchronous variants the recording tuned (those in its ``configs``)."""
    return tuple(v for v in V.names(asynchronous=True) if v in result["configs"])


def asynchrony_cost(result: dict, rows: dict[str, dict], control: str = "staged_sync") -> dict:
    """The control's time over the copy time beside the fastest and slowest tuned asynchronous
    variant's (``"control"``, ``"lo"``, ``"hi"``), and ``"cost"``: how much longer, at least,
    an asynchronous kernel took than the control (a fraction)."""
    ratios = [rows[v]["ratio"] for v in tuned_asynchronous(result) if v in rows]
    if not ratios or control not in rows:
        raise ValueError("the rows hold no tuned asynchronous variant or no control")
    return {"control": rows[control]["ratio"], "lo": min(ratios), "hi": max(ratios),
            "cost": min(ratios) / rows[control]["ratio"] - 1}


def schedule_gap(result: dict) -> dict[str, dict]:
    """For each tuned staged variant, at its tuned tile and threads with one stage: the time over
    the copy time of persistent blocks and of one block per tile, from the tuning, where both ran
    with the same blocks per SM (so the same bytes in flight)."""
    gap = {}
    for v in result["configs"]:
        if not V.get(v).staged:
            continue
        tuned = result["configs"][v]
        found = {}
        for r in result["tuning"]:
            c = r["config"]
            if (r["name"] == v and c.get("stages") == 1 and c["tile"] == tuned["tile"]
                    and c["threads"] == tuned["threads"]):
                found[bool(c["persistent"])] = r
        if (len(found) == 2 and found[True]["config"]["blocks_per_sm"]
                == found[False]["config"]["blocks_per_sm"]):
            gap[v] = {"persistent": found[True]["ratio"], "per_tile": found[False]["ratio"],
                      "blocks_per_sm": found[True]["config"]["blocks_per_sm"]}
    return gap


def _key(row: dict) -> tuple:
    config = {k: v for k, v in row.get("config", {}).items() if k != "regs"}
    return row["name"], row["n"], row["k"], tuple(sorted(config.items()))


def drift_seen(a: dict, b: dict) -> float:
    """The largest relative difference between the median times of the same kernel, size, taps
    and configuration in two recordings (``rows``), as a fraction; ``ValueError`` if they share
    none."""
    first = {_key(r): r for r in a["rows"]}
    gaps = [abs(r["median_us"] - first[_key(r)]["median_us"])
            / min(r["median_us"], first[_key(r)]["median_us"])
            for r in b["rows"] if _key(r) in first]
    if not gaps:
        raise ValueError("the two recordings share no kernel in the same configuration")
    return max(gaps)

