"""kernels.teach.page.glue: what it stores is what the page shows, whatever the text."""

import pytest

from kernels.teach import page


@pytest.mark.parametrize("value", ["1.05x", "3, 5, 9", "135.9 µs", "'quoted'", "(1, 2)", "", "[x]"])
def test_the_page_shows_the_text_exactly(value, monkeypatch, capsys):
    from myst_nb.core.variables import format_plain_text
    shown = []
    monkeypatch.setattr("IPython.display.display",
                        lambda data, raw, metadata: shown.append((data, metadata)))
    page.glue(number=value)
    [(data, metadata)] = shown
    assert metadata == {"scrapbook": {"name": "number", "mime_prefix": page.PREFIX}}
    assert format_plain_text(data[page.PREFIX + "text/plain"], "") == value
    assert capsys.readouterr().out == f"number: {value}\n"


def test_the_book_run_prints_no_glue_lines(monkeypatch, capsys):
    monkeypatch.setattr("IPython.display.display", lambda data, raw, metadata: None)
    monkeypatch.setenv(page.PREVIEW_ENV, "1")
    page.glue(number="3")
    assert capsys.readouterr().out == ""


def test_the_korean_page_groups_the_thousands(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display",
                        lambda data, raw, metadata: shown.append(metadata))
    page.glue(show=False, gbps="4135")
    ko = shown[0]["async_copy_book"]["editions"]["ko"]
    assert ko[page.PREFIX + "text/plain"] == "'4,135'"
