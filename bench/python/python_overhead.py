"""Host cost of one kernel call from Python on the GPU: a tessel kernel (the vector_add example),
a Triton kernel of the same work, PyTorch's own add, bare cuLaunchKernel of a hand-written PTX
vector add, called through ctypes from Python and in a C++ loop, and tessel::Kernel in a C++ loop. Each round times a burst of calls
that the GPU queue absorbs (host time only), then waits; methods alternate by round; medians.

    python bench/python/python_overhead.py [--n 4096] [--calls 200] [--rounds 60]
"""

import argparse
import ctypes
import pathlib
import statistics
import time

import torch
import triton
import triton.language as tl

import tessel

PTX = r"""
.version 8.0
.target sm_80
.address_size 64
.visible .entry vector_add(.param .u32 n, .param .u64 a, .param .u64 b, .param .u64 c) {
  .reg .pred p; .reg .b32 r<5>; .reg .b64 d<8>; .reg .f32 f<3>;
  ld.param.u32 r1, [n]; ld.param.u64 d1, [a]; ld.param.u64 d2, [b]; ld.param.u64 d3, [c];
  mov.u32 r2, %ctaid.x; mov.u32 r3, %ntid.x; mov.u32 r4, %tid.x; mad.lo.s32 r2, r2, r3, r4;
  setp.ge.s32 p, r2, r1; @p ret;
  mul.wide.s32 d4, r2, 4; add.s64 d5, d1, d4; add.s64 d6, d2, d4; add.s64 d7, d3, d4;
  ld.global.f32 f1, [d5]; ld.global.f32 f2, [d6]; add.f32 f1, f1, f2; st.global.f32 [d7], f1;
  ret;
}
"""


@triton.jit
def triton_add(a, b, c, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(c + offsets, tl.load(a + offsets, mask=mask) + tl.load(b + offsets, mask=mask), mask=mask)


def bare_launchers(n, a, b, c):
    cuda = ctypes.CDLL("libcuda.so.1")
    module, function = ctypes.c_void_p(), ctypes.c_void_p()
    assert cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(PTX.encode())) == 0
    assert cuda.cuModuleGetFunction(ctypes.byref(function), module, b"vector_add") == 0
    values = [ctypes.c_uint32(n), ctypes.c_uint64(a.data_ptr()), ctypes.c_uint64(b.data_ptr()),
              ctypes.c_uint64(c.data_ptr())]
    params = (ctypes.c_void_p * 4)(*[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])
    grid = (n + 255) // 256
    launch = cuda.cuLaunchKernel
    launch.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 6 + [ctypes.c_uint, ctypes.c_void_p,
                                                                  ctypes.c_void_p, ctypes.c_void_p]

    def from_python(calls):
        start = time.perf_counter()
        for _ in range(calls):
            launch(function, grid, 1, 1, 256, 1, 1, 0, None, params, None)
        return time.perf_counter() - start

    examples = pathlib.Path(__file__).resolve().parents[2] / "examples"
    loop = tessel.load(pathlib.Path(__file__).with_name("bare_launch.cpp"), extra_cflags=[f"-I{examples}"])
    native = ctypes.CDLL(loop._native.origin)
    native.bare_launch_seconds.restype = ctypes.c_double
    native.bare_launch_seconds.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_uint,
                                           ctypes.c_uint, ctypes.c_void_p]

    native.tessel_launch_seconds.restype = ctypes.c_double
    native.tessel_launch_seconds.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 4

    def from_cpp(calls):
        return native.bare_launch_seconds(function, params, calls, grid, 256, None)

    def tessel_from_cpp(calls):
        return native.tessel_launch_seconds(calls, n, a.data_ptr(), b.data_ptr(), c.data_ptr(), None)

    return from_python, from_cpp, tessel_from_cpp, (values, module)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args()
    n = args.n
    a, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    c = torch.empty(n, device="cuda")
    add = tessel.examples().vector_add

    def timed(call):
        def run(calls):
            start = time.perf_counter()
            for _ in range(calls):
                call()
            return time.perf_counter() - start
        return run

    bare_python, bare_cpp, tessel_cpp, keep_alive = bare_launchers(n, a, b, c)
    methods = {
        "cuLaunchKernel, C++ loop": bare_cpp,
        "cuLaunchKernel via ctypes": bare_python,
        "tessel::Kernel, C++ loop": tessel_cpp,
        "tessel": timed(lambda: add(n, a, b, c)),
        "triton": timed(lambda: triton_add[(triton.cdiv(n, 1024),)](a, b, c, n, BLOCK=1024)),
        "torch.add(out=)": timed(lambda: torch.add(a, b, out=c)),
    }
    for check in (lambda: add(n, a, b, c), lambda: triton_add[(triton.cdiv(n, 1024),)](a, b, c, n, BLOCK=1024)):
        c.fill_(float("nan"))
        check()
        torch.testing.assert_close(c, a + b)
    for run in methods.values():  # warm-up: compiles, caches
        run(args.calls)
    torch.cuda.synchronize()
    samples = {name: [] for name in methods}
    for _ in range(args.rounds):
        for name, run in methods.items():
            samples[name].append(run(args.calls) / args.calls * 1e6)
            torch.cuda.synchronize()
    print(f"# {torch.cuda.get_device_name()}, vector add of {n} floats, host microseconds per call "
          f"(median of {args.rounds} rounds of {args.calls} calls)")
    floor = statistics.median(samples["cuLaunchKernel, C++ loop"])
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"{name:28s} {median:7.2f} us   {median - floor:+7.2f} us over the bare launch")
    del keep_alive


if __name__ == "__main__":
    main()
