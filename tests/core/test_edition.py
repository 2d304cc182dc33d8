"""kernels/edition.py: which edition a process shows, text and figures in both languages (what
``translate sync`` makes of them: tests/book/test_korean.py); the Korean build's extension
(book/_ext/korean.py): anchors and search."""

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from kernels import edition
from kernels.edition import Text
from kernels.tables import Table
from support import ROOT


def _korean():
    """book/_ext/korean.py (needs Sphinx: the book's own stack, not the GPU machine's)."""
    pytest.importorskip("docutils")
    pytest.importorskip("sphinx")
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import korean
    return korean


def test_the_edition_comes_from_the_variable_then_the_folder(monkeypatch, tmp_path):
    monkeypatch.delenv(edition.ENV, raising=False)
    (tmp_path / "ko" / "notebooks").mkdir(parents=True)
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")
    assert edition.language() == "en"
    monkeypatch.chdir(tmp_path / "ko" / "notebooks")
    assert edition.language() == "ko"
    with edition.speaking("en"):    # a figure's own edition, whatever the process shows
        assert edition.language() == "en" and Text("a tie", "동률") == "a tie"
    assert edition.language() == "ko"
    monkeypatch.setenv(edition.ENV, "en")
    assert edition.language() == "en"
    monkeypatch.setenv(edition.ENV, "fr")
    with pytest.raises(ValueError, match=edition.ENV):
        edition.language()


def test_text_is_the_current_editions_words_and_its_output_carries_both(monkeypatch):
    monkeypatch.setenv(edition.ENV, "ko")
    t = Text("a tie", "동률")
    assert t == "동률" and (t.en, t.ko) == ("a tie", "동률")
    joined = Text(", ", ", ").join([t, "bulk"]) + "."
    assert (joined.en, joined.ko) == ("a tie, bulk.", "동률, bulk.")
    with pytest.raises(TypeError, match="two texts"):
        Text("a", None)
    monkeypatch.setenv(edition.ENV, "en")
    data, meta = Text("faster", "빠릅니다")._repr_mimebundle_()
    assert data == {"text/plain": "faster"}
    assert meta[edition.KEY]["editions"]["ko"] == {"text/plain": "빠릅니다"}


@pytest.mark.parametrize("value, en, ko", [
    (edition.times(4.21, 1), "4.2x", "4.2배"), (edition.millions(94_480_000), "94.5M", "9,450만"),
    (edition.millions(162_340_000), "162.3M", "1억 6,230만"), (edition.millions(1e8), "100.0M", "1억")])
def test_numbers_are_written_each_editions_way(value, en, ko):
    assert (value.en, value.ko) == (en, ko)


def test_a_table_shows_each_language_aligned_in_columns(monkeypatch):
    monkeypatch.setenv(edition.ENV, "en")
    t = Table(Text("Title", "제목"), ["", Text("median µs", "중앙값 µs")],
              [[Text("copy", "복사"), "1.0"], ["bulk", "12.5"], ["sm_90", "4135"]])
    data, meta = t._repr_mimebundle_()
    ko = meta[edition.KEY]["editions"]["ko"]
    assert data["text/plain"].splitlines()[0] == "Title" and "제목" in ko["text/plain"]
    lines = ko["text/plain"].splitlines()[1:]
    assert len({edition.columns(x) for x in lines}) == 1, lines     # aligned
    assert "<caption>제목</caption>" in ko["text/html"]
    assert "4135" in data["text/plain"] and ">4,135<" in ko["text/html"]   # Korean groups digits
    plain = Table("", ["a"], [["1"]])._repr_mimebundle_()
    assert set(plain) == {"text/plain", "text/html"}                # no editions: English only
    assert Table("", ["a"], [["1280 ns"]])._repr_mimebundle_()[1]   # 1,280 ns in Korean


def test_a_figure_is_drawn_in_each_language(monkeypatch):
    """Its output shows the English drawing and carries the Korean one (not the English again),
    each with its alt text."""
    import IPython.display
    from kernels.teach import plots
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda data, raw, metadata: shown.append((data, metadata)))
    plots.draw_tiles(n=80, tile=32, k=3)._ipython_display_()
    (data, meta), = shown
    ko = meta[edition.KEY]["editions"]["ko"]
    assert ko["image/png"] != data["image/png"] and "en" not in meta[edition.KEY]["editions"]
    assert meta["image/png"]["alt"] == data["text/plain"] and "80 floats" in data["text/plain"]
    assert "벡터" in ko["text/plain"]


