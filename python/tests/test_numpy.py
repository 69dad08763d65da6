"""The Python module on numpy arrays: host memory runs on the simulator, so these run everywhere
(CI has no GPU and no torch). test_torch.py runs the GPU half."""

import re

import numpy as np
import pytest

import tessel

rng = np.random.default_rng(7)


def axpy_inputs(n):
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, dtype=np.float32)  # poisoned: every element must be written
    return x, y, out


def error_of(call):
    with pytest.raises(tessel.Error) as e:
        call()
    return str(e.value)


def test_a_user_kernel_runs_on_the_simulator_and_matches_numpy(consumer):
    n = 3000  # not a multiple of the block
    x, y, out = axpy_inputs(n)
    consumer.axpy(n, 1.75, x, y, out)
    # a * x + y is one fma, rounded once: in float64, 1.75 * x is exact and the sum rounds as the
    # fma's does for these inputs.
    np.testing.assert_array_equal(out, (1.75 * x.astype(np.float64) + y).astype(np.float32))


def test_empty_arrays_are_taken_whatever_their_strides(consumer):
    # numpy gives an empty array strides that are not row-major for its shape; it holds no element.
    empty = np.zeros(0, np.float32)
    consumer.axpy(0, 2.0, empty, empty, np.zeros(0, np.float32))
    x, y, out = axpy_inputs(40)
    consumer.axpy(40, 2.0, x, y, out)
    np.testing.assert_allclose(out, 2.0 * x + y, rtol=1e-6)


def test_the_library_lists_and_describes_its_kernels(consumer):
    assert consumer.names() == ["axpy"]
    assert consumer.describe("axpy") == "out = alpha x + y over n floats"
    assert consumer.axpy.parameters == [("n", "scalar", "i32"), ("alpha", "scalar", "f32"),
                                        ("x", "pointer", "f32"), ("y", "pointer", "f32"),
                                        ("out", "pointer", "f32")]
    with pytest.raises(AttributeError, match="unknown kernel 'saxpy'; the registered kernels are: axpy"):
        consumer.saxpy


def test_a_configuration_fixes_the_hyperparameters(consumer):
    n = 1500
    x, y, out = axpy_inputs(n)
    consumer.kernel("axpy", configuration="block=512")(n, -2.0, x, y, out)
    np.testing.assert_allclose(out, np.float32(-2.0) * x + y, rtol=1e-6)
    # Refused when the kernel is looked up, before any call.
    assert "kernel axpy: configuration \"blok=512\": the space has no hyperparameter 'blok'" in error_of(
        lambda: consumer.kernel("axpy", configuration="blok=512"))
    assert "no candidate of the space has these values (block takes" in error_of(
        lambda: consumer.kernel("axpy", configuration="block=7"))


def test_the_registered_host_check_runs_under_every_schedule(consumer):
    ok, summary = consumer.check("axpy", "sim", [777], seeds=2)
    assert ok, summary
    assert [line.split(":")[0] for line in summary.split("\n")] == [
        "eager", "lazy", "seed 1", "seed 2", "seed 1, 4 groups at once"]
    assert all("axpy n=777" in line for line in summary.split("\n"))


