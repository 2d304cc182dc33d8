"""The Korean edition (ko/): notebooks generated from the English ones whose code cells
are the English cells exactly, translations complete and current, the MyST of every page and
cell kept (directives, roles, math, code, links, numbers), the glossary's terms, and a
configuration that matches the English one. The built editions are tested in test_book.py."""

import collections
import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from kernels import edition
from kernels.publish import notebooks as nbtools, translate
from support import ROOT

KO = ROOT / "ko"
PAIRS = [(p, KO / "notebooks" / p.name) for p in nbtools.notebooks()]
PAGES = [(p, KO / "book" / p.name) for p in sorted((ROOT / "book").glob("*.md"))]


def test_the_korean_edition_is_complete_and_current():
    """Every markdown cell and page translated from the English as it is now, and every Korean
    notebook exactly what `python -m kernels.publish.translate sync` writes."""
    problems = translate.check()
    assert not problems, "\n".join(problems)


# --- the notebooks: the same code, the same outputs -----------------------------------------

@pytest.mark.parametrize("en, ko", PAIRS, ids=lambda p: p.name)
def test_code_cells_are_the_english_ones(en, ko):
    """Same cells in the same order; every code cell identical (source, outputs, execution count,
    metadata and tags, id), except that an output made in both languages shows its Korean words
    (the English run's, from the output's metadata: a figure its Korean drawing and alt text);
    markdown cells differ only in their text; the notebook's metadata is the English one's plus
    where it comes from."""
    a, b = nbformat.read(en, as_version=4), nbformat.read(ko, as_version=4)
    assert [c.cell_type for c in a.cells] == [c.cell_type for c in b.cells]
    for i, (x, y) in enumerate(zip(a.cells, b.cells)):
        if x.cell_type == "code":
            x = copy.deepcopy(x)
            for output in x.get("outputs", []):
                editions = output.get("metadata", {}).get(edition.KEY, {}).get("editions", {})
                if "ko" in editions:   # a figure carries only the other edition's PNG, once
                    assert output["data"] == editions.get("en", output["data"]), f"{en.name} cell {i}"
                    output["data"] = editions["ko"]
                    if "image/png" in output["data"]:   # its PNG once; its alt text in Korean
                        del output["metadata"][edition.KEY]
                        if output["metadata"].get("image/png", {}).get("alt"):
                            output["metadata"]["image/png"]["alt"] = output["data"]["text/plain"]
            edition.figure_alt(nbformat.v4.new_notebook(cells=[x]))   # where MyST-NB reads it
            assert x == y, f"{ko.name} cell {i} is not {en.name}'s"
        else:
            assert (x.get("id"), x.metadata) == (y.get("id"), y.metadata), f"{ko.name} cell {i}"
    meta = dict(b.metadata)
    assert meta.pop(translate.METADATA_KEY)["source"] == f"notebooks/{en.name}"
    assert meta == a.metadata
    assert (a.nbformat, a.nbformat_minor) == (b.nbformat, b.nbformat_minor)


TOC = "format: jb-book\nroot: book/intro\nchapters:\n- file: notebooks/01_probe\n"


def _scratch(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book").mkdir()
    (tmp_path / "_toc.yml").write_text(TOC)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title\n\nSome text."), nbformat.v4.new_code_cell("print(1)"),
                nbformat.v4.new_markdown_cell("## Next\n\nMore.")]
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    nb.cells[1].metadata["tags"] = ["hide-input"]
    nb.metadata["async_copy_book"] = {"executed_on": {"backend": "gpu"}}
    nbformat.write(nb, tmp_path / "notebooks" / "01_probe.ipynb")
    return translate.Edition(tmp_path), nb


def _translate_all(ed):
    path = ed.translations / "01_probe.json"
    table = json.loads(path.read_text())
    for entry in table["cells"].values():
        if entry["ko"] is None:
            entry["ko"] = ["번역: " + line if line else line for line in entry["en"]]
    path.write_text(json.dumps(table, ensure_ascii=False))


