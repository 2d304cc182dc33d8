"""The tables of book/generations.md against the compiler: every instruction a row names is in
the PTX of the listings its column names, compiled for that row's targets, and every "no `...`"
is absent; the assembler table's instructions assemble from the target it names and are refused,
with the quoted message, one generation earlier. All without a GPU (NVRTC)."""

import re
from pathlib import Path

import pytest

import kernels
from kernels.compile import Build, CompileError, compile_source, supported_archs, warm_cache
from support import build, compiled

PAGE = Path(__file__).resolve().parents[2] / "book" / "generations.md"
CODE = re.compile(r"`([^`]+)`")
CLAIM = re.compile(r"(\bno\s+)?`([^`]+)`(?:\s*\((\d+) bytes\))?")


def tables_named(first_header: str) -> list[list[list[str]]]:
    """The page's pipe tables whose first header is ``first_header``: their rows (header first,
    the --- row dropped), cells stripped."""
    found = [[[c.strip() for c in line.strip().strip("|").split("|")] for line in table.splitlines()
              if not re.fullmatch(r"[|:\-\s]+", line)]
             for table in re.findall(r"(?:^\|.*\n?)+", PAGE.read_text(), re.M)]
    return [t for t in found if t[0][0] == first_header]


def targets(cell: str) -> list[int]:
    archs = [int(a) for a in re.findall(r"`sm_(\d+)`", cell)]
    assert archs, f"no `sm_XX` in {cell!r}"
    return archs


def ptx_tables():
    """The listings each column names, and [(arch, listings, cell)] for every cell, of every
    table whose first column is "target" (compute capabilities, `sm_XX`): the PTX tables."""
    found = tables_named("target")
    assert found, f"no table headed 'target' in {PAGE}"
    columns, cells = [], []
    for header, *rows in found:
        own = []
        for i, title in enumerate(header[2:], start=2):
            names = [n for n in CODE.findall(title) if n in kernels.VARIANTS]
            assert names, f"column {title!r} names no listing"
            own.append((i, names))
        columns.append([names for _, names in own])
        for row in rows:
            assert len(row) == len(header), row
            for arch in targets(row[0]):
                for i, names in own:
                    cells.append((arch, tuple(names), row[i]))
    return columns, cells


COLUMNS, CELLS = ptx_tables()


def uses(ptx_text: str, name: str) -> list[str]:
    """The operands of every instruction of a PTX text named ``name`` or ``name.<more>``
    (directives, labels and comments left out, predicate guards (@%p1) dropped)."""
    found = []
    for line in ptx_text.splitlines():
        m = re.match(r"(?:@!?%\w+\s+)?([a-z][\w.:]*)\s*([^;]*);", re.sub(r"//.*", "", line).strip())
        if m and (m[1] == name or m[1].startswith(name + ".")):
            found.append(m[2].strip())
    return found


@pytest.fixture(scope="module", autouse=True)
def warm():
    """Compile every (listing, target) the tables name at once, in parallel, into the cache."""
    archs = set(supported_archs())
    warm_cache([(v, build(v, f"compute_{arch}")) for arch, names, _ in CELLS if arch in archs
                for v in names])


def test_the_tables_cover_every_listing_and_the_generations():
    named = [n for table in COLUMNS for names in table for n in names]
    assert sorted(named) == sorted(kernels.VARIANTS), "each listing in exactly one column"
    for variant in kernels.VARIANTS:
        archs = {arch for arch, names, _ in CELLS if variant in names}
        assert {75, 80, 89, 90} <= archs, f"{variant}: a generation is missing"
        assert archs & {100, 120}, f"{variant}: no Blackwell row"


def test_the_rows_targets_are_ones_nvrtc_compiles():
    missing = sorted({arch for arch, _, _ in CELLS} - set(supported_archs()))
    assert not missing, f"this NVRTC cannot target {missing}: the tables need another NVRTC"


