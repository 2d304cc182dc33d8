"""Running as an older GPU generation (ASYNC_BOOK_ARCH), target selection and the driver's PTX
refusal, without a GPU: the GPU and NVRTC are stood in for."""

import pytest

import kernels
from kernels import device, launch
from kernels.teach import explore


@pytest.fixture
def gpu(monkeypatch):
    """A stand-in GPU of compute capability ``cc`` and an NVRTC that targets 75..120."""
    def make(cc):
        for module in (device, launch):
            monkeypatch.setattr(module, "compute_capability", lambda: cc)
        monkeypatch.setattr(launch, "supported_archs", lambda: (75, 80, 86, 89, 90, 100, 120))
        monkeypatch.delenv(device.ARCH_ENV, raising=False)
    return make


def test_own_generation_runs_machine_code(gpu):
    gpu(90)
    assert launch.gpu_target("bulk") == "sm_90"
    assert launch.gpu_target("async_halo", arch=75) == "compute_75"
    assert launch.gpu_target("async_halo", arch=90) == "sm_90"


def test_as_an_older_generation_builds_ptx_and_decides_for_it(gpu, monkeypatch):
    gpu(90)
    monkeypatch.setenv(device.ARCH_ENV, "80")
    assert device.target_arch() == 80
    assert launch.gpu_target("pipelined") == "compute_80"
    assert launch.gpu_target("async_halo", arch=75) == "compute_75"
    with pytest.raises(ValueError, match=r"bulk needs sm_90.*running as \(ASYNC_BOOK_ARCH\) sm_80"):
        launch.gpu_target("bulk")
    with pytest.raises(ValueError, match="newer than the generation the book runs as"):
        launch.gpu_target("async_halo", arch=90)
    monkeypatch.setattr(explore, "gpu_available", lambda: True)
    sm90 = ("bulk", "warp_specialized")
    assert explore.variant_choices() == tuple(v for v in kernels.VARIANTS if v not in sm90)
    assert kernels.variants.names(arch=device.target_arch()) == tuple(
        v for v in kernels.VARIANTS if v not in sm90)


def test_a_real_t4_runs_its_own_machine_code(gpu, monkeypatch):
    gpu(75)
    monkeypatch.setenv(device.ARCH_ENV, "75")
    assert launch.gpu_target("async_halo") == "sm_75"
    assert launch.gpu_target("async_halo", arch=75) == "sm_75"


@pytest.mark.parametrize("value", ["70", "95", "sm_80", "eighty"])
def test_a_bad_generation_is_a_clear_error(gpu, monkeypatch, value):
    gpu(90)
    monkeypatch.setenv(device.ARCH_ENV, value)
    with pytest.raises(ValueError, match="ASYNC_BOOK_ARCH=.*from 75 .* to this GPU's 90"):
        device.target_arch()


def test_a_gpu_older_than_nvrtc_is_a_clear_error(gpu):
    gpu(70)
    with pytest.raises(RuntimeError, match="older than every target of NVRTC"):
        launch.gpu_target("naive")


class FakeDriverError(Exception):
    pass


def test_ptx_newer_than_the_driver_is_explained():
    exc = FakeDriverError("CUDA_ERROR_UNSUPPORTED_PTX_VERSION: the provided PTX was compiled "
                          "with an unsupported toolchain.")
    err = launch.explain_load_error(exc, "compute_75", driver=12040, nvrtc=(12, 8))
    assert isinstance(err, RuntimeError)
    text = str(err)
    for part in ("CUDA 12.4", "NVRTC 12.8", "compute_75", "leave arch unset",
                 "nvidia-cuda-nvrtc-cu12==12.4.*"):
        assert part in text, part
    other = FakeDriverError("CUDA_ERROR_OUT_OF_MEMORY")
    assert launch.explain_load_error(other, "sm_90", 13000, (13, 0)) is other


def test_warm_up_replays_the_recorded_builds_for_this_gpu(monkeypatch):
    """A notebook's import cell compiles, in the background, what its last GPU run compiled,
    each as this GPU builds it, leaving out what this generation cannot run."""
    import json

    from kernels import compile as kcompile
    from kernels.publish import notebooks
    from kernels.teach import warmup
    name = "04_pipelines_and_bandwidth"
    builds = json.loads((notebooks.NOTEBOOK_DIR / f"{name}.ipynb").read_text())[
        "metadata"]["async_copy_book"]["builds"]
    assert builds, "the notebook's GPU execution recorded no builds"
    started = []
    monkeypatch.setattr("kernels.device.gpu_available", lambda: True)
    monkeypatch.setattr(kcompile, "warm_cache", lambda specs, background: started.append(specs))
    monkeypatch.setattr(launch, "compute_capability", lambda: 80)
    monkeypatch.setattr(device, "compute_capability", lambda: 80)
    monkeypatch.setattr(launch, "supported_archs", lambda: (75, 80, 90))
    monkeypatch.delenv(device.ARCH_ENV, raising=False)
    warmup.warm_up(name)
    (specs,) = started
    sm90 = set(kernels.VARIANTS) - set(kernels.variants.names(arch=80))
    assert {v for v, _ in specs} == {b["variant"] for b in builds} - sm90
    assert all(b.target == "sm_80" or b.target.startswith("compute_") for _, b in specs)
    assert len(specs) == sum(b["variant"] not in sm90 for b in builds)