def test_check_names_untranslated_and_stale_cells_and_hand_edits(tmp_path):
    ed, nb = _scratch(tmp_path)
    assert any("Korean notebook" in p or "is missing" in p for p in translate.check(ed))
    notes = translate.sync(ed)
    assert len(notes) == 2 and "cell 0" in notes[0] and "cell 2" in notes[1]
    problems = translate.check(ed)
    for i in (0, 2):
        assert any(f"01_probe.ipynb cell {i} (id {nb.cells[i].id}" in p and "no translation" in p
                   for p in problems), problems

    _translate_all(ed)
    assert translate.sync(ed) == [] and translate.check(ed) == []
    ko = nbformat.read(ed.notebooks / "01_probe.ipynb", as_version=4)
    assert ko.cells[0].source.startswith("번역: # Title") and ko.cells[1] == nb.cells[1]

    ko.cells[1].source = "print(2)"                                  # a hand edit
    nbformat.write(ko, ed.notebooks / "01_probe.ipynb")
    assert any("cell 1: source" in p and "never edit it by hand" in p for p in translate.check(ed))
    translate.sync(ed)
    assert translate.check(ed) == []

    nb.cells[2].source = "## Next\n\nMore, and changed."          # the English changes
    nbformat.write(nb, ed.en_notebooks / "01_probe.ipynb")
    problems = translate.check(ed)
    assert any("cell 2" in p and "stale translation" in p for p in problems), problems
    assert any("differs from what" in p for p in problems), problems
    translate.sync(ed)          # the old translation kept beside the new English, still named
    entry = next(e for e in json.loads((ed.translations / "01_probe.json").read_text())["cells"].values()
                 if e["ko"] is None)
    assert entry["previous"]["ko"] == ["번역: ## Next", "", "번역: More."]
    assert any("cell 2" in p and "stale translation" in p for p in translate.check(ed))

    (ed.dir / "_toc.yml").write_text("format: jb-book\nroot: book/intro\n")
    assert any("_toc.yml" in p for p in translate.check(ed))


def test_the_korean_toc_lists_the_glossary_once(tmp_path):
    """An English table of contents without the glossary gets it appended last; one that lists it
    (the book's: book/glossary.md is an English page too) is copied as it is."""
    ed, _ = _scratch(tmp_path)
    for toc in (TOC, TOC + "- file: book/glossary\n"):
        (tmp_path / "_toc.yml").write_text(toc)
        translate.sync(ed)
        files = [c["file"] for c in yaml.safe_load((ed.dir / "_toc.yml").read_text())["chapters"]]
        assert files == ["notebooks/01_probe", translate.GLOSSARY]


def test_check_names_missing_and_stale_pages(tmp_path):
    ed, _ = _scratch(tmp_path)
    (ed.en_pages / "intro.md").write_text("# Intro\n\nText.\n")
    translate.sync(ed)
    _translate_all(ed)
    translate.sync(ed)
    assert translate.check(ed) == ["ko/book/intro.md is missing: translate book/intro.md, then "
                                   "`python -m kernels.publish.translate stamp book/intro.md`"]
    ed.pages.mkdir()
    (ed.pages / "intro.md").write_text("# 소개\n\n본문.\n")
    assert "is stale" in translate.check(ed)[0]
    translate.stamp([Path("book/intro.md")], ed)
    assert translate.check(ed) == []
    (ed.en_pages / "intro.md").write_text("# Intro\n\nText, changed.\n")
    problem, = translate.check(ed)
    assert "is stale" in problem and "diff ko/translations/pages/intro.md book/intro.md" in problem


