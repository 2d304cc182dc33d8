"""The compile-time sizes of ``conv1d_common.cuh``, in Python: one function per macro.

Everything that sizes a buffer on the host (shared memory, emulation windows, bytes in flight)
goes through these, so the host and the listings cannot disagree.
"""

from __future__ import annotations


def round4(v: int) -> int:
    """``v`` rounded up to a whole 16-byte chunk of 4 floats."""
    return (v + 3) // 4 * 4


def halo(k: int) -> int:
    """CONV_HALO: cells a tile needs on its left (the right needs ``k - 1 - halo``)."""
    return k // 2


def buf(tile: int, k: int) -> int:
    """CONV_BUF: a tile with both halos."""
    return tile + k - 1


def left4(k: int) -> int:
    """CONV_LEFT4: the left halo rounded up to whole chunks."""
    return round4(halo(k))


def right4(k: int) -> int:
    """CONV_RIGHT4: the right halo rounded up to whole chunks."""
    return round4(k - 1 - halo(k))


def left_line(k: int) -> int:
    """CONV_LEFTL: the left halo rounded up to a whole 128-byte line of 32 floats."""
    return (halo(k) + 31) // 32 * 32


def right_line(k: int) -> int:
    """CONV_RIGHTL: the right halo rounded up to a whole line."""
    return (k - 1 - halo(k) + 31) // 32 * 32


def span(tile: int, k: int) -> int:
    """CONV_SPAN: the staged variants' tile buffer, each halo rounded up to a whole line."""
    return left_line(k) + tile + right_line(k)


def skip(k: int) -> int:
    """CONV_SKIP: where in that buffer the first thread's window starts."""
    return left_line(k) - left4(k)


def window4(k: int) -> int:
    """CONV_WINDOW4: the floats one thread of a window variant reads for its 4 outputs."""
    return left4(k) + 4 + right4(k)


# The trace record of one block (CONV_TRACE builds): the SM id, then CONV_TRACE_POINTS values of
# %globaltimer (ns), then as many of clock64() (SM cycles).
TRACE_POINTS = ("start", "issued", "taps", "waited", "synced", "stored")
TRACE_WORDS = 1 + 2 * len(TRACE_POINTS)   # CONV_TRACE_WORDS
TRACE_SM = 0
TRACE_NS = slice(1, 1 + len(TRACE_POINTS))
TRACE_CYCLES = slice(1 + len(TRACE_POINTS), TRACE_WORDS)
