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

from ..validate import choice, needs_gpu

LAUNCHES_PER_GRAPH = 50      # launches in one graph of small work
GRAPH_ELEMENTS = 50 * 2**21  # elements a replay works through, about (at least 2 launches)


def launches_per_graph(n: int) -> int:
    """Launches captured in one graph for work on ``n`` elements: a replay of about
    GRAPH_ELEMENTS elements, from 2 to LAUNCHES_PER_GRAPH launches."""
    return max(2, min(LAUNCHES_PER_GRAPH, -(-GRAPH_ELEMENTS // n)))


def time_us(fn, n: int, n_repeat: int | None = None, graph: bool = True) -> tuple[np.ndarray, str]:
    """Per-launch GPU times of ``fn`` in microseconds, and the method used ("graph" or "events").
    ``n``: the elements ``fn`` works on (it sets the launches per graph and the default repeats);
    ``graph=False`` for work that does not launch on CuPy's current stream (it would escape the
    capture)."""
    needs_gpu("timing.time_us")
    import cupy
    from cupyx.profiler import benchmark
    if n_repeat is None:
        n_repeat = 200 if n <= 2**22 else 40
    if graph:
        launches = launches_per_graph(n)
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            fn()   # compile and load outside the capture
            stream.begin_capture()
            for _ in range(launches):
                fn()
            graph = stream.end_capture()
            result = benchmark(graph.launch, (stream,), n_repeat=max(20, n_repeat * 2 // launches),
                               n_warmup=3)
        return result.gpu_times[0] * 1e6 / launches, "graph"
    # a Launch (kernels.prepare) is a callable object without the __name__ benchmark reports
    result = benchmark(fn, n_repeat=n_repeat, n_warmup=max(3, n_repeat // 10),
                       name=getattr(fn, "__name__", type(fn).__name__))
    return result.gpu_times[0] * 1e6, "events"


COPIES = ("memcpy", "kernel")
COPY_KERNEL = r"""
// The other device copy: y = x in 16-byte chunks, a grid-stride loop (the last n % 4 floats
// one by one). A kernel node in a graph, where cudaMemcpyAsync becomes a memcpy node.
extern "C" __global__ void copy_float4(const float* __restrict__ x, float* __restrict__ y,
                                       long long n)
{
    const long long chunks = n / 4, step = (long long)gridDim.x * blockDim.x;
    for (long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x; c < chunks; c += step) {
        reinterpret_cast<float4*>(y)[c] = __ldg(reinterpret_cast<const float4*>(x) + c);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4) {
        y[4 * chunks + threadIdx.x] = x[4 * chunks + threadIdx.x];
    }
}
"""
COPY_THREADS, COPY_BLOCKS_PER_SM = 256, 8


def copy_fn(x, y, how: str = "memcpy"):
    """A device-to-device copy of x into y: the same bytes as a convolution moves.
    ``how``: "memcpy" (``cudaMemcpyAsync``) or "kernel" (:data:`COPY_KERNEL`, 16-byte loads and
    stores; x and y 16-byte aligned). Captured in a graph, a memcpy becomes a memcpy node, which
    on the H200 ran 1 GiB copies a third slower than the kernel (2^28 floats, 2026-12-01): the
    benchmark times both and keeps the faster as the yardstick."""
    how = choice("how", how, COPIES)
    needs_gpu("timing.copy_fn")
    import cupy
    runtime = cupy.cuda.runtime
    if how == "memcpy":
        def copy():
            runtime.memcpyAsync(y.data.ptr, x.data.ptr, x.nbytes, runtime.memcpyDeviceToDevice,
                                cupy.cuda.get_current_stream().ptr)
        return copy
    if x.data.ptr % 16 or y.data.ptr % 16 or x.dtype != np.float32 or y.dtype != np.float32:
        raise ValueError("the copy kernel moves 16-byte chunks of float32: x and y must be "
                         "float32 and start on a 16-byte boundary")
    kernel = _copy_kernel()
    sms = runtime.getDeviceProperties(cupy.cuda.Device().id)["multiProcessorCount"]
    blocks = max(1, min(sms * COPY_BLOCKS_PER_SM, -(-x.size // (4 * COPY_THREADS))))
    args = (x, y, np.int64(x.size))

    def copy():
        kernel((blocks,), (COPY_THREADS,), args)
    return copy


def _copy_kernel():
    import cupy
    return cupy.RawModule(code=COPY_KERNEL).get_function("copy_float4")
