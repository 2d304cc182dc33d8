"""The book's technical terms, defined where first used, and the chapters' length targets.

TERMS is the list: each term's glossary name, the other forms that count as a use of it, and the
chapter that should define it. Every term has a glossary entry linking that chapter; reading the
chapters in order (the notebooks in _toc.yml's order, then LATER_PAGES; see reading_text), the
first use of each term is bold, or a bold form of it is in the same sentence ("a ring of
**stages**"), in that chapter or an earlier one; on the OVERVIEWS pages a term's first appearance
is a {term} link; each notebook's prose is at most MAX_WORDS words and MAX_WORDS_PER_SENTENCE
words per sentence on average. Whether the bold sentence *defines* the term is for a reader to
judge (the failure quotes it); that every {term} role names an entry the build checks (-W).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from support import ROOT, toc_files

pytestmark = pytest.mark.editorial

GLOSSARY = ROOT / "book" / "glossary.md"
OVERVIEWS = ["book/intro.md", "book/running.md"]          # terms there are {term} links
LATER_PAGES = ["book/generations.md", "book/api_map.md"]  # read after the notebooks
MAX_WORDS = 2050
MAX_WORDS_PER_SENTENCE = 22.0

# (glossary name, other forms as regexes, chapter). The name counts too (backticks dropped);
# case-insensitive, whole words only: `tiled_sync` is no use of "tiled", `cp.async.bulk` none of
# `cp.async`.
TERMS = [
    ("tile", [r"tiles", r"tiled"], "01"),
    ("halo", [r"halos", r"halo cells?"], "01"),
    ("stencil", [r"stencils"], "01"),
    ("memory-bound", [r"memory[- ]bound"], "01"),
    ("asynchronous copy", [r"asynchronous cop(?:y|ies)", r"async[- ]cop(?:y|ies)", r"asynchrony"], "02"),
    ("overlap", [r"overlap(?:s|ped|ping)?", r"copy/compute overlap"], "02"),
    ("in flight", [r"loads in flight"], "02"),
    ("latency hiding", [r"hid(?:e|es|ing) (?:the |its )?latency"], "02"),
    ("occupancy", [r"blocks per SM"], "02"),
    ("L2 cache", [r"L2(?: caches?)?"], "02"),
    ("kernel-only time", [r"kernel[- ]only"], "02"),
    ("`%globaltimer`", [r"%?globaltimer"], "02"),
    ("`clock64`", [], "02"),
    ("median", [r"medians"], "02"),
    ("`cp.async`", [], "03"),
    ("pipeline", [r"pipelines", r"cuda::pipeline", r"pipeline calls"], "03"),
    ("commit", [r"commit(?:s|ted|ting)?", r"producer_commit", r"commit[- _]group"], "03"),
    ("`.ca` / `.cg`", [r"\.c[ag]", r"cp\.async\.c[ag]"], "03"),
    ("zero-fill", [r"zero[- ]fill(?:s|ed|ing)?", r"src[-_]size", r"zfill"], "03"),
    ("PTX", [], "03"),
    ("NVRTC", [], "03"),
    ("compute capability", [r"compute capabilit(?:y|ies)", r"sm_\d+[a-z]?", r"sm_XX"], "03"),
    ("alignment", [r"aligned", r"16-byte aligned"], "03"),
    ("`float4`", [r"float4s?", r"vectori[sz]ed loads?", r"wide loads?"], "04"),
    ("stage", [r"stages", r"ring of stages", r"ring"], "04"),
    ("persistent block", [r"persistent(?: blocks?)?"], "04"),
    ("Little's law", [r"Little['’]s law"], "04"),
    ("bytes in flight", [], "04"),
    ("HBM", [r"HBM3e?", r"DRAM"], "04"),
    ("bulk copy", [r"bulk[- ]cop(?:y|ies)", r"cp\.async\.bulk", r"copy engines?"], "04"),
    ("TMA", [r"Tensor Memory Accelerator"], "04"),
    ("mbarrier", [r"mbarriers", r"cuda::barrier", r"shared[- ]memory barriers?"], "04"),
    ("transaction bytes", [r"tx[- ]count", r"expect_tx"], "04"),
    ("phase parity", [r"parity", r"phase bits?"], "04"),
    ("async proxy", [r"prox(?:y|ies)"], "04"),
    ("proxy fence", [r"proxy fences?", r"fence\.proxy\.async"], "04"),
    ("CUDA graph", [r"CUDA graphs", r"graph replays?"], "06"),
    ("interquartile range", [r"interquartile ranges", r"IQRs?"], "04"),
    ("run-to-run drift", [r"run[- ]to[- ]run (?:drift|differences?|spread)"], "04"),
    ("warp specialization", [r"warp[- ]speciali[sz](?:ation|ed)"], "05"),
    ("producer warp", [r"producer(?: warps?)?", r"consumer warps?"], "05"),
    ("full / empty barrier", [r"full (?:/ empty )?m?barriers?", r"empty m?barriers?"], "05"),
    ("roofline", [r"rooflines", r"the bound"], "05"),
    ("Nsight Compute", [r"ncu"], "06"),
    ("stall", [r"stall(?:s|ed|ing)?", r"long scoreboard"], "06"),
    ("L1TEX", [], "06"),
    ("shared wavefront", [r"(?:shared )?wavefronts?"], "06"),
    ("warp slot", [r"warp slots"], "06"),
    ("registers per thread", [r"register pressure"], "06"),
]


def plain(name: str) -> str:
    """A glossary name as Sphinx keys it: without backticks, lower case."""
    return name.replace("`", "").strip().lower()


def pattern(name: str, forms) -> re.Pattern:
    alternatives = [re.escape(name.replace("`", ""))] + list(forms)
    return re.compile(r"(?<![\w])(?:" + "|".join(f"(?:{a})" for a in alternatives) + r")(?![\w]|\.\w)",
                      re.I)


PATTERNS = {name: pattern(name, forms) for name, forms, _ in TERMS}
CHAPTER = {name: chapter for name, _, chapter in TERMS}


# --- the text as a reader reads it ---------------------------------------------------------

TERM_START, TERM_END = "\x01", "\x02"      # where a {term} role's text starts and ends


def reading_text(md: str) -> str:
    """Markdown as read: no fenced code, math, headings, directive fences or options, link
    targets, images, comments or glue names; inline code kept as its text (its '*' dropped, so
    that only emphasis markers remain); a {term} role's text between TERM_START and TERM_END."""
    md = re.sub(r"<!--.*?-->", " ", md, flags=re.S)
    md = re.sub(r"^(`{3,}|~{3,}).*?^\1[ \t]*$", " ", md, flags=re.S | re.M)   # fenced code
    md = re.sub(r"\$\$.*?\$\$", " ", md, flags=re.S)
    md = re.sub(r"^[ \t]*(?::{3,}.*|:[\w-]+:.*)$", " ", md, flags=re.M)        # directive fences, options
    md = re.sub(r"^#+ .*$", " ", md, flags=re.M)                                 # headings
    md = re.sub(r"\{glue(?::\w+)?\}`[^`]*`", " X ", md)
    md = re.sub(r"\{term\}`(?:([^`<]*?)\s*<[^`>]*>|([^`]*))`",
                lambda m: TERM_START + (m.group(1) or m.group(2)) + TERM_END, md)
    md = re.sub(r"\{(?:doc|ref|numref|download)\}`(?:([^`<]*?)\s*<[^`>]*>|[^`]*)`",
                lambda m: m.group(1) or " ", md)
    md = re.sub(r"\{[\w:-]+\}`([^`]*)`", r"\1", md)                              # other roles: their text
    md = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", md)
    md = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", md)
    md = re.sub(r"(?<!\\)\$[^$\n]+\$", " X ", md)
    md = re.sub(r"(`+)(.+?)\1", lambda m: _code(m.group(2)), md, flags=re.S)
    md = re.sub(r"</?[a-zA-Z][^>]*>", " ", md)
    return md


