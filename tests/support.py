"""What several test modules share: the repository, the built book and its pages, a local
server for the built book and the browser that reads it (the fixtures are in conftest.py)."""

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest
import yaml

from kernels import variants as V
from kernels.compile import Build, variant_file

ROOT = Path(__file__).resolve().parents[1]
# Another build can be checked in place of _build/html: BOOK_HTML=/path/to/html (its Korean
# edition in ko/ below it).
HTML = Path(os.environ.get("BOOK_HTML") or ROOT / "_build" / "html")
IN_CI = os.environ.get("CI") == "true"


# Every test compiles a listing with one Build for its target: the puzzle's sizes and, for the
# staged variants, two stages (other sizes where a test is about them), so that a listing is
# compiled once for all the tests, and the warm_builds fixture (conftest.py) compiles them all at
# once in parallel.
TARGETS = [f"{kind}_{arch}" for kind in ("compute", "sm") for arch in (75, 80, 90)]


def build(variant: str, target: str, tile=256, k=5, threads=256, stages=None, **kw) -> Build:
    return Build(tile, k, threads, target, stages or (2 if V.get(variant).staged else None), **kw)


def compiled(variant: str, target: str, **kw) -> Path:
    """The listing's PTX (``compute_XX``) or CUBIN (``sm_XX``), through the disk cache."""
    return variant_file(variant, build(variant, target, **kw))


def toc_files(edition: str = "en") -> list[str]:
    """An edition's pages in reading order, the root first: _toc.yml, or ko/_toc.yml (written by
    ``python -m kernels.publish.translate sync``)."""
    toc = yaml.safe_load((ROOT / ("ko" if edition == "ko" else "") / "_toc.yml").read_text())
    return [toc["root"]] + [c["file"] for c in toc["chapters"]]


def need(condition, why: str) -> None:
    """Skip without ``condition``; in CI, fail: CI must run what it is given."""
    if not condition:
        (pytest.fail if IN_CI else pytest.skip)(why)


def chromium():
    """$BOOK_CHROMIUM (an executable's name or path) when set, else Chromium, else Google Chrome
    (which GitHub's ubuntu-24.04 runners have)."""
    if os.environ.get("BOOK_CHROMIUM"):
        return shutil.which(os.environ["BOOK_CHROMIUM"])
    names = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
    return next(filter(None, map(shutil.which, names)), None)


class Site:
    """The built book served locally (``url``), remembering every request it answered
    (``requests``: path and status)."""

    def __init__(self, root: Path):
        self.requests = []
        site = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_request(self, code="-", size="-"):
                site.requests.append((self.path, code))   # code: an HTTPStatus (an int)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"
