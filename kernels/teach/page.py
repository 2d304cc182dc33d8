"""Numbers for the prose: a cell computes them, the sentence around it shows them; and where a
recording comes from (:func:`provenance`).

A markdown cell cannot run code, so a number in a sentence is either typed (and goes stale when
the recording changes) or glued: a code cell stores it under a name with :func:`glue`, and the
sentence names it with the role ``{glue:text}`name``` (myst-nb's glue; Jupyter Book puts the
value in its place when it builds the page). In Jupyter or Colab the role shows as written and
the cell that glues prints the same numbers with their names.
"""

from __future__ import annotations

import os

from ..edition import Text, bundle, of, show as say
from ..tables import grouped

PREFIX = "application/papermill.record/"   # where myst-nb looks for a glued value
# Set where a notebook runs as the book shows it (kernels.publish.notebooks execute, nbval):
# widgets show their default state, glue prints nothing.
PREVIEW_ENV = "ASYNC_BOOK_WIDGET_PREVIEW"


def glue(show: bool = True, **values: str) -> None:
    """Store each ``name=value`` (text, already formatted; a :class:`~kernels.edition.Text` in
    both editions' languages, which ``translate sync`` gives the Korean page) for the page's
    ``{glue:text}`name``` roles (the Korean page's numbers with thousands separated, as its
    tables have them); with ``show``, print them as ``name: value`` lines for a reader
    in Jupyter (not on the book's page, whose sentences show them: :data:`PREVIEW_ENV`)."""
    from IPython.display import display
    values = {name: Text(of(v, "en"), grouped(of(v, "ko")))
              if isinstance(v, Text) or grouped(str(v)) != str(v) else v
              for name, v in values.items()}
    for name, value in values.items():
        # the text's repr, quotes and all: myst-nb reads it back with ast.literal_eval, which
        # gives the text exactly (a bare "3, 5, 9" would come back as the tuple (3, 5, 9))
        def record(lang, value=value):
            return {PREFIX + "text/plain": repr(of(value, lang))}
        metadata = {"scrapbook": {"name": name, "mime_prefix": PREFIX}}
        if isinstance(value, Text):
            data, editions = bundle(record)
            metadata.update(editions)
        else:
            data = record("en")
        display(data, raw=True, metadata=metadata)
    if show and os.environ.get(PREVIEW_ENV) != "1":
        lines = [Text(f"{name}: {value.en}", f"{name}: {value.ko}") if isinstance(value, Text)
                 else f"{name}: {value}" for name, value in values.items()]
        say(Text("\n", "\n").join(lines) if any(isinstance(v, Text) for v in lines)
            else "\n".join(lines))


def provenance(p: dict, live: bool = False) -> Text:
    """Where and when a recording was made (its ``provenance``), a line for the page and a
    figure's label; ``live``: measured now, on this GPU."""
    if live:
        return Text(f"Measured live on {p['device']}.", f"이 노트북을 실행하며 {p['device']}에서 잰 값.")
    return Text(f"RECORDED on {p['device']} (driver {p['driver']}, CuPy {p['cupy']}, "
                f"{p['date'][:10]}).",
                f"기록: {p['device']}(드라이버 {p['driver']}, CuPy {p['cupy']}, {p['date'][:10]}).")
