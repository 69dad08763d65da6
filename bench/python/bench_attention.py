"""Attention forward on the GPU: the attention ladder's steps against PyTorch's
scaled_dot_product_attention with its cuDNN and flash backends, in one process. Random inputs,
[batch, heads, seq, head_dim] with batch x seq = 16k tokens and 16 heads; each timed call follows an
L2 flush; the methods alternate by round; medians. Reports TFLOPS (4 b h s_q s_k d, halved when
causal) and each step's ratio to the faster PyTorch backend.

    python bench/python/bench_attention.py [--steps attention_v1] [--seqs 1024,4096] [--dims 64,128]
                                           [--dtype float16|bfloat16] [--rounds 20]
                                           [--configuration "split_tail=0" ...]

Each --configuration also times every step with those hyperparameters fixed (the others tuned), as a
column of its own named by the configuration.
"""

import argparse
import statistics

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

import tessel
from flushed_timer import FlushedTimer


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="attention_v1")
    parser.add_argument("--seqs", default="1024,2048,4096,8192,16384")
    parser.add_argument("--dims", default="64,128")
    parser.add_argument("--dtype", default="float16", choices=["float16", "bfloat16"])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--configuration", action="append", default=[],
                        help="hyperparameters to fix, as in tessel run --config; repeatable")
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    suffix = "_bf16" if dtype == torch.bfloat16 else ""
    examples = tessel.examples()
    timed = FlushedTimer()
    steps = args.steps.split(",")
    configurations = [""] + args.configuration

    def column(step, configuration):
        return f"{step}[{configuration}]" if configuration else step

    columns = [column(step, c) for step in steps for c in configurations]
    print(f"# {torch.cuda.get_device_name()}, {args.dtype}, TFLOPS (median of {args.rounds} rounds, L2 flushed)")
    print("seq    d  causal " + " ".join(f"{name:>14s}" for name in ["cudnn", "flash"] + columns)
          + "  ratio to the faster backend")
    for seq in map(int, args.seqs.split(",")):
        for d in map(int, args.dims.split(",")):
            for causal in (False, True):
                batch, heads = max(1, 16384 // seq), 16
                q, k, v = (torch.randn(batch, heads, seq, d, device="cuda", dtype=dtype) for _ in range(3))
                o = torch.empty_like(q)
                lse = torch.empty(batch, heads, seq, device="cuda", dtype=torch.float32)
                scale = d ** -0.5
                methods = {}
                for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
                    def run(backend=backend):
                        with sdpa_kernel(backend):
                            torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    methods[name] = run
                for step in steps:
                    for configuration in configurations:
                        kernel = examples.kernel(step + suffix, configuration=configuration)
                        methods[column(step, configuration)] = lambda kernel=kernel: kernel(
                            batch, heads, heads, seq, seq, d, causal, scale, q, k, v, o, lse)
                times = {name: [] for name in methods}
                for run in methods.values():  # warm-up: compiles, tunes
                    run()
                for _ in range(args.rounds):
                    for name, run in methods.items():
                        times[name].append(timed(run))
                flops = 4 * batch * heads * seq * seq * d / (2 if causal else 1)
                tflops = {name: flops / statistics.median(t) / 1e12 for name, t in times.items()}
                best = max(tflops["cudnn"], tflops["flash"])
                ratios = " ".join(f"{tflops[c]/best:.3f}x" for c in columns)
                print(f"{seq:<6d} {d:<3d} {str(causal):6s} " + " ".join(f"{tflops[n]:14.1f}" for n in methods)
                      + f"  {ratios}", flush=True)


if __name__ == "__main__":
    main()
