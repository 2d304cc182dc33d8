"""The variant registry against the listings: every variant is complete, and what the registry
says of it (shared memory, trace and stress points) is what its compiled kernel does. Runs
without a GPU: NVRTC compiles, and the CUBIN/PTX are read."""

import re
import struct

import pytest

import kernels
from kernels import emulation, variants as V
from kernels.compile import warm_cache
from support import build, compiled

pytestmark = pytest.mark.usefixtures("warm_builds")


def test_every_listing_has_an_entry_and_every_entry_is_complete():
    missing = [f"kernels/{name}.cu has no registry entry (kernels/variants.py)"
               for name in sorted({p.stem for p in V.KERNEL_DIR.glob("*.cu")} - {"globaltimer_probe"}
                                  - set(V.NAMES))]
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
        if v.copy not in V.COPIES:
            missing.append(f"{v.name}: copy {v.copy!r} is none of {V.COPIES}")
        if not v.description:
            missing.append(f"{v.name}: no description")
    assert not missing, "\n".join(missing)


def test_public_names_come_from_the_registry():
    assert kernels.VARIANTS == V.NAMES == tuple(V.REGISTRY)
    assert V.names(staged=True) == ("pipelined", "bulk", "warp_specialized")


def shared_cases(v):
    """(target, sizes) of the CUBINs whose shared memory the registry must match."""
    for tile, k, stages in [(256, 5, 1), (1024, 31, 2), (96, 4, 4), (32, 1, 1), (2048, 64, 3)]:
        for arch in (80, 90):
            if arch >= v.min_arch and v.takes_k(k):
                yield f"sm_{arch}", dict(tile=tile, k=k, threads=min(tile, 256),
                                         stages=stages if v.staged else None)


@pytest.fixture(scope="module")
def shared_builds():
    warm_cache([(v.name, build(v.name, target, **sizes))
                for v in V.VARIANTS for target, sizes in shared_cases(v)])


@pytest.mark.parametrize("variant", V.NAMES)
def test_shared_memory_is_the_compiled_kernels(variant, shared_builds):
    """The registry's bytes (what launch_config checks against 48 KiB) are what the CUBIN
    declares, for the GPU's own machine code at several tiles, tap counts and stage counts."""
    v = V.get(variant)
    for target, sizes in shared_cases(v):
        tile, k, stages = sizes["tile"], sizes["k"], sizes["stages"]
        cubin = compiled(variant, target, **sizes).read_bytes()
        # the ELF64 section headers: {name: size}
        shoff, = struct.unpack_from("<Q", cubin, 0x28)
        entsize, count, names = struct.unpack_from("<HHH", cubin, 0x3A)
        headers = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * entsize) for i in range(count)]
        strtab = headers[names][4]
        sections = {cubin[strtab + h[0]:cubin.index(b"\0", strtab + h[0])].decode(): h[5]
                    for h in headers}
        size = sections.get(f".nv.shared.{v.kernel}", 0)
        if size and ".nv.shared.reserved.0" in sections:
            size -= 1024   # sm_90 CUBINs start their shared section with 1 KiB the driver reserves
        assert size == kernels.geometry.shared_bytes(variant, tile, k, stages), \
            f"{variant} {target} tile={tile} k={k} stages={stages}"


@pytest.mark.parametrize("variant", V.NAMES)
def test_stress_and_trace_points_are_where_the_registry_says(variant):
    v = V.get(variant)
    target = f"compute_{max(80, v.min_arch)}"
    assert "%clock64" not in compiled(variant, target).read_text()
    assert ("%clock64" in compiled(variant, target, jitter=True).read_text()) == v.stressed, \
        "the stress build should wait at PHASE() points"
    if v.traced:
        assert "%globaltimer" in compiled(variant, target, trace=True).read_text()
