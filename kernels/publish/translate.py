"""The Korean edition (ko/): notebooks generated from the English ones, never edited by hand.

    python -m kernels.publish.translate sync     # write ko/notebooks/*.ipynb and ko/_toc.yml
    python -m kernels.publish.translate check    # fail, naming the cell or page, unless all is current
    python -m kernels.publish.translate stamp book/intro.md ...   # after updating ko/book/intro.md

``sync`` writes ``ko/notebooks/NAME.ipynb`` for every ``notebooks/NAME.ipynb``: the English
notebook's code cells, outputs and metadata exactly, except that an output made in both
languages (:mod:`kernels.edition`) shows its Korean words, and each markdown cell from
``ko/translations/NAME.json``. That table maps a hash of each English markdown cell's source
(:func:`cell_hash`) to ``{"id", "en", "ko"}`` (the English and the Korean as lists of lines). A
cell whose English changed gets a new entry with ``"ko": null`` (its id's old translation kept
under ``"previous"``) and stays in English, named, until a translator fills in ``"ko"`` and runs
``sync`` again. ``sync`` never deletes a translation: one that no English cell uses any more
moves to ``"orphans"`` (``sync`` names it and exits non-zero), comes back with its cell, and is
deleted by hand once truly gone. ``sync`` also writes ``ko/_toc.yml``: the English one, with the
glossary (``book/glossary``) appended if it lacks it.

The pages ``book/NAME.md`` are translated by hand into ``ko/book/NAME.md`` (the glossary adds the
Korean term table); ``ko/translations/pages/NAME.md`` keeps the English each translation follows
(``diff`` it against ``book/NAME.md`` to see what to bring over), and ``stamp`` records it after
an update. ``check`` lists every problem (an untranslated or stale markdown cell, a Korean
notebook unlike what ``sync`` writes, a missing or stale page, a stale ``ko/_toc.yml``, orphans)
and exits non-zero if there is one; tests/book/test_korean.py runs it.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
from pathlib import Path

from ..edition import KEY as EDITIONS_KEY, figure_alt
from ..files import atomic_write, read_json, write_notebook
from ..validate import path as valid_path, record
from .notebooks import setup_cell_source

ROOT = Path(__file__).resolve().parents[2]
LANGUAGE = "ko"
GLOSSARY = "book/glossary"          # the last page of both editions (the Korean one adds a term table)
METADATA_KEY = "translation"        # notebook metadata that says where a Korean notebook comes from
SYNC = "`python -m kernels.publish.translate sync`"


class Edition:
    """Where the English sources and their Korean counterparts live (tests use a scratch copy)."""

    def __init__(self, root: Path = ROOT, language: str = LANGUAGE):
        self.root = valid_path("root", root)
        if not self.root.is_dir():
            raise ValueError(f"root {str(root)!r} is not a folder (the book's repository)")
        self.en_notebooks = self.root / "notebooks"
        self.en_pages = self.root / "book"
        self.dir = self.root / language
        self.notebooks = self.dir / "notebooks"
        self.pages = self.dir / "book"
        self.translations = self.dir / "translations"
        self.page_sources = self.translations / "pages"

    def english_notebooks(self) -> list[Path]:
        return sorted(self.en_notebooks.glob("[0-9][0-9]_*.ipynb"))

    def table_path(self, notebook: Path) -> Path:
        return self.translations / f"{notebook.stem}.json"

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()


def cell_hash(source: str) -> str:
    """The key of an English markdown cell in a translation table: its source's SHA-256, 16 hex."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


def _text(lines) -> str:
    return lines if isinstance(lines, str) else "\n".join(lines)


def _where(path: Path, index: int, cell) -> str:
    first = cell.source.strip().split("\n", 1)[0][:60]
    return f"{path.name} cell {index} (id {cell.get('id', '?')}: {first!r})"


