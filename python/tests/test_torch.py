"""The Python module on torch tensors on the GPU: current and side streams, CUDA graphs,
torch.compile through custom ops, and the C++ API's messages. Skipped without torch or a GPU; run
on a GPU machine with `python -m pytest python/tests` (docs/python.md)."""

import pathlib

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

import tessel  # noqa: E402


def axpy_inputs(n, device="cuda"):
    g = torch.Generator(device=device).manual_seed(n)
    x = torch.randn(n, device=device, generator=g)
    y = torch.randn(n, device=device, generator=g)
    out = torch.full((n,), float("nan"), device=device)
    return x, y, out


def error_of(call):
    with pytest.raises(tessel.Error) as e:
        call()
    return str(e.value)


def test_a_user_kernel_runs_on_torch_tensors(consumer):
    n = 100_003
    x, y, out = axpy_inputs(n)
    consumer.axpy(n, 1.75, x, y, out)
    torch.testing.assert_close(out, 1.75 * x + y)


def test_cpu_tensors_run_on_the_simulator(consumer):
    n = 2000
    x, y, out = axpy_inputs(n, "cpu")
    consumer.axpy(n, -0.5, x, y, out)
    torch.testing.assert_close(out, -0.5 * x + y)


def test_wrong_dtype_and_non_contiguous_tensors_get_the_messages_of_the_cpp_api(consumer):
    n = 256
    x, y, out = axpy_inputs(n)
    assert error_of(lambda: consumer.axpy(n, 1.0, x.half(), y, out)) == (
        "kernel Axpy, parameter x (argument 2): expected a pointer to f32, got a pointer to f16")
    strided = torch.randn(2 * n, device="cuda")[::2]
    assert error_of(lambda: consumer.axpy(n, 1.0, strided, y, out)) == (
        "kernel Axpy, parameter x (argument 2): the tensor is not contiguous (its strides are not row-major for its "
        "shape), and a pointer parameter reads its elements in row-major order; pass a contiguous copy")
    assert error_of(lambda: consumer.axpy(n, 1.0, x.cpu(), y, out)) == (
        "kernel Axpy: parameter x is in host memory and parameter y in GPU memory; pass every array in one memory "
        "(host memory runs on the simulator, GPU memory on the GPU)")


def test_a_kernel_read_back_from_the_compile_cache_runs_beside_torch():
    # Two spellings of one configuration are two kernel objects: the second finds the first's cubin
    # in the disk cache. Reading an entry back used C++ streams, whose locale lookups crashed in a
    # process that holds PyTorch's libraries.
    n = 50_000
    a, b, _ = axpy_inputs(n)
    for configuration in ("block=2048, warps=4", "warps=4, block=2048"):
        c = torch.full((n,), float("nan"), device="cuda")
        tessel.examples().kernel("vector_add", configuration=configuration)(n, a, b, c)
        torch.testing.assert_close(c, a + b)


def test_a_call_runs_on_the_current_stream(consumer):
    n = 1 << 20
    side = torch.cuda.Stream()
    x, y, out = axpy_inputs(n)
    with torch.cuda.stream(side):
        assert tessel.kernels.current_stream((n, 2.0, x)) == side.cuda_stream
        torch.cuda._sleep(50_000_000)  # the side stream is busy: a launch elsewhere would run first
        x.mul_(3)
        consumer.axpy(n, 2.0, x, y, out)
    side.synchronize()
    torch.testing.assert_close(out, 2.0 * x + y)


def test_a_call_is_captured_in_a_cuda_graph(consumer):
    n = 50_000
    x, y, out = axpy_inputs(n)
    consumer.axpy(n, 3.0, x, y, out)  # warm-up: compiles outside the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        consumer.axpy(n, 3.0, x, y, out)
    x.copy_(torch.randn(n, device="cuda"))
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(out, 3.0 * x + y)


@pytest.fixture(scope="module")
def scratch_kernels():
    return tessel.load(pathlib.Path(__file__).parent / "scratch_kernels.cpp")


