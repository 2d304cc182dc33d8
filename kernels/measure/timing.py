"""Kernel-only GPU time of a launch: what the benchmark, the explore widget and the timelines'
instrumentation cost all measure with.

:func:`time_us` times CUDA events around each launch (``cupyx.profiler.benchmark``), or, below
:data:`GRAPH_BELOW` elements, where launch overhead would dominate, around the replay of a CUDA
graph of :data:`LAUNCHES_PER_GRAPH` launches, divided by their number. Work that does not launch
on CuPy's current stream (PyTorch launches on its own) escapes a graph capture: time it with
``graph=False``, launch overhead included. :func:`copy_fn` is the yardstick: a device-to-device
copy of the bytes a convolution moves.
"""

from __future__ import annotations

import numpy as np

from ..validate import array_module, flag, function, integer, needs_gpu, optional

GRAPH_BELOW = 2**21          # graph replay below this many elements
LAUNCHES_PER_GRAPH = 50


def time_us(fn, n: int, n_repeat: int | None = None, graph: bool = True) -> tuple[np.ndarray, str]:
    """Per-launch GPU times of ``fn`` in microseconds, and the method used ("graph" or "events").
    ``n``: the elements ``fn`` works on (it picks the method and the default repeats);
    ``graph=False`` for work that does not launch on CuPy's current stream (it would escape the
    capture)."""
    function("fn", fn)
    n = integer("n", n, 1)
    n_repeat = optional(integer, "n_repeat", n_repeat, 1, 10**6)
    graph = flag("graph", graph)
    needs_gpu("timing.time_us")
    import cupy
    from cupyx.profiler import benchmark
    if n_repeat is None:
        n_repeat = 200 if n <= 2**22 else 40
    if graph and n < GRAPH_BELOW:
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            fn()   # compile and load outside the capture
            stream.begin_capture()
            for _ in range(LAUNCHES_PER_GRAPH):
                fn()
            graph = stream.end_capture()
            result = benchmark(graph.launch, (stream,), n_repeat=max(20, n_repeat // 5), n_warmup=3)
        return result.gpu_times[0] * 1e6 / LAUNCHES_PER_GRAPH, "graph"
    # a Launch (kernels.prepare) is a callable object without the __name__ benchmark reports
    result = benchmark(fn, n_repeat=n_repeat, n_warmup=max(3, n_repeat // 10),
                       name=getattr(fn, "__name__", type(fn).__name__))
    return result.gpu_times[0] * 1e6, "events"


def copy_fn(x, y):
    """A device-to-device copy of x into y: the same bytes as a convolution moves."""
    for name, a in (("x", x), ("y", y)):
        if array_module(name, a) is np:
            raise TypeError(f"{name} must be a CuPy array (on the GPU), got a NumPy array")
        if not a.flags.c_contiguous:
            raise ValueError(f"{name} must be contiguous")
    if y.nbytes < x.nbytes:
        raise ValueError(f"y ({y.nbytes} bytes) is smaller than x ({x.nbytes} bytes)")
    needs_gpu("timing.copy_fn")
    import cupy
    runtime = cupy.cuda.runtime

    def copy():
        runtime.memcpyAsync(y.data.ptr, x.data.ptr, x.nbytes, runtime.memcpyDeviceToDevice,
                            cupy.cuda.get_current_stream().ptr)
    return copy
