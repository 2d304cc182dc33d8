"""Compile, in the background, the kernels a notebook is about to launch.

Each notebook's import cell calls :func:`warm_up` with its own name. The executor
(``python -m kernels.publish.notebooks execute``) records in the notebook's metadata every listing it
compiled on the GPU (``async_copy_book.builds``); on a reader's GPU they are compiled again, for
that GPU, in a pool of processes while the first cells run, and a cell that needs one that is
still compiling waits for it instead of compiling it a second time.
"""

from __future__ import annotations

from .. import compile as kcompile, device
from ..files import NOTEBOOK_DIR, read_json
from ..launch import gpu_target


def warm_up(name: str, background: bool = True) -> None:
    """Start compiling notebook ``name``'s recorded builds for this GPU (or ASYNC_BOOK_ARCH's
    generation); nothing without a GPU. ``background=False`` returns when all are compiled."""
    if not device.gpu_available():
        return
    meta = read_json(NOTEBOOK_DIR / f"{name}.ipynb")["metadata"]
    specs = []
    for b in meta.get("async_copy_book", {}).get("builds", []):
        b = dict(b)
        variant, arch = b.pop("variant"), b.pop("arch")
        try:
            specs.append((variant, kcompile.Build(target=gpu_target(variant, arch), **b)))
        except ValueError:   # not on this generation: the notebook leaves it out too
            continue
    kcompile.warm_cache(specs, background=background)
