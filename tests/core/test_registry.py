"""The variant registry against the listings: every variant is complete, and what the registry
says of it (shared memory, copy mechanism, trace and stress points) is what its compiled kernel
does. Runs without a GPU: NVRTC compiles, and the CUBIN/PTX are read."""

import inspect
import re
import struct

import pytest

import kernels
from kernels import emulation, variants as V
from kernels.compile import supported_archs
from support import compiled

pytestmark = pytest.mark.usefixtures("warm_builds")

LISTINGS = {p.stem for p in V.KERNEL_DIR.glob("*.cu")} - {"globaltimer_probe"}
SM90_RESERVED = 1024   # sm_90 CUBINs start their shared section with 1 KiB the driver reserves


def build(variant, target, tile=256, k=5, threads=256, stages=None, **kw) -> bytes:
    return compiled(variant, target, tile=tile, k=k, threads=threads, stages=stages, **kw).read_bytes()


def elf_sections(cubin: bytes) -> dict:
    """{section name: size} of an ELF64 file (a CUBIN)."""
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    entsize, count, names = struct.unpack_from("<HHH", cubin, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * entsize) for i in range(count)]
    strtab = headers[names][4]
    return {cubin[strtab + h[0]:cubin.index(b"\0", strtab + h[0])].decode(): h[5] for h in headers}


def test_every_listing_has_an_entry_and_every_entry_is_complete():
    missing = [f"kernels/{name}.cu has no registry entry (kernels/variants.py)"
               for name in sorted(LISTINGS - set(V.NAMES))]
    for v in V.VARIANTS:
        if not v.listing.exists():
            missing.append(f"{v.name}: no listing {v.listing.name}")
        elif not re.search(rf'extern "C" __global__ void(?: __launch_bounds__\([^)]*\))?\s+{v.kernel}\(',
                           v.listing.read_text()):
            missing.append(f"{v.name}: {v.listing.name} defines no extern \"C\" {v.kernel}(...)")
        emulate = emulation.EMULATORS.get(v.name)
        if emulate is not getattr(emulation, v.name, None) or emulate is None:
            missing.append(f"{v.name}: its emulation must be kernels.emulation.{v.name}, named "
                           "in emulation.EMULATORS")
        elif f"{v.name}.cu" not in (emulate.__doc__ or ""):
            missing.append(f"{v.name}: emulation.{v.name}'s docstring should name {v.name}.cu")
        elif "blocks" not in inspect.signature(emulate).parameters:
            missing.append(f"{v.name}: emulation.{v.name} must take (x, w, tile, blocks)")
        if v.copy not in V.COPIES:
            missing.append(f"{v.name}: copy {v.copy!r} is none of {V.COPIES}")
        if not v.description:
            missing.append(f"{v.name}: no description")
    assert not missing, "\n".join(missing)


def test_public_names_come_from_the_registry():
    assert kernels.VARIANTS == V.NAMES == tuple(V.REGISTRY)
    assert V.names(staged=True) == ("pipelined", "bulk", "warp_specialized")
    assert V.names(arch=80) == tuple(n for n in V.NAMES if V.get(n).copy != "bulk")


def test_a_typo_gets_did_you_mean():
    with pytest.raises(ValueError, match="did you mean 'async_halo'"):
        V.get("async-halo")


CONFIGS = [(256, 5, 1), (1024, 31, 2), (96, 4, 4), (32, 1, 1), (2048, 64, 3)]


@pytest.mark.parametrize("variant", V.NAMES)
def test_shared_memory_is_the_compiled_kernels(variant):
    """The registry's bytes (what launch_config checks against 48 KiB) are what the CUBIN
    declares, for the GPU's own machine code at several tiles, tap counts and stage counts."""
    v = V.get(variant)
    for tile, k, stages in CONFIGS:
        if not v.takes_k(k):
            continue
        stages = stages if v.staged else None
        for target in ("sm_80", "sm_90"):
            if int(target[3:]) < v.min_arch:
                continue
            sections = elf_sections(build(variant, target, tile, k, min(tile, 256), stages))
            size = sections.get(f".nv.shared.{v.kernel}", 0)
            if size and ".nv.shared.reserved.0" in sections:
                size -= SM90_RESERVED
            assert size == kernels.geometry.shared_bytes(variant, tile, k, stages), \
                f"{variant} {target} tile={tile} k={k} stages={stages}"


@pytest.mark.parametrize("variant", V.NAMES)
def test_copy_mechanism_is_what_the_ptx_issues(variant):
    v = V.get(variant)
    ptx = build(variant, f"compute_{max(80, v.min_arch)}").decode()
    has = {"cp.async": bool(re.search(r"cp\.async\.c[ag]\.shared\.global", ptx)),
           "bulk": "cp.async.bulk.shared" in ptx}
    assert has == {"cp.async": v.copy == "cp.async", "bulk": v.copy == "bulk"}, has


@pytest.mark.parametrize("variant", V.NAMES)
def test_stress_and_trace_points_are_where_the_registry_says(variant):
    v = V.get(variant)
    target = f"compute_{max(80, v.min_arch)}"
    plain = build(variant, target).decode()
    jittered = build(variant, target, jitter=True).decode()
    assert "%clock64" not in plain
    assert ("%clock64" in jittered) == v.stressed, "the stress build should wait at PHASE() points"
    if v.traced:
        assert "%globaltimer" in build(variant, target, trace=True).decode()
    assert v.min_arch in supported_archs() or v.min_arch < min(supported_archs())
