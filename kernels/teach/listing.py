"""Show the kernel listings in a notebook: whole, or as what changed from the previous step."""

from __future__ import annotations

import difflib
import re
from collections import Counter

from .. import variants as V
from ..compile import Build, compile_source, kernel_name, source
from ..edition import Text
from ..geometry import launch_config
from ..tables import Table


def show(variant: str):
    """The listing of ``variant``, highlighted (an IPython ``Code`` object)."""
    V.get(variant)
    from IPython.display import Code
    return Code(source(variant), language="cuda")


def diff_text(old: str, new: str, context: int = 3) -> str:
    """The unified diff of two listings, ``context`` lines around each change."""
    return "".join(difflib.unified_diff(source(old).splitlines(True), source(new).splitlines(True),
                                        f"kernels/{old}.cu", f"kernels/{new}.cu", n=context))


def diff(old: str, new: str, context: int = 3):
    """What changed from ``old`` to ``new``: removed lines marked -, added lines marked +."""
    from IPython.display import Code
    return Code(diff_text(old, new, context), language="diff")


def copy_instructions(variant: str, arch: int, tile: int = 256, k: int = 5, threads: int = 256) -> dict:
    """How many of each copy-related PTX instruction the compiler emits for ``compute_{arch}``."""
    stages = 4 if V.get(variant).staged else None
    cfg = launch_config(1, k, tile, threads, variant, stages)
    if arch < V.get(variant).min_arch:
        raise ValueError(f"{variant} needs sm_{V.get(variant).min_arch} or newer, got arch={arch}")
    ptx = compile_source(source(variant), kernel_name(variant),
                         Build(cfg.tile, cfg.k, cfg.threads, f"compute_{arch}", stages)).decode()
    ops = re.findall(r"^\s*((?:cp\.async|mbarrier|bar\.sync|ld\.global|ld\.shared|st\.shared)[\w.:]*)",
                     ptx, re.M)
    return dict(sorted(Counter(op.split(".L2")[0] for op in ops).items()))


def copy_table(variant: str, archs=(75, 80, 90)):
    """:func:`copy_instructions` of ``variant`` for each of ``archs``, side by side: a Table
    (instructions a build has none of: "-")."""
    counts = {arch: copy_instructions(variant, arch) for arch in archs}
    ops = sorted(set().union(*counts.values()))
    return Table("", [Text("PTX instruction", "PTX 명령어"), *(f"compute_{a}" for a in counts)],
                 [[op, *(str(c.get(op, "-")) for c in counts.values())] for op in ops],
                 align="<" + ">" * len(counts))

