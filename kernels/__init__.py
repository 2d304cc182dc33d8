"""Tiled 1D convolution with asynchronous copies: CUDA kernels, their NumPy emulation, checks.

>>> import numpy as np, kernels
>>> x = np.random.default_rng(0).standard_normal(16384, dtype=np.float32)
>>> w = np.random.default_rng(1).standard_normal(5, dtype=np.float32)
>>> y = kernels.conv1d(x, w, variant="async_halo", tile=256)   # GPU if there is one
>>> kernels.assert_correct(y, x, w)
"""

from .compile import ASYNC_VARIANTS, VARIANTS, CompileError, kernel_name, source, source_path
from .device import backend_summary, device_info, gpu_available
from .emulation import run as emulate
from .launch import LaunchConfig, conv1d, launch_config, max_tile, prepare
from .reference import assert_correct, error_bound, reference, wrong_outputs

SEED = dict(n=16384, tile=256, k=5, threads=256)   # Puzzle 28's configuration: 64 blocks

__all__ = ["VARIANTS", "ASYNC_VARIANTS", "SEED", "CompileError", "LaunchConfig", "assert_correct",
           "backend_summary", "conv1d", "device_info", "emulate", "error_bound", "gpu_available", "kernel_name",
           "launch_config", "max_tile", "prepare", "reference", "source", "source_path",
           "wrong_outputs"]
