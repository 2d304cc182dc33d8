"""The sentences and tables that kernels.measure.recorded computes for notebooks 04 and 05, in
both editions (issue #24): each is a :class:`~kernels.edition.Text` whose Korean is Korean (no run
of English prose, the style's spacing), carries the English's numbers, and whose English is what
the English notebooks show."""

import copy
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from kernels import edition, variants as V
from kernels.edition import Text
from kernels.measure import recorded
from kernels.tables import Table

ROOT = Path(__file__).resolve().parents[1]
N = 2**26

RESULT, ROOF = recorded.load(), recorded.load("h200_roofline")
PROFILE, K31 = recorded.ncu_summary(), recorded.ncu_summary("h200_ncu_2e26_k31")


def _rigged():
    """Recordings that take the other branches: a peer faster than the best kernel, a
    persistent tuned configuration, a live sweep on which vec4 is slow, a ring that does not
    tie."""
    peer = copy.deepcopy(RESULT)
    for r in peer["rows"]:
        if r["name"] == "torch.conv1d" and r["n"] == N and r["k"] == 5:
            r["median_us"] = 68.8
    c = RESULT["configs"]["pipelined"]
    persistent = dict(RESULT, configs={"pipelined": dict(c, persistent=True, stages=3)})
    slow = copy.deepcopy(RESULT)
    slow["provenance"]["device"] = "Tesla T4"
    for r in slow["rows"]:
        if r["name"] == "vec4":
            r["median_us"] *= 3
            r["q1_us"] *= 3
            r["q3_us"] *= 3
    ring = copy.deepcopy(ROOF)
    for r in ring["rows"]:
        if r["name"] == "bulk" and r["n"] == N and r["k"] == 5:
            for t in r["tried"]:
                if t["config"].get("persistent") and (t["config"].get("stages") or 1) == 2:
                    t.update(median_us=100.0, q1_us=99.9, q3_us=100.1)
    return peer, persistent, slow, ring


PEER, PERSISTENT, SLOW, RING = _rigged()

