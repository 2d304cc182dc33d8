"""The sentences and tables that kernels.measure.recorded computes for notebooks 04 and 05, in
both editions: each is a :class:`~kernels.edition.Text` whose Korean is Korean (no run
of English prose, the style's spacing), carries the English's numbers, and whose English is what
the English notebooks show."""

import json
import re
from collections import Counter

import pytest

from kernels import edition, variants as V
from kernels.edition import Text
from kernels.measure import nsight, recorded
from kernels.tables import Table
from support import ROOT

N = 2**26

RESULT, ROOF = recorded.load(), recorded.load("h200_roofline")
PROFILE = nsight.summary()


# name -> what the function returns (called under each language: a Text is made in both at once)
CASES = {
    "table": lambda: recorded.table(RESULT, N, 5),
    "stage_table": lambda: recorded.stage_table(RESULT),
    "roofline_table": lambda: recorded.roofline_table(ROOF, N),
    "ncu_table": lambda: nsight.table(PROFILE),
    "provenance": lambda: recorded.provenance(RESULT["provenance"]),
    "configurations": lambda: recorded.configurations(RESULT),
    "configurations, live": lambda: recorded.configurations(RESULT, live=True),
    "schedule_words": lambda: [recorded.schedule_words(True), recorded.schedule_words(False)],
}


def _texts(value, lang):
    """``value`` (a Text, a list of them, a Table) as one text in ``lang``."""
    if isinstance(value, Table):
        return str(value.in_(lang))
    if isinstance(value, (list, tuple)):
        return "\n".join(_texts(v, lang) for v in value)
    return edition.of(value, lang)


# Names that stay as they are in Korean prose: variants, peers, the copy, code and metrics.
_KEPT = sorted({*V.NAMES, "copy", "empty", "cupyx.ndimage.correlate1d", "torch.conv1d",
                "cp.async", "sm__throughput", "long scoreboard",
                "smem", "float4", "float", "max", "CuPy", "NVIDIA", "Tesla"}, key=len, reverse=True)
_WORD = re.compile(r"\b[A-Za-z][a-z]{2,}\b", re.ASCII)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_MAN = re.compile(r"(\d+)억(?: ([\d,]+)만)?|([\d,]+)만")


def _in_millions(ko: str) -> str:
    """Korean counts in 만 and 억 as the English writes them, in millions (9,450만 -> 94.5)."""
    def millions(m):
        man = int(m[1] or 0) * 10_000 + int((m[2] or m[3] or "0").replace(",", ""))
        return f"{man / 100:.1f}"
    return _MAN.sub(millions, ko)


@pytest.mark.parametrize("name", CASES)
def test_the_korean_is_korean_with_the_englishs_numbers(name, monkeypatch):
    """(a) Both languages, the Korean with no English word but the names it keeps (and a
    configuration's key=value pairs), the English with no Hangul; (b) the same numbers."""
    monkeypatch.setenv(edition.ENV, "ko")
    value = CASES[name]()
    for t in value if isinstance(value, list) else [value]:
        assert isinstance(t, (Text, Table)), (name, type(t), t)
    ko, en = _texts(value, "ko"), _texts(value, "en")
    assert re.search(r"[가-힣]", ko) and not re.search(r"[가-힣]", en), (ko, en)
    rest = re.sub(r"\b\w+=\w+\b", " ", ko)
    for kept in _KEPT:
        rest = rest.replace(kept, " ")
    assert not _WORD.findall(rest), (name, _WORD.findall(rest))
    # the Korean style: units and counters attach to the number, ratios are 배, no semicolons
    assert not re.search(r"\d\s+(%|배|개|바이트|번)", ko), ko
    assert not re.search(r"\d(\.\d+)?x\b", ko), ko
    assert ";" not in ko, ko
    # the English spells "one stage" where the Korean counts 스테이지 1개 beside 스테이지 2개
    assert Counter(_NUMBER.findall(re.sub(r"(?<=\d),(?=\d{3})", "", _in_millions(ko)))) == Counter(
        _NUMBER.findall(re.sub(r"\bone stage(?= \d)", "1 stage", en))), (name, ko, en)


def _stored(notebook: str, needle: str) -> str:
    """The text of the outputs of the English notebook's code cell whose source holds
    ``needle``."""
    nb = json.loads((ROOT / "notebooks" / notebook).read_text())
    cell, = [c for c in nb["cells"] if c["cell_type"] == "code" and needle in "".join(c["source"])]
    return "\n".join("".join(o.get("text", "")) or "".join(o.get("data", {}).get("text/plain", ""))
                     for o in cell.get("outputs", []))


NB04, NB05, NB06 = ("04_pipelines_and_bandwidth.ipynb", "05_warp_specialization_and_the_bound.ipynb",
                    "06_measuring.ipynb")
SHOWN = [   # (notebook, a snippet of its cell, what the cell shows)
    (NB04, "recorded.configurations(result)",
     lambda: [recorded.provenance(RESULT["provenance"]), recorded.configurations(RESULT)]),
    (NB04, "recorded.table(result, n=2**26, k=5)", lambda: recorded.table(RESULT, N, 5)),
    (NB04, "recorded.stage_table(result)", lambda: recorded.stage_table(RESULT)),
    (NB05, "roof_source = ", lambda: recorded.provenance(ROOF["provenance"])),
    (NB05, "recorded.roofline_table(roof", lambda: recorded.roofline_table(ROOF, N)),
    (NB06, "nsight.table(prof)", lambda: nsight.table(PROFILE)),
]


@pytest.mark.parametrize("notebook, needle, shown", SHOWN, ids=[s[1] for s in SHOWN])
def test_the_english_is_what_the_english_notebook_shows(notebook, needle, shown, monkeypatch):
    """(c) the English words are each in the stored output of their cell (the recordings'
    numbers; the live sweep's note is the H200 run's, which agreed)."""
    monkeypatch.setenv(edition.ENV, "en")
    stored = _stored(notebook, needle)
    values = shown()
    for v in values if isinstance(values, list) else [values]:
        assert _texts(v, "en").strip() in stored, (needle, _texts(v, "en"))
