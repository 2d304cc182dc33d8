"""Every listing compiles with NVRTC for sm_75, sm_80 and sm_90, without a GPU; and the async
variants really use cp.async where the hardware has it and fall back where it does not."""

import re

import pytest

import kernels
from kernels import variants as V
from kernels.compile import Build, CompileError, compile_source, supported_archs
from support import compiled

ARCHS = [75, 80, 90]
# (tile, k, threads) at the edges, for the oldest target and the newest: the listings' two code
# paths (sm_80 takes sm_90's but for the bulk copy); the puzzle's sizes compile for every target
# in test_cp_async_only_where_the_hardware_has_it
EDGES = [(32, 1, 32), (96, 4, 64), (1024, 31, 1024)]

pytestmark = pytest.mark.usefixtures("warm_builds")


def ptx(variant, arch, **sizes):
    return compiled(variant, f"compute_{arch}", **sizes).read_text()


def test_nvrtc_targets_the_book_gpus():
    assert set(ARCHS) <= set(supported_archs())


@pytest.mark.parametrize("arch", [75, 90])
@pytest.mark.parametrize("variant", kernels.VARIANTS)
@pytest.mark.parametrize("tile, k, threads", EDGES)
def test_compiles_to_ptx_at_the_edges(variant, arch, tile, k, threads):
    text = ptx(variant, arch, tile=tile, k=k, threads=threads)
    assert f".entry {kernels.kernel_name(variant)}(" in text


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("variant", kernels.VARIANTS)
def test_compiles_to_machine_code(variant, arch):
    cubin = compiled(variant, f"sm_{arch}").read_bytes()
    assert cubin[:4] == b"\x7fELF"


@pytest.mark.parametrize("variant", kernels.VARIANTS)
def test_cp_async_only_where_the_hardware_has_it(variant):
    texts = {arch: ptx(variant, arch) for arch in ARCHS}
    uses = {arch: bool(re.search(r"cp\.async\.c[ag]\.shared\.global", t)) for arch, t in texts.items()}
    bulk = {arch: "cp.async.bulk.shared" in t for arch, t in texts.items()}
    if V.get(variant).copy == "cp.async":
        assert uses == {75: False, 80: True, 90: True}   # sm_75: libcu++ copies synchronously
        assert re.search(r"cp\.async\.wait_(group|all)", texts[90])
    else:
        assert not any(uses.values())
    assert bulk == {arch: V.get(variant).copy == "bulk" and arch >= 90 for arch in ARCHS}


def test_sixteen_byte_copies_in_pipelined_four_byte_in_async_halo():
    assert re.search(r"cp\.async\.cg\.shared\.global(\.L2::\w+)? \[[^]]+\], \[[^]]+\], 16", ptx("pipelined", 90))
    assert re.search(r"cp\.async\.ca\.shared\.global(\.L2::\w+)? \[[^]]+\], \[[^]]+\], 4", ptx("async_halo", 90))
    assert "ld.global.nc.v4.f32" in ptx("vec4", 90)


def test_async_halo_copies_tile_and_halo_puzzle28_only_the_tile():
    """260 cells for tile + halos against 256 for the tile: visible in the shared arrays' sizes."""
    assert re.search(r"\.shared \.align 4 \.b8 [\w$]+\[1040\]", ptx("async_halo", 90))
    assert re.search(r"\.shared \.align 4 \.b8 [\w$]+\[1024\]", ptx("puzzle28", 90))


def test_missing_constants_are_a_compile_error():
    with pytest.raises(CompileError, match="CONV_TILE"):
        compile_source('#undef CONV_TILE\n#include "conv1d_common.cuh"\n', "x",
                       Build(256, 5, 256, "compute_90"))


def test_broken_source_reports_the_compiler_log():
    broken = kernels.source("async_halo").replace("pipe.consumer_wait();", "pipe.consumer_wait(;")
    with pytest.raises(CompileError) as info:
        compile_source(broken, "conv1d_async_halo", Build(256, 5, 256, "compute_80"))
    assert "error" in info.value.log