def test_setup_cell_puts_the_repository_root_on_the_path_from_both_editions(tmp_path):
    """The Korean notebooks run the English setup cell (their code cells are the English ones)."""
    repo = tmp_path / "repo"
    for d in ("kernels", "notebooks", "ko/notebooks"):
        (repo / d).mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASYNC_BOOK_")}
    for cwd in (repo / "notebooks", repo / "ko" / "notebooks"):
        done = subprocess.run([sys.executable, "-c", nbtools.setup_cell_source() + "\nprint(sys.path[0])"],
                              cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert Path(done.stdout.splitlines()[-1]).resolve() == repo.resolve(), cwd


# --- the prose: MyST kept, code and numbers untouched, the glossary's terms ------------------

def _translated():
    """(where, English, Korean) for every translated markdown cell and page."""
    out = []
    for en, _ in PAIRS:
        table = json.loads((KO / "translations" / f"{en.stem}.json").read_text(encoding="utf-8"))
        for entry in table["cells"].values():
            if entry["ko"] is not None:
                out.append((f"{en.stem} cell {entry['id']}", "\n".join(entry["en"]), "\n".join(entry["ko"])))
    for en, ko in PAGES:
        if ko.exists():
            text = ko.read_text(encoding="utf-8")
            if ko.name == "glossary.md":          # the translation, then the Korean-only term table
                text = text.split(TERM_TABLE, 1)[0]
            out.append((f"ko/book/{ko.name}", en.read_text(encoding="utf-8"), text))
    return out


# ko/book/glossary.md translates book/glossary.md (the {glossary} entries, the same English names,
# Korean names added) and then, under this heading, gives the Korean edition's term table.
TERM_TABLE = "\n## 한국어판의 용어\n"


TRANSLATED = _translated()
FENCE = re.compile(r"^(`{3,}|:{3,})\{([\w-]+)\}[ \t]*(.*)$", re.M)
BACKTICK_DIRECTIVE = re.compile(r"^```\{.*?^```", re.M | re.S)   # literalinclude: no prose inside
OPTION = re.compile(r"^:[\w-]+:.*$", re.M)
CODE_BLOCK = re.compile(r"^```(?!\{)[^\n]*\n(.*?)^```", re.M | re.S)
DISPLAY_MATH = re.compile(r"\$\$(.*?)\$\$", re.S)
INLINE_CODE = re.compile(r"(`+)(.+?)\1", re.S)
DOC_ROLE = re.compile(r"\{doc\}`(?:[^`<]*<)?([^`>]+)>?`")
TERM_ROLE = re.compile(r"\{term\}`(?:[^`<]*<)?([^`>]+)>?`")   # its target: Korean words may show
LINK = re.compile(r"\]\((\S+?)\)|<(https?://[^>]+)>")
INLINE_MATH = re.compile(r"\$([^$\n]+)\$")
MATH_WORDS = re.compile(r"\\text\{[^}]*\}")   # words in a formula are prose: \text{기준값}
NUMBER = re.compile(r"(?<![\d.])0*(\d+(?:\.\d+)?)")   # chapter 05 is 5장
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")   # 16,384 in Korean prose is the English's 16384


def _parts(text, include_from=""):
    """The pieces of MyST that a translation must keep; include_from prefixes literalinclude's
    path (ko/notebooks and ko/book are one level deeper: ../kernels is ../../kernels there)."""
    fences = [(f, name, include_from + arg if name == "literalinclude" else "")
              for f, name, arg in FENCE.findall(text)]
    rest = BACKTICK_DIRECTIVE.sub(" ", text)
    blocks = CODE_BLOCK.findall(rest)
    rest = CODE_BLOCK.sub(" ", rest)
    display = [m.strip() for m in DISPLAY_MATH.findall(rest)]
    rest = DISPLAY_MATH.sub(" ", rest)
    docs = DOC_ROLE.findall(rest)
    rest = DOC_ROLE.sub(" ", rest)
    terms = TERM_ROLE.findall(rest)
    rest = TERM_ROLE.sub(" ", rest)
    code = [m[1] for m in INLINE_CODE.findall(rest)]
    rest = INLINE_CODE.sub(" ", rest)
    links = [a or b for a, b in LINK.findall(rest)]
    rest = LINK.sub(" ", rest)
    math = [MATH_WORDS.sub(r"\\text{}", m) for m in INLINE_MATH.findall(rest)]
    rest = OPTION.sub(" ", FENCE.sub(" ", INLINE_MATH.sub(" ", rest)))
    return {"directives": fences, "options": OPTION.findall(text), "code blocks": blocks,
            "display math": display, "math": collections.Counter(math),
            "code": collections.Counter(code), "links": collections.Counter(links),
            "doc": docs, "terms": collections.Counter(terms),
            "numbers": collections.Counter(NUMBER.findall(THOUSANDS.sub("", rest)))}


@pytest.mark.parametrize("where, en, ko", TRANSLATED, ids=[t[0] for t in TRANSLATED])
def test_translation_keeps_the_myst_code_math_and_numbers(where, en, ko):
    """Directives (with literalinclude's path) and their options, code blocks, math and {doc}
    targets as in the English; every inline code span, glossary term (its target: the Korean
    may show its own words, {term}`비동기 복사 <asynchronous copy>`), link and number of the
    English kept (the Korean may add some, e.g. a link to the glossary)."""
    a, b = _parts(en, "../"), _parts(ko)
    for key in ("directives", "options", "code blocks", "display math", "math"):
        assert a[key] == b[key], f"{where}: {key} differ"
    assert a["doc"] == [d for d in b["doc"] if d != "glossary"], f"{where}: {{doc}} targets differ"
    for key in ("code", "terms", "links", "numbers"):
        lost = a[key] - b[key]
        assert not lost, f"{where}: {key} of the English missing from the Korean: {sorted(lost)}"


@pytest.mark.parametrize("where, en, ko", TRANSLATED, ids=[t[0] for t in TRANSLATED])
def test_emphasis_and_math_render_in_korean(where, en, ko):
    """CommonMark's emphasis needs a boundary that Korean particles remove: `**T4 (sm_75)**에는`
    is not bold. No '*' or '$' may survive rendering (the English has none outside code)."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser
    md = create_md_parser(MdParserConfig(enable_extensions={"colon_fence", "dollarmath", "deflist"}),
                          RendererHTML)
    html = re.sub(r"<pre.*?</pre>|<code.*?</code>|<span class=\"math.*?</span>|<div class=\"math.*?</div>",
                  " ", md.render(ko), flags=re.S)
    text = re.sub(r"<[^>]+>", " ", html)
    stray = [m.group(0) for m in re.finditer(r".{0,20}[*$].{0,20}", text)]
    assert not stray, f"{where}: unrendered markup: {stray}"


def glossary():
    """The glossary's rows: (Korean, English, meaning, forms the book does not use)."""
    rows = []
    for line in (KO / "book" / "glossary.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 4 and cells[0] not in ("한국어", "---"):
            korean, meaning, english, avoided = cells   # the meaning second: on a phone too
            rows.append([korean, english, meaning, avoided])
    return rows


def test_the_korean_glossary_translates_the_english_one_and_adds_the_term_table():
    """The same {glossary} entries under the same English names (so that every {term} role of the
    English text resolves in the Korean edition too), each led by a Korean name or two (where it
    has one), then the term table."""
    def entries(text):
        body = re.search(r"^(:{3,}|`{3,})\{glossary\}[^\n]*\n(.*?)^\1", text, re.S | re.M).group(2)
        names, out = [], []
        for line in body.splitlines() + ["  end"]:
            if line.strip() and line[0] not in " \t":
                names.append(line.strip())
            elif line.strip() and names:
                out.append(names)
                names = []
        return out
    en = entries((ROOT / "book" / "glossary.md").read_text(encoding="utf-8"))
    text = (KO / "book" / "glossary.md").read_text(encoding="utf-8")
    assert TERM_TABLE in text and text.index(TERM_TABLE) > text.index("{glossary}")
    ko = entries(text)
    assert len(en) == len(ko), f"{len(en)} English entries, {len(ko)} Korean ones"
    for e, k in zip(en, ko):
        assert k[len(k) - len(e):] == e, f"Korean entry {k} does not end with the English names {e}"
        assert len(k) <= len(e) + 2, f"Korean entry {k}: two Korean names at most"


@pytest.mark.editorial
def test_glossary_gives_the_english_beside_every_term_and_follows_the_seed():
    rows = glossary()
    assert len(rows) >= 40 and all(ko and en for ko, en, *_ in rows)
    terms = {ko: en for ko, en, *_ in rows}
    # the seed's usage (Puzzle 28's Korean edition), and the book's own choices
    for ko, en in {"헤일로 영역, 헤일로": "halo region", "타일": "tile", "공유 메모리": "shared memory",
                   "비동기 메모리 연산": "asynchronous memory operation", "지연 시간": "latency",
                   "대역폭": "bandwidth", "탭": "taps", "커널": "kernel", "교차 상관": "cross-correlation",
                   "파이프라인": "pipeline", "스테이지": "stage", "점유율": "occupancy"}.items():
        assert terms[ko].startswith(en), ko


@pytest.mark.editorial
def test_the_prose_uses_the_glossarys_terms():
    avoided = [form.strip() for *_, forms in glossary() for form in forms.split(",") if form.strip()]
    assert "할로" in avoided and "레이턴시" in avoided
    for where, _, ko in TRANSLATED:
        used = [form for form in avoided if form in ko]
        assert not used, f"{where} uses {used}: the glossary (ko/book/glossary.md) says otherwise"


# --- the house style: punctuation, spacing, particles, the decided forms ---------------------

HIDDEN = "‹›"          # what stands in for code and math: neither a digit, Hangul nor a space
# Every Hangul syllable with a final consonant (받침): the 27 after each syllable without one.
FINAL = "".join(f"{chr(b + 1)}-{chr(b + 27)}" for b in range(0xAC00, 0xD7A4, 28))

STYLE = [
    (re.compile(r"(?<![*\w])\*(?!\*)[^*\n]*[가-힣][^*\n]*?\*(?!\*)"),
     "italics on Hangul, which Hangul fonts do not have: **bold** or plain"),
    (re.compile(f"(?![는한은던])[{FINAL}](?:가|를|와)(?=[\\s,.)])"),
     "가, 를, 와 after a final consonant: 이, 을, 과 (반납이, 반납을, 반납과)"),
    (re.compile(r"[가-힣][)\]'\"’”]*[ \t]*;"),
     "a semicolon after Korean: end the sentence (…합니다.) or restructure"),
    (re.compile(r"(?:다|요):"),
     "a colon straight after a sentence: two sentences, a noun phrase (예:, 결과:) or 다음과 같습니다."),
    (re.compile(r"\d[ \t]+%"), "a space before %: 7.7%, 19%"),
    (re.compile(r"십시오"), "-십시오: the book says -세요"),
    (re.compile(r"\d[ \t]+(?:바이트(?!코드|열)|개(?![념선발요별인체방행편입성])|배(?![열치포정경수달리])"
                r"|번(?![호역지거식창영복])|비트(?!맵|레이트))"),
     "a counter spaced from its numeral: 39바이트, 64개, 4배, 2번, 16비트"),
    (re.compile(r"윈도(?!우)"), "윈도: 윈도우"),
    (re.compile(r"대어[ \t]*잽"), "대어 잽니다 (against): 비교해, ~에 견주어, ~ 대비"),
    (re.compile(r"살아[ \t]*움직"), "살아 움직입니다 (live): 실시간으로, 직접 바꿔 볼 수 있는"),
    (re.compile(r"기다림"), "기다림 (the wait): 대기"),
    (re.compile(r"타일당"), "타일당: 타일마다"),
    (re.compile(r"마이크로초"), "마이크로초: µs"),
    (re.compile(r"[가-힣](?:[ \t]+|[ \t]*\n[ \t]*)\((?!\))"),
     "a space (or a line break) before a parenthesis: 벌크 복사(Hopper)"),
    (re.compile(r"(?<![\d,.^_\w])\d{4,}(?=[가-힣])(?!\d*년)"),
     "a count of four digits or more without thousands separators: 16,384개, 1,040바이트"),
]


def _prose(text):
    """The Korean a reader reads as prose: code blocks, literalinclude, directive options, code
    spans (glue and term roles with them), {doc} targets, links' addresses and math hidden."""
    text = BACKTICK_DIRECTIVE.sub(HIDDEN, text)
    text = CODE_BLOCK.sub(HIDDEN, text)
    text = DISPLAY_MATH.sub(HIDDEN, text)
    text = DOC_ROLE.sub(HIDDEN, text)
    text = INLINE_CODE.sub(HIDDEN, text)
    text = LINK.sub(lambda m: "]" + HIDDEN if m.group(1) else HIDDEN, text)
    text = INLINE_MATH.sub(HIDDEN, text)
    return OPTION.sub(HIDDEN, text)


def style_problems(text):
    """(the rule broken, the snippet that breaks it) for each place the style decisions are
    broken in `text`, a Markdown cell or page."""
    prose = _prose(text)
    out = []
    for rule, why in STYLE:
        for m in rule.finditer(prose):
            snippet = prose[max(0, m.start() - 15):m.end() + 15].replace("\n", " ")
            out.append((why, snippet.strip()))
    return out


@pytest.mark.editorial
@pytest.mark.parametrize("where, en, ko", TRANSLATED, ids=[t[0] for t in TRANSLATED])
def test_korean_style_follows_the_editors_decisions(where, en, ko):
    """The editors' decisions (STYLE) in every translated cell and page, outside code and math."""
    problems = style_problems(ko)
    assert not problems, f"{where}: {len(problems)} style problem(s):\n" + "\n".join(
        f"  {why}: «{snippet}»" for why, snippet in problems)


@pytest.mark.editorial
@pytest.mark.parametrize("text, caught", [
    ("블록은 끝납니다; 그다음", True), ("끝냅니다(예외);", True), ("헤일로입니다: 블록은", True),
    ("결과: 256개", False), ("7.7 %", True), ("실행하십시오.", True), ("39 바이트", True),
    ("64 개의", True), ("4 배로", True), ("2 번째", True), ("16 비트", True), ("2 배열", False),
    ("3 개념", False), ("1 번호", False), ("윈도", True), ("윈도우", False), ("대어 잽니다", True),
    ("살아 움직입니다", True),
    ("`a; b`와 `x: y`", False), ("$K = 5$ %", False), ("```\n합니다: 1 개\n```\n", False),
    (":::{admonition} 답\n:start-at: // Phase 3: wait 2 개\n:::", False),
    ("[윈도 없음](https://example.org/윈도)", True), ("[코드](../윈도.md)", False),
    ("그 *양쪽*의 입력", True), ("그 **양쪽**의 입력", False), ("*tile* 하나", False),
    ("반납가 차례로", True), ("반납를 봅니다", True), ("기다리는가 묻습니다", False),
    ("결과를 봅니다", False), ("버퍼와 타일", False), ("남은 기다림", True), ("타일당 바이트", True),
    ("수 마이크로초", True), ("벌크 복사 (Hopper)", True), ("기다립니다\n(`wait()`)", True),
    ("힌트 1 (아이디어)", False), ("출력 16384개", True), ("출력 16,384개", False),
    ("$N = 16384$개", False), ("2026년", False),
])
def test_the_style_check_catches_what_it_should_and_spares_code(text, caught):
    assert bool(style_problems(text)) == caught, (text, style_problems(text))


# --- the configuration ----------------------------------------------------------------------

def test_korean_config_matches_the_english_one():
    en = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    ko = yaml.safe_load((KO / "_config.yml").read_text(encoding="utf-8"))
    assert ko["sphinx"]["config"]["language"] == "ko"
    assert re.search("[가-힣]", ko["title"])
    assert ko["repository"] == {**en["repository"], "path_to_book": "ko"}   # launch ko/notebooks
    for key in ("launch_buttons", "html", "parse", "execute", "only_build_toc_files"):
        assert ko[key] == en[key], key
    same = {k: (ROOT / v).resolve() for k, v in en["sphinx"]["local_extensions"].items()}
    # the English edition's extensions, and the Korean one's own (anchors, search: korean.py)
    same["korean"] = (ROOT / "book" / "_ext").resolve()
    assert {k: (KO / v).resolve() for k, v in ko["sphinx"]["local_extensions"].items()} == same
    assert (en["sphinx"]["config"]["edition_link"]["path"], ko["sphinx"]["config"]["edition_link"]["path"]) \
        == ("ko", "..")
    for key in ("html_show_copyright", "nb_merge_streams", "html_context"):
        assert ko["sphinx"]["config"][key] == en["sphinx"]["config"][key], key
    # the Korean toggle of a hidden part names the output: no cell may hide anything else
    hidden = {t for path, _ in PAIRS for c in nbformat.read(path, as_version=4).cells
              for t in c.metadata.get("tags", []) if t.startswith("hide-")}
    assert hidden <= {"hide-output"}, hidden
    assert "출력" in ko["sphinx"]["config"]["nb_code_prompt_show"]


@pytest.mark.browser
def test_the_page_around_the_korean_text_is_korean():
    """The themes' English labels, tooltips and placeholders are put in Korean after the build
    (book/_ext/korean.py): none is left in a built page."""
    pages = sorted((ROOT / "_build" / "html" / "ko").rglob("*.html"))
    if not pages:
        pytest.skip("the Korean edition is not built (make book)")
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import korean
    assert korean.chrome('<button title="Toggle primary sidebar">') == '<button title="책 목차 열고 닫기">'
    left = [page.relative_to(ROOT) for page in pages
            if korean.chrome(text := page.read_text(encoding="utf-8")) != text]
    assert not left, left
    script = (ROOT / "_build" / "html" / "ko" / "_static" / "translations.js").read_text(encoding="utf-8")
    for before, after in korean.SCRIPT:
        assert before not in script and after in script


# --- nothing lost: a translation no cell uses is kept, and comes back --------------------------

def test_sync_keeps_the_translations_of_cells_that_went_and_brings_them_back(tmp_path, capsys):
    """A removed or emptied cell's translation is kept (under "orphans" or "previous"), named
    once, and comes back with the English."""
    ed, nb = _scratch(tmp_path)
    nb.cells.append(nbformat.v4.new_markdown_cell("## Last\n\nThe end."))
    nbformat.write(nb, ed.en_notebooks / "01_probe.ipynb")
    translate.sync(ed)
    _translate_all(ed)
    translate.sync(ed)
    table_path = ed.translations / "01_probe.json"
    translated = json.loads(table_path.read_text())
    english = (ed.en_notebooks / "01_probe.ipynb").read_text()

    removed = nb.cells.pop(2)
    nb.cells[0].source = nb.cells[2].source = ""
    nbformat.write(nb, ed.en_notebooks / "01_probe.ipynb")
    with pytest.raises(SystemExit) as caught:
        translate.main(["sync"], ed)
    assert caught.value.code not in (0, None) and "kept, not lost" in str(caught.value)
    assert "lost 2 translated cell(s)" in capsys.readouterr().out
    assert not any("lost" in note for note in translate.sync(ed))
    table = json.loads(table_path.read_text())
    kept = {tuple(e["ko"]) for e in table.get("orphans", {}).values()} | {
        tuple(e["previous"]["ko"]) for e in table["cells"].values() if "previous" in e}
    assert kept == {tuple(e["ko"]) for e in translated["cells"].values()}   # all three kept
    assert all({"id", "en", "ko"} <= set(e) for e in table["orphans"].values())
    assert removed.id in {e["id"] for e in table["orphans"].values()}
    assert any("orphans" in p for p in translate.check(ed))

    (ed.en_notebooks / "01_probe.ipynb").write_text(english)      # the English comes back
    translate.main(["sync"], ed)
    assert json.loads(table_path.read_text()) == translated and translate.check(ed) == []
    assert [p.name for p in ed.translations.iterdir()] == ["01_probe.json"]   # no temp files


def test_a_corrupted_table_is_named(tmp_path):
    ed, _ = _scratch(tmp_path)
    translate.sync(ed)
    (ed.translations / "01_probe.json").write_text('{"cells": {\n"a": ')
    with pytest.raises(ValueError, match=r"01_probe.json is not valid JSON .* line 2"):
        translate.sync(ed)


@pytest.mark.parametrize("main, argv, fragment", [
    (translate.main, ["stamp", "book/no-such-page.md"], "is not an English page"),
    (nbtools.main, ["execute", "notebooks/99_no_such.ipynb"], "is not a notebook"),
])
def test_the_book_tools_answer_bad_arguments_with_a_usage_line(main, argv, fragment, capsys):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    err = capsys.readouterr().err
    assert caught.value.code == 2 and err.startswith("usage: python -m kernels.publish.")
    assert fragment in err


def test_the_pages_fall_back_to_a_hangul_font_that_has_every_syllable_they_show():
    """On a system with no Korean font the pages use the figures' font (reader.css's
    "Book Hangul", which ko/_config.yml copies to _static): it must hold every Hangul letter the
    edition shows, or a reader sees boxes."""
    from fontTools.ttLib import TTFont
    from kernels.teach import figure
    css = (ROOT / "book" / "_static" / "reader.css").read_text()
    assert re.search(r'@font-face \{\s*font-family: "Book Hangul";\s*src: url\("'
                     + re.escape(figure.FONT.name), css)
    assert '"Book Hangul", system-ui' in css
    static = yaml.safe_load((KO / "_config.yml").read_text())["sphinx"]["config"]["html_static_path"]
    assert (KO / static[-1]).resolve() == figure.FONT.parent
    shown = "".join(p.read_text(encoding="utf-8") for p in
                    [*(KO / "book").glob("*.md"), *(KO / "notebooks").glob("*.ipynb"),
                     KO / "_config.yml", *(ROOT / "book" / "_ext").rglob("*.py")])
    glyphs = TTFont(figure.FONT).getBestCmap()
    missing = sorted({c for c in shown if "\uac00" <= c <= "\ud7a3" or "\u3130" <= c <= "\u318f"}
                     - {chr(u) for u in glyphs})
    assert not missing, f"{figure.FONT.name} lacks {''.join(missing)}: re-subset the font"
