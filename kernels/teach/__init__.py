"""What the notebooks call: small, tested functions behind their cells (the README's table of
floors names each module). They use the core (``kernels``) and the measurements
(``kernels.measure``), never the book's tools.
"""
