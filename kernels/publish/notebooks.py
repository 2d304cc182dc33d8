"""Keep the notebooks' stored outputs honest: re-execute them, record where they ran.

    python -m kernels.publish.notebooks execute [NOTEBOOK ...] [--allow-cpu]
    python -m kernels.publish.notebooks setup              # rewrite every notebook's Colab setup cell

``execute`` runs each notebook top to bottom in ``notebooks/`` (nbclient), stores the outputs in
place and writes ``metadata.async_copy_book.executed_on`` (device, driver, CuPy, date). The
published book shows these outputs, so on a machine without a GPU it refuses to overwrite them
unless given ``--allow-cpu``, and then marks the notebook a draft
(``metadata.async_copy_book.draft``): a draft must stay out of ``_toc.yml`` until a GPU run
replaces its outputs and clears the mark (tests/book/test_book.py holds both rules).

``setup`` writes each notebook's first code cell (:func:`setup_cell_source`) from
``_config.yml`` (``repository: url:`` and ``branch:``): on Colab it clones the repository (or
stops the notebook, saying what failed and what to set); everywhere it puts the repository root
on the import path. ``ASYNC_BOOK_FORCE_CLONE=1`` and ``ASYNC_BOOK_CLONE_DIR`` exercise the clone
outside Colab (tests/book/test_setup_cell.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

from .. import device
from ..compile import COMPILE_LOG_ENV
from ..edition import figure_alt
from ..files import BOOK_ROOT, NOTEBOOK_DIR, write_notebook
from ..teach.page import PREVIEW_ENV

SETUP_MARKER = "# Setup (Colab)"


def _repository(key: str) -> str:
    """A value of _config.yml's repository: block."""
    import yaml
    return yaml.safe_load((BOOK_ROOT / "_config.yml").read_text())["repository"][key]


def repository_url() -> str:
    """The repository URL, set once in _config.yml (repository: url:)."""
    return _repository("url")


def repository_branch() -> str:
    """The branch the Colab setup cell clones, set in _config.yml (repository: branch:)."""
    return _repository("branch")


def setup_cell_source(url: str | None = None, branch: str | None = None) -> str:
    """The notebooks' first code cell; url and branch default to _config.yml's (tests pass others)."""
    url = url or repository_url()
    branch = branch or repository_branch()
    clone_dir = "/content/" + url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
    q = json.dumps   # a Python string literal in double quotes
    return f'''{SETUP_MARKER}: on Colab, clone the book's repository so that `kernels`
# imports; elsewhere, only put the repository root on the import path.
# Written by `python -m kernels.publish.notebooks setup`.
import os, subprocess, sys
if "google.colab" in sys.modules or os.environ.get("ASYNC_BOOK_FORCE_CLONE"):
    url, branch = {q(url)}, {q(branch)}
    repo = os.environ.get("ASYNC_BOOK_CLONE_DIR", {q(clone_dir)})
    if not os.path.isdir(repo):
        git = subprocess.run(["git", "clone", "--depth", "1", "--branch", branch,
                              url, repo], text=True, capture_output=True,
                             env={{**os.environ, "GIT_TERMINAL_PROMPT": "0"}})
        if git.returncode:
            fatal = [line for line in git.stderr.splitlines()
                     if line.startswith("fatal:")]
            print(f"Could not clone {{url}} (branch {{branch}}):\\n  "
                  f"{{fatal[0] if fatal else git.stderr.strip()}}\\n"
                  "Set the book's repository in _config.yml (repository: url: "
                  "and branch:), then run `python -m kernels.publish.notebooks "
                  "setup` to rewrite this cell.")
            raise SystemExit("Stopped: the book's repository could not be "
                             "cloned (see above).")
    os.chdir(os.path.join(repo, "notebooks"))
# the repository root: .. from notebooks/, ../.. from a translated edition's
# (ko/notebooks/)
sys.path.insert(0, os.path.abspath(next(
    (d for d in ("..", "../..") if os.path.isdir(d + "/kernels")), "..")))'''


def notebooks() -> list[Path]:
    return sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"))