def _table(name: str, table) -> dict:
    """A translation table: a dict whose ``"cells"`` (and ``"orphans"``, if any) map a hash to
    an entry with its ``"en"`` and ``"ko"``."""
    record(name, table, ("cells",))
    for key in ("cells", "orphans"):
        entries = table.get(key, {})
        if not isinstance(entries, dict):
            raise TypeError(f"{name}[{key!r}] must be a dict of hash -> entry, "
                            f"got {type(entries).__name__}")
        for h, entry in entries.items():
            record(f"{name}[{key!r}][{h!r}]", entry, ("en", "ko"))
    return table


def load_table(path: Path) -> dict:
    """A translation table (``ko/translations/NAME.json``), or an empty one where there is none;
    a corrupted file is named in the error."""
    if not path.exists():
        return {"source": None, "cells": {}}
    return _table(str(path), read_json(path))


def translate(en_nb, table: dict, source: str):
    """The Korean notebook for ``en_nb`` and the list of its markdown cells left in English, as
    (index, cell, reason) with reason "missing" or "stale"."""
    ko = copy.deepcopy(en_nb)
    entries = table.get("cells", {})
    by_id = {e.get("id"): e for e in entries.values() if e.get("ko") is not None}
    untranslated = []
    for index, cell in enumerate(ko.cells):
        if cell.cell_type == "code":
            for output in cell.get("outputs", []):
                editions = output.get("metadata", {}).get(EDITIONS_KEY, {}).get("editions", {})
                if LANGUAGE in editions:          # words made in both languages from one run
                    output["data"] = copy.deepcopy(editions[LANGUAGE])
                    if "image/png" in output["data"]:   # a figure: its PNG once, not twice
                        del output["metadata"][EDITIONS_KEY]
                        if output["metadata"].get("image/png", {}).get("alt"):   # its words, its alt
                            output["metadata"]["image/png"]["alt"] = output["data"]["text/plain"]
            continue
        if cell.cell_type != "markdown":
            continue
        entry = entries.get(cell_hash(cell.source))
        if entry is not None and entry.get("ko") is not None:
            cell.source = _text(entry["ko"])
            continue
        stale = (entry is not None and "previous" in entry) or cell.get("id") in by_id
        untranslated.append((index, en_nb.cells[index], "stale" if stale else "missing"))
    figure_alt(ko)   # where MyST-NB reads it
    ko.metadata[METADATA_KEY] = {
        "language": LANGUAGE, "source": source,
        "generated_by": "python -m kernels.publish.translate sync (do not edit: edit the translation table)"}
    return ko, untranslated


def updated_table(en_nb, table: dict, source: str) -> dict:
    """The translation table ``sync`` writes: one entry per English markdown cell, in the
    notebook's order; a new or changed cell gets ``"ko": null`` (and its id's old translation
    under ``"previous"``). A translation is never dropped: one that no cell uses any more, as
    its translation or its ``"previous"``, moves to ``"orphans"`` (with its id, English and
    Korean), and comes back as the cell's translation when a cell's English is its English
    again. Untranslated entries that no cell uses are dropped."""
    old = table.get("cells", {})
    # Every Korean text the old table holds, by the hash of the English it translates.
    korean = {}
    for key, entry in (*table.get("orphans", {}).items(), *old.items()):
        prev = entry.get("previous")
        if isinstance(prev, dict) and prev.get("ko") is not None and "en" in prev:
            korean.setdefault(cell_hash(_text(prev["en"])),
                              {"id": entry.get("id"), "en": prev["en"], "ko": prev["ko"]})
        if entry.get("ko") is not None:
            korean[key] = {"id": entry.get("id"), "en": entry["en"], "ko": entry["ko"]}
    by_id = {e.get("id"): e for e in korean.values()}
    cells, kept = {}, set()
    for cell in en_nb.cells:
        if cell.cell_type != "markdown":
            continue
        key = cell_hash(cell.source)
        if key in cells:
            continue
        entry = dict(old.get(key) or {})
        if entry.get("ko") is None and key in korean:      # an orphan (or a previous) comes back
            entry = {"ko": korean[key]["ko"]}
        entry["id"] = cell.get("id")
        entry["en"] = cell.source.split("\n")
        entry.setdefault("ko", None)
        if entry["ko"] is None:
            prev = by_id.get(cell.get("id"))
            if prev is not None and cell_hash(_text(prev["en"])) != key:
                entry["previous"] = {"en": prev["en"], "ko": prev["ko"]}
                kept.add(cell_hash(_text(prev["en"])))
        else:
            entry.pop("previous", None)       # translated again: the old text is done with
            kept.add(key)
        if "previous" in entry:
            kept.add(cell_hash(_text(entry["previous"]["en"])))
        cells[key] = {k: entry[k] for k in ("id", "en", "ko", "previous") if k in entry}
    # Orphans: the Korean of every old entry, orphan, and previous of an entry no cell has any
    # more, that no cell now uses (a previous replaced by a new translation is done with).
    candidates = {h: e for h, e in korean.items()
                  if h in old and old[h].get("ko") is not None or h in table.get("orphans", {})}
    for key, entry in old.items():
        prev = entry.get("previous")
        if key not in cells and isinstance(prev, dict) and prev.get("ko") is not None:
            h = cell_hash(_text(prev["en"]))
            candidates.setdefault(h, korean[h])
    orphans = {h: e for h, e in candidates.items() if h not in kept and h not in cells}
    return {"source": source, "cells": cells, **({"orphans": orphans} if orphans else {})}


