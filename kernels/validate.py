"""The argument checks every public function shares.

Each raises ``TypeError`` (wrong kind of value) or ``ValueError`` (right kind, wrong value) with
a message that names the argument and the rule, before anything is compiled, launched or handed
to NumPy. Nothing is ever cast silently.
"""

from __future__ import annotations

import difflib
import math
import numbers
import os
from pathlib import Path

import numpy as np

from . import device
from .edition import english_list as listed   # names as a sentence lists them


def integer(name: str, value, lo: int | None = None, hi: int | None = None, why: str = "") -> int:
    """A Python or NumPy integer (not a bool, not a float) within ``[lo, hi]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        bounds = (f"from {lo} to {hi}" if lo is not None and hi is not None
                  else f"at least {lo}" if lo is not None else f"at most {hi}")
        raise ValueError(f"{name} must be {bounds}{why}, got {value}")
    return value


def number(name: str, value, lo: float | None = None, hi: float | None = None,
           lo_open: bool = False) -> float:
    """A finite real number (int or float, not a bool) within ``[lo, hi]`` (``(lo, hi]`` when
    ``lo_open``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    if lo is not None and (value <= lo if lo_open else value < lo):
        raise ValueError(f"{name} must be {'greater than' if lo_open else 'at least'} {lo:g}, "
                         f"got {value:g}")
    if hi is not None and value > hi:
        raise ValueError(f"{name} must be at most {hi:g}, got {value:g}")
    return value


def warps(name: str, value, hi: int, why: str = "") -> int:
    """A whole number of warps: a multiple of 32 from 32 to ``hi`` (``why``: said after it)."""
    value = integer(name, value)
    if value < 32 or value > hi or value % 32:
        raise ValueError(f"{name} must be a multiple of 32 (a whole number of warps) from 32 to "
                         f"{hi}{why}, got {value}")
    return value


def rng_seed(name: str, value):
    """What :func:`numpy.random.default_rng` takes, and no more: None (fresh entropy), an integer
    >= 0, or a NumPy ``Generator``, ``BitGenerator`` or ``SeedSequence``."""
    if value is None or isinstance(value, (np.random.Generator, np.random.BitGenerator,
                                           np.random.SeedSequence)):
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be None, an integer >= 0 or a numpy.random.Generator, "
                        f"got {type(value).__name__} {value!r}")
    return integer(name, value, lo=0)


def text(name: str, value) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__} {value!r}")
    return value


def record(name: str, value, keys) -> dict:
    """A dict (a recording, e.g. ``recorded.load()``) that holds ``keys``."""
    if not isinstance(value, dict):
        raise TypeError(f"{name} must be a dict (a recording such as recorded.load()), "
                        f"got {type(value).__name__}")
    missing = [key for key in keys if key not in value]
    if missing:
        raise ValueError(f"{name} has no {', '.join(map(repr, missing))}: not such a recording")
    return value


