"""The Korean edition (ko/): notebooks generated from the English ones, never edited by hand.

    python -m kernels.publish.translate sync     # write ko/notebooks/*.ipynb and ko/_toc.yml
    python -m kernels.publish.translate check    # fail, naming the cell or page, unless all is current
    python -m kernels.publish.translate stamp book/intro.md ...   # after updating ko/book/intro.md

``sync`` writes, for every English notebook ``notebooks/NAME.ipynb``, ``ko/notebooks/NAME.ipynb``:
its code cells are the English ones exactly (source, outputs, metadata, tags, ids: the stored
outputs are the English GPU run's), the notebook's metadata is the English one's (kernelspec,
``async_copy_book`` provenance, a draft mark), and each markdown cell's text comes from
``ko/translations/NAME.json``. That file maps a hash of each English markdown cell's source
(:func:`cell_hash`) to ``{"id", "en", "ko"}``: the cell's id, the English it translates and the
Korean, both as lists of lines. A cell whose English changed has no entry for its new hash:
``sync`` adds one with ``"ko": null`` (keeping the old translation under ``"previous"`` when the
cell's id had one), writes the English text into the Korean notebook meanwhile, and names the
cell; a translator fills in ``"ko"`` and runs ``sync`` again. ``sync`` also writes
``ko/_toc.yml``: the English table of contents, with the glossary (``book/glossary``) last.

The Markdown pages are translated by hand, ``book/NAME.md`` into ``ko/book/NAME.md``; the
English text each translation was made from is kept in ``ko/translations/pages/NAME.md``, so
that ``diff ko/translations/pages/NAME.md book/NAME.md`` shows what to bring over. After
updating a translation, ``stamp`` records the English it now follows.

``check`` lists every problem (an untranslated or stale markdown cell, a Korean notebook that
differs from what ``sync`` would write, a missing or stale page, a stale ``ko/_toc.yml``) and
exits non-zero if there is one; tests/test_korean.py runs it.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LANGUAGE = "ko"
GLOSSARY = "book/glossary"          # a page of the Korean edition only
METADATA_KEY = "translation"        # notebook metadata that says where a Korean notebook comes from


class Edition:
    """Where the English sources and their Korean counterparts live (tests use a scratch copy)."""

    def __init__(self, root: Path = ROOT, language: str = LANGUAGE):
        self.root = Path(root)
        self.language = language
        self.en_notebooks = self.root / "notebooks"
        self.en_pages = self.root / "book"
        self.dir = self.root / language
        self.notebooks = self.dir / "notebooks"
        self.pages = self.dir / "book"
        self.translations = self.dir / "translations"
        self.page_sources = self.translations / "pages"

    def english_notebooks(self) -> list[Path]:
        return sorted(self.en_notebooks.glob("[0-9][0-9]_*.ipynb"))

    def english_pages(self) -> list[Path]:
        return sorted(self.en_pages.glob("*.md"))

    def table_path(self, notebook: Path) -> Path:
        return self.translations / f"{notebook.stem}.json"

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()


def cell_hash(source: str) -> str:
    """The key of an English markdown cell in a translation table: its source's SHA-256, 16 hex."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _text(lines) -> str:
    return lines if isinstance(lines, str) else "\n".join(lines)


def _where(path: Path, index: int, cell) -> str:
    first = cell.source.strip().split("\n", 1)[0][:60]
    return f"{path.name} cell {index} (id {cell.get('id', '?')}: {first!r})"