def orphans(ed: Edition) -> list[str]:
    """The translations kept under ``"orphans"``, one line per table: translations that no
    English cell uses any more (their cells were removed or emptied)."""
    lines = []
    for table_path in sorted(ed.translations.glob("*.json")):
        kept = load_table(table_path).get("orphans", {})
        if kept:
            ids = ", ".join(str(e.get("id")) for e in kept.values())
            lines.append(f"{ed.rel(table_path)}: {len(kept)} translation(s) no English cell uses "
                         f"any more, kept under \"orphans\" (cell ids {ids}): restore the English "
                         "cells (sync brings them back) or delete the orphans by hand")
    return lines


def _toc(ed: Edition) -> str:
    import yaml
    toc = yaml.safe_load((ed.root / "_toc.yml").read_text(encoding="utf-8"))
    chapters = toc["parts"][-1]["chapters"] if "parts" in toc else toc["chapters"]
    if not any(isinstance(c, dict) and c.get("file") == GLOSSARY for c in chapters):
        chapters.append({"file": GLOSSARY})
    return ("# Written by `python -m kernels.publish.translate sync` from ../_toc.yml (do not edit): the same\n"
            "# chapters, the glossary (용어집) among them. Build: jupyter-book build ko\n"
            + yaml.safe_dump(toc, sort_keys=False, allow_unicode=True))


def sync(ed: Edition | None = None) -> list[str]:
    """Write the Korean notebooks, their translation tables and ko/_toc.yml; return what is
    still untranslated (one line per cell)."""
    import nbformat
    ed = ed or Edition()
    ed.notebooks.mkdir(parents=True, exist_ok=True)
    ed.translations.mkdir(parents=True, exist_ok=True)
    notes = []
    for en_path in ed.english_notebooks():
        en_nb, table = nbformat.read(en_path, as_version=4), load_table(ed.table_path(en_path))
        first = next((c for c in en_nb.cells if c.cell_type == "code"), None)
        if ed.root == ROOT and first is not None and first.source != setup_cell_source():
            print(f"warning: {ed.rel(en_path)}'s setup cell is not kernels.publish.notebooks' "
                  "(run `python -m kernels.publish.notebooks setup` first)", file=sys.stderr)
        before = set(table.get("orphans", {}))
        table = updated_table(en_nb, table, ed.rel(en_path))
        atomic_write(ed.table_path(en_path), json.dumps(table, ensure_ascii=False, indent=1) + "\n")
        ko, untranslated = translate(en_nb, table, ed.rel(en_path))
        write_notebook(ko, ed.notebooks / en_path.name)
        notes += [f"{_where(en_path, i, c)}: {why}, left in English" for i, c, why in untranslated]
        lost = [e for h, e in table.get("orphans", {}).items() if h not in before]
        if lost:
            notes.append(f"{ed.rel(en_path)} lost {len(lost)} translated cell(s) (ids "
                         f"{', '.join(str(e.get('id')) for e in lost)}): their translations are "
                         f"kept under \"orphans\" in {ed.rel(ed.table_path(en_path))}")
    for stale in sorted(set(ed.notebooks.glob("*.ipynb"))
                        - {ed.notebooks / p.name for p in ed.english_notebooks()}):
        stale.unlink()      # generated from a table that stays: nothing translated is lost
        notes.append(f"removed {ed.rel(stale)}: no English notebook of that name")
    atomic_write(ed.dir / "_toc.yml", _toc(ed))
    return notes


