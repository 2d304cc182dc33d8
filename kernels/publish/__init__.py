"""The book's own tools, not used by any notebook: the notebook executor
(``python -m kernels.publish.notebooks``: execute on a GPU, rewrite the setup cells) and the
Korean edition's translation tables (``python -m kernels.publish.translate``: sync, check, stamp).
They sit on top of everything else and nothing imports them but the tests.
"""
