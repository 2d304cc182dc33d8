"""The sentences and tables that chapters 04, 05 and 06 show of the recordings
(kernels.teach.bandwidth, bound, measuring and page), in both editions: each is a :class:`~kernels.edition.Text` whose Korean is Korean (no run
of English prose, the style's spacing), carries the English's numbers, and whose English is what
the English notebooks show."""

import copy
import json
import re
from collections import Counter

import pytest

from kernels import edition, variants as V
from kernels.edition import Text
from kernels.measure import nsight, recorded
from kernels.tables import Table
from kernels.teach import bandwidth, bound, measuring
from kernels.teach.page import provenance
from support import ROOT

N = 2**26

RESULT, ROOF = recorded.load(), recorded.load("h200_roofline")
PROFILE = nsight.summary()


# name -> what the function returns (called under each language: a Text is made in both at once)
CASES = {
    "table": lambda: bandwidth.table(RESULT, N, 5),
    "stage_table": lambda: bandwidth.stage_table(RESULT),
    "roofline_table": lambda: bound.roofline_table(ROOF, N),
    "ncu_table": lambda: measuring.table(PROFILE),
    "provenance": lambda: provenance(RESULT["provenance"]),
    "configurations": lambda: bandwidth.configurations(RESULT),
    "configurations, live": lambda: bandwidth.configurations(RESULT, live=True),
    "schedule_words": lambda: [bandwidth.schedule_words(True), bandwidth.schedule_words(False)],
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
    (NB04, "bandwidth.configurations(result)",
     lambda: [provenance(RESULT["provenance"]), bandwidth.configurations(RESULT)]),
    (NB04, "bandwidth.table(result, n=2**26, k=5)", lambda: bandwidth.table(RESULT, N, 5)),
    (NB04, "bandwidth.stage_table(result)", lambda: bandwidth.stage_table(RESULT)),
    (NB05, "roof_source = ", lambda: provenance(ROOF["provenance"])),
    (NB05, "bound.roofline_table(roof", lambda: bound.roofline_table(ROOF, N)),
    (NB06, "measuring.table(prof)", lambda: measuring.table(PROFILE)),
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


# --- the numbers the pages glue, and their tables -------------------------------------------

def test_lesson_numbers_and_which_kernels_tie_the_fastest():
    assert recorded.ties_fastest(ROOF, N, "vec4") == [1, 3, 5, 9]
    assert recorded.ties_fastest(ROOF, N, "staged_sync") == [1, 3, 5, 9, 17, 63]
    assert bound.lesson_numbers(ROOF, N) == {
        "vec4_up_to": "9", "sync_up_to": "17", "async_share": "0.55", "tie_k": "17",
        "tie_share": "0.30"}
    slow = copy.deepcopy(ROOF)   # vec4 no longer ties the fastest at K = 1: no prefix is left
    for r in slow["rows"]:
        if r["name"] == "vec4" and r["n"] == N and r["k"] == 1:
            r["median_us"] = r["q1_us"] = r["q3_us"] = 2 * r["median_us"]
    assert recorded.ties_fastest(slow, N, "vec4") == [3, 5, 9]
    with pytest.raises(ValueError, match="no K where vec4 and staged_sync tie"):
        bound.lesson_numbers(slow, N)


def test_the_verdict_numbers(monkeypatch):
    monkeypatch.setenv(edition.ENV, "en")
    assert bound.verdict_numbers(ROOF, N) == {
        "drift": "4%", "tie_ks": "1, 3, 5, 9, 17 and 63", "async_ks": "31",
        "first_async_k": "31", "async_k31": "8%"}


def test_the_limits_table_names_each_limit():
    assert str(bound.limits_table(nsight.limits(ROOF))).splitlines()[1].split() == [
        "K", "kernel", "time", "copy", "FMA", "instruction", "issue", "shared", "memory"]


def test_the_k5_profile_gives_two_time_ranges_and_the_instructions(monkeypatch):
    monkeypatch.setenv(edition.ENV, "en")
    got = measuring.profile_numbers(PROFILE)
    assert got == {"ncu5_sync": "127.8", "ncu5_async": "126.0-127.5", "inst5_sync": "41.0M",
                   "inst5_vec4": "41.4M", "inst5_bulk": "72.9M", "inst5_ws": "49.2M"}
    one = nsight.sync_vs_async(PROFILE, ["vec4"], ["bulk"])
    assert one["sync_us"][0] == one["sync_us"][1] and set(one["inst"]) == {"vec4", "bulk"}


def test_the_tables_show_as_html_tables_with_the_same_cells():
    for t in (bandwidth.table(RESULT), bandwidth.stage_table(RESULT), measuring.table(PROFILE)):
        assert isinstance(t, Table)
        page = t._repr_html_()
        assert page.count("<tr>") == 1 + len(t.rows)
        assert page.count('<th scope="row"') == len(t.rows)
        assert page.count('<th scope="col"') == len(t.headers)
        assert (f"<caption>{t.title}</caption>" in page) == bool(t.title)
    page = Table("a < b", ["name", "µs"], [["x & y", "1.5"], ["z", "12"]])._repr_html_()
    assert "<caption>a &lt; b</caption>" in page
    assert '<th scope="row" style="text-align: left">x &amp; y</th>' in page
    assert '<td style="text-align: right">12</td>' in page     # a column of numbers
    assert "<thead>" in page and "<tbody>" in page
    text = str(Table("", ["name", "µs"], [["x", "1.5"], ["zz", "12"]]))
    assert text == "name  µs\nx    1.5\nzz    12"                  # numbers right-aligned