def check(ed: Edition | None = None) -> list[str]:
    """Every reason the Korean edition is not current, one line each (empty: all is well)."""
    import nbformat
    ed = ed or Edition()
    problems = []
    english = ed.english_notebooks()
    for en_path in english:
        table_path = ed.table_path(en_path)
        ko, untranslated = translate(nbformat.read(en_path, as_version=4), load_table(table_path),
                                     ed.rel(en_path))
        fill = f"run {SYNC}, then translate the entry whose \"ko\" is null"
        for index, cell, why in untranslated:
            problems.append(f"{_where(en_path, index, cell)}: " + (
                f"stale translation: the English changed since it was translated "
                f"({ed.rel(table_path)}; {fill})" if why == "stale" else
                f"no translation in {ed.rel(table_path)} ({fill})"))
        ko_path = ed.notebooks / en_path.name
        if not ko_path.exists():
            problems.append(f"{ed.rel(ko_path)} is missing (run {SYNC})")
            continue
        have = json.loads(ko_path.read_text(encoding="utf-8"))
        want = json.loads(nbformat.writes(ko))
        if have != want:
            problems.append(f"{ed.rel(ko_path)} differs from what {SYNC} writes "
                            f"({_first_difference(have, want)}): never edit it by hand")
    for extra in sorted(set(ed.notebooks.glob("*.ipynb")) - {ed.notebooks / p.name for p in english}):
        problems.append(f"{ed.rel(extra)} has no English notebook (run {SYNC})")
    toc = ed.dir / "_toc.yml"
    if not toc.exists() or toc.read_text(encoding="utf-8") != _toc(ed):
        problems.append(f"{ed.rel(toc)} is not the English table of contents (with the glossary) "
                        f"(run {SYNC})")
    problems += page_problems(ed)
    problems += orphans(ed)
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


def page_problems(ed: Edition) -> list[str]:
    """Every English page needs a Korean one translated from its current text."""
    problems = []
    for page in sorted(ed.en_pages.glob("*.md")):
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
        name = Path(page).name
        if not (ed.pages / name).exists():
            raise SystemExit(f"{ed.rel(ed.pages / name)} does not exist: translate it first")
        atomic_write(ed.page_sources / name, (ed.root / page).read_text(encoding="utf-8"))


def main(argv=None, ed: Edition | None = None) -> None:
    """The command line; ``ed``: another edition than the book's (tests use a scratch copy)."""
    ed = ed or Edition()
    parser = argparse.ArgumentParser(prog="python -m kernels.publish.translate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("sync", help="write ko/notebooks/*.ipynb, their translation tables and ko/_toc.yml")
    sub.add_parser("check", help="fail unless the Korean edition is complete and current")
    st = sub.add_parser("stamp", help="record the English text a Korean page now translates")
    st.add_argument("pages", nargs="+", type=Path)
    args = parser.parse_args(argv)
    if args.command == "sync":
        notes = sync(ed)
        print("\n".join(notes) if notes else "ko/notebooks: every markdown cell translated")
        kept = orphans(ed)
        if kept:
            sys.exit("translations no English cell uses are kept, not lost:\n" + "\n".join(kept))
    elif args.command == "stamp":
        for page in args.pages:
            where = (ed.root / page).resolve()
            if where.parent != ed.en_pages.resolve() or where.suffix != ".md" or not where.is_file():
                parser.error(f"stamp: {page} is not an English page (book/NAME.md)")
        stamp(args.pages, ed)
    else:
        problems = check(ed)
        if problems:
            sys.exit("\n".join(problems))
        print("the Korean edition is complete and current")


if __name__ == "__main__":
    main()