def sequence(name: str, value, what: str = "values") -> tuple:
    """A non-empty list or tuple (of ``what``; not a string, a set or a generator), as a tuple."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list or tuple of {what}, got {type(value).__name__}")
    if not value:
        raise ValueError(f"{name} is empty: give at least one of its {what}")
    return tuple(value)


def flag(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def choice(name: str, value, options) -> str:
    """One of ``options`` (strings); otherwise a ``ValueError`` that lists them and suggests the
    nearest ("did you mean")."""
    options = tuple(options)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, one of {', '.join(options)}; "
                        f"got {type(value).__name__} {value!r}")
    if value not in options:
        near = difflib.get_close_matches(value, options, n=1, cutoff=0.5) or \
            [o for o in options if value.lower() in o.lower()][:1]
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise ValueError(f"unknown {name} {value!r}: choose one of {', '.join(options)}{hint}")
    return value


def array_module(name: str, a):
    """``numpy`` or ``cupy``, whichever ``a`` belongs to. NumPy subclasses are refused where they
    would change the meaning (a masked array's hidden values, a matrix's 2-D shape)."""
    if isinstance(a, np.ma.MaskedArray):
        raise TypeError(f"{name} is a masked array: its masked values would be used as they are; "
                        f"pass {name}.filled(0) (or the value you mean) as a plain array")
    if isinstance(a, np.matrix):
        raise TypeError(f"{name} is a numpy.matrix (always 2-D); pass np.asarray({name}).ravel()")
    if isinstance(a, np.ndarray):
        return np
    try:
        import cupy
    except Exception:
        cupy = None
    if cupy is not None and isinstance(a, cupy.ndarray):
        return cupy
    raise TypeError(f"{name} must be a NumPy or CuPy array, got {type(a).__name__}")


def vector(name: str, a, dtype=np.float32):
    """A non-empty 1-D array of ``dtype`` (float32: the kernels compute in float32 and never cast
    for you). Returns its array module."""
    xp = array_module(name, a)
    if a.dtype != dtype:
        kind = "complex numbers are not supported; " if np.issubdtype(a.dtype, np.complexfloating) else ""
        raise TypeError(f"{name} must be {np.dtype(dtype).name}, got {a.dtype}; {kind}the kernels "
                        f"compute in float32 and do not cast for you: pass "
                        f"{name}.astype(np.float32)")
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"{name} is empty")
    return xp


def same_length(name: str, a, n: int) -> None:
    if a.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},) like x, got {a.shape}")


def disjoint(name: str, a, others: dict) -> None:
    """``a`` (an output) shares no memory with any of ``others`` (the inputs): a kernel reading
    what another thread already overwrote computes garbage. Arrays of different libraries (host
    and device memory) never overlap."""
    xp = array_module(name, a)
    for other_name, b in others.items():
        if array_module(other_name, b) is xp and xp.may_share_memory(a, b):
            raise ValueError(f"{name} overlaps {other_name}: the output must be a separate array "
                             f"(the kernels read {other_name} while writing {name})")


def rows(name: str, value, keys, empty: bool = False) -> list:
    """A list of dicts (a recording's rows) each holding ``keys``; non-empty unless ``empty``.
    The error names the first row that lacks a key, and the key."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of rows (dicts), got {type(value).__name__}")
    if not value and not empty:
        raise ValueError(f"{name} is empty: the recording has no rows there")
    for i, row in enumerate(value):
        record(f"{name}[{i}]", row, keys)
    return list(value)


def function(name: str, value):
    """Something to call (a function, a Launch)."""
    if not callable(value):
        raise TypeError(f"{name} must be callable (a function or a kernels.Launch), "
                        f"got {type(value).__name__} {value!r}")
    return value


def path(name: str, value):
    """A file system path: a string or an ``os.PathLike`` (not bytes, not empty)."""
    if isinstance(value, (bytes, bytearray)) or not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (a string or a pathlib.Path), "
                        f"got {type(value).__name__} {value!r}")
    if str(value) == "":
        raise ValueError(f"{name} is empty: give a file path")
    return Path(value)


def output_file(name: str, value, suffix: str = ".json"):
    """Where a tool is about to write: a ``suffix`` file (not a folder) in a folder that exists
    and that this user may write to. Checked before a long run, so that a typo loses nothing."""
    where = path(name, value)
    if where.suffix.lower() != suffix:
        raise ValueError(f"{name} must be a {suffix} file path, got {str(where)!r}")
    if where.is_dir():
        raise ValueError(f"{name} {str(where)!r} is a folder: give a {suffix} file path in it")
    folder = where.parent
    if not folder.is_dir():
        raise ValueError(f"{name} {str(where)!r}: its folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (where.exists() and not os.access(where, os.W_OK)):
        raise ValueError(f"{name} {str(where)!r}: not writable here (permission denied)")
    return where


def needs_gpu(what: str) -> None:
    """``RuntimeError`` naming ``what`` unless a CUDA GPU is usable here, before CuPy is used."""
    if not device.gpu_available():
        reason = device.device_info().get("reason", "")
        raise RuntimeError(f"{what} needs a CUDA GPU, and none is usable here ({reason}); the "
                           "recorded results are in kernels/recorded/")
