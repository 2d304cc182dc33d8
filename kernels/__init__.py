"""Tiled 1D convolution with asynchronous copies: CUDA kernels, their NumPy emulation, checks.

>>> import numpy as np, kernels
>>> x = np.random.default_rng(0).standard_normal(16384, dtype=np.float32)
>>> w = np.random.default_rng(1).standard_normal(5, dtype=np.float32)
>>> y = kernels.conv1d(x, w, variant="async_halo", tile=256)   # GPU if there is one
>>> kernels.assert_correct(y, x, w)

``kernels.variants.REGISTRY`` describes every variant; ``kernels.VARIANTS`` lists their names.
"""

from .compile import Build, CompileError, kernel_name, source, source_path
from .device import backend_summary, device_info, gpu_available
from .geometry import PUZZLE28, LaunchConfig, launch_config, max_tile
from .launch import Launch, conv1d, emulate, prepare, prepare_config, run
from .reference import assert_correct, error_bound, random_inputs, reference, wrong_outputs
from .variants import NAMES as VARIANTS, REGISTRY

__all__ = ["VARIANTS", "REGISTRY", "PUZZLE28", "Build", "CompileError", "Launch", "LaunchConfig",
           "assert_correct", "backend_summary", "conv1d", "device_info", "emulate", "error_bound",
           "gpu_available", "kernel_name", "launch_config", "max_tile", "prepare", "prepare_config",
           "random_inputs", "reference", "run", "source", "source_path", "wrong_outputs"]