def column_sums_inputs(rows, seed):
    """[rows, 64] multiples of 1/64 of at most 1/2, whose sums (below 2^15) f32 adds exactly in any order."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randint(-32, 33, (rows, 64), device="cuda", generator=g).float() / 64
    return x, x.double().sum(0)


@pytest.mark.parametrize("device", ["cuda", "cpu"])
def test_float8_e8m0fnu_tensors_are_e8m0_scales(device):
    if not hasattr(torch, "float8_e8m0fnu"):
        pytest.skip("this torch has no float8_e8m0fnu")
    kernels = tessel.load(pathlib.Path(__file__).parent / "scale_kernels.cpp")
    n = 1000
    bits = (torch.arange(n, dtype=torch.int32) * 37 + 11) % 256
    scales = bits.to(torch.uint8).view(torch.float8_e8m0fnu).to(device)
    out = torch.full((n,), -1.0, device=device)
    kernels.widen_scales(n, scales, out)
    want = torch.where(bits == 255, float("nan"), torch.ldexp(torch.ones(n), (bits - 127).float()))
    want[bits == 0] = 2.0**-127
    got = out.cpu()
    assert torch.equal(torch.isnan(got), bits == 255)
    finite = bits != 255
    assert torch.equal(got[finite], want[finite])
    assert torch.equal(got[finite], scales.float().cpu()[finite])


def test_launches_on_two_streams_run_at_once_with_scratch_of_their_own(scratch_kernels):
    # The last block of each launch adds 4096 partials one after another, so the other stream's launch
    # runs meanwhile: with one set of scratch buffers it would overwrite them and share the tickets.
    rows = 16 * 4096
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    inputs = [column_sums_inputs(rows, seed) for seed in (1, 2)]
    sums = [torch.full((64,), -1.0, device="cuda") for _ in range(8)]
    torch.cuda.synchronize()
    for i, out in enumerate(sums):
        with torch.cuda.stream(streams[i % 2]):
            scratch_kernels.column_sums(rows, inputs[i % 2][0], out)
    torch.cuda.synchronize()
    for i, out in enumerate(sums):
        assert torch.equal(out.double(), inputs[i % 2][1]), f"launch {i}"


def test_a_kernel_with_global_scratch_is_captured_in_a_cuda_graph(scratch_kernels):
    small, want_small = column_sums_inputs(4096, 3)
    out_small = torch.full((64,), -1.0, device="cuda")
    scratch_kernels.column_sums(4096, small, out_small)  # warm-up: compiles outside the capture
    # Captured on a stream of its own, at a larger size: the graph's scratch is made during the capture.
    rows = 16 * 4096
    x, _ = column_sums_inputs(rows, 4)
    out = torch.full((64,), -1.0, device="cuda")
    capture = torch.cuda.Stream()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=capture):
        scratch_kernels.column_sums(rows, x, out)
    assert torch.equal(out, torch.full_like(out, -1.0))  # captured, not run
    with torch.cuda.stream(capture):  # a launch outside the graph before any replay finds zeroed tickets
        scratch_kernels.column_sums(4096, small, out_small)
    capture.synchronize()
    assert torch.equal(out_small.double(), want_small)
    for replay in range(3):
        x.copy_(column_sums_inputs(rows, 5 + replay)[0])
        out.fill_(-1.0)
        graph.replay()
        scratch_kernels.column_sums(4096, small, out_small)
        torch.cuda.synchronize()
        assert torch.equal(out.double(), x.double().sum(0)), f"replay {replay}"
        assert torch.equal(out_small.double(), want_small)


def test_a_user_kernel_as_a_custom_op_under_torch_compile(consumer):
    axpy = consumer.axpy.as_torch_op("tessel_test::axpy", mutates=["out"])

    def f(x, y):
        out = torch.empty_like(x)
        axpy(x.numel(), 0.25, x.sin(), y, out)
        return out.cos()

    compiled = torch.compile(f, fullgraph=True)
    x, y, _ = axpy_inputs(4096)
    torch.testing.assert_close(compiled(x, y), (0.25 * x.sin() + y).cos())
    assert "no array parameter outs" in error_of(lambda: consumer.axpy.as_torch_op("tessel_test::b", mutates=["outs"]))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_ready_functions_on_the_gpu_and_under_torch_compile(dtype):
    x = torch.randn(256, 512, device="cuda", dtype=dtype)
    w = torch.randn(384, 512, device="cuda", dtype=dtype)
    want = (x.double() @ w.double().T)
    torch.testing.assert_close(tessel.ops.linear(x, w).double(), want, rtol=1e-2, atol=1e-1)
    compiled = torch.compile(lambda a, b: tessel.ops.linear(a, b).relu(), fullgraph=True)
    torch.testing.assert_close(compiled(x, w).double(), want.relu(), rtol=1e-2, atol=1e-1)

    scores = torch.randn(64, 3000, device="cuda") * 8
    torch.testing.assert_close(tessel.ops.softmax(scores), torch.softmax(scores, 1))
    wide = torch.randn(33, 70000, device="cuda") * 8  # one cluster of blocks per row on sm_90
    torch.testing.assert_close(tessel.ops.softmax(wide), torch.softmax(wide, 1))
    gamma, beta = torch.randn(3000, device="cuda"), torch.randn(3000, device="cuda")
    torch.testing.assert_close(tessel.ops.layer_norm(scores, gamma, beta),
                               torch.nn.functional.layer_norm(scores, (3000,), gamma, beta), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_matches_sdpa_and_compiles(dtype, causal):
    q = torch.randn(2, 8, 300, 128, device="cuda", dtype=dtype)
    k = torch.randn(2, 2, 300, 128, device="cuda", dtype=dtype)
    v = torch.randn(2, 2, 300, 128, device="cuda", dtype=dtype)
    want = torch.nn.functional.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=causal,
                                                            enable_gqa=True)
    o, lse = tessel.ops.attention(q, k, v, causal=causal)
    torch.testing.assert_close(o.double(), want, rtol=2e-2, atol=2e-2)
    assert lse.shape == (2, 8, 300) and lse.dtype == torch.float32
    compiled = torch.compile(lambda a, b, c: tessel.ops.attention(a, b, c, causal=causal)[0] * 2, fullgraph=True)
    torch.testing.assert_close(compiled(q, k, v).double(), want * 2, rtol=4e-2, atol=4e-2)
