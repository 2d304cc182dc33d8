"""Sphinx extension for the Korean edition (ko/_config.yml): stable heading anchors and a search
that finds a word in its inflected forms.

Anchors. docutils makes a section's id from its title in ASCII, so a Korean heading gets
``id1``, ``id2``, … in the order of the page: a deep link breaks whenever a heading is added
above it. Here each such section gets, first, an id made from its own title, Hangul kept
(:func:`slug`: "## 타일로 나눈 벡터" → ``#타일로-나눈-벡터``), which changes only when that heading's
words do; the ``idN`` stays as a second id, so the links of older builds still land.

Search. Sphinx has no Korean search language: it indexes "헤일로는" and "헤일로가" as words unlike
"헤일로", so a search for the word misses the pages that use it only with a particle. Here a word
in Hangul is indexed, and a query word looked up, without the particles that end it
(:func:`stem`, the same rule in Python for the index and in JavaScript for the query); other
words go through Sphinx's English stemmer, as before.

The page around the text. The themes leave some of their labels, tooltips and placeholders in
English (some written into their templates, some with no Korean in their catalogs): after the
build, :data:`CHROME` puts each in Korean in every page's attributes, and :data:`CHROME_TEXT` in
its text; Sphinx's own Korean messages are said as the book says them (:data:`SCRIPT`), the copy
button its Korean (:data:`COPYBUTTON`), the index its initials
in letters a text font has (:data:`INITIALS`).
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from sphinx.search import languages
from sphinx.search.en import SearchEnglish

# Particles (조사) that end a noun in the book's prose, longest first; a word loses them one by
# one while at least two syllables are left ("헤일로는" → "헤일로" → "헤일", the query word too).
PARTICLES = ("에서는", "에서도", "에서의", "으로는", "으로도", "으로서", "으로써", "까지는", "부터는",
             "에서", "에게", "으로", "처럼", "까지", "부터", "보다", "마다", "이나", "이며", "이고",
             "에는", "에도", "와는", "과는", "로는", "로도", "만큼", "이란", "라는", "이라는",
             "의", "은", "는", "이", "가", "을", "를", "에", "와", "과", "도", "만", "로")
PARTICLES = tuple(sorted(set(PARTICLES), key=len, reverse=True))
HANGUL = re.compile("[\uac00-\ud7a3]")


def stem(word: str) -> str:
    """``word`` without the particles that end it, at least two syllables kept."""
    changed = True
    while changed:
        changed = False
        for p in PARTICLES:
            if word.endswith(p) and len(word) - len(p) >= 2:
                word, changed = word[:-len(p)], True
                break
    return word


_JS = """
var KoreanParticles = %s;
var Stemmer = function() {
  var english = new EnglishStemmer();
  var hangul = /[\\uac00-\\ud7a3]/;
  this.stemWord = function(w) {
    if (!hangul.test(w)) return english.stemWord(w);
    var changed = true;
    while (changed) {
      changed = false;
      for (var i = 0; i < KoreanParticles.length; i++) {
        var p = KoreanParticles[i];
        if (w.length - p.length >= 2 && w.slice(-p.length) === p) {
          w = w.slice(0, -p.length); changed = true; break;
        }
      }
    }
    return hangul.test(w) ? w : english.stemWord(w);
  };
};
"""


class SearchKorean(SearchEnglish):
    lang = "ko"
    language_name = "Korean"
    js_stemmer_code = (SearchEnglish.js_stemmer_code.replace("var Stemmer = function",
                                                             "var EnglishStemmer = function", 1)
                       + _JS % ("[" + ", ".join(f'"{p}"' for p in PARTICLES) + "]"))

    def stem(self, word: str) -> str:
        if not HANGUL.search(word):
            return super().stem(word)
        word = stem(word)            # "async는" → "async", then as an English word
        return word if HANGUL.search(word) else super().stem(word)


def slug(title: str) -> str:
    """An anchor from a heading's words: lower case, letters (Hangul too) and digits kept, the
    rest one hyphen."""
    return re.sub(r"[^\w]+", "-", title.lower(), flags=re.U).strip("-_")


def _anchors(app, doctree) -> None:
    taken = set()
    for node in doctree.findall(nodes.Element):
        taken.update(node.get("ids", ()))
    for section in doctree.findall(nodes.section):
        ids = section["ids"]
        if not ids or not all(re.fullmatch(r"id\d+", i) for i in ids):
            continue
        base = slug(section[0].astext()) if len(section) and isinstance(section[0], nodes.title) else ""
        if not base:
            continue
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name)
        ids.insert(0, name)
        doctree.ids[name] = section


CHROME = {   # title, aria-label, placeholder, data-bs-title and alt attributes
    "Toggle primary sidebar": "책 목차 열고 닫기",
    "Toggle secondary sidebar": "이 페이지 목차 열고 닫기",
    "Color mode": "색 모드", "Light": "밝은 테마", "Dark": "어두운 테마", "System Settings": "시스템 설정",
    "Launch on Colab": "Colab에서 열기", "Launch interactive content": "대화형으로 실행",
    "Colab logo": "Colab 로고",
    "Link to this heading": "이 제목으로 가는 링크",
    "next page": "다음 페이지", "previous page": "이전 페이지",
    "Main": "책 목차", "On this page": "이 페이지 목차", "Page": "페이지",
    "Site navigation": "사이트 탐색", "Version warning": "버전 경고",
    "Search this book...": "이 책에서 검색…",
    "Link to this term": "이 용어로 가는 링크", "Toggle hidden content": "숨긴 내용 열고 닫기",
    "전체 화면으로보기": "전체 화면으로 보기",   # the book theme's catalog, one space short
}
CHROME_TEXT = {   # text between tags
    "Back to top": "맨 위로", "Skip to main content": "본문으로 건너뛰기",
    "Please activate JavaScript to enable the search functionality.":
        "검색하려면 브라우저에서 JavaScript를 켜세요.",
    "내용": "목차",   # the theme's "Contents" (the page's table of contents), from Sphinx's catalog
}
# Sphinx's Korean messages (translations.js, \\u escapes), as the book says them: the search
# summary's count with its counter attached ("8 개" -> "8개"), the "no results" sentence in -세요
# without the "categories" this book has not, the JavaScript request as the page itself words
# it, and what joins a term to the page it is on
SCRIPT = [tuple(t.encode("ascii", "backslashreplace").decode() for t in pair) for pair in (
    ("${resultCount} 개", "${resultCount}개"),
    ("검색어와 일치하는 문서가 없습니다. 모든 단어의 철자가 올바른지, 충분한 카테고리를 선택했는지 확인하십시오.",
     "검색어와 일치하는 문서가 없습니다. 모든 단어의 철자가 맞는지 확인하세요."),
    ("검색 기능을 사용하려면 JavaScript를 활성화하십시오.",
     CHROME_TEXT["Please activate JavaScript to enable the search functionality."]),
    ('", in ": ", 문서 - "', '", in ": ", 위치: "'))]


# sphinx-copybutton's messages by page language: it has none for Korean
COPYBUTTON = ("  'it' : {", """  'ko': {
    'copy': '복사',
    'copy_to_clipboard': '클립보드에 복사',
    'copy_success': '복사했습니다',
    'copy_failure': '복사하지 못했습니다',
  },
  'it' : {""")
# The index groups Hangul entries under the initial consonant as a conjoining letter (U+1100…),
# which fonts made for text lack (the book's own among them): show the compatibility letter
# (U+3131…) instead, ᄀ → ㄱ.
INITIALS = str.maketrans({chr(0x1100 + i): c for i, c in enumerate("ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ")})


def _alternatives(words) -> str:
    return "|".join(map(re.escape, sorted(words, key=len, reverse=True)))


ATTRIBUTE = re.compile(r'(\b(?:title|aria-label|placeholder|data-bs-title|alt)=")('
                       + _alternatives(CHROME) + r')"')
TEXT = re.compile(r"(>\s*)(" + _alternatives(CHROME_TEXT) + r")(\s*<)")


def chrome(html: str) -> str:
    """``html`` with the themes' English labels in Korean."""
    html = ATTRIBUTE.sub(lambda m: f'{m[1]}{CHROME[m[2]]}"', html)
    return TEXT.sub(lambda m: m[1] + CHROME_TEXT[m[2]] + m[3], html)


def _translate_chrome(app, exception) -> None:
    if exception or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        done = chrome(text)
        if page.name == "genindex.html":
            done = done.translate(INITIALS)
        if done != text:
            page.write_text(done, encoding="utf-8")
    toggle = Path(app.outdir) / "_static" / "togglebutton.js"   # the dropdowns' buttons
    if toggle.exists():
        js = toggle.read_text(encoding="utf-8")
        toggle.write_text(js.replace("Toggle hidden content", CHROME["Toggle hidden content"]),
                          encoding="utf-8")
    copy = Path(app.outdir) / "_static" / "copybutton.js"
    if copy.exists() and "'ko':" not in (js := copy.read_text(encoding="utf-8")):
        copy.write_text(js.replace(*COPYBUTTON, 1), encoding="utf-8")
    script = Path(app.outdir) / "_static" / "translations.js"
    if script.exists():
        js = script.read_text(encoding="utf-8")
        for before, after in SCRIPT:
            js = js.replace(before, after)
        script.write_text(js, encoding="utf-8")


def setup(app):
    languages["ko"] = SearchKorean
    # before Sphinx's own collectors (priority 500) read the sections' ids for the tables of contents
    app.connect("doctree-read", _anchors, priority=400)
    app.connect("build-finished", _translate_chrome)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