def _code(span: str) -> str:
    """An inline code span as read: its text where it is a term (`cp.async`, `sm_80`,
    `expect_tx`), else one placeholder word: an identifier or expression that merely contains a
    term's word (`x_s[stage ^ 1]`, `ncu --set full`) is no use of the term."""
    span = re.sub(r"\(\)$", "", span.strip())           # `clock64()` is `clock64`
    if any(p.fullmatch(span) for p in PATTERNS.values()):
        return span
    return "X"


def bold_spans(paragraph: str):
    return [(m.start(), m.end()) for m in re.finditer(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", paragraph, re.S)]


def marked_in_sentence(name: str, paragraph: str, m, spans) -> bool:
    """Whether the sentence of match ``m`` has a use of the term inside one of ``spans`` (bold, or
    {term} roles): "a ring of **stages**" defines the stage at its first use, "ring"."""
    starts = [0] + [x.end() for x in re.finditer(r"(?<=[.!?:;])\s+|\n\s*[-*] ", paragraph)]
    a = max(s for s in starts if s <= m.start())
    b = min([s for s in starts if s > m.start()] + [len(paragraph)])
    return any(a <= x.start() and x.end() <= b and any(s <= x.start() and x.end() <= e for s, e in spans)
               for x in PATTERNS[name].finditer(paragraph))


def role_spans(paragraph: str):
    return [(m.start(), m.end()) for m in re.finditer(f"{TERM_START}[^{TERM_END}]*{TERM_END}", paragraph)]


@dataclass
class Paragraph:
    where: str          # "notebooks/01_halo_regions.ipynb cell a3fe7142" or "book/api_map.md line 12"
    order: int          # the chapter's place in reading order
    text: str


def _paragraphs(text: str):
    """(first line number, paragraph) of a reading text."""
    out, line = [], 1
    for block in re.split(r"(\n[ \t]*\n)", text):
        if block.strip() and not re.fullmatch(r"\n[ \t]*\n", block):
            out.append((line + len(block) - len(block.lstrip("\n")), block))
        line += block.count("\n")
    return out


def notebooks():
    return [ROOT / (f + ".ipynb") for f in toc_files()
            if f.startswith("notebooks/") and (ROOT / (f + ".ipynb")).exists()]


def chapters():
    """The chapters in reading order, as paragraphs."""
    out = []
    for order, path in enumerate(notebooks()):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] != "markdown":
                continue
            for line, para in _paragraphs(reading_text("".join(cell["source"]))):
                out.append(Paragraph(f"{path.relative_to(ROOT)} cell {cell.get('id', '?')}", order, para))
    for order, page in enumerate(LATER_PAGES, start=len(notebooks())):
        for line, para in _paragraphs(reading_text((ROOT / page).read_text(encoding="utf-8"))):
            out.append(Paragraph(f"{page} line {line}", order, para))
    return out


def quote(text: str, start: int, end: int, width: int = 70) -> str:
    s = text[max(0, start - width):end + width]
    s = s.replace(TERM_START, "{term}`").replace(TERM_END, "`")
    return repr(re.sub(r"\s+", " ", s).strip())


# --- the glossary ---------------------------------------------------------------------------

def glossary_entries():
    """[(names, definition)] of the glossary's {glossary} directive: a run of unindented lines
    names an entry (backticks dropped, lower case), the indented lines after it define it."""
    text = GLOSSARY.read_text(encoding="utf-8")
    m = re.search(r"^(`{3,}|:{3,})\{glossary\}[^\n]*\n(.*?)^\1[ \t]*$", text, re.S | re.M)
    assert m, "book/glossary.md has no {glossary} directive"
    entries, names, body = [], [], []
    for line in m.group(2).splitlines():
        if not line.strip():
            continue
        if line[0] in " \t":
            body.append(line.strip())
        else:
            if body:
                entries.append((names, " ".join(body)))
                names, body = [], []
            if not re.match(r":[\w-]+:", line):
                names.append(plain(line))
    if names:
        entries.append((names, " ".join(body)))
    return entries


def test_the_term_list_is_well_formed():
    names = [plain(n) for n, _, _ in TERMS]
    assert len(set(names)) == len(names), "a term is listed twice"
    for name, _, _ in TERMS:
        assert PATTERNS[name].search(name.replace("`", "")), f"{name}: its pattern misses its own name"


@pytest.mark.parametrize("name", [t[0] for t in TERMS])
def test_every_term_has_a_glossary_entry_linking_its_chapter(name):
    entries = glossary_entries()
    entry = next((e for e in entries if plain(name) in e[0]), None)
    assert entry, (f"{name}: no entry in book/glossary.md's {{glossary}} (its names: the term "
                   f"{plain(name)!r} first, then other names, unindented; the definition indented)")
    links = re.findall(r"\{doc\}`(?:[^`<]*<)?\.\./notebooks/([^`>]+)>?`", entry[1])
    chapter = CHAPTER[name]
    want = next((p.stem for p in notebooks() if p.name.startswith(chapter + "_")), None)
    assert want, (f"{name}: the list says chapter {chapter} defines it, but _toc.yml has no "
                  f"notebooks/{chapter}_*.ipynb")
    assert want in links, (f"{name}: its glossary entry links {links or 'no chapter'}; the chapter "
                           f"that defines it is {{doc}}`../notebooks/{want}`")


# --- first use: bold, in its chapter or an earlier one --------------------------------------

@pytest.mark.parametrize("name", [t[0] for t in TERMS])
def test_first_use_of_each_term_is_bold_in_its_chapter_or_earlier(name):
    paragraphs = chapters()
    para, m = next(((p, m) for p in paragraphs if (m := PATTERNS[name].search(p.text))), (None, None))
    chapter = CHAPTER[name]
    assert para is not None, (f"{name}: never used in the chapters; the list says chapter {chapter} "
                              f"defines it (write **{name}** there, or take it off the list)")
    where = f"{name}: first use ({m.group(0)!r}) in {para.where}: {quote(para.text, m.start(), m.end())}"
    problems = []
    if any(a <= m.start() and m.end() <= b for a, b in role_spans(para.text)):
        problems.append("it is a {term} link; in a chapter, the first use is bold and defined in "
                        "plain words (later uses may link)")
    elif not marked_in_sentence(name, para.text, m, bold_spans(para.text)):
        later = next((f"{p.where}" for p in paragraphs[paragraphs.index(para):]
                      for x in PATTERNS[name].finditer(p.text)
                      if any(a <= x.start() and x.end() <= b for a, b in bold_spans(p.text))), None)
        problems.append("it is not bold: write it **in bold** in a sentence that says what it is"
                        + (f" (a bold use comes later, in {later}: move that definition here)"
                           if later else ""))
    want = next((i for i, p in enumerate(notebooks()) if p.name.startswith(chapter + "_")), None)
    if want is not None and para.order > want:
        problems.append(f"it comes after chapter {chapter}, which the list says defines it")
    assert not problems, where + ": " + "; ".join(problems)


# --- the overviews: glossary links ----------------------------------------------------------

@pytest.mark.parametrize("page", OVERVIEWS)
def test_overview_pages_link_terms_to_the_glossary(page):
    """On an overview page, each term's first appearance is a glossary link."""
    paragraphs = list(_paragraphs(reading_text((ROOT / page).read_text(encoding="utf-8"))))
    problems = []
    for name, _, _ in TERMS:
        for line, para in paragraphs:
            m = PATTERNS[name].search(para)
            if m:
                if not marked_in_sentence(name, para, m, role_spans(para)):
                    problems.append(f"{name}: first appears at line {line} ({m.group(0)!r}) as "
                                    f"plain text, {quote(para, m.start(), m.end())}: make it a "
                                    f"glossary link, {{term}}`{m.group(0)} <{name.replace('`', '')}>`")
                break
    assert not problems, f"{page}:\n" + "\n".join(problems)


# --- length: prose words and words per sentence ---------------------------------------------

def prose(md: str) -> str:
    """The prose of a markdown cell: fenced code, directive option lines and display math
    removed; inline math and code one word each; headings are not sentences."""
    md = re.sub(r"```.*?```", " ", md, flags=re.S)
    md = re.sub(r"\$\$.*?\$\$", " ", md, flags=re.S)
    lines = [l for l in md.splitlines() if not re.match(r"\s*(:{3,}|:\w+:)", l)]
    md = "\n".join(lines)
    md = re.sub(r"\$[^$\n]+\$", "X", md)
    md = re.sub(r"`[^`\n]+`", "X", md)
    md = re.sub(r"\{glue:\w+\}X", "X", md)
    md = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", md)
    md = re.sub(r"^#+ .*$", " ", md, flags=re.M)
    return md


def prose_stats(path: Path) -> tuple[int, float]:
    """(prose words, words per sentence) of a notebook's markdown cells."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    text = "\n\n".join(prose("".join(c["source"])) for c in cells if c["cell_type"] == "markdown")
    words = re.findall(r"[\w'’.-]*\w", text)
    parts = [p for p in re.split(r"(?<=[.!?])\s+(?=[A-Z(*\"`X])|\n\s*\n|\n\s*[-*] |\n\s*\d+\. ", text)
             if re.search(r"\w", p)]
    return len(words), len(words) / max(len(parts), 1)


def test_chapter_lengths():
    rows, bad = [], []
    for nb in notebooks():
        words, per = prose_stats(nb)
        rows.append(f"{nb.name}: {words} prose words, {per:.1f} words per sentence")
        if words > MAX_WORDS:
            bad.append(f"{nb.name}: {words} prose words, more than {MAX_WORDS}")
        if per > MAX_WORDS_PER_SENTENCE:
            bad.append(f"{nb.name}: {per:.1f} words per sentence on average, more than "
                       f"{MAX_WORDS_PER_SENTENCE:g}")
    print("\n".join(rows))
    assert not bad, "\n".join(bad) + "\n\nevery chapter:\n" + "\n".join(rows)
