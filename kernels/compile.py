"""Compile the kernel listings with NVRTC, on any machine, GPU or not.

The ``.cu`` files beside this module hold device code only; their compile-time constants
(``CONV_TILE``, ``CONV_K``, ``CONV_THREADS``) are injected here as ``-D`` options. NVRTC comes
with CuPy's CUDA libraries (or the ``nvidia-cuda-nvrtc-cu12`` wheel), and the libcu++ headers
(``<cuda/pipeline>``) with CuPy itself, so compiling needs neither a GPU nor a CUDA toolkit.

Targets are written the way ``nvcc`` names them:

* ``"sm_90"``      -> machine code (CUBIN) for exactly that GPU generation;
* ``"compute_75"`` -> PTX, which the driver of any newer GPU compiles when it loads it. Running
  ``compute_75`` PTX on an H200 is how the book shows what a T4 (sm_75) executes.

Compiled binaries are cached on disk, keyed by the source, the options and the NVRTC version.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

KERNEL_DIR = Path(__file__).resolve().parent
VARIANTS = ("naive", "tiled_sync", "puzzle28", "async_halo", "vec4", "pipelined", "bulk")
ASYNC_VARIANTS = ("puzzle28", "async_halo", "pipelined")   # cp.async on sm_80+ (bulk: sm_90)
STAGED_VARIANTS = ("pipelined", "bulk")                    # persistent blocks, CONV_STAGES buffers
CACHE_DIR = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "async-copy-book"


class CompileError(RuntimeError):
    """NVRTC rejected a source; ``log`` holds the compiler's messages."""

    def __init__(self, name: str, target: str, log: str):
        super().__init__(f"NVRTC could not compile {name} for {target}:\n{log}")
        self.log = log


def check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")


def kernel_name(variant: str) -> str:
    """The ``extern "C"`` name of a variant's kernel in its listing."""
    check_variant(variant)
    return f"conv1d_{variant}"


def source_path(variant: str) -> Path:
    check_variant(variant)
    return KERNEL_DIR / f"{variant}.cu"


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


def include_dirs() -> list[str]:
    import cupy
    libcudacxx = Path(cupy.__file__).parent / "_core" / "include" / "cupy" / "_cccl" / "libcudacxx"
    return [str(KERNEL_DIR), str(libcudacxx)]


TRACED_VARIANTS = ("tiled_sync", "puzzle28", "async_halo")   # have TRACE() points (notebook 02)


def options(tile: int, k: int, threads: int, target: str, stages: int | None = None,
            trace: bool = False) -> list[str]:
    """NVRTC options for one configuration; ``target`` as 'sm_90' or 'compute_75'."""
    extra = ([] if stages is None else [f"-DCONV_STAGES={stages}"]) + (["-DCONV_TRACE"] if trace else [])
    return [f"--gpu-architecture={target}", "-std=c++17",
            f"-DCONV_TILE={tile}", f"-DCONV_K={k}", f"-DCONV_THREADS={threads}", *extra,
            *(f"-I{d}" for d in include_dirs())]


def compile_source(src: str, name: str, tile: int, k: int, threads: int, target: str,
                   stages: int | None = None, trace: bool = False) -> bytes:
    """Compile ``src`` (a kernel listing) to CUBIN (``sm_XX``) or PTX (``compute_XX``).

    Raises :class:`CompileError` with NVRTC's log when the source does not compile.
    """
    nvrtc = _nvrtc()
    opts = options(tile, k, threads, target, stages, trace)
    prog = nvrtc.createProgram(src, f"{name}.cu", [], [])
    try:
        try:
            nvrtc.compileProgram(prog, opts)
        except nvrtc.NVRTCError:
            raise CompileError(name, target, nvrtc.getProgramLog(prog)) from None
        binary = nvrtc.getCUBIN(prog) if target.startswith("sm_") else nvrtc.getPTX(prog)
    finally:
        nvrtc.destroyProgram(prog)
    return binary if isinstance(binary, bytes) else binary.encode()


def compiled_file(src: str, name: str, tile: int, k: int, threads: int, target: str,
                  stages: int | None = None, trace: bool = False) -> Path:
    """Compile through the disk cache; returns the path of the CUBIN or PTX file."""
    headers = (KERNEL_DIR / "conv1d_common.cuh").read_text()
    key = "\0".join([src, headers, name, *options(tile, k, threads, target, stages, trace),
                     str(nvrtc_version())])
    suffix = ".cubin" if target.startswith("sm_") else ".ptx"
    path = CACHE_DIR / f"{name}-{target}-{hashlib.sha256(key.encode()).hexdigest()[:24]}{suffix}"
    if not path.exists():
        binary = compile_source(src, name, tile, k, threads, target, stages, trace)
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(binary)
        tmp.replace(path)   # atomic: concurrent processes never see half a file
    return path


def _compile_spec(spec: tuple) -> str:
    variant, tile, k, threads, target, stages, trace = spec
    return str(compiled_file(source(variant), kernel_name(variant), tile, k, threads, target,
                             stages, trace))


def warm_cache(specs, workers: int | None = None) -> None:
    """Compile many (variant, tile, k, threads, target, stages, trace) at once, in separate
    processes, into the disk cache: NVRTC takes about a second per libcu++ kernel."""
    import concurrent.futures
    import multiprocessing
    specs = sorted(set(specs), key=str)
    if len(specs) < 2:
        for spec in specs:
            _compile_spec(spec)
        return
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(workers or min(16, os.cpu_count() or 1),
                                                mp_context=ctx) as pool:
        list(pool.map(_compile_spec, specs))