def test_the_korean_figures_draw_every_glyph(monkeypatch, caplog):
    """No box for a missing glyph (matplotlib logs it): mathtext, which has no fallback font,
    never meets Hangul; and no text runs past the figure's edge (a Hangul title wraps by
    columns)."""
    import matplotlib
    from matplotlib.text import Text as Label
    from kernels.measure import recorded
    from kernels.teach import charts, figure, plots
    from kernels.teach.page import provenance
    monkeypatch.setenv(edition.ENV, "ko")
    result, roof = recorded.load(), recorded.load("h200_roofline")
    label = provenance(result["provenance"])
    for fig in (charts.plot_bandwidth(result, label=label), charts.plot_stage_sweep(result, label=label),
                charts.plot_roofline(roof, label=provenance(roof["provenance"])),
                plots.draw_tiles()):
        fig.png(dpi=50)
        with matplotlib.rc_context(figure.PAGE_RC):
            fig.draw_without_rendering()   # laid out as on the page
        ticks = {id(t) for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels()}
        cut = [t.get_text() for t in fig.findobj(Label) if t.get_visible() and t.get_text()
               and id(t) not in ticks and t.get_window_extent().x1 > fig.bbox.x1 + 1]
        assert not cut, cut
    said = [r.getMessage() for r in caplog.records]
    assert not [m for m in said if "glyph" in m or "findfont" in m]


def test_the_figures_font_has_every_hangul_syllable_they_draw():
    """Every syllable of the modules that draw them (the notebooks' cells are in the Korean
    notebooks, which tests/book/test_korean.py checks against the same font)."""
    from fontTools.ttLib import TTFont
    from kernels.teach import charts, figure, page, plots, schedule
    cmap = TTFont(figure.FONT).getBestCmap()
    used = {c for m in (charts, page, plots, schedule) for c in Path(m.__file__).read_text(encoding="utf-8")
            if "가" <= c <= "힣"}
    assert used and not sorted(c for c in used if ord(c) not in cmap)


def test_korean_search_strips_particles_the_same_in_python_and_javascript(tmp_path):
    words = ["헤일로는", "헤일로가", "헤일로", "타일마다", "공유 메모리에서", "async는", "copies", "길이"]
    korean = _korean()
    search = korean.SearchKorean({})
    py = [search.stem(w) for w in words]
    assert py[0] == py[1] == py[2] and py[5] == "async"
    node = shutil.which("node")
    if not node:
        pytest.skip("node is not installed: the JavaScript stemmer is not run")
    script = tmp_path / "stem.js"
    script.write_text(search.js_stemmer_code + "\nconst s = new Stemmer();\n"
                      f"console.log(JSON.stringify({json.dumps(words)}.map(w => s.stemWord(w))));\n",
                      encoding="utf-8")
    js = json.loads(subprocess.run([node, str(script)], capture_output=True, text=True,
                                   timeout=60, check=True).stdout)
    assert js == py


def test_korean_headings_get_anchors_from_their_words():
    korean = _korean()
    assert korean.slug("타일로 나눈 벡터") == "타일로-나눈-벡터"
    assert korean.slug("Exercise 1: 비동기 복사") == "exercise-1-비동기-복사"


def test_sizes_and_dates_as_sentences_write_them():
    assert edition.power_of_two(np.int64(2**26)) == "2²⁶"
    assert edition.power_of_two(1000003) == "1,000,003"
    date = edition.day("2026-12-04T21:07:00+00:00")
    assert (date.en, date.ko) == ("2026-12-04", "2026년 12월 4일")


def test_korean_lines_wrap_at_their_width_in_columns():
    line = "- " + "헤일로 셀은 이웃 타일에서 복사합니다 " * 6
    for out in edition.wrap(line, 40, "  "):
        assert edition.columns(out) <= 40, out
    assert edition.wrap("블록: 8.77\u00a0µs에 모두 끝남", 12)[1] == "8.77\u00a0µs에"
    english = "- K = 1 in the same configuration (tile 1024, 128 threads, one block per tile)"
    assert edition.wrap(english, 40, "  ") == textwrap.wrap(english, 40, subsequent_indent="  ",
                                                            break_long_words=False,
                                                            break_on_hyphens=False)
