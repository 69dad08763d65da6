"""Weight-only quantized GEMM on the GPU: tessel's weight_only_gemm examples (f16 activations, weights
of 2 to 8 bits with f16 scales and zero points per 128 of k, repacked once before timing) against
cuBLAS's f16 GEMM of the same shape and PyTorch's torch._weight_int4pack_mm (int4, group 128, bf16),
in one process. Random inputs; each timed call follows an L2 flush (a read of a larger buffer); the
methods alternate by round; medians. Reports microseconds, tessel's TFLOPS, and the bandwidth at which
it reads the weights as a fraction of the device-to-device copy bandwidth measured in the same process
(bytes read plus written per second). At decode sizes every kernel also pays a fixed cost (its launch,
the first bytes' latency, the last wave), so "same bytes" times cuBLAS's f16 GEMM of the same rows over
a weight matrix of as many bytes as the quantized one (k * bits / 16 columns), what the fastest
bandwidth-bound GEMM takes to read those bytes in this harness, and "of same" is that time over
tessel's. "read" times a Triton kernel that only reads as many bytes as tessel's kernel reads of the
weights and their scales (every block sums 16 KB of them), the harness's floor for those bytes, and
"of read" is that time over tessel's.

    python bench/python/bench_weight_only_gemm.py [--types i4,i3] [--shapes 1x14336x4096] [--rounds 20]
        [--configuration "k_slices=1" ...] [--kernel weight_only_gemm_wgmma --activations bfloat16]
        [--layers 8]

With --activations bfloat16 (both kernels' bf16 forms, for i3, i4, i6 and i8), the activations,
scales and output are bf16, and so are cuBLAS's GEMMs.

Each --configuration also times the kernel with those hyperparameters fixed (the others tuned) in the
same rounds, on a line of its own beneath the tuned one.

--layers L (L > 1) measures a decode step's layers instead of one call: every method gets L copies of
its weight-side inputs (tessel's repacked weights and scales, cuBLAS's f16 matrix and so "same bytes",
int4pack's packed weights and scales, the read's words), the activations and output shared, and each
round times the L calls back to back, each over weights of its own (so from DRAM), after one L2 flush,
queued ahead of the GPU as a CUDA graph would queue them; every column is then the time per layer, the
--configuration lines' too.
"""

import argparse
import statistics

import torch
import triton
import triton.language as tl

import tessel
from flushed_timer import FlushedTimer

SHAPES = "1x14336x4096,16x14336x4096,64x14336x4096,1x4096x14336,16x4096x14336,64x4096x14336,4096x14336x4096"
TYPES = "i2,i3,i4,i6,i8,f4e2m1,f6e3m2,f8e4m3"
BITS = {"i2": 2, "i3": 3, "i4": 4, "u4": 4, "i6": 6, "i8": 8, "f4e2m1": 4, "f6e2m3": 6, "f6e3m2": 6, "f8e4m3": 8}


def copy_bandwidth(timed, rounds):
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    seconds = statistics.median(timed(lambda: dst.copy_(src)) for _ in range(rounds))
    return 2 * src.numel() / seconds


READ_BLOCK = 4096  # 32-bit words a block of read_words sums


