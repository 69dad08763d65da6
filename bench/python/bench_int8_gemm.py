"""int8 GEMM on the GPU: tessel's int8_gemm example against cuBLASLt's int8 GEMM as PyTorch's
torch._int_mm calls it, in one process. tessel computes D [m, n] = scale_a * scale_b * A [m, k] B [n, k]^T
with i8 operands, exact s32 sums and a bf16 output; torch._int_mm computes the s32 product alone (its
output has twice the bytes, and the scaling would be a further kernel). Random inputs over the whole
i8 range; each timed call follows an L2 flush; the methods alternate by round; medians. Reports TOPS
(2 m n k) and tessel's ratio; checks first that tessel's output is _int_mm's, scaled, to bf16's
precision. The "rowwise" column times int8_gemm_rowwise (per-token and per-channel scales,
SmoothQuant's W8A8) on the same operands, checked against _int_mm's product scaled by the same
vectors; its ratio is also against _int_mm alone, which leaves out the scaling that would follow it.

    python bench/python/bench_int8_gemm.py [--shapes 4096x4096x4096,128x7168x16384] [--rounds 20]
        [--configurations "block_m=64, consumer_warpgroups=1, block_n=128, stages=8, k_chunks=1;..."]

--configurations also times int8_gemm at each of the given points of its space (separated by ';'),
in the same rounds, each checked first; they are listed under their shape's row.
"""

import argparse
import statistics

import torch

import tessel
from flushed_timer import FlushedTimer

SHAPES = "4096x4096x4096,8192x8192x8192,4096x7168x16384,128x7168x16384"
SCALE_A, SCALE_B = 1 / 64, 1 / 128


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=SHAPES)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--configurations", default="", help="points of int8_gemm's space to time too, ';'-separated")
    args = parser.parse_args()
    configurations = [c.strip() for c in args.configurations.split(";") if c.strip()]
    kernel = tessel.examples().kernel("int8_gemm")
    rowwise = tessel.examples().kernel("int8_gemm_rowwise")
    timed = FlushedTimer()
    print(f"# {torch.cuda.get_device_name()}, i8 x i8, TOPS (median of {args.rounds} rounds, L2 flushed)")
    print(f"{'m x n x k':>20s} {'_int_mm':>10s} {'tessel':>10s}  ratio  {'rowwise':>10s}  ratio")
    for shape in args.shapes.split(","):
        m, n, k = map(int, shape.split("x"))
        a = torch.randint(-128, 128, (m, k), device="cuda", dtype=torch.int8)
        b = torch.randint(-128, 128, (n, k), device="cuda", dtype=torch.int8)
        d = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        token_scales = (torch.rand(m, 1, device="cuda") + 0.5) * SCALE_A
        channel_scales = (torch.rand(1, n, device="cuda") + 0.5) * SCALE_B
        methods = {
            "int_mm": lambda: torch._int_mm(a, b.t()),
            "tessel": lambda: kernel(m, n, k, SCALE_A, SCALE_B, a, b, d),
            "rowwise": lambda: rowwise(m, n, k, token_scales, channel_scales, a, b, d),
        }
        for c in configurations:
            fixed = tessel.examples().kernel("int8_gemm", configuration=c)
            methods[c] = lambda fixed=fixed: fixed(m, n, k, SCALE_A, SCALE_B, a, b, d)
        product = methods["int_mm"]().double()
        d.fill_(float("nan"))
        methods["rowwise"]()
        torch.testing.assert_close(d.float(), (product * token_scales.double() * channel_scales.double()).float(),
                                   rtol=2 ** -8, atol=1e-6)
        want = (product * (SCALE_A * SCALE_B)).float()
        for name in ["tessel"] + configurations:
            d.fill_(float("nan"))
            methods[name]()  # compiles (and tunes)
            torch.testing.assert_close(d.float(), want, rtol=2 ** -8, atol=1e-6)
        times = {name: [] for name in methods}
        for _ in range(args.rounds):
            for name, run in methods.items():
                times[name].append(timed(run))
        tops = {name: 2 * m * n * k / statistics.median(t) / 1e12 for name, t in times.items()}
        print(f"{shape:>20s} {tops['int_mm']:10.1f} {tops['tessel']:10.1f}  {tops['tessel'] / tops['int_mm']:.2f}x "
              f"{tops['rowwise']:10.1f}  {tops['rowwise'] / tops['int_mm']:.2f}x", flush=True)
        for c in configurations:
            print(f"{'':>20s} {'':>10s} {tops[c]:10.1f}  {tops[c] / tops['int_mm']:.2f}x  {c}", flush=True)


if __name__ == "__main__":
    main()
