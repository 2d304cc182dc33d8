"""Sphinx extension: emit each <script> once per page.

sphinx-thebe 0.3.1 registers its configuration script on every read of the environment, and
Jupyter Book 1.x reads it twice, so every page declared `const THEBE_JS_URL` twice: a console
error ("Identifier 'THEBE_JS_URL' has already been declared") on every page.
"""


def _key(script):
    return (getattr(script, "filename", str(script)) or "",   # inline scripts: None or ""
            tuple(sorted((k, str(v)) for k, v in getattr(script, "attributes", {}).items())))


def dedupe(app, pagename, templatename, context, doctree):
    seen, unique = set(), []
    for script in context.get("script_files", []):
        if _key(script) not in seen:
            seen.add(_key(script))
            unique.append(script)
    context["script_files"] = unique


def setup(app):
    app.connect("html-page-context", dedupe, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
