"""Compile the kernel listings with NVRTC, on any machine, GPU or not.

The ``.cu`` files beside this module hold device code only; their compile-time constants
(``CONV_TILE``, ``CONV_K``, ``CONV_THREADS``) are injected here as ``-D`` options. NVRTC comes
with CuPy's CUDA libraries (or the ``nvidia-cuda-nvrtc-cu12`` wheel), and the libcu++ headers
(``<cuda/pipeline>``) with CuPy itself, so compiling needs neither a GPU nor a CUDA toolkit.

Targets are written the way ``nvcc`` names them:

* ``"sm_90"``      -> machine code (CUBIN) for exactly that GPU generation;
* ``"compute_75"`` -> PTX, which the driver of any newer GPU compiles when it loads it. Running
  ``compute_75`` PTX on an H200 is how the book shows what a T4 (sm_75) executes.

Compiled binaries are cached on disk, keyed by the source, the options and the NVRTC and CuPy
(libcu++) versions.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import multiprocessing
import os
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from . import variants as V

KERNEL_DIR = V.KERNEL_DIR
CACHE_DIR = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "async-copy-book"


class CompileError(RuntimeError):
    """NVRTC rejected a source; ``log`` holds the compiler's messages."""

    def __init__(self, name: str, target: str, log: str):
        super().__init__(f"NVRTC could not compile {name} for {target}:\n{log}")
        self.log = log


def kernel_name(variant: str) -> str:
    """The ``extern "C"`` name of a variant's kernel in its listing."""
    return V.get(variant).kernel


def source_path(variant: str) -> Path:
    return V.get(variant).listing


def source(variant: str) -> str:
    """The listing of one variant, as the book shows it."""
    return source_path(variant).read_text()


def _nvrtc():
    try:
        from cupy.cuda import nvrtc
        nvrtc.getVersion()
    except Exception as exc:   # no CuPy, or CuPy without an NVRTC library
        raise RuntimeError(
            "compiling the kernels needs CuPy and NVRTC: pip install cupy-cuda12x "
            "nvidia-cuda-nvrtc-cu12 (or use a CUDA toolkit)") from exc
    return nvrtc


def nvrtc_version() -> tuple[int, int]:
    return tuple(_nvrtc().getVersion())


def supported_archs() -> tuple[int, ...]:
    """Compute capabilities this NVRTC can target, e.g. (75, 80, 86, 89, 90, ...)."""
    return tuple(_nvrtc().getSupportedArchs())


def _cupy_version() -> str:
    import cupy
    return cupy.__version__


def include_dirs() -> list[str]:
    import cupy
    libcudacxx = Path(cupy.__file__).parent / "_core" / "include" / "cupy" / "_cccl" / "libcudacxx"
    return [str(KERNEL_DIR), str(libcudacxx)]


@dataclass(frozen=True)
class Build:
    """One compilation of a listing: its compile-time constants and target.

    ``target`` as nvcc names it: ``"sm_90"`` (machine code) or ``"compute_75"`` (PTX). ``trace``
    adds the trace points (``-DCONV_TRACE``), ``jitter`` the stress delays (``-DCONV_JITTER``).
    """

    tile: int
    k: int
    threads: int
    target: str
    stages: int | None = None
    trace: bool = False
    jitter: bool = False

    def options(self) -> list[str]:
        """NVRTC options for this build."""
        extra = (([] if self.stages is None else [f"-DCONV_STAGES={self.stages}"])
                 + (["-DCONV_TRACE"] if self.trace else []) + (["-DCONV_JITTER"] if self.jitter else []))
        return [f"--gpu-architecture={self.target}", "-std=c++17",
                f"-DCONV_TILE={self.tile}", f"-DCONV_K={self.k}", f"-DCONV_THREADS={self.threads}",
                *extra, *(f"-I{d}" for d in include_dirs())]

    @property
    def machine_code(self) -> bool:
        return self.target.startswith("sm_")

    def with_target(self, target: str) -> "Build":
        return replace(self, target=target)


