"""Test inputs shared by the test modules; ``random_inputs`` is the package's own (fresh
standard-normal float32: never zeros)."""

from kernels import random_inputs, variants as V
from kernels.measure import recorded

__all__ = ["random_inputs", "roofline_recording", "check_variants"]


def roofline_recording() -> dict:
    """A synthetic roofline recording, laid out as kernels.measure.roofline.run writes one (its rows
    made by roofline.bounded), with times chosen so that the verdicts are known: at K = 1 the
    synchronous control staged_sync wins, at K = 5 the best async variant (pipelined) and
    staged_sync tie, at K = 31 bulk wins; at K = 127 only tiled_sync and async_halo run, and
    the FMAs bound it. Interquartile ranges are +-1 % of the median."""
    from kernels.measure import bench, roofline
    fma_per_s, copy_bytes_per_s = 3.0e13, 4.0e12
    times = {   # time over the bound, per variant and K
        "tiled_sync": {1: 2.0, 3: 2.2, 5: 2.4, 31: 4.8, 63: 6.0, 127: 5.0},
        "tiled_loads_first": {1: 1.9, 3: 2.0, 5: 2.1, 31: 4.7, 63: 5.8, 127: 4.9},
        "async_halo": {1: 1.8, 3: 1.9, 5: 2.0, 31: 4.6, 63: 5.5, 127: 4.0},
        "vec4": {1: 1.0, 3: 1.0, 5: 1.0, 31: 2.1, 63: 3.0},
        "staged_sync": {1: 1.05, 3: 1.06, 5: 1.06, 31: 1.5, 63: 1.6},
        "pipelined": {1: 1.2, 3: 1.065, 5: 1.06, 31: 1.9, 63: 2.0},
        "bulk": {1: 1.25, 3: 1.1, 5: 1.07, 31: 1.4, 63: 1.3},
        "warp_specialized": {1: 1.3, 3: 1.3, 5: 1.2, 31: 1.7, 63: 1.5},
    }
    rows = []
    for n in (2**24, 2**26):
        for k in (1, 3, 5, 31, 63, 127):
            copy_us = 8 * n / copy_bytes_per_s * 1e6
            bound = max(copy_us, n * k / fma_per_s * 1e6)
            for name, factor in times.items():
                if k not in factor:
                    continue
                median = factor[k] * bound
                config = dict(tile=1024, threads=256, stages=None, persistent=None,
                              grid=-(-n // 1024))
                best = bench.Row(name, n, k, median, 0.99 * median, 1.01 * median, copy_us,
                                 "events", config)
                other = bench.Row(name, n, k, 1.3 * median, 1.29 * median, 1.31 * median,
                                  copy_us, "events", dict(config, tile=4096, grid=-(-n // 4096)))
                rows.append(dict(roofline.bounded(best, fma_per_s, [best, other]), checked=False))
    seed = [dict(name=name, n=16384, k=5, median_us=t, q1_us=0.98 * t, q3_us=1.02 * t,
                 copy_us=2.5, method="graph", config={}, ratio=t / 2.5)
            for name, t in (("copy", 2.5), ("tiled_sync", 4.0), ("tiled_loads_first", 3.4),
                            ("async_halo", 3.6), ("empty", 2.0))]
    return {"provenance": {"backend": "gpu", "device": "Synthetic GPU",
                           "date": "2026-12-01T00:00:00+00:00",
                           "command": "python -m kernels.measure.roofline --out test.json",
                           "n_repeat": 30},
            "left_out": [], "grid": {}, "fma": {"fma_per_s": fma_per_s},
            "seed": {"n": 16384, "k": 5, "blocks": 64, "threads": 256, "rows": seed},
            "copies": [], "rows": rows}


def check_variants(result: dict, names) -> tuple[str, ...]:
    """Raise ``ValueError`` naming each variant ``names`` (what the recording holds) lacks but
    ``recorded.variants_expected`` says it must hold; return those it may lack, the variants
    added after it was recorded."""
    names = set(names)
    expected = recorded.variants_expected(result)
    missing = [v for v in expected if v not in names]
    if missing:
        raise ValueError(f"the recording of {result['provenance']['date']} lacks "
                         f"{', '.join(missing)}, which the registry held when it was made: "
                         f"re-record it ({result['provenance'].get('command', 'its command')})")
    return tuple(v for v in V.NAMES if v not in expected and v not in names)
