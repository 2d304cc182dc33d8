"""A table that a cell shows: fixed-width text where text is read (``str``: a terminal, a test,
a ``python -m ...`` command line), an HTML ``<table>`` where a notebook displays it
(``_repr_html_``: Jupyter, Colab and the published page, where a wide table scrolls in its own
box instead of wrapping into a mess on a phone).

    Table("n = 2^26, K = 5", ["", "median µs", "GB/s"], [["copy", "133.8", "4013"], ...],
          widths=[28, 10, 8])

The cells are the text both forms show (formatted by the caller: the page and the terminal give
the same digits). A column of numbers is right-aligned in both (``align``: ``"<"`` or ``">"``
per column; by default ``">"`` where every non-empty cell of the column, below the header, is a
number); the first column names its row (``<th scope="row">``).
"""

from __future__ import annotations

import copy
import html
import re

from .edition import Text, both, bundle, columns, of


def _keep(value):
    """A cell's text: a :class:`~kernels.edition.Text` kept as it is (both languages), anything
    else as ``str``."""
    return value if isinstance(value, Text) else str(value)

_NUMBER = re.compile(r"[-+]?(\d[\d,]*\.?\d*|\.\d+)([eE][-+]?\d+)?[%*x]?")


def _is_number(cell: str) -> bool:
    return bool(_NUMBER.fullmatch(cell.strip()))


def grouped(cell: str) -> str:
    """A cell as the Korean edition writes its numbers, the thousands separated: 4135 → 4,135,
    1280 ns → 1,280 ns (not inside a name, a date, a power or a fraction: sm_90, 2026-12-06)."""
    return re.sub(r"(?<![\w.^,\-/:])\d{4,}(?![\w^\-/:])", lambda m: f"{int(m[0]):,}", cell)


class Table:
    """``title`` (a line above, the HTML ``<caption>``; "" for none), column ``headers``, ``rows``
    of cells, ``notes`` (lines below). Text form: each column padded to its width in ``widths``
    (default: its widest cell), aligned as ``align`` says, columns joined by ``sep``; ``strip``:
    drop the trailing spaces of each line."""

    def __init__(self, title: str, headers, rows, notes=(), *, widths=None, align=None,
                 sep: str = " ", strip: bool = False):
        self.title = _keep(title)
        self.headers = [_keep(h) for h in headers]
        self.rows = [[_keep(c) for c in row] for row in rows]
        self.notes = [_keep(n) for n in ([notes] if isinstance(notes, str) else notes)]
        count = len(self.headers)
        for i, row in enumerate(self.rows):
            if len(row) != count:
                raise ValueError(f"row {i} has {len(row)} cells for {count} columns: {row!r}")
        self._natural = [max(columns(c) for c in [h, *(r[j] for r in self.rows)])
                         for j, h in enumerate(self.headers)]
        if widths is None:
            widths = self._natural
        if align is None:
            align = ["<" if j == 0 or not any(r[j].strip() for r in self.rows)
                     or not all(_is_number(r[j]) for r in self.rows if r[j].strip()) else ">"
                     for j in range(count)]
        if len(widths) != count or len(align) != count or set(align) - {"<", ">"}:
            raise ValueError(f"widths and align need one entry per column ({count}), align "
                             f"'<' or '>': got {widths!r}, {align!r}")
        self.widths, self.align, self.sep, self.strip = list(widths), list(align), sep, strip

    def _line(self, cells) -> str:
        # padded to columns, not characters: a Hangul syllable takes two
        line = self.sep.join(f"{c:{a}{w - columns(c) + len(c)}}"
                             for c, a, w in zip(cells, self.align, self.widths))
        return line.rstrip() if self.strip else line

    def lines(self) -> list[str]:
        """The text form, one line each: the title (if any), the headers, the rows, the notes."""
        return ([self.title] if self.title else []) + [self._line(self.headers)] + [
            self._line(r) for r in self.rows] + self.notes

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def in_(self, lang: str) -> "Table":
        """This table with every :class:`~kernels.edition.Text` cell in ``lang``."""
        t = copy.copy(self)
        t.title = of(self.title, lang)
        t.headers = [of(h, lang) for h in self.headers]
        t.rows = [[of(c, lang) if lang == "en" else grouped(of(c, lang)) for c in row]
                  for row in self.rows]
        t.notes = [of(n, lang) for n in self.notes]
        natural = [max(columns(c) for c in [h, *(r[j] for r in t.rows)])
                   for j, h in enumerate(t.headers)]
        if self.widths == self._natural:     # widths of its own: each language's own widths
            t.widths = t._natural = natural
        elif lang != "en":                   # widths given for the English: wide enough here
            t.widths = [max(w, m) for w, m in zip(self.widths, natural)]
        return t

    def korean(self, title: str, words: dict) -> "Table":
        """This table with Korean words: ``title``, and for each header or cell that ``words``
        names (its English), the Korean that ``words`` gives it."""
        t = copy.copy(self)
        t.title = Text(self.title, title)
        t.headers = [Text(h, words[h]) if h in words else h for h in self.headers]
        t.rows = [[Text(c, words[c]) if c in words else c for c in row] for row in self.rows]
        return t

    def _repr_mimebundle_(self, include=None, exclude=None):
        """Where some of its text is in both editions' languages, both tables (for ``translate
        sync``); else the HTML and text forms."""
        if (not any(both(x) for x in [self.title, *self.headers, *self.rows, self.notes])
                and all(grouped(c) == c for row in self.rows for c in row)):
            return {"text/plain": str(self), "text/html": self._repr_html_()}
        return bundle(lambda lang: {"text/plain": str(self.in_(lang)),
                                    "text/html": self.in_(lang)._repr_html_()})

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        def cell(tag, text, j, scope):
            side = "right" if self.align[j] == ">" else "left"   # JupyterLab's own default: right
            return f'<{tag}{scope} style="text-align: {side}">{html.escape(text.strip())}</{tag}>'

        head = "".join(cell("th", h, j, ' scope="col"') for j, h in enumerate(self.headers))
        body = "".join("<tr>" + "".join(cell("th", c, 0, ' scope="row"') if j == 0 else
                                        cell("td", c, j, "") for j, c in enumerate(row)) + "</tr>\n"
                       for row in self.rows)
        caption = f"<caption>{html.escape(self.title)}</caption>\n" if self.title else ""
        notes = "".join(f"<p>{html.escape(n)}</p>\n" for n in self.notes if n.strip())
        return (f'<table class="book-table">\n{caption}<thead><tr>{head}</tr></thead>\n'
                f"<tbody>\n{body}</tbody>\n</table>\n{notes}")
