"""A mixture of experts' expert GEMMs as one grouped GEMM on the GPU: tessel's moe_grouped_gemm
against torch._grouped_mm (CUTLASS's grouped GEMM) in one process. bf16; each token's rows go to
its top-k experts, chosen at random, so the groups' sizes vary as a router's do; every output is
checked against PyTorch's first. Each timed call follows an L2 flush; the methods alternate by
round; medians. Reports TFLOPS (2 * rows * n * k over the time) and tessel's ratio to PyTorch's.
With --fp8, moe_grouped_gemm_fp8 (e4m3 operands, an f32 scale per row and per expert's output
channel, bf16 out) against torch._scaled_grouped_mm with the same scales. PyTorch's CUTLASS kernel
then promotes its fp8 sums to f32 at intervals of k, where tessel's keeps all of k in the tensor
cores' accumulator; --fast-accum asks PyTorch not to promote either (use_fast_accum=True). With
--fp8 blocks, moe_grouped_gemm_fp8_block_scaled (DeepSeek-V3's 1 x 128 and 128 x 128 scales), which
PyTorch has no grouped form of: its scales are drawn constant along k and within each 128 columns,
so that the same product has row and channel scales, and it is timed against
torch._scaled_grouped_mm with those and beside tessel's row-scaled kernel ("tessel rows").

A shape is experts:top_k:tokens:n:k, for example 8:2:4096:14336:4096 (Mixtral 8x7B's gate
projection over 4096 tokens: 8192 rows in 8 groups, each times a 14336 x 4096 weight).

    python bench/python/bench_grouped_gemm.py [--shapes 8:2:4096:14336:4096] [--rounds 20]
        [--configuration "tma_store=0" ...] [--fp8 [rows|blocks] [--fast-accum]]

Each --configuration also times the kernel with those hyperparameters fixed (the others tuned).
"""

import argparse
import statistics

import torch

import tessel
from flushed_timer import FlushedTimer

# Mixtral 8x7B (8 experts, top 2, hidden 4096, expert width 14336) and DeepSeek-V3 (256 experts,
# top 8, hidden 7168, expert width 2048, gate and up projections as one of 4096), at a prefill of
# 4096 tokens and a decode batch of 128: the up and the down projection of each.
SHAPES = ("8:2:4096:14336:4096,8:2:4096:4096:14336,8:2:128:14336:4096,8:2:128:4096:14336,"
          "256:8:4096:4096:7168,256:8:4096:7168:2048,256:8:128:4096:7168")