# name -> what the function returns (called under each language: a Text is made in both at once)
CASES = {
    "table": lambda: recorded.table(RESULT, N, 5),
    "stage_summary": lambda: recorded.stage_summary(RESULT),
    "stage_table": lambda: recorded.stage_table(RESULT),
    "reading": lambda: recorded.reading(RESULT),
    "reading, a peer faster": lambda: recorded.reading(PEER),
    "what_won": lambda: recorded.what_won(RESULT),
    "what_won, persistent": lambda: recorded.what_won(PERSISTENT),
    "ncu_reading": lambda: recorded.ncu_reading(PROFILE),
    "verdicts, each tuned": lambda: [v.sentence() for v in recorded.verdicts(ROOF, N).values()],
    "verdicts, matched": lambda: [v.sentence() for v in
                                  recorded.verdicts(ROOF, N, matched=True).values()],
    "matched_reading": lambda: recorded.matched_reading(ROOF, N),
    "roofline_table": lambda: recorded.roofline_table(ROOF, N),
    "control_reading": lambda: recorded.control_reading(K31),
    "control_reading, registers": lambda: recorded.control_reading(K31, rec=ROOF),
    "lessons": lambda: recorded.lessons(RESULT, ROOF),
    "ring_reading": lambda: recorded.ring_reading(ROOF, N),
    "ring_reading, no tie": lambda: recorded.ring_reading(RING, N, ks=(5,)),
    "tile_effect": lambda: recorded.tile_effect(ROOF),
    "ncu_table": lambda: recorded.ncu_table(PROFILE),
    "live_note, agrees": lambda: recorded.live_note(RESULT, RESULT),
    "live_note, differs": lambda: recorded.live_note(SLOW, RESULT),
    "live_note, no GPU": lambda: recorded.live_note(None, RESULT),
    "provenance": lambda: recorded.provenance(RESULT["provenance"]),
    "configurations": lambda: recorded.configurations(RESULT),
    "configurations, live": lambda: recorded.configurations(RESULT, live=True),
    "launch_reading": lambda: recorded.launch_reading(ROOF),
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
                "cp.async", "sm__throughput", "tile_effect", "ring_reading", "long scoreboard",
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


def _without_names(ko: str) -> str:
    """A Korean text without the names it keeps (and a configuration's key=value pairs)."""
    rest = re.sub(r"\b\w+=\w+\b", " ", ko)
    for name in _KEPT:
        rest = rest.replace(name, " ")
    return rest


def _english_left(ko: str) -> list[str]:
    """The English words of a Korean text once the names it keeps are taken out."""
    return _WORD.findall(_without_names(ko))


@pytest.mark.parametrize("name", CASES)
def test_the_korean_is_korean_with_the_englishs_numbers(name, monkeypatch):
    monkeypatch.setenv(edition.ENV, "ko")
    value = CASES[name]()
    texts = value if isinstance(value, (list, tuple)) else [value]
    for t in texts:
        assert isinstance(t, (Text, Table)), (name, type(t), t)
    ko, en = _texts(value, "ko"), _texts(value, "en")
    # (a) the current edition's words are the Korean; no run of English prose in them
    if not isinstance(value, (list, tuple, Table)):
        assert str(value) == ko
    assert re.search(r"[가-힣]", ko), ko
    assert not re.search(r"\b[a-z]{2,}(?:[ ,]+[a-z]{2,}){2,}\b", _without_names(ko), re.ASCII), ko
    assert _english_left(ko) == [], (name, _english_left(ko))
    # the Korean style: units and counters attach to the number, ratios are 배, no semicolons
    assert not re.search(r"\d\s+(%|배|개|바이트|번)", ko), ko
    assert not re.search(r"\d(\.\d+)?x\b", ko), ko
    assert ";" not in ko, ko
    # (b) the same numbers as the English (which spells "one stage", where the Korean counts
    # 스테이지 1개 beside 스테이지 2개)
    assert Counter(_NUMBER.findall(_in_millions(ko))) == Counter(
        _NUMBER.findall(re.sub(r"\bone stage(?= \d)", "1 stage", en))), (name, ko, en)


@pytest.mark.parametrize("name", CASES)
def test_the_english_edition_shows_the_english(name, monkeypatch):
    monkeypatch.setenv(edition.ENV, "en")
    value = CASES[name]()
    if isinstance(value, Table):
        assert str(value) == str(value.in_("en"))
    else:
        for t in value if isinstance(value, (list, tuple)) else [value]:
            assert str(t) == t.en and not re.search(r"[가-힣]", t.en)


def _stored(notebook: str, needle: str) -> str:
    """The text of the outputs of the English notebook's code cell whose source holds
    ``needle``."""
    nb = json.loads((ROOT / "notebooks" / notebook).read_text())
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and needle in "".join(c["source"])]
    assert len(cells) == 1, (notebook, needle)
    out = []
    for o in cells[0].get("outputs", []):
        out.append("".join(o.get("text", "")) or "".join(o.get("data", {}).get("text/plain", "")))
    return "\n".join(out)