def load_table(path: Path) -> dict:
    if not path.exists():
        return {"source": None, "cells": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def dump_table(table: dict) -> str:
    return json.dumps(table, ensure_ascii=False, indent=1) + "\n"


def translate(en_nb, table: dict, source: str):
    """The Korean notebook for ``en_nb`` and the list of its markdown cells left in English, as
    (index, cell, reason) with reason "missing" or "stale"."""
    ko = copy.deepcopy(en_nb)
    entries = table.get("cells", {})
    by_id = {e.get("id"): e for e in entries.values() if e.get("ko") is not None}
    untranslated = []
    for index, cell in enumerate(ko.cells):
        if cell.cell_type != "markdown":
            continue
        entry = entries.get(cell_hash(cell.source))
        if entry is not None and entry.get("ko") is not None:
            cell.source = _text(entry["ko"])
            continue
        stale = (entry is not None and "previous" in entry) or cell.get("id") in by_id
        untranslated.append((index, en_nb.cells[index], "stale" if stale else "missing"))
    ko.metadata[METADATA_KEY] = {
        "language": LANGUAGE, "source": source,
        "generated_by": "python -m kernels.publish.translate sync (do not edit: edit the translation table)"}
    return ko, untranslated


def updated_table(en_nb, table: dict, source: str) -> dict:
    """The translation table ``sync`` writes: one entry per English markdown cell, in the
    notebook's order; a new or changed cell gets ``"ko": null`` (and its id's old translation
    under ``"previous"``); entries that no cell uses any more are dropped."""
    old = table.get("cells", {})
    by_id = {e.get("id"): e for e in old.values() if e.get("ko") is not None}
    cells = {}
    for cell in en_nb.cells:
        if cell.cell_type != "markdown":
            continue
        key = cell_hash(cell.source)
        if key in cells:
            continue
        entry = dict(old.get(key) or {})
        entry["id"] = cell.get("id")
        entry["en"] = _lines(cell.source)
        entry.setdefault("ko", None)
        if entry["ko"] is None:
            prev = by_id.get(cell.get("id"))
            if prev is not None and prev is not old.get(key):
                entry["previous"] = {"en": prev["en"], "ko": prev["ko"]}
        else:
            entry.pop("previous", None)
        cells[key] = {k: entry[k] for k in ("id", "en", "ko", "previous") if k in entry}
    return {"source": source, "cells": cells}


def _expected(ed: Edition, en_path: Path):
    import nbformat
    en_nb = nbformat.read(en_path, as_version=4)
    source = ed.rel(en_path)
    table = load_table(ed.table_path(en_path))
    ko, untranslated = translate(en_nb, table, source)
    return en_nb, table, ko, untranslated


def _toc(ed: Edition) -> str:
    import yaml
    toc = yaml.safe_load((ed.root / "_toc.yml").read_text(encoding="utf-8"))
    chapters = toc["parts"][-1]["chapters"] if "parts" in toc else toc["chapters"]
    chapters.append({"file": GLOSSARY})
    return ("# Written by `python -m kernels.publish.translate sync` from ../_toc.yml (do not edit): the same\n"
            "# chapters, with the glossary (용어집) last. Build: jupyter-book build ko\n"
            + yaml.safe_dump(toc, sort_keys=False, allow_unicode=True))


def _setup_cell_current(nb) -> bool:
    from .notebooks import setup_cell_source
    first = next((c for c in nb.cells if c.cell_type == "code"), None)
    return first is None or first.source == setup_cell_source()


def sync(ed: Edition | None = None) -> list[str]:
    """Write the Korean notebooks, their translation tables and ko/_toc.yml; return what is
    still untranslated (one line per cell)."""
    import nbformat
    ed = ed or Edition()
    ed.notebooks.mkdir(parents=True, exist_ok=True)
    ed.translations.mkdir(parents=True, exist_ok=True)
    notes = []
    for en_path in ed.english_notebooks():
        en_nb, table, _, _ = _expected(ed, en_path)
        if ed.root == ROOT and not _setup_cell_current(en_nb):
            print(f"warning: {ed.rel(en_path)}'s setup cell is not kernels.publish.notebooks' "
                  "(run `python -m kernels.publish.notebooks setup` first)", file=sys.stderr)
        table = updated_table(en_nb, table, ed.rel(en_path))
        ed.table_path(en_path).write_text(dump_table(table), encoding="utf-8")
        ko, untranslated = translate(en_nb, table, ed.rel(en_path))
        nbformat.write(ko, ed.notebooks / en_path.name)
        notes += [f"{_where(en_path, i, c)}: {why}, left in English" for i, c, why in untranslated]
    for stale in sorted(set(ed.notebooks.glob("*.ipynb"))
                        - {ed.notebooks / p.name for p in ed.english_notebooks()}):
        stale.unlink()
        notes.append(f"removed {ed.rel(stale)}: no English notebook of that name")
    (ed.dir / "_toc.yml").write_text(_toc(ed), encoding="utf-8")
    return notes


def check(ed: Edition | None = None) -> list[str]:
    """Every reason the Korean edition is not current, one line each (empty: all is well)."""
    import nbformat
    ed = ed or Edition()
    problems = []
    english = ed.english_notebooks()
    for en_path in english:
        table_path = ed.table_path(en_path)
        _, table, ko, untranslated = _expected(ed, en_path)
        for index, cell, why in untranslated:
            problems.append(
                f"{_where(en_path, index, cell)}: " + (
                    f"stale translation: the English changed since it was translated "
                    f"({ed.rel(table_path)}; run `python -m kernels.publish.translate sync`, then "
                    "translate the entry whose \"ko\" is null)" if why == "stale" else
                    f"no translation in {ed.rel(table_path)} (run `python -m kernels.publish.translate "
                    "sync`, then translate the entry whose \"ko\" is null)"))
        ko_path = ed.notebooks / en_path.name
        if not ko_path.exists():
            problems.append(f"{ed.rel(ko_path)} is missing (run `python -m kernels.publish.translate sync`)")
            continue
        have = json.loads(ko_path.read_text(encoding="utf-8"))
        want = json.loads(nbformat.writes(ko))
        if have != want:
            problems.append(f"{ed.rel(ko_path)} differs from what `python -m kernels.publish.translate sync` "
                            f"writes ({_first_difference(have, want)}): never edit it by hand")
    for extra in sorted(set(ed.notebooks.glob("*.ipynb")) - {ed.notebooks / p.name for p in english}):
        problems.append(f"{ed.rel(extra)} has no English notebook (run `python -m kernels.publish.translate sync`)")
    toc = ed.dir / "_toc.yml"
    if not toc.exists() or toc.read_text(encoding="utf-8") != _toc(ed):
        problems.append(f"{ed.rel(toc)} is not the English table of contents plus the glossary "
                        "(run `python -m kernels.publish.translate sync`)")
    problems += page_problems(ed)
    return problems


def _first_difference(have: dict, want: dict) -> str:
    if have.get("metadata") != want.get("metadata"):
        return "the notebook's metadata"
    hc, wc = have.get("cells", []), want.get("cells", [])
    for i, (h, w) in enumerate(zip(hc, wc)):
        if h != w:
            field = next((k for k in ("cell_type", "source", "outputs", "metadata", "execution_count",
                                      "id") if h.get(k) != w.get(k)), "a field")
            return f"cell {i}: {field}"
    if len(hc) != len(wc):
        return f"{len(hc)} cells, {len(wc)} expected"
    return "its format"


def page_problems(ed: Edition | None = None) -> list[str]:
    """Every English page needs a Korean one translated from its current text."""
    ed = ed or Edition()
    problems = []
    for page in ed.english_pages():
        ko, kept = ed.pages / page.name, ed.page_sources / page.name
        if not ko.exists():
            problems.append(f"{ed.rel(ko)} is missing: translate {ed.rel(page)}, then "
                            f"`python -m kernels.publish.translate stamp {ed.rel(page)}`")
        elif not kept.exists() or kept.read_text(encoding="utf-8") != page.read_text(encoding="utf-8"):
            problems.append(f"{ed.rel(ko)} is stale: {ed.rel(page)} changed since it was translated "
                            f"(`diff {ed.rel(kept)} {ed.rel(page)}` shows what; after updating the "
                            f"translation, `python -m kernels.publish.translate stamp {ed.rel(page)}`)")
    return problems


def stamp(pages: list[Path], ed: Edition | None = None) -> None:
    """Record that the Korean pages now translate these English pages' current text."""
    ed = ed or Edition()
    ed.page_sources.mkdir(parents=True, exist_ok=True)
    for page in pages:
        page = (ed.root / page).resolve() if not page.is_absolute() else page
        if page.parent != ed.en_pages.resolve() or page.suffix != ".md" or not page.exists():
            raise SystemExit(f"{page}: not an English page of {ed.rel(ed.en_pages)}/")
        if not (ed.pages / page.name).exists():
            raise SystemExit(f"{ed.rel(ed.pages / page.name)} does not exist: translate it first")
        (ed.page_sources / page.name).write_text(page.read_text(encoding="utf-8"), encoding="utf-8")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kernels.publish.translate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("sync", help="write ko/notebooks/*.ipynb, their translation tables and ko/_toc.yml")
    sub.add_parser("check", help="fail unless the Korean edition is complete and current")
    st = sub.add_parser("stamp", help="record the English text a Korean page now translates")
    st.add_argument("pages", nargs="+", type=Path)
    args = parser.parse_args(argv)
    if args.command == "sync":
        notes = sync()
        print("\n".join(notes) if notes else "ko/notebooks: every markdown cell translated")
    elif args.command == "stamp":
        stamp(args.pages)
    else:
        problems = check()
        if problems:
            sys.exit("\n".join(problems))
        print("the Korean edition is complete and current")


if __name__ == "__main__":
    main()