def test_wrong_arguments_get_the_messages_of_the_cpp_api(consumer):
    n = 256
    x, y, out = axpy_inputs(n)
    assert error_of(lambda: consumer.axpy(n, 1.0, x.astype(np.float16), y, out)) == (
        "kernel Axpy, parameter x (argument 2): expected a pointer to f32, got a pointer to f16")
    assert error_of(lambda: consumer.axpy(n, 1.0, x.astype(np.float64), y, out)) == (
        "kernel Axpy, parameter x (argument 2): expected a pointer to f32, got a pointer to f64")
    assert error_of(lambda: consumer.axpy(n, 1.0, x.astype(np.complex64), y, out)) == (
        "kernel Axpy, parameter x (argument 2): the array holds complex64 elements, which tessel has no element type "
        "for")
    strided = np.repeat(x, 2)[::2]
    assert error_of(lambda: consumer.axpy(n, 1.0, strided, y, out)) == (
        "kernel Axpy, parameter x (argument 2): the tensor is not contiguous (its strides are not row-major for its "
        "shape), and a pointer parameter reads its elements in row-major order; pass a contiguous copy")
    assert error_of(lambda: consumer.axpy(n, 1.0, x, y)) == (
        "kernel Axpy takes 5 arguments (n, alpha, x, y, out), 4 given")
    assert error_of(lambda: consumer.axpy(n, 1.0, "x", y, out)) == (
        "kernel Axpy, parameter x (argument 2): got a str value; kernel arguments are integers, floats, bools and "
        "arrays (torch tensors, numpy arrays, any DLPack producer)")
    short = error_of(lambda: consumer.axpy(n, 1.0, x[:100], y, out))
    assert re.fullmatch(r".*axpy\.hpp:\d+: kernel Axpy: the global_view of parameter x with shape \[256\] and strides "
                        r"\[1\] spans 256 elements, but the argument for x holds 100; pass a larger tensor, or sizes "
                        r"that fit it", short), short
    # Nothing ran: the output is as poisoned as before.
    assert np.isnan(out).all()


def test_a_read_only_array_that_numpy_does_not_export_is_named(consumer):
    n = 256
    x, y, out = axpy_inputs(n)
    x.setflags(write=False)
    try:
        x.__dlpack__()
    except BufferError:  # numpy exports no read-only array through DLPack
        assert error_of(lambda: consumer.axpy(n, 1.0, x, y, out)) == (
            "kernel Axpy, parameter x (argument 2): the array does not export itself through DLPack (numpy exports "
            "no read-only array, such as one of np.broadcast_to or with writeable=False); pass a writable copy "
            "(x.copy())")
    else:
        consumer.axpy(n, 1.0, x, y, out)
        np.testing.assert_allclose(out, 1.0 * x + y, rtol=1e-6)


def test_an_array_in_the_other_byte_order_is_named(consumer):
    n = 256
    x, y, out = axpy_inputs(n)
    swapped = x.astype(x.dtype.newbyteorder("S"))
    assert error_of(lambda: consumer.axpy(n, 1.0, swapped, y, out)) == (
        f"kernel Axpy, parameter x (argument 2): the array's elements are not in this machine's byte order (dtype "
        f"{swapped.dtype.str}), which DLPack cannot describe; pass x.astype(x.dtype.newbyteorder('='))")
    assert np.isnan(out).all()


def test_arguments_beyond_their_parameters_range_are_named(consumer):
    n = 256
    x, y, out = axpy_inputs(n)
    assert error_of(lambda: consumer.axpy(2**31, 1.0, x, y, out)) == (
        "kernel Axpy, parameter n (argument 0): 2147483648 does not fit in i32")
    assert error_of(lambda: consumer.axpy(n, 1e300, x, y, out)) == (
        "kernel Axpy, parameter alpha (argument 1): 1e+300 is beyond the range of f32")
    assert np.isnan(out).all()


def test_a_second_load_uses_the_cache_and_an_edited_header_compiles_again(consumer, consumer_dir, capfd):
    assert tessel.load(consumer_dir / "kernels.cpp") is consumer
    assert "compiling" not in capfd.readouterr().err
    header = consumer_dir / "axpy.hpp"
    header.write_text(header.read_text().replace("alpha * rx + ry", "alpha * rx - ry"))
    edited = tessel.load(consumer_dir / "kernels.cpp")
    assert "compiling kernels.cpp" in capfd.readouterr().err
    n = 700
    x, y, out = axpy_inputs(n)
    edited.axpy(n, 0.5, x, y, out)
    np.testing.assert_allclose(out, np.float32(0.5) * x - y, rtol=1e-6)
    # The library loaded before the edit is still open and still the old kernel.
    consumer.axpy(n, 0.5, x, y, out)
    np.testing.assert_allclose(out, np.float32(0.5) * x + y, rtol=1e-6)


def test_a_file_that_does_not_compile_reports_the_compiler(tmp_path):
    source = tmp_path / "broken.cpp"
    source.write_text('#include "no_such_header.hpp"\n')
    message = error_of(lambda: tessel.load(source))
    assert message.startswith(f"compiling {source} failed (exit code 1):")
    assert "no_such_header.hpp" in message


