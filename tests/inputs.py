"""Test inputs shared by the test modules."""

from kernels.launch import WINDOW_MAX_K, WINDOW_VARIANTS
from kernels.reference import random_inputs  # noqa: F401  (re-exported for the tests)


def takes_k(variant, k):
    """Whether ``variant`` accepts ``k`` taps (the register-window variants stop at 64)."""
    return variant not in WINDOW_VARIANTS or k <= WINDOW_MAX_K
