"""A mixture of experts' token movement on the GPU: tessel's moe_permute and moe_unpermute against
PyTorch in one process. Top-k of 4k experts (k = 2 unless --top-k says), bf16 rows, random routing;
each timed call follows an L2 flush; the methods alternate by round; medians. Reports GB/s (the
bytes each must move: the rows read and written, the indices and weights), each kernel's ratio to
PyTorch's, and the permute's fraction of a plain copy of as many rows (`Tensor.copy_`); checks every
output against PyTorch's first.

- permute: permuted = x[source] (torch.index_select), the tokens' rows in their experts' order;
- unpermute: y[t] = sum_j weight[t, j] * expert_out[place[t, j]], in f32 and rounded once (PyTorch:
  a gather, a product and a sum, three kernels).

    python bench/python/bench_moe.py [--shapes 4096x4096,16384x7168] [--top-k 8] [--rounds 20]
"""

import argparse
import statistics

import torch

import tessel
from flushed_timer import FlushedTimer

SHAPES = "1024x4096,4096x4096,16384x4096,4096x7168,16384x7168"


def routing(tokens, top_k):
    """source[r]: the token of row r, rows grouped by expert; place[t, j]: the row of token t's j-th expert."""
    experts = torch.rand(tokens, 4 * top_k, device="cuda").topk(top_k, dim=1).indices
    order = torch.argsort(experts.flatten() * tokens * top_k + torch.arange(tokens * top_k, device="cuda"))
    source = (order // top_k).to(torch.int32)
    place = torch.empty(tokens * top_k, dtype=torch.int32, device="cuda")
    place[order] = torch.arange(tokens * top_k, dtype=torch.int32, device="cuda")
    return source, place.view(tokens, top_k)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=SHAPES)
    parser.add_argument("--top-k", type=int, default=2, help="experts per token, of 4 * top-k")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    top_k = args.top_k
    if top_k < 1:
        parser.error("--top-k must be at least 1")
    timed = FlushedTimer()
    permute = tessel.examples().kernel("moe_permute")
    unpermute = tessel.examples().kernel("moe_unpermute")
    print(f"# {torch.cuda.get_device_name()}, bf16, top-{top_k} of {4 * top_k}, GB/s "
          f"(median of {args.rounds} rounds, L2 flushed)")
    print(f"{'tokens x hidden':>16s} {'copy':>6s} {'permute: torch':>15s} {'tessel':>8s}  ratio  of copy "
          f"{'unpermute: torch':>17s} {'tessel':>8s}  ratio")
    for shape in args.shapes.split(","):
        tokens, hidden = map(int, shape.split("x"))
        rows = tokens * top_k
        x = torch.randn(tokens, hidden, device="cuda").to(torch.bfloat16)
        source, place = routing(tokens, top_k)
        permuted = torch.empty(rows, hidden, dtype=torch.bfloat16, device="cuda")
        expert_out = torch.randn(rows, hidden, device="cuda").to(torch.bfloat16)
        weight = torch.rand(tokens, top_k, device="cuda")
        y = torch.empty(tokens, hidden, dtype=torch.bfloat16, device="cuda")

        def torch_unpermute():
            return (expert_out[place.long()].float() * weight[..., None]).sum(1).to(torch.bfloat16)

        copy_source = torch.empty_like(permuted)
        methods = {
            "permute copy": lambda: permuted.copy_(copy_source),
            "permute torch": lambda: torch.index_select(x, 0, source),
            "permute tessel": lambda: permute(tokens, rows, hidden, x, source, permuted),
            "unpermute torch": torch_unpermute,
            "unpermute tessel": lambda: unpermute(tokens, rows, hidden, top_k, expert_out, place, weight, y),
        }
        permuted.fill_(float("nan"))
        methods["permute tessel"]()  # compiles (and tunes)
        torch.testing.assert_close(permuted, torch.index_select(x, 0, source), rtol=0, atol=0)
        y.fill_(float("nan"))
        methods["unpermute tessel"]()
        # PyTorch sums the two products with separate roundings where tessel fuses them: one bf16 step.
        torch.testing.assert_close(y, torch_unpermute(), rtol=1 / 128, atol=1e-2)
        times = {name: [] for name in methods}
        for _ in range(args.rounds):
            for name, run in methods.items():
                times[name].append(timed(run))
        moved = {"permute": 2 * 2 * rows * hidden + 4 * rows,
                 "unpermute": 2 * rows * hidden + 2 * tokens * hidden + 8 * tokens * top_k}
        rate = {name: moved[name.split()[0]] / statistics.median(t) / 1e9 for name, t in times.items()}
        print(f"{shape:>16s} {rate['permute copy']:6.0f} {rate['permute torch']:15.0f} "
              f"{rate['permute tessel']:8.0f} {rate['permute tessel'] / rate['permute torch']:5.2f}x "
              f"{rate['permute tessel'] / rate['permute copy']:7.0%} "
              f"{rate['unpermute torch']:17.0f} {rate['unpermute tessel']:8.0f} "
              f"{rate['unpermute tessel'] / rate['unpermute torch']:5.2f}x", flush=True)


if __name__ == "__main__":
    main()
