"""What the notebooks call: small, tested functions behind their cells.

:mod:`halo` (which cells a tile reads), :mod:`plots` (every figure, sized for the page),
:mod:`explore` (run and check one or two variants), :mod:`widgets` (the interactive cells, each a
plain function first), :mod:`listing` (listings and diffs shown on the page), :mod:`exercise` (the
exercises' checker) and :mod:`warmup` (compiling a notebook's kernels in the background). They
use the core (``kernels``) and the measurements (``kernels.measure``), never the book's tools.
"""
