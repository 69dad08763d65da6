"""Registered kernels as Python callables, and the libraries that hold them."""

from . import _tessel


# One registered kernel: kernel(*args, stream=None) launches, kernel.parameters lists
# [(name, kind, element type)], kernel.as_torch_op(qualname, mutates) makes a PyTorch custom op.
Kernel = _tessel.KernelFunction
# The stream a call with these arguments runs on: PyTorch's current stream of the first CUDA
# tensor's device, else 0.
current_stream = _tessel.current_stream


class Library:
    """The kernels of one registry: `lib.name` or `lib["name"]` is a Kernel with the default
    configuration; `lib.kernel(name, configuration=..., arch=...)` fixes hyperparameters."""

    def __init__(self, native):
        self._native = native
        self._kernels = {}

    def names(self):
        return list(self._native.names())

    def kernel(self, name, *, configuration="", arch=""):
        key = (name, configuration, arch)
        if key not in self._kernels:
            self._kernels[key] = self._native.kernel(name, configuration, arch)
        return self._kernels[key]

    def describe(self, name):
        return self._native.description(name)

    def check(self, name, device="sim", sizes=(), seeds=3):
        """Runs the kernel's registered host check on random inputs, as `tessel check` does: on the
        simulator under the eager, lazy and `seeds` seeded schedules, and the first seed again with
        four groups of blocks at once; on the GPU once. Returns
        (matched, summary), a line per run ("lazy: axpy n=777: PASS"), where a run that ends in a
        report (a race, a deadlock) did not match and its line is the report."""
        return self._native.check(name, device, list(sizes), seeds)

    def __getitem__(self, name):
        return self.kernel(name)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.kernel(name)
        except _tessel.Error as e:
            raise AttributeError(str(e)) from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.names()))

    def __repr__(self):
        return f"<tessel library of {self._native.origin}: {', '.join(self.names())}>"


_examples = None


def examples():
    """The built-in examples (`tessel list`) as a Library."""
    global _examples
    if _examples is None:
        _examples = Library(_tessel.KernelLibrary.examples())
    return _examples
