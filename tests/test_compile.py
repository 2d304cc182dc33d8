"""Every listing compiles with NVRTC for sm_75, sm_80 and sm_90, without a GPU; and the async
variants really use cp.async where the hardware has it and fall back where it does not."""

import re

import pytest

import kernels
from kernels.compile import compile_source, supported_archs, CompileError

CONFIGS = [(256, 5, 256), (32, 1, 32), (96, 4, 64), (1024, 31, 1024)]
ARCHS = [75, 80, 90]


def ptx(variant, arch, tile=256, k=5, threads=256):
    return compile_source(kernels.source(variant), kernels.kernel_name(variant),
                          tile, k, threads, f"compute_{arch}").decode()


def test_nvrtc_targets_the_book_gpus():
    assert set(ARCHS) <= set(supported_archs())


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("variant", kernels.VARIANTS)
@pytest.mark.parametrize("tile, k, threads", CONFIGS)
def test_compiles_to_ptx(variant, arch, tile, k, threads):
    text = ptx(variant, arch, tile, k, threads)
    assert f".entry {kernels.kernel_name(variant)}(" in text


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("variant", kernels.VARIANTS)
def test_compiles_to_machine_code(variant, arch):
    cubin = compile_source(kernels.source(variant), kernels.kernel_name(variant),
                           256, 5, 256, f"sm_{arch}")
    assert cubin[:4] == b"\x7fELF"


@pytest.mark.parametrize("variant", kernels.VARIANTS)
def test_cp_async_only_where_the_hardware_has_it(variant):
    uses = {arch: "cp.async.ca.shared.global" in ptx(variant, arch) for arch in ARCHS}
    if variant in kernels.ASYNC_VARIANTS:
        assert uses == {75: False, 80: True, 90: True}   # sm_75: libcu++ copies synchronously
        assert re.search(r"cp\.async\.wait_(group|all)", ptx(variant, 90))
    else:
        assert not any(uses.values())


def test_async_halo_copies_tile_and_halo_puzzle28_only_the_tile():
    """260 cells for tile + halos against 256 for the tile: visible in the shared arrays' sizes."""
    assert re.search(r"\.shared \.align 4 \.b8 [\w$]+\[1040\]", ptx("async_halo", 90))
    assert re.search(r"\.shared \.align 4 \.b8 [\w$]+\[1024\]", ptx("puzzle28", 90))


def test_missing_constants_are_a_compile_error():
    with pytest.raises(CompileError, match="CONV_TILE"):
        compile_source('#undef CONV_TILE\n#include "conv1d_common.cuh"\n', "x", 256, 5, 256,
                       "compute_90")


def test_broken_source_reports_the_compiler_log():
    broken = kernels.source("async_halo").replace("pipe.producer_commit();", "pipe.producer_commit()")
    with pytest.raises(CompileError) as info:
        compile_source(broken, "conv1d_async_halo", 256, 5, 256, "compute_80")
    assert "error" in info.value.log
