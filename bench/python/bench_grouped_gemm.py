"""A mixture of experts' expert GEMMs as one grouped GEMM on the GPU: tessel's moe_grouped_gemm
against torch._grouped_mm (CUTLASS's grouped GEMM) in one process. bf16; each token's rows go to
its top-k experts, chosen at random, so the groups' sizes vary as a router's do; every output is
checked against PyTorch's first. Each timed call follows an L2 flush; the methods alternate by
round; medians. Reports TFLOPS (2 * rows * n * k over the time) and tessel's ratio to PyTorch's.

A shape is experts:top_k:tokens:n:k, for example 8:2:4096:14336:4096 (Mixtral 8x7B's gate
projection over 4096 tokens: 8192 rows in 8 groups, each times a 14336 x 4096 weight).

    python bench/python/bench_grouped_gemm.py [--shapes 8:2:4096:14336:4096] [--rounds 20]
        [--configuration "tma_store=0" ...]

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
    args = parser.parse_args()
    timed = FlushedTimer()
    grouped = tessel.examples().kernel("moe_grouped_gemm")
    print(f"# {torch.cuda.get_device_name()}, bf16, TFLOPS (median of {args.rounds} rounds, L2 flushed)")
    print(f"{'experts:top_k:tokens:n:k':>26s} {'rows':>6s} {'torch':>7s} {'tessel':>7s}  ratio")
    for shape in args.shapes.split(","):
        experts, top_k, tokens, n, k = map(int, shape.split(":"))
        rows = tokens * top_k
        ends = group_ends(experts, top_k, tokens)
        x = torch.randn(rows, k, device="cuda").to(torch.bfloat16)
        w = (torch.randn(experts, n, k, device="cuda") / k**0.5).to(torch.bfloat16)
        y = torch.empty(rows, n, dtype=torch.bfloat16, device="cuda")
        methods = {
            "torch": lambda: torch._grouped_mm(x, w.transpose(1, 2), offs=ends),
            "tessel": lambda: grouped(rows, n, k, experts, x, w, ends, y),
        }
        for configuration in args.configuration:
            fixed = tessel.examples().kernel("moe_grouped_gemm", configuration=configuration)
            methods[configuration] = lambda fixed=fixed: fixed(rows, n, k, experts, x, w, ends, y)
        want = methods["torch"]()
        for name in methods:
            if name != "torch":
                y.fill_(float("nan"))
                methods[name]()  # compiles (and tunes)
                torch.testing.assert_close(y, want, rtol=1 / 64, atol=1e-2)
        times = {name: [] for name in methods}
        for _ in range(args.rounds):
            for name, run in methods.items():
                times[name].append(timed(run))
        flops = 2.0 * rows * n * k
        tflops = {name: flops / statistics.median(t) / 1e12 for name, t in times.items()}
        print(f"{shape:>26s} {rows:6d} {tflops['torch']:7.1f} {tflops['tessel']:7.1f} "
              f"{tflops['tessel'] / tflops['torch']:5.2f}x", flush=True)
        for configuration in args.configuration:
            print(f"{'':>26s} [{configuration}] {tflops[configuration]:.1f} TFLOPS, "
                  f"{tflops[configuration] / tflops['torch']:.2f}x", flush=True)
        del x, w, y


if __name__ == "__main__":
    main()