NB04, NB05 = "04_pipelines_and_bandwidth.ipynb", "05_warp_specialization_and_the_bound.ipynb"
SHOWN = [   # (notebook, a snippet of its cell, what the cell shows)
    (NB04, "recorded.configurations(result)",
     lambda: [recorded.provenance(RESULT["provenance"]), recorded.configurations(RESULT)]),
    (NB04, "recorded.table(result, n=2**26, k=5)", lambda: recorded.table(RESULT, N, 5)),
    (NB04, "recorded.reading(result", lambda: recorded.for_page(recorded.reading(RESULT))),
    (NB04, "recorded.live_note(live, result)", lambda: recorded.for_page(
        recorded.live_note(RESULT, RESULT))),
    (NB04, "recorded.stage_summary(result)[0]", lambda: [
        recorded.for_page(recorded.stage_summary(RESULT)[0]), recorded.stage_table(RESULT),
        recorded.for_page(recorded.what_won(RESULT))]),
    (NB05, "roof_source = ", lambda: recorded.provenance(ROOF["provenance"])),
    (NB05, "recorded.matched_reading(roof", lambda: [
        recorded.roofline_table(ROOF, N), recorded.for_page(recorded.matched_reading(ROOF, N))]),
    (NB05, "recorded.ring_reading(roof", lambda: recorded.for_page(
        recorded.ring_reading(ROOF, N, ks=(5, 31)))),
    (NB05, "recorded.ncu_reading(prof)", lambda: [
        recorded.ncu_table(PROFILE), recorded.for_page(recorded.ncu_reading(PROFILE)),
        recorded.for_page(recorded.tile_effect(ROOF))]),
    (NB05, "recorded.control_reading(k31", lambda: recorded.for_page(
        recorded.control_reading(K31, rec=ROOF))),
    (NB05, "recorded.launch_reading(roof)", lambda: recorded.launch_reading(ROOF)),
    (NB05, "recorded.lessons(result, roof)", lambda: recorded.for_page(
        recorded.lessons(RESULT, ROOF))),
]


@pytest.mark.parametrize("notebook, needle, shown", SHOWN, ids=[s[1] for s in SHOWN])
def test_the_english_is_what_the_english_notebook_shows(notebook, needle, shown, monkeypatch):
    """(c) the English words are unchanged: each is in the stored output of its cell (the
    recordings' numbers; the live sweep's note is the H200 run's, which agreed)."""
    monkeypatch.setenv(edition.ENV, "en")
    stored = _stored(notebook, needle)
    values = shown()
    for v in values if isinstance(values, list) else [values]:
        assert _texts(v, "en").strip() in stored, (needle, _texts(v, "en"))


def test_korean_lines_for_the_page_fit_the_column(monkeypatch):
    monkeypatch.setenv(edition.ENV, "ko")
    for lines in (recorded.lessons(RESULT, ROOF), recorded.control_reading(K31, rec=ROOF),
                  recorded.matched_reading(ROOF, N), recorded.ncu_reading(PROFILE)):
        page = recorded.for_page(lines)
        assert isinstance(page, Text)
        assert all(edition.columns(x) <= recorded.PAGE_CHARS for x in page.ko.splitlines())
        assert page.en == recorded.for_page([t.en for t in lines])


def test_lists_of_taps_in_korean_have_no_and(monkeypatch):
    monkeypatch.setenv(edition.ENV, "ko")
    said = recorded.verdict_summary(ROOF, N)
    assert (said["sync_ks"].en, said["sync_ks"].ko) == ("3, 5 and 9", "3, 5, 9")
    assert (said["tie_ks"].en, said["tie_ks"].ko) == ("1 and 17", "1, 17")
    assert (said["sync_range"].en, said["sync_range"].ko) == ("1.05-1.06x", "1.05~1.06배")
    assert "K = 3, 5, 9에서는" in recorded.lessons(RESULT, ROOF)[1]


@pytest.mark.parametrize("word, pair, expected", [
    ("bulk", ("은", "는"), "bulk는"), ("puzzle28", ("은", "는"), "puzzle28은"),
    ("130.7]", ("이", "가"), "130.7]이"), ("137.8]", ("이", "가"), "137.8]이"),
    ("129.9]", ("이", "가"), "129.9]가"), ("1024", ("이", "가"), "1024가"),
    ("bulk", ("과", "와"), "bulk와"), ("타일", ("은", "는"), "타일은"), ("스레드", ("은", "는"), "스레드는"),
])
def test_particles_follow_how_a_word_is_read(word, pair, expected):
    assert recorded._josa(word, *pair) == expected


def test_a_particle_after_a_parenthesis_goes_with_the_word_before_it():
    """bulk(pipelined와 동률)가: the particle is bulk's, read past what the brackets add."""
    assert recorded._josa("bulk(pipelined와 동률)", "이", "가", "bulk") == "bulk(pipelined와 동률)가"
    assert recorded._josa("puzzle28(bulk와 동률)", "이", "가", "puzzle28") == "puzzle28(bulk와 동률)이"
