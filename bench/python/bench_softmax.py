"""Row softmax on the GPU: tessel's softmax examples against torch.softmax, in one process. One
warp per row (row_softmax), one block per row (wide_row_softmax) and one cluster of blocks per row
(cluster_row_softmax), float32, random logits; each timed call follows an L2 flush; the methods
alternate by round; medians. Reports GB/s (the matrix read once and written once) and each
kernel's ratio to torch.softmax; checks every output against torch's first. A kernel that a width
does not suit (row_softmax above 4096 columns, wide_row_softmax above 65536) is left out there.

    python bench/python/bench_softmax.py [--shapes 16384x4096,1024x65536] [--rounds 20]
"""

import argparse
import statistics

import torch

import tessel
from flushed_timer import FlushedTimer

SHAPES = "16384x4096,8192x8192,4096x16384,2048x32768,1024x65536,256x262144"
KERNELS = {"row_softmax": 4096, "wide_row_softmax": 65536, "cluster_row_softmax": 1 << 30}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=SHAPES)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    timed = FlushedTimer()
    print(f"# {torch.cuda.get_device_name()}, float32, GB/s (median of {args.rounds} rounds, L2 flushed)")
    print(f"{'rows x cols':>14s} {'torch':>8s}" + "".join(f" {name:>20s}  ratio" for name in KERNELS))
    for shape in args.shapes.split(","):
        rows, cols = map(int, shape.split("x"))
        x = torch.randn(rows, cols, device="cuda") * 8
        y = torch.empty_like(x)
        methods = {"torch": lambda: torch.softmax(x, 1)}
        for name, widest in KERNELS.items():
            if cols <= widest:
                kernel = tessel.examples().kernel(name)
                methods[name] = lambda kernel=kernel: kernel(rows, cols, x, y)
        want = torch.softmax(x, 1)
        for name in list(methods)[1:]:
            y.fill_(float("nan"))
            methods[name]()  # compiles (and tunes)
            torch.testing.assert_close(y, want, rtol=1e-5, atol=1e-7)
        times = {name: [] for name in methods}
        for _ in range(args.rounds):
            for name, run in methods.items():
                times[name].append(timed(run))
        rate = {name: 2 * 4 * rows * cols / statistics.median(t) / 1e9 for name, t in times.items()}
        line = f"{shape:>14s} {rate['torch']:8.0f}"
        for name in KERNELS:
            line += f" {rate[name]:20.0f}  {rate[name] / rate['torch']:.2f}x" if name in rate else f" {'-':>20s}  {'':5s}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
