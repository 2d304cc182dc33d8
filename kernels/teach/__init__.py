"""What the notebooks call: small, tested functions behind their cells.

:mod:`halo` (which cells a tile reads), :mod:`plots` (every figure, sized for the page),
:mod:`explore` (run and check one or two variants), :mod:`widgets` (the interactive cells, each a
plain function first), :mod:`listing` (listings and diffs shown on the page), :mod:`check` (the
exercises' checker), :mod:`warmup` (compiling a notebook's kernels in the background) and
:mod:`page` (numbers a cell glues into the prose around it). They
use the core (``kernels``) and the measurements (``kernels.measure``), never the book's tools.
"""