def test_a_library_without_a_kernels_block_is_refused(tmp_path):
    source = tmp_path / "plain.cpp"
    source.write_text("int answer() { return 42; }\n")
    message = error_of(lambda: tessel.load(source))
    assert re.fullmatch(r".*kernels-[0-9a-f]+\.so defines no tessel_kernels\(\): register its kernels in a "
                        r"TESSEL_KERNELS block \(tessel/cli/registry\.hpp\)", message), message


def test_load_names_a_missing_file():
    assert error_of(lambda: tessel.load("no/such/kernels.cpp")) == "tessel.load: no file no/such/kernels.cpp"


def test_ready_functions_on_numpy_arrays():
    scores = (rng.standard_normal((37, 300)) * 8).astype(np.float32)
    e = np.exp(scores.astype(np.float64) - scores.max(axis=1, keepdims=True))
    np.testing.assert_allclose(tessel.ops.softmax(scores), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    wide = (rng.standard_normal((2, 40000)) * 8).astype(np.float32)  # one cluster of blocks per row
    e = np.exp(wide.astype(np.float64) - wide.max(axis=1, keepdims=True))
    np.testing.assert_allclose(tessel.ops.softmax(wide), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)

    x = rng.standard_normal((5, 3000)).astype(np.float32)
    gamma = rng.standard_normal(3000).astype(np.float32)
    beta = rng.standard_normal(3000).astype(np.float32)
    x64 = x.astype(np.float64)
    want = (x64 - x64.mean(1, keepdims=True)) / np.sqrt(x64.var(1, keepdims=True) + 1e-5) * gamma + beta
    np.testing.assert_allclose(tessel.ops.layer_norm(x, gamma, beta), want, rtol=1e-4, atol=1e-4)

    a = rng.standard_normal((64, 96)).astype(np.float16)
    w = rng.standard_normal((80, 96)).astype(np.float16)
    want = a.astype(np.float64) @ w.astype(np.float64).T
    np.testing.assert_allclose(tessel.ops.linear(a, w).astype(np.float64), want, rtol=2e-3, atol=2e-2)


def test_ready_functions_check_their_inputs():
    assert error_of(lambda: tessel.ops.softmax(np.zeros((4, 4, 4), np.float32))) == (
        "tessel.ops.softmax: expected a 2-D array, got shape [4, 4, 4]")
    assert error_of(lambda: tessel.ops.linear(np.zeros((4, 8), np.float16), np.zeros((4, 16), np.float16))) == (
        "tessel.ops.linear: x is [4, 8] and weight [4, 16]; their k (last extents) differ")
    assert error_of(lambda: tessel.ops.linear(np.zeros((4, 8), np.float32), np.zeros((4, 8), np.float32))) == (
        "tessel.ops.linear: expected float16 or bfloat16 elements, got float32")


def test_the_examples_are_a_library():
    examples = tessel.examples()
    assert "hopper_v5" in examples.names()
    n = 1000
    a, b, c = axpy_inputs(n)
    examples.vector_add(n, a, b, c)
    np.testing.assert_array_equal(c, a + b)


def e4m3_values(bits):
    """The values of e4m3 bit patterns (no NaN among them): bias 7, subnormals below exponent 1."""
    sign = np.where(bits & 0x80, -1.0, 1.0)
    exponent = (bits >> 3) & 0xF
    mantissa = (bits & 0x7).astype(np.float64)
    magnitude = np.where(exponent == 0, mantissa / 8 * 2.0**-6, (1 + mantissa / 8) * 2.0 ** (exponent.astype(np.float64) - 7))
    return sign * magnitude


def test_bf16_and_fp8_parameters_take_numpy_arrays_of_their_bits():
    m, k = 5, 256
    x32 = (rng.standard_normal((m, k)) * 3).astype(np.float32)
    x_bits = (x32.view(np.uint32) >> 16).astype(np.uint16)  # bf16 by truncation
    x = (x_bits.astype(np.uint32) << 16).view(np.float32)
    q = np.full((m, k), 0x7F, np.uint8)  # poisoned: e4m3's NaN
    scales = np.full((k // 128, m), np.nan, np.float32)
    tessel.examples().quantize_fp8_groups(m, k, x_bits, q, scales)
    groups = x.reshape(m, k // 128, 128)
    want_scales = np.maximum(np.abs(groups).max(-1), np.float32(1e-4)) * np.float32(1.0 / 448.0)
    np.testing.assert_array_equal(scales, want_scales.T)
    scaled = (groups * (np.float32(1.0) / want_scales)[..., None]).reshape(m, k).astype(np.float64)
    got = e4m3_values(q)
    # Round to nearest in e4m3: half an ulp, relative 2^-4 for normals, 2^-10 below 2^-6.
    assert np.all(np.abs(got - scaled) <= np.maximum(np.abs(scaled) * 2.0**-4, 2.0**-10))
    # Other widths stay refused by their type.
    assert error_of(lambda: tessel.examples().quantize_fp8_groups(m, k, x_bits.astype(np.uint32), q, scales)) == (
        "kernel QuantizeFp8Groups, parameter x (argument 2): expected a pointer to bf16, got a pointer to u32")


def test_float32_arrays_are_tf32_operands():
    # hopper_v5_tf32 takes f32 data as tf32: the tensor cores read each value with its low 13
    # mantissa bits cleared, so the reference clears them too.
    m, n, k = 64, 128, 64
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((n, k)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    tessel.examples().hopper_v5_tf32(m, n, k, a, b, c)
    as_tf32 = lambda x: (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    want = as_tf32(a) @ as_tf32(b).T
    magnitudes = np.abs(as_tf32(a)) @ np.abs(as_tf32(b)).T
    assert np.all(np.abs(c - want) <= k * 2.0 ** -23 * magnitudes)
    # The full f32 operands give other sums: the truncation is seen.
    assert not np.allclose(c, a.astype(np.float64) @ b.astype(np.float64).T, rtol=0, atol=1e-5)


def attention_reference(q, k, v, causal, scale):
    group = q.shape[1] // k.shape[1]
    q64 = q.astype(np.float64)
    k64 = np.repeat(k.astype(np.float64), group, axis=1)
    v64 = np.repeat(v.astype(np.float64), group, axis=1)
    s = q64 @ k64.transpose(0, 1, 3, 2) * scale
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], dtype=bool)), s, -np.inf)
    m = s.max(-1, keepdims=True)
    p = np.exp(s - m)
    l = p.sum(-1, keepdims=True)
    return (p @ v64) / l, (m + np.log(l))[..., 0]


@pytest.mark.parametrize("causal", [False, True])
def test_attention_on_numpy_arrays(causal):
    q = rng.standard_normal((1, 4, 90, 64)).astype(np.float16)
    q[:, :, ::7] *= 200  # logits that overflow an unshifted exp
    k = rng.standard_normal((1, 2, 110, 64)).astype(np.float16)
    v = rng.standard_normal((1, 2, 110, 64)).astype(np.float16)
    o, lse = tessel.ops.attention(q, k, v, causal=causal)
    want_o, want_lse = attention_reference(q, k, v, causal, 64 ** -0.5)
    np.testing.assert_allclose(o.astype(np.float64), want_o, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(lse, want_lse, rtol=1e-4, atol=2e-3)


def test_attention_checks_its_inputs():
    q = np.zeros((1, 4, 16, 64), np.float16)
    kv = np.zeros((1, 2, 16, 128), np.float16)
    assert error_of(lambda: tessel.ops.attention(q, kv, kv)) == (
        "tessel.ops.attention: the head dimensions of q, k and v disagree: 64, 128 and 128")
    kv = np.zeros((1, 3, 16, 64), np.float16)
    assert error_of(lambda: tessel.ops.attention(q, kv, kv)) == (
        "tessel.ops.attention: 4 query heads cannot share 3 K/V heads evenly")
    kv = np.zeros((1, 2, 16, 64), np.float16)
    assert error_of(lambda: tessel.ops.attention(q, kv, kv, scale=-0.125)) == (
        "tessel.ops.attention: scale must be positive, got -0.125")
