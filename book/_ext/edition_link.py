"""Sphinx extension: a link, at the top of every page, to the same page in the other edition.

The English book is built from the repository root into _build/html, the Korean one from ko/
into _build/html/ko (Makefile): each edition's sources sit where its HTML does, relative to the
other's, so one relative path names both. In _config.yml (sphinx: config:)::

    edition_link: {path: ko, label: "한국어", lang: ko}          # the English edition
    edition_link: {path: "..", label: "English", lang: en}      # the Korean edition (ko/_config.yml)

A page is linked to its namesake when the other edition's _toc.yml lists it, else to the other
edition's first page (a page only one edition has). The link is static HTML: a
paragraph at the top of the article, and a <link rel="alternate" hreflang> in the head.
"""

from html import escape
from pathlib import Path


def _toc_pages(toc_file: Path) -> list[str]:
    import yaml
    toc = yaml.safe_load(toc_file.read_text(encoding="utf-8"))
    pages = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                pages.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))
    walk(toc.get("chapters"))
    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    return pages


def _other_pages(app):
    if not hasattr(app, "_edition_link_pages"):
        toc = Path(app.srcdir) / app.config.edition_link["path"] / "_toc.yml"
        app._edition_link_pages = _toc_pages(toc)
    return app._edition_link_pages


def target(app, pagename: str) -> str:
    """The other edition's page for ``pagename``, as a URL relative to ``pagename``'s."""
    pages = _other_pages(app)
    other = pagename if pagename in pages else pages[0]
    up = "../" * pagename.count("/")
    return f"{up}{app.config.edition_link['path'].rstrip('/')}/{other}.html"


def add_link(app, pagename, templatename, context, doctree):
    conf = app.config.edition_link
    if not conf:
        return
    href = escape(target(app, pagename), quote=True)
    lang = escape(conf["lang"], quote=True)
    context["metatags"] = context.get("metatags", "") + \
        f'\n<link rel="alternate" hreflang="{lang}" href="{href}" />'
    if doctree is not None and "body" in context:
        context["body"] = (
            f'<p class="edition-link" style="text-align: right; font-size: 0.9em; margin: 0">'
            f'<a class="edition-link reference external" href="{href}" hreflang="{lang}" lang="{lang}">'
            f'{escape(conf["label"])}</a></p>\n' + context["body"])


def setup(app):
    app.add_config_value("edition_link", {}, "html")
    app.connect("html-page-context", add_link)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
