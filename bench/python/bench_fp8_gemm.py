"""fp8 GEMM on the GPU: tessel's fp8_gemm example against cuBLASLt's fp8 GEMM as PyTorch's
torch._scaled_mm calls it, in one process. D [m, n] = scale_a * scale_b * A [m, k] B [n, k]^T with
e4m3 operands, per-tensor scales and a bf16 output; random inputs; each timed call follows an L2
flush; the methods alternate by round; medians. Reports TFLOPS (2 m n k) and tessel's ratio; checks
that the two outputs agree first. The last columns time fp8_gemm_block_scaled (DeepSeek-V3's 1 x 128
and 128 x 128 scales, promoted to f32 every k-tile) against cuBLASLt's block-scaled fp8 GEMM with
the same scales (torch._scaled_mm with BlockWise1x128 x BlockWise128x128 scales, CUDA 12.9 and
later on Hopper), again checked against each other; "-" where this PyTorch has no such path. The
"rowwise" columns time fp8_gemm_rowwise (a scale per row of A and per row of B) against
torch._scaled_mm with the same [m, 1] and [1, n] scales, checked against each other first.

    python bench/python/bench_fp8_gemm.py [--shapes 4096x4096x4096,128x7168x16384] [--rounds 20]
        [--configurations "block_m=64, consumer_warpgroups=1, block_n=128, stages=8, k_chunks=1;..."]

--configurations also times fp8_gemm at each of the given points of its space (separated by ';'),
in the same rounds, each checked first; they are listed under their shape's row.
"""

import argparse
import statistics

import torch

import tessel
from flushed_timer import FlushedTimer

SHAPES = "4096x4096x4096,8192x8192x8192,4096x7168x16384,128x7168x16384"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=SHAPES)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--configurations", default="", help="points of fp8_gemm's space to time too, ';'-separated")
    args = parser.parse_args()
    configurations = [c.strip() for c in args.configurations.split(";") if c.strip()]
    kernel = tessel.examples().kernel("fp8_gemm")
    block_scaled = tessel.examples().kernel("fp8_gemm_block_scaled")
    rowwise = tessel.examples().kernel("fp8_gemm_rowwise")
    timed = FlushedTimer()
    print(f"# {torch.cuda.get_device_name()}, e4m3 x e4m3 -> bf16, TFLOPS (median of {args.rounds} rounds, "
          "L2 flushed)")
    print(f"{'m x n x k':>20s} {'cuBLASLt':>10s} {'tessel':>10s}  ratio  {'cuBLASLt bs':>12s} "
          f"{'block-scaled':>12s}  ratio  {'torch rw':>10s} {'rowwise':>10s}  ratio")
    for shape in args.shapes.split(","):
        m, n, k = map(int, shape.split("x"))
        a = (torch.randn(m, k, device="cuda") * 2).to(torch.float8_e4m3fn)
        b = (torch.randn(n, k, device="cuda") * 2).to(torch.float8_e4m3fn)
        scale_a = torch.tensor(0.5, device="cuda")
        scale_b = torch.tensor(0.25, device="cuda")
        d = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        row_scales = torch.rand(m, (k + 127) // 128, device="cuda") + 0.5
        block_scales = torch.rand((n + 127) // 128, (k + 127) // 128, device="cuda") + 0.5
        # A's scales [m, k / 128] stored M-major, as cuBLASLt takes them: tessel reads the same
        # storage as [k / 128, m].
        column_major_rows = row_scales.t().contiguous().t()
        token_scales = torch.rand(m, 1, device="cuda") + 0.5
        channel_scales = torch.rand(1, n, device="cuda") + 0.5
        methods = {
            "cublaslt": lambda: torch._scaled_mm(a, b.t(), scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16),
            "tessel": lambda: kernel(m, n, k, 0.5, 0.25, a, b, d),
            "block_scaled": lambda: block_scaled(m, n, k, column_major_rows.t(), block_scales, a, b, d),
            "torch_rowwise": lambda: torch._scaled_mm(a, b.t(), scale_a=token_scales, scale_b=channel_scales,
                                                      out_dtype=torch.bfloat16),
            "rowwise": lambda: rowwise(m, n, k, token_scales, channel_scales, a, b, d),
        }
        for c in configurations:
            fixed = tessel.examples().kernel("fp8_gemm", configuration=c)
            methods[c] = lambda fixed=fixed: fixed(m, n, k, 0.5, 0.25, a, b, d)
        want = methods["cublaslt"]()
        for name in ["tessel"] + configurations:
            d.fill_(float("nan"))
            methods[name]()  # compiles (and tunes)
            torch.testing.assert_close(d.float(), want.float(), rtol=2e-2,
                                       atol=2e-2 * want.float().abs().max().item())
        want = methods["torch_rowwise"]()
        d.fill_(float("nan"))
        methods["rowwise"]()
        torch.testing.assert_close(d.float(), want.float(), rtol=2e-2, atol=2e-2 * want.float().abs().max().item())
        methods["block_scaled"]()
        # cuBLASLt takes the block scales of B (k x n) as [k / 128, n / 128] column-major, which is
        # block_scales' own storage.
        try:
            want = torch._scaled_mm(a, b.t(), scale_a=column_major_rows, scale_b=block_scales.t(),
                                    out_dtype=torch.bfloat16)
        except (RuntimeError, ValueError):
            want = None
        if want is not None:
            torch.testing.assert_close(d.float(), want.float(), rtol=2e-2,
                                       atol=2e-2 * want.float().abs().max().item())
            methods["cublaslt_block_scaled"] = lambda: torch._scaled_mm(
                a, b.t(), scale_a=column_major_rows, scale_b=block_scales.t(), out_dtype=torch.bfloat16)
        times = {name: [] for name in methods}
        for _ in range(args.rounds):
            for name, run in methods.items():
                times[name].append(timed(run))
        tflops = {name: 2 * m * n * k / statistics.median(t) / 1e12 for name, t in times.items()}
        ratio = {name: tflops[name] / tflops["cublaslt"] for name in tflops}
        if "cublaslt_block_scaled" in tflops:
            anchor = f"{tflops['cublaslt_block_scaled']:12.1f}"
            block_ratio = f"{tflops['block_scaled'] / tflops['cublaslt_block_scaled']:.2f}x"
        else:
            anchor, block_ratio = f"{'-':>12s}", "-"
        print(f"{shape:>20s} {tflops['cublaslt']:10.1f} {tflops['tessel']:10.1f}  {ratio['tessel']:.2f}x "
              f"{anchor} {tflops['block_scaled']:12.1f}  {block_ratio:>5s}  {tflops['torch_rowwise']:10.1f} "
              f"{tflops['rowwise']:10.1f}  {tflops['rowwise'] / tflops['torch_rowwise']:.2f}x", flush=True)
        for c in configurations:
            print(f"{'':>20s} {'':>10s} {tflops[c]:10.1f}  {ratio[c]:.2f}x  {c}", flush=True)


if __name__ == "__main__":
    main()