@triton.jit
def read_words(words, sums, count, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(sums + tl.program_id(0), tl.sum(tl.load(words + offsets, mask=offsets < count, other=0), axis=0))


def read_floor(nbytes):
    """A call that reads `nbytes` (rounded up to whole words) of its own and does nothing else worth
    timing; a layer of its own per call of read_floor."""
    words = torch.randint(0, 1 << 20, ((nbytes + 3) // 4,), dtype=torch.int32, device="cuda")
    blocks = triton.cdiv(words.numel(), READ_BLOCK)
    sums = torch.empty(blocks, dtype=torch.int32, device="cuda")
    return lambda: read_words[(blocks,)](words, sums, words.numel(), BLOCK=READ_BLOCK, num_warps=8)


STORED = {"i8": torch.int8, "f8e4m3": torch.float8_e4m3fn}


def repacked_weights(name, kind, n, k, scales, zeros):
    """Random weights of `kind` (random bit patterns: the time does not depend on the values), repacked
    once by weight_only_repack_<name> into the order the GEMM reads: the units' words and their scales."""
    bits = BITS[kind]
    w = torch.randint(0, 256, (n, k * bits // 8), dtype=torch.uint8, device="cuda").view(STORED.get(kind, torch.uint8))
    units = torch.empty(n // 8 * (k // 128) * 32 * bits, dtype=torch.uint32, device="cuda")
    unit_scales = torch.empty(n // 8 * (k // 128) * 16, dtype=scales.dtype, device="cuda")
    tessel.examples().kernel(f"weight_only_repack_{name}")(n, k, w, scales, zeros, units, unit_scales)
    return units, unit_scales


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=SHAPES)
    parser.add_argument("--types", default=TYPES)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--kernel", default="weight_only_gemm",
                        help="weight_only_gemm (mma.sync) or weight_only_gemm_wgmma (many rows, sm_90a)")
    parser.add_argument("--configuration", action="append", default=[],
                        help="also time the kernel with these hyperparameters fixed, e.g. 'k_slices=1' (repeatable)")
    parser.add_argument("--activations", default="float16", choices=["float16", "bfloat16"],
                        help="the activations', scales' and output's type (bfloat16: i3, i4, i6 and i8)")
    parser.add_argument("--layers", type=int, default=1,
                        help="time a sequence of this many layers, each over weights of its own (time per layer)")
    args = parser.parse_args()
    if args.layers < 1:
        parser.error("--layers must be at least 1")
    dtype = getattr(torch, args.activations)
    prefix = "" if args.activations == "float16" else "bf16_"
    anchor = "cuBLAS f16" if args.activations == "float16" else "cuBLAS bf16"
    timed = FlushedTimer()
    copy = copy_bandwidth(timed, args.rounds)
    mode = "L2 flushed" if args.layers == 1 else \
        f"per layer of a sequence of {args.layers} layers, L2 flushed before the first"
    print(f"# {torch.cuda.get_device_name()}, copy bandwidth {copy / 1e9:.0f} GB/s; microseconds (median of "
          f"{args.rounds} rounds, {mode}); 'of copy' = weight bytes / time / copy bandwidth")
    print(f"{'m x n x k':>18s} {'type':>7s} {anchor:>10s} {'int4pack':>9s} {'same bytes':>10s} {'tessel':>8s} "
          f"{'read':>6s} {'TFLOPS':>7s} {'vs ' + anchor.split()[1]:>7s} {'of copy':>8s} {'of same':>8s} {'of read':>8s}")
    for shape in args.shapes.split(","):
        bench_shape(args, shape, timed, copy, dtype, prefix)  # its tensors freed before the next shape's


def bench_shape(args, shape, timed, copy, dtype, prefix):
    m, n, k = map(int, shape.split("x"))
    layers = args.layers
    x = torch.randn(m, k, device="cuda", dtype=dtype)
    w16s = [torch.randn(n, k, device="cuda", dtype=dtype) for _ in range(layers)]
    y = torch.empty(m, n, device="cuda", dtype=dtype)
    scales = (torch.rand(n, k // 128, device="cuda") * 0.01).to(dtype)
    zeros = torch.zeros(n, k // 128, device="cuda", dtype=dtype)
    # Every method is a list of its layers' calls; the loop variables are bound as defaults, since a
    # lambda reads a free variable when called, after the loop has moved it to the last layer.
    anchors = {"cublas": [lambda w16=w16: x @ w16.t() for w16 in w16s]}
    try:
        xb = x.bfloat16()
        int4 = []
        for _ in range(layers):
            packed = torch._convert_weight_to_int4pack(
                torch.randint(0, 256, (n, k // 2), dtype=torch.uint8, device="cuda"), 8)
            int4.append((packed, torch.rand(k // 128, n, 2, device="cuda", dtype=torch.bfloat16)))
        anchors["int4pack"] = [lambda packed=packed, scale_zeros=scale_zeros:
                               torch._weight_int4pack_mm(xb, packed, 128, scale_zeros) for packed, scale_zeros in int4]
        anchors["int4pack"][0]()
    except (RuntimeError, AttributeError):
        anchors.pop("int4pack", None)
    for kind in args.types.split(","):
        kernel = tessel.examples().kernel(f"{args.kernel}_{prefix}{kind}")
        weights = [repacked_weights(prefix + kind, kind, n, k, scales, zeros) for _ in range(layers)]
        methods = dict(anchors)
        same_k = k * BITS[kind] // 16
        methods["same"] = [lambda w16=w16, same_k=same_k: x[:, :same_k] @ w16[:, :same_k].t() for w16 in w16s]
        units, unit_scales = weights[0]
        read_bytes = units.numel() * 4 + unit_scales.numel() * unit_scales.element_size()
        methods["read"] = [read_floor(read_bytes) for _ in range(layers)]
        methods["tessel"] = [lambda kernel=kernel, units=units, unit_scales=unit_scales:
                             kernel(m, n, k, x, units, unit_scales, y) for units, unit_scales in weights]
        methods["tessel"][0]()  # compiles, tunes
        for configuration in args.configuration:
            fixed = tessel.examples().kernel(f"{args.kernel}_{prefix}{kind}", configuration=configuration)
            methods[configuration] = [lambda fixed=fixed, units=units, unit_scales=unit_scales:
                                      fixed(m, n, k, x, units, unit_scales, y) for units, unit_scales in weights]
            methods[configuration][0]()
        if layers > 1:  # a first call that compiles or allocates would outlast the sleep queueing the others
            for runs in methods.values():
                for run in runs:
                    run()
        times = {name: [] for name in methods}
        for _ in range(args.rounds):
            for name, runs in methods.items():
                times[name].append(timed(runs if layers > 1 else runs[0]))
        us = {name: statistics.median(t) * 1e6 for name, t in times.items()}
        weight_bytes = n * k * BITS[kind] / 8
        of_copy = weight_bytes / (us["tessel"] * 1e-6) / copy
        int4pack = f"{us['int4pack']:9.1f}" if "int4pack" in us else f"{'n/a':>9s}"
        print(f"{shape:>18s} {kind:>7s} {us['cublas']:10.1f} {int4pack} {us['same']:10.1f} {us['tessel']:8.1f} "
              f"{us['read']:6.1f} {2 * m * n * k / us['tessel'] / 1e6:7.1f} {us['cublas'] / us['tessel']:6.2f}x "
              f"{of_copy:8.0%} {us['same'] / us['tessel']:8.0%} {us['read'] / us['tessel']:8.0%}", flush=True)
        for configuration in args.configuration:
            print(f"{'':>18s} {kind:>7s} [{configuration}] {us[configuration]:.1f} us, "
                  f"{us[configuration] / us['tessel']:.3f}x the tuned time", flush=True)


if __name__ == "__main__":
    main()
