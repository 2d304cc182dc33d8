"""The edition a notebook runs in, and text that a cell shows in every edition's language.

The book has two editions, English (``notebooks/``) and Korean (``ko/notebooks/``), with the same
code cells. A sentence that a cell computes from a measurement (a verdict, a reading of a
profile, a lesson) is made in both languages at once, from the same numbers::

    Text(f"staged_sync is {r:.2f}x faster", f"staged_sync가 {r:.2f}배 빠릅니다")

A :class:`Text` is a ``str``: the current edition's words (:func:`language`), so that it prints,
joins and compares like any text. Shown by a notebook (:func:`show`, or as a cell's last value)
it displays those words and stores both editions' in the output's metadata (:data:`KEY`):
``python -m kernels.publish.translate sync`` writes the Korean notebook's outputs from them,
so the Korean page shows the English GPU run's own numbers in Korean, none typed by hand.

Which edition: inside ``with speaking(lang)`` (a figure drawn for each edition in turn), ``lang``;
else ``$ASYNC_BOOK_LANGUAGE`` (``en`` or ``ko``) if set; on Colab, the notebook's own
metadata (the Korean notebooks carry ``translation.language``); else the folder the kernel runs
in (Jupyter, JupyterLab and nbval start it in the notebook's folder: ``ko/notebooks`` is Korean);
else English.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import sys
import textwrap
import unicodedata
from pathlib import Path

LANGUAGES = ("en", "ko")
KEY = "async_copy_book"          # an output's metadata: {"editions": {language: data bundle}}
ENV = "ASYNC_BOOK_LANGUAGE"
_colab: list = []                # the Colab notebook's language, asked once
_speaking: list = []             # the languages speaking() has set, innermost last


def _colab_language() -> str | None:
    if "google.colab" not in sys.modules:
        return None
    if not _colab:
        found = None
        try:   # the notebook's own JSON, as Colab's frontend holds it (5 s at most)
            from google.colab import _message
            nb = _message.blocking_request("get_ipynb", timeout_sec=5)["ipynb"]
            found = nb.get("metadata", {}).get("translation", {}).get("language")
        except Exception:      # an older Colab, no frontend: the folder decides
            found = None
        _colab.append(found if found in LANGUAGES else None)
    return _colab[0]


@contextlib.contextmanager
def speaking(lang: str):
    """Within this block, :func:`language` is ``lang``: a :class:`Text` built here is in it."""
    _speaking.append(lang)
    try:
        yield
    finally:
        _speaking.pop()


def language() -> str:
    """``"en"`` or ``"ko"``: the edition this process shows (see the module's docstring)."""
    if _speaking:
        return _speaking[-1]
    chosen = os.environ.get(ENV, "").strip()
    if chosen:
        if chosen not in LANGUAGES:
            raise ValueError(f"${ENV} must be one of {', '.join(LANGUAGES)}, got {chosen!r}")
        return chosen
    found = _colab_language()
    if found:
        return found
    parts = Path.cwd().parts
    for lang in LANGUAGES[1:]:
        if parts[-2:] == (lang, "notebooks"):
            return lang
    return "en"


PAGE_CHARS = 80   # a printed line that fits the book's text column (about 85 of its code font)


def columns(line: str) -> int:
    """How many columns ``line`` takes in a monospaced font: Hangul and other wide characters
    take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def wrap(line: str, width: int, indent: str = "") -> list[str]:
    """``line`` broken between words into lines of at most ``width`` columns (a wider word keeps
    its own line), never at a no-break space; lines after the first start with ``indent``. Text
    without wide characters is wrapped as :func:`textwrap.wrap` does."""
    if columns(line) == len(line):
        return textwrap.wrap(line, width, subsequent_indent=indent, break_long_words=False,
                             break_on_hyphens=False) or [""]
    lead = line[:len(line) - len(line.lstrip())]
    out, current = [], lead
    for word in filter(None, line.split(" ")):   # str.split() would break at a no-break space
        candidate = current + (" " if current.strip() else "") + word
        if current.strip() and columns(candidate) > width:
            out.append(current)
            current = indent + word
        else:
            current = candidate
    return out + [current]


class Text(str):
    """A text in every edition's language; as a ``str``, the current edition's (:func:`language`).
    ``text.en`` and ``text.ko`` are the two; :meth:`map` applies a function to each; ``+`` and
    :meth:`join` keep both."""

    def __new__(cls, en: str, ko: str):
        if not isinstance(en, str) or not isinstance(ko, str):
            raise TypeError(f"Text needs two texts (English, Korean), got {type(en).__name__} "
                            f"and {type(ko).__name__}")
        lang = language()
        self = super().__new__(cls, ko if lang == "ko" else en)
        self.en, self.ko, self.lang = str(en), str(ko), lang
        return self

    def __reduce__(self):   # a copy shows the same words as the original
        return (_remade, (self.en, self.ko, self.lang))

    def in_(self, lang: str) -> str:
        return {"en": self.en, "ko": self.ko}[lang]

    def map(self, f) -> "Text":
        return Text(f(self.en), f(self.ko))

    def __add__(self, other):
        return Text(self.en + of(other, "en"), self.ko + of(other, "ko"))

    def __radd__(self, other):
        return Text(of(other, "en") + self.en, of(other, "ko") + self.ko)

    def join(self, parts) -> "Text":
        parts = list(parts)
        return Text(self.en.join(of(p, "en") for p in parts), self.ko.join(of(p, "ko") for p in parts))

    def _repr_mimebundle_(self, include=None, exclude=None):
        return bundle(lambda lang: {"text/plain": self.in_(lang)})


def _remade(en: str, ko: str, lang: str) -> Text:
    with speaking(lang):
        return Text(en, ko)


def english_list(names) -> str:
    """Names as an English sentence lists them: "a", "a and b", "a, b and c"."""
    names = [str(n) for n in names]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def listed(names) -> "Text":
    """Names (or numbers) as a sentence lists them in each language: "3, 5 and 9" / "3, 5, 9"."""
    names = [str(n) for n in names]
    return Text(english_list(names), ", ".join(names))


def times(x: float, digits: int = 2) -> Text:
    """A ratio as a sentence writes it: 1.18 -> "1.18x" in English, "1.18배" in Korean."""
    return Text(f"{x:.{digits}f}x", f"{x:.{digits}f}배")


def ratio_range(lo: float, hi: float) -> Text:
    """A range of ratios as a sentence writes it, "1.00-1.01x" ("1.00~1.01배"), or one value,
    "1.01x", where the two agree to two decimals."""
    a, b = f"{lo:.2f}", f"{hi:.2f}"
    return times(lo) if a == b else Text(f"{a}-{b}x", f"{a}~{b}배")


def millions(x: float) -> Text:
    """A count as a sentence writes it, to a tenth of a million: 41,020,000 -> "41.0M" in
    English, "4,100만" in Korean (and 162,340,000 -> "1억 6,230만")."""
    man = round(x / 1e5) * 10   # in units of 10^4 (만)
    eok, rest = divmod(man, 10_000)
    ko = " ".join(([f"{eok}억"] if eok else []) + ([f"{rest:,}만"] if rest or not eok else []))
    return Text(f"{x / 1e6:.1f}M", ko)


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_two(n: int) -> str:
    """A size as the figures and the prose's math write it: 67108864 -> "2²⁶" (any other size
    with its thousands separated: 1000003 -> "1,000,003")."""
    n = int(n)
    if n < 1 or n & (n - 1):
        return f"{n:,}"
    return "2" + str(n.bit_length() - 1).translate(SUPERSCRIPT)


def day(date: str) -> Text:
    """A recording's date (ISO, time and all) as a sentence writes it: "2026-12-04" in English,
    "2026년 12월 4일" in Korean."""
    d = datetime.date.fromisoformat(date[:10])
    return Text(d.isoformat(), f"{d.year}년 {d.month}월 {d.day}일")


def of(value, lang: str) -> str:
    """``value`` in ``lang``: a :class:`Text`'s own words in it, any other text as it is."""
    return value.in_(lang) if isinstance(value, Text) else str(value)


