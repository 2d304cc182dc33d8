"""How a figure sits on the book's page. Every figure is as wide as the book's text column
(:data:`PAGE_WIDTH_IN`) and is shown as a PNG of :data:`PAGE_DPI` pixels per inch at half its
pixel width, with no text smaller than :data:`MIN_FONT_PT`; the PNG's tEXt chunk ``min-text-px``
holds its smallest text in image pixels (tests/book/test_reader_view.py checks it as shown). The
background is opaque white: in the dark theme the figures sit on a white card.

A figure is drawn in each edition's language, its Hangul from Book Hangul (``fonts/``, a subset
of NanumGothic under the OFL), which matplotlib falls back to for the glyphs DejaVu Sans lacks.
Shown in a notebook, it carries the other edition's PNG in its output's metadata, where
``translate sync`` finds it for the Korean page."""

from __future__ import annotations

import base64
import functools
import io
import textwrap
from pathlib import Path

import matplotlib as mpl
import matplotlib.ticker  # noqa: F401  (mpl.ticker)
from matplotlib.figure import Figure
from matplotlib import text as mtext

from ..edition import KEY, LANGUAGES, columns, language, of, speaking, wrap
from ..tables import grouped

PAGE_WIDTH_IN = 6.88   # the text column: 688 CSS px
CSS_PX_PER_IN = 100    # the figure's inch on the page
PAGE_DPI = 200         # PNG pixels per inch: twice the page's, shown at half size
MIN_FONT_PT = 11.5     # the smallest text in any figure: 16 CSS px on the page, 8.3 on a phone
MATH_SHRINK = 0.7      # mathtext draws a superscript at 0.7 of its text's size
PAGE_RC = {"font.size": MIN_FONT_PT, "axes.titlesize": 12, "axes.labelsize": MIN_FONT_PT,
           "xtick.labelsize": MIN_FONT_PT, "ytick.labelsize": MIN_FONT_PT,
           "legend.fontsize": MIN_FONT_PT, "legend.title_fontsize": MIN_FONT_PT,
           "figure.titlesize": 12, "figure.facecolor": "white", "axes.facecolor": "white",
           "savefig.facecolor": "white", "savefig.transparent": False, "text.color": "black",
           "axes.labelcolor": "black", "xtick.color": "black", "ytick.color": "black",
           "font.family": ["DejaVu Sans", "Book Hangul"]}   # Hangul from the second
FONT = Path(__file__).with_name("fonts") / "BookHangul-Regular.ttf"
mpl.font_manager.fontManager.addfont(str(FONT))
TITLE_CHARS = 64       # a 12 pt title line across the axes, beside the y labels


def in_language(value) -> str:
    """A text (or a :class:`~kernels.edition.Text` made outside the figure) in the language of
    the figure being drawn."""
    return of(value, language())


def _text_px(t: mtext.Text, dpi: float) -> float:
    """A text's smallest glyphs in image pixels: its size, or its superscripts' (mathtext)."""
    s = t.get_text()
    shrink = MATH_SHRINK if s.count("$") >= 2 and ("^" in s or "_" in s) else 1.0
    return t.get_fontsize() * shrink * dpi / 72


class PageFigure(Figure):
    """A Figure for the book's page. In IPython it displays itself (``_ipython_display_`` comes
    before any formatter registered for Figures) as :meth:`png` at :data:`CSS_PX_PER_IN` per
    inch; ``editions(language)`` draws it again in another edition's language."""

    editions = None
    # what the figure shows, in words, for a reader who cannot see it (set by each function)
    alt = ""

    def min_text_px(self, dpi: float = PAGE_DPI) -> float:
        """The smallest visible text (ticks, legends, titles, labels, annotations), in pixels of
        the PNG at ``dpi``."""
        with mpl.rc_context(PAGE_RC):
            self.draw_without_rendering()   # lays out, makes the ticks' labels
        sizes = [_text_px(t, dpi) for t in self.findobj(mtext.Text)
                 if t.get_visible() and t.get_text().strip() and t.get_alpha() != 0]
        return round(min(sizes), 1) if sizes else 0.0

    def png(self, dpi: float = PAGE_DPI) -> bytes:
        """The figure as a PNG at ``dpi``, its whole canvas (no tight crop: the width is the
        page's), with the tEXt chunk ``min-text-px``."""
        smallest = self.min_text_px(dpi)
        buf = io.BytesIO()
        with mpl.rc_context(PAGE_RC):
            self.savefig(buf, format="png", dpi=dpi, facecolor="white",
                         metadata={"min-text-px": f"{smallest:g}"})
        return buf.getvalue()

    def _ipython_display_(self):
        from IPython.display import display

        def alt(fig, lang):   # Korean numbers with thousands separated, as in its tables
            return grouped(of(fig.alt, lang)) if lang == "ko" else of(fig.alt, lang)

        def shown(fig, lang):   # its words as the text: what a reader without the image gets
            return {"image/png": base64.b64encode(fig.png()).decode("ascii"),
                    "text/plain": alt(fig, lang) or repr(fig)}
        here = language()
        metadata = {"image/png": {"width": round(self.get_figwidth() * CSS_PX_PER_IN),
                                  "alt": alt(self, here)}}
        if self.editions is not None:   # the other editions' PNGs, for translate sync
            metadata[KEY] = {"editions": {lang: shown(self.editions(lang), lang)
                                          for lang in LANGUAGES if lang != here}}
        display(shown(self, here), raw=True, metadata=metadata)


def page_figure(height: float) -> PageFigure:
    """A figure as wide as the page and ``height`` inches tall, with constrained layout (which
    keeps legends and labels placed outside the axes inside the figure)."""
    return PageFigure(figsize=(PAGE_WIDTH_IN, height), layout="constrained", facecolor="white")


def on_page(draw):
    """Run a figure function with the page's fonts and colours (rcParams), in this edition's
    language; the figure it returns can draw itself again in another (``editions``)."""
    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        def drawn(lang):
            with speaking(lang), mpl.rc_context(PAGE_RC):
                return draw(*args, **kwargs)
        fig = drawn(language())
        fig.editions = drawn
        return fig
    return wrapper


def title(s: str, width: int = TITLE_CHARS) -> str:
    """``s`` in lines of ``width`` columns (a Hangul syllable takes two)."""
    return "\n".join(textwrap.wrap(s, width) if columns(s) == len(s) else wrap(s, width))


def log2_axis(ax, ticks, labels) -> None:
    """A base-2 log x axis with only ``ticks``, labelled ``labels``."""
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks, labels)
    ax.xaxis.set_minor_locator(mpl.ticker.NullLocator())
