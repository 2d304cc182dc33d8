"""Sphinx extension: emit each <script> once per page.

sphinx-thebe 0.3.1 registers its configuration script on every read of the environment, and
Jupyter Book 1.x reads it twice, so every page declared `const THEBE_JS_URL` twice: a console
error ("Identifier 'THEBE_JS_URL' has already been declared") on every page. (The second copy
gets past Sphinx's own de-duplication because the registry hands the builder an inline script's
filename as "" and sphinx-thebe's direct call as None.)

Two things matter for doing this without losing scripts:

* it runs last (priority 999): other handlers of ``html-page-context`` add the page's own
  scripts there, e.g. sphinx.ext.mathjax (priority 500) adds MathJax to the pages that have
  math. An earlier de-duplication would run before them;
* it edits the page's script list in place. ``context["script_files"]`` is the builder's own
  list, which ``builder.add_js_file`` appends to; a new list put in its place would no longer
  receive what a later handler adds (which is how the book lost MathJax on every page).
"""


def _key(script):
    return (getattr(script, "filename", str(script)) or "",   # inline scripts: None or ""
            tuple(sorted((k, str(v)) for k, v in getattr(script, "attributes", {}).items())))


def dedupe(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        if _key(script) not in seen:
            seen.add(_key(script))
            unique.append(script)
    if isinstance(scripts, list):
        scripts[:] = unique
    else:
        context["script_files"] = unique


def setup(app):
    app.connect("html-page-context", dedupe, priority=999)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