def both(value) -> bool:
    """Whether ``value`` (a text, or a list of them) has words in each language."""
    return isinstance(value, Text) or (isinstance(value, (list, tuple))
                                       and any(isinstance(v, Text) for v in value))


def bundle(render):
    """``(data, metadata)`` for IPython: ``render(language)`` (a MIME bundle) for the current
    edition, and every edition's under :data:`KEY`, which ``translate sync`` reads."""
    return render(language()), {KEY: {"editions": {lang: render(lang) for lang in LANGUAGES}}}


def figure_alt(nb) -> None:
    """Copy each figure's alt text (its output's ``image/png`` metadata ``alt``) into its cell's
    metadata, ``mystnb: image: alt``, the only place MyST-NB 1.x reads it (from an output's
    metadata it takes only width and height)."""
    for cell in nb.cells:
        alts = [o["metadata"]["image/png"]["alt"] for o in cell.get("outputs", [])
                if o.get("metadata", {}).get("image/png", {}).get("alt")]
        if alts:
            cell.metadata.setdefault("mystnb", {}).setdefault("image", {})["alt"] = " ".join(alts)


def show(*texts) -> None:
    """Show each of ``texts`` as a cell's output: in a notebook, a :class:`Text` (or anything with
    ``_repr_mimebundle_``) as display data that carries every edition's words; anything else,
    and everything outside a notebook, printed."""
    try:
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:
        shell = None
    for t in texts:
        if shell is None or not hasattr(t, "_repr_mimebundle_"):
            print(t)
            continue
        from IPython.display import display
        data, metadata = t._repr_mimebundle_()
        display(data, raw=True, metadata=metadata)
