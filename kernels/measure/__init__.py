"""Measurements on a GPU: kernel-only timing, the benchmark against a device copy, the roofline
across kernel sizes, the in-kernel timelines, and the recordings they write (``kernels/recorded/``)
that the notebooks show without a GPU.

Layers: :mod:`timing` (how a launch is timed) ← :mod:`recorded` (reading recordings back) ←
:mod:`bench` ← :mod:`roofline`; :mod:`timeline` (trace points and the schedule model). Each is
also a command: ``python -m kernels.measure.bench``, ``… .roofline``, ``… .timeline``. They use
the core (``kernels``) and nothing above it.
"""
