"""tf32 GEMM on the GPU: tessel's hopper_v5_tf32 (the Hopper ladder's step 5 with tf32 operands into
an f32 output) against cuBLAS's TF32 GEMM as PyTorch calls it for float32 matrices with
torch.backends.cuda.matmul.allow_tf32, in one process. C [m, n] = A [m, k] B [n, k]^T, f32 data
in and out, random inputs; each timed call follows an L2 flush; the methods alternate by round;
medians. Reports TFLOPS (2 m n k) and tessel's ratio; checks that the two outputs agree first.

    python bench/python/bench_tf32_gemm.py [--shapes 4096x4096x4096,8192x8192x8192] [--rounds 20]
        [--configurations "block_m=128, consumer_warpgroups=2, block_n=128, stages=5;..."]

--configurations also times hopper_v5_tf32 at each of the given points of its space (separated by
';'), in the same rounds, each checked first; they are listed under their shape's row.
"""

import argparse
import statistics

import torch

import tessel
from flushed_timer import FlushedTimer

SHAPES = "4096x4096x4096,8192x8192x8192,4096x14336x4096,128x14336x4096"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=SHAPES)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--configurations", default="", help="points of hopper_v5_tf32's space, ';'-separated")
    args = parser.parse_args()
    configurations = [c.strip() for c in args.configurations.split(";") if c.strip()]
    torch.backends.cuda.matmul.allow_tf32 = True
    kernel = tessel.examples().kernel("hopper_v5_tf32")
    timed = FlushedTimer()
    print(f"# {torch.cuda.get_device_name()}, tf32 x tf32 -> f32 (f32 data), TFLOPS (median of {args.rounds} "
          "rounds, L2 flushed)")
    print(f"{'m x n x k':>20s} {'cuBLAS':>10s} {'tessel':>10s}  ratio")
    for shape in args.shapes.split(","):
        m, n, k = map(int, shape.split("x"))
        a = torch.randn(m, k, device="cuda")
        b = torch.randn(n, k, device="cuda")
        c = torch.empty(m, n, device="cuda")
        methods = {
            "cublas": lambda: torch.mm(a, b.t(), out=c),
            "tessel": lambda: kernel(m, n, k, a, b, c),
        }
        for configuration in configurations:
            fixed = tessel.examples().kernel("hopper_v5_tf32", configuration=configuration)
            methods[configuration] = lambda fixed=fixed: fixed(m, n, k, a, b, c)
        want = torch.mm(a, b.t())
        # Both read tf32 operands (11 significant bits): products differ from f32's by up to 2^-10 of
        # their size, and k of them add up to about sqrt(k) such errors; the largest of millions of
        # elements lies several of those from the mean.
        tolerance = 8 * 2.0 ** -10 * k ** 0.5
        for name in ["tessel"] + configurations:
            c.fill_(float("nan"))
            methods[name]()  # compiles (and tunes)
            torch.testing.assert_close(c, want, rtol=0, atol=tolerance)
        times = {name: [] for name in methods}
        for _ in range(args.rounds):
            for name, run in methods.items():
                times[name].append(timed(run))
        tflops = {name: 2 * m * n * k / statistics.median(t) / 1e12 for name, t in times.items()}
        print(f"{shape:>20s} {tflops['cublas']:10.1f} {tflops['tessel']:10.1f}  "
              f"{tflops['tessel'] / tflops['cublas']:.2f}x", flush=True)
        for configuration in configurations:
            print(f"{'':>20s} {'':>10s} {tflops[configuration]:10.1f}  "
                  f"{tflops[configuration] / tflops['cublas']:.2f}x  {configuration}", flush=True)


if __name__ == "__main__":
    main()
