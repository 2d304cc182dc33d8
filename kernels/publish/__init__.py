"""The book's own tools, not used by any notebook: ``python -m kernels.publish.notebooks`` and
``python -m kernels.publish.translate``. Nothing imports them but the tests.
"""
