"""Test inputs shared by the test modules."""

from kernels import random_inputs  # noqa: F401  (fresh standard-normal float32: never zeros)
from kernels.variants import get


def takes_k(variant, k):
    """Whether ``variant`` accepts ``k`` taps (the register-window variants stop at 64)."""
    return get(variant).takes_k(k)
