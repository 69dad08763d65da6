"""PyTorch custom ops over tessel kernels (torch.library), each with a fake implementation, so
that torch.compile(fullgraph=True) traces through them and CUDA graphs capture them. Imported only
where torch is."""

import torch

from . import _tessel, ops as _ops

_libraries = []  # torch.library.Library objects must outlive their ops


def _schema_type(kind, dtype):
    if kind == "compile-time bool" or dtype == "bool":
        return "bool"
    if kind == "scalar" and dtype in ("f16", "bf16", "f32", "f64"):
        return "float"
    return "int"


def register_kernel_op(kernel, qualname, mutates):
    """The custom op `qualname` ("namespace::name") that calls `kernel` with its parameters in
    order and writes the arrays named in `mutates`; returns torch.ops.namespace.name."""
    namespace, sep, name = qualname.partition("::")
    if not sep or not namespace or not name:
        raise _tessel.Error(f"as_torch_op: the name {qualname!r} is not of the form 'namespace::name'")
    arrays = [n for n, kind, _ in kernel.parameters if kind == "pointer"]
    unknown = [m for m in mutates if m not in arrays]
    if unknown:
        raise _tessel.Error(f"as_torch_op: kernel {kernel.name} has no array parameter {', '.join(unknown)} "
                            f"(its arrays: {', '.join(arrays)})")
    aliases = iter("abcdefghijklmnopqrstuvwxyz")
    declared = []
    for n, kind, dtype in kernel.parameters:
        if kind == "pointer":
            declared.append(f"Tensor({next(aliases)}!) {n}" if n in mutates else f"Tensor {n}")
        else:
            declared.append(f"{_schema_type(kind, dtype)} {n}")
    library = torch.library.Library(namespace, "FRAGMENT")
    _libraries.append(library)
    library.define(f"{name}({', '.join(declared)}) -> ()")

    def run(*args):
        kernel(*args)

    # CPU tensors run on the simulator.
    library.impl(name, run, "CUDA")
    library.impl(name, run, "CPU")
    torch.library.register_fake(qualname, lambda *args: None, lib=library)
    return getattr(getattr(torch.ops, namespace), name)


@torch.library.custom_op("tessel::linear", mutates_args=())
def _linear(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    out = torch.empty((x.shape[0], weight.shape[0]), dtype=x.dtype, device=x.device)
    _ops.linear_into(x, weight, out)
    return out


@_linear.register_fake
def _(x, weight):
    return x.new_empty((x.shape[0], weight.shape[0]))


@torch.library.custom_op("tessel::softmax", mutates_args=())
def _softmax(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _ops.softmax_into(x, out)
    return out


@_softmax.register_fake
def _(x):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@torch.library.custom_op("tessel::layer_norm", mutates_args=())
def _layer_norm(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _ops.layer_norm_into(x, gamma, beta, out)
    return out


@_layer_norm.register_fake
def _(x, gamma, beta):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@torch.library.custom_op("tessel::attention", mutates_args=())
def _attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool,
               scale: float) -> tuple[torch.Tensor, torch.Tensor]:
    out = torch.empty_like(q, memory_format=torch.contiguous_format)
    lse = torch.empty(q.shape[:3], dtype=torch.float32, device=q.device)
    _ops.attention_into(q, k, v, causal, scale, out, lse)
    return out, lse


@_attention.register_fake
def _(q, k, v, causal, scale):
    return (torch.empty_like(q, memory_format=torch.contiguous_format),
            q.new_empty(q.shape[:3], dtype=torch.float32))


def ops():
    """torch.ops.tessel: linear, softmax, layer_norm and attention."""
    return torch.ops.tessel