def write_setup_cells() -> None:
    import nbformat
    for path in notebooks():
        nb = nbformat.read(path, as_version=4)
        first = next(c for c in nb.cells if c.cell_type == "code")
        if not first.source.startswith(SETUP_MARKER):
            raise RuntimeError(f"{path.name}: the first code cell is not the setup cell")
        first.source = setup_cell_source()
        tags = first.metadata.setdefault("tags", [])
        if "remove-input" not in tags:   # Colab's plumbing: the book's page leaves it out
            tags.append("remove-input")
        write_notebook(nb, path)


def _compiles(log: Path) -> tuple[int, float, list[dict]]:
    """A compile log's count, seconds, and listings' compilations as warm_up's records: the build
    without its target, and ``arch`` (the PTX generation asked for; None for the GPU's own)."""
    entries = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    builds = []
    for entry in entries:
        if entry["listing"]:
            b = dict(entry["build"])
            target = b.pop("target")
            b["variant"] = entry["kernel"].removeprefix("conv1d_")
            b["arch"] = int(target.removeprefix("compute_")) if target.startswith("compute_") else None
            if b not in builds:
                builds.append(b)
    return len(entries), round(sum(e["seconds"] for e in entries), 1), builds


def execute(paths: list[Path], allow_cpu: bool = False, timeout: int = 900) -> None:
    """Execute each notebook with a cold compile cache of its own, storing outputs, the device,
    the wall time and the compilations (which :func:`kernels.teach.warmup.warm_up` replays)."""
    if os.environ.get(device.ARCH_ENV):
        sys.exit(f"{device.ARCH_ENV} is set: the stored outputs are what the book publishes and "
                 "must come from the GPU as it is; unset it to execute (use it with nbval to "
                 "check a generation).")
    info = device.device_info()
    if info["backend"] != "gpu" and not allow_cpu:
        sys.exit("no GPU here: the stored outputs are what the book publishes and must come from "
                 f"a GPU run ({info['reason']}). Pass --allow-cpu to overwrite them anyway.")
    for path in paths:
        _execute_one(path, info, timeout)


def _execute_one(path: Path, info: dict, timeout: int) -> None:
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    with tempfile.TemporaryDirectory(prefix="async-book-") as scratch:
        log = Path(scratch) / "compiles.jsonl"
        env = {"XDG_CACHE_HOME": scratch, COMPILE_LOG_ENV: str(log), PREVIEW_ENV: "1"}
        started = time.perf_counter()
        with mock.patch.dict(os.environ, env):   # the notebook's kernel inherits them
            for attempt in (1, 2):   # a kernel that dies is retried once; a cell error is not
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
                    print(f"{path.name}: the kernel failed ({type(exc).__name__}); retrying once")
        seconds = round(time.perf_counter() - started, 1)
        compiles, compile_seconds, builds = _compiles(log)
    _drop_widget_views(nb)
    figure_alt(nb)   # MyST-NB reads a figure's alt text from its cell's metadata only
    nb.metadata["async_copy_book"] = {
        "executed_on": info,
        "execution": {"seconds": seconds, "compile_cache": "cold", "compiles": compiles,
                      "compile_seconds": compile_seconds},
        "builds": builds}
    if info["backend"] != "gpu":
        nb.metadata["async_copy_book"]["draft"] = (
            "outputs from the CPU emulation: keep out of _toc.yml until executed on a GPU")
    write_notebook(nb, path)
    print(f"executed {path.name} on {info.get('device', 'the CPU (emulation)')} in {seconds} s "
          f"(cold cache: {compiles} compilations, {compile_seconds} s of them)")


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _drop_widget_views(nb) -> None:
    """Drop live widgets' views and the saved widget state (which would make every page load the
    widget manager from a CDN); widget cells keep the picture of their default state."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if WIDGET_VIEW not in o.get("data", {})]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kernels.publish.notebooks", description=__doc__,
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
        for p in args.paths:
            if p.suffix != ".ipynb" or not p.is_file():
                parser.error(f"execute: {p} is not a notebook (an existing .ipynb file)")
        execute([p.resolve() for p in args.paths] or notebooks(), allow_cpu=args.allow_cpu)


if __name__ == "__main__":
    main()
