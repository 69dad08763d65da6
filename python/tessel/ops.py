"""Ready functions over the built-in examples, on torch tensors (GPU, or the simulator for CPU
tensors) and numpy arrays (the simulator). With torch tensors they run as the custom ops
torch.ops.tessel.* (tessel/torch_ops.py), so torch.compile traces through them.

    y = tessel.ops.linear(x, weight)        # x @ weight.T: f16 or bf16, [m, k] x [n, k]
    p = tessel.ops.softmax(scores)          # along the rows of a 2-D float32 array
    z = tessel.ops.layer_norm(x, gamma, beta)  # along the rows, eps = 1e-5, float32
    o, lse = tessel.ops.attention(q, k, v, causal=True)  # [batch, heads, seq, head_dim], f16 or bf16
"""

import sys

from . import _tessel
from .kernels import examples


def _is_torch(x):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _dtype(x):
    return str(x.dtype).replace("torch.", "")


def _empty(like, shape, float32=False):
    if _is_torch(like):
        torch = sys.modules["torch"]
        return torch.empty(shape, dtype=torch.float32 if float32 else like.dtype, device=like.device)
    import numpy

    if isinstance(like, numpy.ndarray):
        return numpy.empty(shape, dtype=numpy.float32 if float32 else like.dtype)
    raise TypeError(f"tessel.ops take torch tensors and numpy arrays, not {type(like).__name__}")


def _on_gpu(x):
    return _is_torch(x) and x.is_cuda


def _expect(condition, message):
    if not condition:
        raise _tessel.Error(message)


def _linear_kernel(x):
    bf16 = _dtype(x) == "bfloat16"
    capability = _tessel.gpu_capability() if _on_gpu(x) else None
    if capability is not None and capability[0] == 9:
        return examples().kernel("hopper_v5_bf16" if bf16 else "hopper_v5")
    return examples().kernel("ampere_v5_swizzled_bf16" if bf16 else "ampere_v5_swizzled")


def linear_into(x, weight, out):
    """out = x @ weight.T, written into `out` ([m, n])."""
    _linear_kernel(x)(x.shape[0], weight.shape[0], x.shape[1], x, weight, out)


def _has_clusters(x):
    """Whether the device that runs x's kernels launches clusters: sm_90 and newer, and the simulator."""
    if not _on_gpu(x):
        return True
    return _tessel.gpu_capability()[0] >= 9


def softmax_into(x, out):
    rows, cols = x.shape
    # One block holds up to 32768 columns in registers without spilling; a cluster spreads wider rows.
    if cols <= 1024:
        kernel = "row_softmax"
    elif cols <= 32768 or not _has_clusters(x):
        kernel = "wide_row_softmax"
    else:
        kernel = "cluster_row_softmax"
    examples().kernel(kernel)(rows, cols, x, out)


def layer_norm_into(x, gamma, beta, out):
    rows, cols = x.shape
    examples().kernel("layer_norm")(rows, cols, x, gamma, beta, out)


def attention_into(q, k, v, causal, scale, out, lse):
    batch, heads, seq_q, head_dim = q.shape
    kv_heads, seq_k = k.shape[1], k.shape[2]
    capability = _tessel.gpu_capability() if _on_gpu(q) else None
    step = "attention_v4" if capability is not None and capability[0] == 9 else "attention_v1"
    kernel = step + "_bf16" if _dtype(q) == "bfloat16" else step
    examples().kernel(kernel)(batch, heads, kv_heads, seq_q, seq_k, head_dim, bool(causal), float(scale), q, k, v, out,
                              lse)


def _check_matrix(name, x, dtypes):
    _expect(len(x.shape) == 2, f"tessel.ops.{name}: expected a 2-D array, got shape {list(x.shape)}")
    _expect(_dtype(x) in dtypes,
            f"tessel.ops.{name}: expected {' or '.join(dtypes)} elements, got {_dtype(x)}")


