"""Sphinx extension: long inline code breaks at its natural joints.

The book names PTX instructions and C++ entities in running text and in tables:
``cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes``, ``cuda::memcpy_async``,
``copy_dram_to_sram_async``. Sphinx writes each as unbreakable (``span.pre``, white-space:
nowrap), so a table column is as wide as its longest name and a phone's column is narrower
than one name. This puts a <wbr> (a line-break opportunity that copies as nothing) after each
``.``, ``::`` and ``/`` that joins two parts of a name and before the ``(`` or ``[`` of a call
or subscript, in the inline code of every page (identifiers like ``commit_group`` stay whole);
book/_static/reader.css lets span.pre break there. Code blocks are left alone (they scroll).
"""

import re

_SPAN_PRE = re.compile(r'(<span class="pre">)([^<]*)(</span>)')
# after a joint, only where a name continues: "x.y", "a::b", "dir/file", but not "..." or a
# final "."; and before the "(" or "[" of a call or a subscript ("f(x)", "tile[256]")
_AFTER = re.compile(r"(?<=[\w)\]>])(\.|::|/)(?=[A-Za-z_])")
_BEFORE = re.compile(r"(?<=\w)(?=[(\[][^)\]])")


def _breakable(text):
    if len(text) < 12:      # short names never need to break
        return text
    return _BEFORE.sub("<wbr>", _AFTER.sub(lambda m: m.group(1) + "<wbr>", text))


def add_breaks(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if body and 'class="pre"' in body:
        context["body"] = _SPAN_PRE.sub(lambda m: m.group(1) + _breakable(m.group(2)) + m.group(3),
                                        body)


def setup(app):
    app.connect("html-page-context", add_breaks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
