"""tessel from Python: a user's C++ kernels and the built-in examples as callables on torch tensors,
numpy arrays and any DLPack producer. Arrays in GPU memory run on the GPU, on the tensor's current
stream; arrays in host memory run on the CPU simulator.

    import tessel
    kernels = tessel.load("my_kernels.cpp")   # a file with a TESSEL_KERNELS block
    kernels.axpy(n, 2.0, x, y, out)

docs/python.md walks through it.
"""

from ._tessel import Error, __version__
from .kernels import Kernel, Library, examples
from .load import load
from . import ops

__all__ = ["Error", "Kernel", "Library", "examples", "load", "ops", "__version__"]