@pytest.mark.parametrize("arch, variants, cell", CELLS,
                         ids=[f"sm_{a}-{'+'.join(v)}" for a, v, _ in CELLS])
def test_each_cell_is_what_the_ptx_shows(arch, variants, cell):
    claims = CLAIM.findall(cell)   # (no, instruction, copy size in bytes)
    assert claims, f"a cell claims nothing: {cell!r}"
    wrong = []
    for variant in variants:
        text = compiled(variant, f"compute_{arch}").read_text()
        for no, name, size in claims:
            found = uses(text, name)
            if not no and not found:
                wrong.append(f"{variant}: no {name}")
            elif no and found:
                wrong.append(f"{variant}: has {name} ({len(found)} times), the table says no")
            elif size:
                sizes = {int(ops.split(",")[2]) for ops in found}
                if sizes != {int(size)}:
                    wrong.append(f"{variant}: {name} copies {sorted(sizes)} bytes, not {size}")
    assert not wrong, f"sm_{arch}, the cell {cell!r}:\n" + "\n".join(wrong)


BULK_ARCHS = sorted({arch for arch, names, cell in CELLS if "bulk" in names and "`cp.async.bulk." in cell})


@pytest.mark.parametrize("arch", BULK_ARCHS)
def test_the_bulk_copy_assembles_where_the_table_has_it(arch):
    """Beyond the PTX: ptxas turns the bulk listing into machine code for each such target."""
    assert compiled("bulk", f"sm_{arch}").read_bytes()[:4] == b"\x7fELF"


def test_ada_lowers_the_same_barrier_copy_to_per_thread_cp_async():
    """The page: the bulk listing with its sm_90 guard lowered to 800, for compute_89, copies
    with cp.async.cg and signals the barrier with cp.async.mbarrier.arrive; no cp.async.bulk."""
    src = kernels.source("bulk")
    assert "__CUDA_ARCH__ >= 900" in src
    src = src.replace("__CUDA_ARCH__ >= 900", "__CUDA_ARCH__ >= 800")
    text = compile_source(src, kernels.kernel_name("bulk"), build("bulk", "compute_89")).decode()
    assert {int(ops.split(",")[2]) for ops in uses(text, "cp.async.cg.shared.global")} == {16}
    assert uses(text, "cp.async.mbarrier.arrive.shared.b64")
    assert not uses(text, "cp.async.bulk")
    assert all(f"`{name}`" in PAGE.read_text()
               for name in ("cp.async.cg.shared.global", "cp.async.mbarrier.arrive.shared.b64"))


# One instruction of each kind, in inline assembly, for the assembler table.
ASSEMBLY = {
    "cp.async": "cp.async.ca.shared.global [%0], [%1], 4;",
    "cp.async.bulk": "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                     "[%0], [%1], 256, [%2];",
}


(ASSEMBLER_ROWS,) = [t[1:] for t in tables_named("instruction")]


@pytest.mark.parametrize("row", ASSEMBLER_ROWS, ids=[r[0].strip("`") for r in ASSEMBLER_ROWS])
def test_the_assembler_refuses_each_copy_one_generation_early(row):
    (instruction,) = CODE.findall(row[0])
    (oldest,) = targets(row[1])
    (earlier,) = targets(row[2])
    assert earlier < oldest
    (message,) = re.findall(r'"([^"]+)"', row[2])
    src = ('extern "C" __global__ void probe(const float* x) {\n'
           '    __shared__ __align__(128) float s[64];\n'
           '    __shared__ unsigned long long bar;\n'
           f'    asm volatile("{ASSEMBLY[instruction]}" :: "r"((unsigned)__cvta_generic_to_shared(s)),'
           ' "l"(x), "r"((unsigned)__cvta_generic_to_shared(&bar)) : "memory");\n}\n')
    compile_source(src, "probe", Build(256, 5, 256, f"sm_{oldest}"))
    with pytest.raises(CompileError) as refused:
        compile_source(src, "probe", Build(256, 5, 256, f"sm_{earlier}"))
    assert message in refused.value.log
