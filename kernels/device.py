"""Which backend runs the kernels here: a CUDA GPU through CuPy, or the NumPy emulation."""

from __future__ import annotations

import datetime
import functools
import os
import platform
import subprocess
import textwrap

from .edition import Text, wrap

# Set ASYNC_BOOK_BACKEND=emulate to use the NumPy emulation even where a GPU is present
# (how CI's view of a notebook is reproduced on a GPU machine).
BACKEND_ENV = "ASYNC_BOOK_BACKEND"


@functools.lru_cache(maxsize=None)
def _probe() -> tuple[bool, str]:
    if os.environ.get(BACKEND_ENV, "auto") == "emulate":
        return False, f"{BACKEND_ENV}=emulate"
    try:
        import cupy
    except Exception as exc:
        return False, f"CuPy is not importable ({type(exc).__name__}: {exc})"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"no usable CUDA driver: {str(exc).split(':')[0]}"
    if count == 0:
        return False, "no CUDA device"
    return True, ""


# Set ASYNC_BOOK_ARCH=75 (or 80, ...) to run everything as if the GPU were that older generation:
# kernels are built as PTX for compute_75, which the driver compiles for the GPU at hand, and every
# decision about what can run (the bulk copy needs sm_90) is taken for sm_75. How the book checks,
# on a Hopper GPU, what a reader on Colab's T4 (sm_75) or an A100 (sm_80) runs and sees.
ARCH_ENV = "ASYNC_BOOK_ARCH"
OLDEST_ARCH = 75   # the book's oldest GPU, the T4 (libcu++'s pipeline and barrier need sm_70+)


def gpu_available() -> bool:
    return _probe()[0]


def compute_capability() -> int:
    """The current GPU's compute capability as an integer: 75 (T4), 80 (A100), 90 (H100/H200)."""
    import cupy
    return int(cupy.cuda.Device().compute_capability)


def simulated_arch() -> int | None:
    """The generation set by ASYNC_BOOK_ARCH, checked against this GPU; None when unset."""
    value = os.environ.get(ARCH_ENV, "").strip()
    if not value:
        return None
    cc = compute_capability()
    if not value.isdigit() or not OLDEST_ARCH <= int(value) <= cc:
        raise ValueError(f"{ARCH_ENV}={value!r}: set it to a compute capability from "
                         f"{OLDEST_ARCH} (T4) to this GPU's {cc}, e.g. 75 or 80, or unset it")
    return int(value)


def target_arch() -> int:
    """The generation the book runs as: ASYNC_BOOK_ARCH when set, else this GPU's own."""
    return simulated_arch() or compute_capability()


def device_info() -> dict:
    """What runs the kernels here. Always names the backend; on a GPU also its name, compute
    capability, driver, CUDA runtime and CuPy version; without one, why not."""
    info = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "host_python": platform.python_version()}
    ok, why = _probe()
    if not ok:
        return {"backend": "emulation", "reason": why, **info}
    import cupy
    rt = cupy.cuda.runtime
    props = rt.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"]
    return {
        "backend": "gpu",
        "device": name.decode() if isinstance(name, bytes) else name,
        "compute_capability": compute_capability(),
        **({"as_arch": simulated_arch()} if simulated_arch() else {}),
        "multiprocessors": props["multiProcessorCount"],
        "l2_bytes": props["l2CacheSize"],
        "driver": _driver_release(),
        "cuda_driver_api": _version(rt.driverGetVersion()),
        "cuda_runtime": _version(rt.runtimeGetVersion()),
        "cupy": cupy.__version__,
        **info,
    }


def _driver_release() -> str | None:
    """The NVIDIA driver's release (e.g. '580.159.04'), from nvidia-smi where it exists."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.split("\n")[0].strip() or None


def _version(v: int) -> str:
    return f"{v // 1000}.{v % 1000 // 10}"


def backend_summary():
    """For the top of a notebook: what the numbers below come from, in lines of at most 80
    columns (the book's text column), in both editions' languages (a
    :class:`~kernels.edition.Text`)."""
    said = _backend_summary()
    return Text("\n".join(textwrap.fill(line, 80, break_long_words=False)
                          for line in said.en.split("\n")),
                "\n".join(part for line in said.ko.split("\n") for part in wrap(line, 80)))


def _reason_ko(why: str) -> str:
    """``_probe``'s reason (English, as device_info records it) in Korean."""
    for en, ko in (("CuPy is not importable (", "CuPy를 가져올 수 없음("),
                   ("no usable CUDA driver: ", "쓸 수 있는 CUDA 드라이버 없음: ")):
        if why.startswith(en):
            return ko + why[len(en):]
    return {"no CUDA device": "CUDA 디바이스 없음"}.get(why, why)


def _backend_summary():
    info = device_info()
    if info["backend"] != "gpu":
        return Text(f"No GPU here ({info['reason']}).\nKernels run in the NumPy emulation; "
                    "timings shown are recorded GPU results, labelled as such.",
                    f"여기에는 GPU가 없습니다({_reason_ko(info['reason'])}).\n커널은 NumPy "
                    "에뮬레이션으로 실행합니다. 보여 주는 시간은 GPU에서 기록한 결과이고, 기록이라고 표시해 둡니다.")
    versions = (f"driver {info['driver']}, CUDA {info['cuda_runtime']}, CuPy {info['cupy']}",
                f"드라이버 {info['driver']}, CUDA {info['cuda_runtime']}, CuPy {info['cupy']}")
    if "as_arch" in info:
        a, cc = info["as_arch"], info["compute_capability"]
        return Text(f"GPU: as sm_{a}, on an {info['device']} (sm_{cc}; "
                    f"{ARCH_ENV}={a}: kernels built as compute_{a} PTX, and only "
                    f"what sm_{a} can run), {versions[0]}: kernels run live.",
                    f"GPU: {info['device']}(sm_{cc})에서 sm_{a}로 실행합니다({ARCH_ENV}={a}: "
                    f"커널을 compute_{a} PTX로 빌드하고, sm_{a}가 실행할 수 있는 것만 실행합니다). "
                    f"{versions[1]}. 커널을 이 GPU에서 직접 실행합니다.")
    return Text(f"GPU: {info['device']} (sm_{info['compute_capability']}), {versions[0]}: "
                "kernels run live.",
                f"GPU: {info['device']}(sm_{info['compute_capability']}), {versions[1]}. 커널을 이 "
                "GPU에서 직접 실행합니다.")