def group_ends(experts, top_k, tokens):
    """Where each expert's rows end: every token's top_k distinct experts, chosen at random."""
    chosen = torch.rand(tokens, experts, device="cuda").topk(top_k, dim=1).indices
    counts = torch.bincount(chosen.flatten(), minlength=experts)
    return torch.cumsum(counts, 0).to(torch.int32)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=SHAPES)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--configuration", action="append", default=[],
                        help="hyperparameters to fix in a further tessel column, e.g. 'tma_store=0'")
    parser.add_argument("--fp8", nargs="?", const="rows", choices=["rows", "blocks"],
                        help="e4m3 operands with row and channel scales (or block scales), against "
                             "torch._scaled_grouped_mm")
    parser.add_argument("--fast-accum", action="store_true",
                        help="with --fp8: PyTorch's sums stay in the tensor cores' accumulator, as tessel's do")
    args = parser.parse_args()
    timed = FlushedTimer()
    name = {None: "moe_grouped_gemm", "rows": "moe_grouped_gemm_fp8",
            "blocks": "moe_grouped_gemm_fp8_block_scaled"}[args.fp8]
    grouped = tessel.examples().kernel(name)
    row_scaled = tessel.examples().kernel("moe_grouped_gemm_fp8") if args.fp8 == "blocks" else None
    print(f"# {torch.cuda.get_device_name()}, {dict(rows='e4m3 with row and channel scales', blocks='e4m3 with block scales').get(args.fp8, 'bf16')}, "
          f"{'fast accumulation, ' if args.fp8 and args.fast_accum else ''}TFLOPS (median of "
          f"{args.rounds} rounds, L2 flushed)")
    print(f"{'experts:top_k:tokens:n:k':>26s} {'rows':>6s} {'torch':>7s} {'tessel':>7s}  ratio")
    for shape in args.shapes.split(","):
        experts, top_k, tokens, n, k = map(int, shape.split(":"))
        rows = tokens * top_k
        ends = group_ends(experts, top_k, tokens)
        x = torch.randn(rows, k, device="cuda").to(torch.bfloat16)
        w = (torch.randn(experts, n, k, device="cuda") / k**0.5).to(torch.bfloat16)
        y = torch.empty(rows, n, dtype=torch.bfloat16, device="cuda")
        if args.fp8:
            x = x.to(torch.float8_e4m3fn)
            w = (w * k**0.5).to(torch.float8_e4m3fn)
            scale_x = torch.rand(rows, device="cuda") + 0.5
            scale_w = (torch.rand(experts, n, device="cuda") + 0.5) / k**0.5
            methods = {
                "torch": lambda: torch._scaled_grouped_mm(x, w.transpose(1, 2), scale_x, scale_w, offs=ends,
                                                          out_dtype=torch.bfloat16, use_fast_accum=args.fast_accum),
                "tessel": lambda: grouped(rows, n, k, experts, x, w, ends, scale_x, scale_w, y),
            }
            arguments = (rows, n, k, experts, x, w, ends, scale_x, scale_w, y)
            if args.fp8 == "blocks":
                k_blocks, n_blocks, stride = -(-k // 128), -(-n // 128), -(-rows // 4) * 4
                per_block = (torch.rand(experts, n_blocks, device="cuda") + 0.5) / k**0.5
                scale_w = per_block.repeat_interleave(128, dim=1)[:, :n].contiguous()
                block_x = torch.zeros(k_blocks, stride, device="cuda")
                block_x[:, :rows] = scale_x
                block_w = per_block[:, :, None].expand(experts, n_blocks, k_blocks).contiguous()
                arguments = (rows, n, k, experts, x, w, ends, block_x, block_w, y)
                methods["tessel"] = lambda: grouped(*arguments)
                methods["tessel rows"] = lambda: row_scaled(rows, n, k, experts, x, w, ends, scale_x, scale_w, y)
        else:
            methods = {
                "torch": lambda: torch._grouped_mm(x, w.transpose(1, 2), offs=ends),
                "tessel": lambda: grouped(rows, n, k, experts, x, w, ends, y),
            }
            arguments = (rows, n, k, experts, x, w, ends, y)
        for configuration in args.configuration:
            fixed = tessel.examples().kernel(name, configuration=configuration)
            methods[configuration] = lambda fixed=fixed: fixed(*arguments)
        want = methods["torch"]()
        # tessel's fp8 sums of k products keep about 14 bits in the tensor cores' accumulator.
        atol = 5e-2 if args.fp8 else 1e-2
        for method in methods:
            if method != "torch":
                y.fill_(float("nan"))
                methods[method]()  # compiles (and tunes)
                torch.testing.assert_close(y, want, rtol=1 / 64, atol=atol)
        times = {method: [] for method in methods}
        for _ in range(args.rounds):
            for method, run in methods.items():
                times[method].append(timed(run))
        flops = 2.0 * rows * n * k
        tflops = {method: flops / statistics.median(t) / 1e12 for method, t in times.items()}
        print(f"{shape:>26s} {rows:6d} {tflops['torch']:7.1f} {tflops['tessel']:7.1f} "
              f"{tflops['tessel'] / tflops['torch']:5.2f}x", flush=True)
        for extra in ["tessel rows"] * (args.fp8 == "blocks") + args.configuration:
            print(f"{'':>26s} [{extra}] {tflops[extra]:.1f} TFLOPS, {tflops[extra] / tflops['torch']:.2f}x", flush=True)
        del x, w, y, ends, methods, arguments, want
        if args.fp8 == "blocks":
            del per_block, block_x, block_w


if __name__ == "__main__":
    main()