def linear(x, weight):
    """x @ weight.T for x [m, k] and weight [n, k] (nn.Linear's layout), f16 or bf16, f32
    accumulation."""
    _check_matrix("linear", x, ("float16", "bfloat16"))
    _check_matrix("linear", weight, (_dtype(x),))
    _expect(x.shape[1] == weight.shape[1],
            f"tessel.ops.linear: x is {list(x.shape)} and weight {list(weight.shape)}; their k (last extents) differ")
    if _is_torch(x):
        from . import torch_ops

        return torch_ops.ops().linear(x, weight)
    out = _empty(x, (x.shape[0], weight.shape[0]))
    linear_into(x, weight, out)
    return out


def softmax(x):
    """softmax along the rows of a 2-D float32 array."""
    _check_matrix("softmax", x, ("float32",))
    if _is_torch(x):
        from . import torch_ops

        return torch_ops.ops().softmax(x)
    out = _empty(x, tuple(x.shape))
    softmax_into(x, out)
    return out


def layer_norm(x, gamma, beta):
    """LayerNorm along the rows of a 2-D float32 array, eps = 1e-5, with per-column gamma and beta."""
    _check_matrix("layer_norm", x, ("float32",))
    for name, v in (("gamma", gamma), ("beta", beta)):
        _expect(tuple(v.shape) == (x.shape[1],),
                f"tessel.ops.layer_norm: {name} has shape {list(v.shape)}, and x's rows need [{x.shape[1]}]")
    if _is_torch(x):
        from . import torch_ops

        return torch_ops.ops().layer_norm(x, gamma, beta)
    out = _empty(x, tuple(x.shape))
    layer_norm_into(x, gamma, beta, out)
    return out


def attention(q, k, v, causal=False, scale=None):
    """softmax(q kᵀ · scale) v with f32 accumulation, for q [batch, heads, seq_q, head_dim] and k, v
    [batch, kv_heads, seq_k, head_dim] (heads a multiple of kv_heads: grouped-query attention), f16
    or bf16; scale defaults to 1 / sqrt(head_dim), and causal keeps key j <= query i (PyTorch's
    is_causal). Returns (o, lse): o like q, and the f32 log-sum-exp of each row [batch, heads,
    seq_q] for a backward pass."""
    for name, x in (("q", q), ("k", k), ("v", v)):
        _expect(len(x.shape) == 4,
                f"tessel.ops.attention: {name} must be [batch, heads, seq, head_dim], got shape {list(x.shape)}")
        _expect(_dtype(x) in ("float16", "bfloat16") and _dtype(x) == _dtype(q),
                f"tessel.ops.attention: q, k and v must all be float16 or all bfloat16, got {_dtype(q)}, {_dtype(k)} "
                f"and {_dtype(v)}")
    _expect(q.shape[3] == k.shape[3] == v.shape[3],
            f"tessel.ops.attention: the head dimensions of q, k and v disagree: {q.shape[3]}, {k.shape[3]} and "
            f"{v.shape[3]}")
    _expect(tuple(k.shape) == tuple(v.shape),
            f"tessel.ops.attention: k {list(k.shape)} and v {list(v.shape)} must have one shape")
    _expect(q.shape[0] == k.shape[0], f"tessel.ops.attention: q has batch {q.shape[0]} and k {k.shape[0]}")
    _expect(q.shape[1] % k.shape[1] == 0,
            f"tessel.ops.attention: {q.shape[1]} query heads cannot share {k.shape[1]} K/V heads evenly")
    _expect(q.shape[3] % 16 == 0 and q.shape[3] <= 256,
            f"tessel.ops.attention: head_dim {q.shape[3]} must be a multiple of 16 up to 256")
    if scale is None:
        scale = q.shape[3] ** -0.5
    _expect(scale > 0, f"tessel.ops.attention: scale must be positive, got {scale}")
    if _is_torch(q):
        from . import torch_ops

        return torch_ops.ops().attention(q, k, v, bool(causal), float(scale))
    out = _empty(q, tuple(q.shape))
    lse = _empty(q, tuple(q.shape[:3]), float32=True)
    attention_into(q, k, v, causal, scale, out, lse)
    return out, lse
