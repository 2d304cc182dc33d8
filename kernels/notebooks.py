"""Keep the notebooks' stored outputs honest: re-execute them, record where they ran.

    python -m kernels.notebooks execute [NOTEBOOK ...] [--allow-cpu]
    python -m kernels.notebooks setup              # rewrite every notebook's Colab setup cell

``execute`` runs each notebook top to bottom in ``notebooks/`` (nbclient), stores the outputs in
place and writes ``metadata.async_copy_book.executed_on`` (device, driver, CuPy, date). The
published book shows these outputs, so on a machine without a GPU it refuses to overwrite them
unless given ``--allow-cpu``, and then marks the notebook a draft
(``metadata.async_copy_book.draft``): a draft must stay out of ``_toc.yml`` until a GPU run
replaces its outputs and clears the mark (tests/test_book.py holds both rules).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
SETUP_MARKER = "# Setup (Colab)"


def repository_url() -> str:
    """The repository URL, set once in _config.yml (repository: url:)."""
    text = (ROOT / "_config.yml").read_text()
    match = re.search(r"^repository:\s*\n(?:\s+.*\n)*?\s+url:\s*(\S+)", text, re.M)
    if not match:
        raise RuntimeError("_config.yml has no repository: url:")
    return match.group(1).strip("\"'")


def setup_cell_source() -> str:
    url = repository_url()
    name = url.rstrip("/").rsplit("/", 1)[-1]
    return f'''{SETUP_MARKER}: on Colab, fetch the book's repository so that `kernels` imports;
# elsewhere, only put the repository root on the import path. Written by `python -m kernels.notebooks setup`.
import os, subprocess, sys
if "google.colab" in sys.modules and not os.path.isdir("/content/{name}"):
    subprocess.run(["git", "clone", "--depth", "1", "{url}", "/content/{name}"], check=True)
if "google.colab" in sys.modules:
    os.chdir("/content/{name}/notebooks")
sys.path.insert(0, os.path.abspath(".."))'''


def notebooks() -> list[Path]:
    return sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"))


def is_draft(path: Path) -> bool:
    import nbformat
    return "draft" in nbformat.read(path, as_version=4).metadata.get("async_copy_book", {})


def write_setup_cells() -> None:
    import nbformat
    for path in notebooks():
        nb = nbformat.read(path, as_version=4)
        first = next(c for c in nb.cells if c.cell_type == "code")
        if not first.source.startswith(SETUP_MARKER):
            raise RuntimeError(f"{path.name}: the first code cell is not the setup cell")
        first.source = setup_cell_source()
        nbformat.write(nb, path)


def execute(paths: list[Path], allow_cpu: bool = False, timeout: int = 900) -> None:
    import nbformat
    from nbclient import NotebookClient

    from .device import device_info
    info = device_info()
    if info["backend"] != "gpu" and not allow_cpu:
        sys.exit("no GPU here: the stored outputs are what the book publishes and must come from "
                 f"a GPU run ({info['reason']}). Pass --allow-cpu to overwrite them anyway.")
    from nbclient.exceptions import CellExecutionError
    for path in paths:
        for attempt in (1, 2):   # a kernel that fails to start is retried once; a cell error is not
            nb = nbformat.read(path, as_version=4)
            try:
                NotebookClient(nb, timeout=timeout, startup_timeout=180, kernel_name="python3",
                               resources={"metadata": {"path": str(path.parent)}}).execute()
                break
            except CellExecutionError:
                raise
            except Exception as exc:
                if attempt == 2:
                    raise
                print(f"{path.name}: the kernel did not start ({type(exc).__name__}); retrying")
        # The book shows widget cells' code only (tag remove-output), so their saved state would
        # only make each page load the widget manager from a CDN.
        nb.metadata.pop("widgets", None)
        nb.metadata["async_copy_book"] = {"executed_on": info}
        if info["backend"] != "gpu":
            nb.metadata["async_copy_book"]["draft"] = (
                "outputs from the CPU emulation: keep out of _toc.yml until executed on a GPU")
        nbformat.write(nb, path)
        print(f"executed {path.name} on {info.get('device', 'the CPU (emulation)')}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kernels.notebooks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("execute", help="re-execute notebooks in place, recording the device")
    run.add_argument("paths", nargs="*", type=Path)
    run.add_argument("--allow-cpu", action="store_true",
                     help="store outputs from the CPU emulation (never for the published book)")
    sub.add_parser("setup", help="rewrite the Colab setup cell of every notebook")
    args = parser.parse_args(argv)
    if args.command == "setup":
        write_setup_cells()
    else:
        execute([p.resolve() for p in args.paths] or notebooks(), allow_cpu=args.allow_cpu)


if __name__ == "__main__":
    main()