def compile_source(src: str, name: str, build: Build) -> bytes:
    """Compile ``src`` (a kernel listing) to CUBIN (``sm_XX``) or PTX (``compute_XX``).

    Raises :class:`CompileError` with NVRTC's log when the source does not compile.
    """
    nvrtc = _nvrtc()
    prog = nvrtc.createProgram(src, f"{name}.cu", [], [])
    try:
        try:
            nvrtc.compileProgram(prog, build.options())
        except nvrtc.NVRTCError:
            raise CompileError(name, build.target, nvrtc.getProgramLog(prog)) from None
        binary = nvrtc.getCUBIN(prog) if build.machine_code else nvrtc.getPTX(prog)
    finally:
        nvrtc.destroyProgram(prog)
    return binary if isinstance(binary, bytes) else binary.encode()


COMPILE_LOG_ENV = "ASYNC_BOOK_COMPILE_LOG"   # a file: every compile (cache miss) appends a line
_in_flight: dict[Path, concurrent.futures.Future] = {}   # what a background warm-up compiles


def cache_path(src: str, name: str, build: Build) -> Path:
    """Where the disk cache keeps this compilation."""
    headers = (KERNEL_DIR / "conv1d_common.cuh").read_text()
    key = "\0".join([src, headers, name, *build.options(), str(nvrtc_version()), _cupy_version()])
    suffix = ".cubin" if build.machine_code else ".ptx"
    return CACHE_DIR / f"{name}-{build.target}-{hashlib.sha256(key.encode()).hexdigest()[:24]}{suffix}"


def compiled_file(src: str, name: str, build: Build) -> Path:
    """Compile through the disk cache; returns the path of the CUBIN or PTX file. The key holds
    the source, the common header, the options and the NVRTC and CuPy (libcu++) versions. A
    compilation that a background warm-up has in flight is waited for, not repeated."""
    path = cache_path(src, name, build)
    pending = _in_flight.pop(path, None)
    if pending is not None and not path.exists():
        concurrent.futures.wait([pending], timeout=600)   # if it failed, compile and report below
    if not path.exists():
        started = time.perf_counter()
        binary = compile_source(src, name, build)
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(binary)
        tmp.replace(path)   # atomic: concurrent processes never see half a file
        _log_compile(src, name, build, time.perf_counter() - started)
    return path


def _log_compile(src: str, name: str, build: Build, seconds: float) -> None:
    log = os.environ.get(COMPILE_LOG_ENV)
    if not log:
        return
    variant = name.removeprefix("conv1d_")
    listing = variant in V.REGISTRY and src == source(variant)
    with open(log, "a") as f:
        f.write(json.dumps({"kernel": name, "listing": listing, "build": asdict(build),
                            "seconds": round(seconds, 3)}) + "\n")


def variant_file(variant: str, build: Build) -> Path:
    """The cached binary of one variant's listing."""
    return compiled_file(source(variant), kernel_name(variant), build)


def _compile_spec(spec: tuple) -> str:
    return str(variant_file(*spec))


def warm_cache(specs, workers: int | None = None, background: bool = False) -> None:
    """Compile many ``(variant, Build)`` at once, in separate processes, into the disk cache:
    NVRTC takes about a second per libcu++ kernel. With ``background=True`` it returns at once,
    in the order given (first needed, first done), and :func:`compiled_file` waits for a
    compilation still in flight instead of repeating it."""
    missing = {}
    for spec in dict.fromkeys(specs):
        path = cache_path(source(spec[0]), kernel_name(spec[0]), spec[1])
        if not path.exists():
            missing[spec] = path
    if not missing:
        return
    if not background and len(missing) == 1:
        for spec in missing:
            _compile_spec(spec)
        return
    pool = concurrent.futures.ProcessPoolExecutor(workers or min(16, os.cpu_count() or 1),
                                                  mp_context=multiprocessing.get_context("spawn"))
    futures = {spec: pool.submit(_compile_spec, spec) for spec in missing}
    if background:
        _in_flight.update({missing[spec]: future for spec, future in futures.items()})
        pool.shutdown(wait=False)   # the pool finishes its work on its own
        return
    with pool:
        for future in futures.values():
            future.result()
