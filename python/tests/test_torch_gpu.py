"""baton.torch on a GPU: partitions' streams, gradients, replicas (pytest -m gpu)."""

import copy

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import baton  # noqa: E402
import baton.torch  # noqa: E402
from conftest import requires_gpu  # noqa: E402

pytestmark = [pytest.mark.gpu, requires_gpu]


@pytest.fixture(autouse=True)
def exact_fp32():
    # TF32 would round the GPU's products far above fp32's.
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def gemm_ms_per_device(spec, n=8192, reps=3):
    """Each device times bf16 GEMMs on its own stream, all side by side."""
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    times = {}
    with baton.Runtime(spec, policy="static") as rt:
        count = len(rt.devices)

        def fn(device, begin, end, stream):
            s = torch.cuda.ExternalStream(stream)
            with torch.cuda.stream(s):
                a @ b  # warm
                start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record(s)
                for _ in range(reps):
                    a @ b
                stop.record(s)
            stop.synchronize()
            times[device] = start.elapsed_time(stop) / reps

        rt.run(count, fn)
        names = [d["name"] for d in rt.devices]
    return {names[d]: t for d, t in times.items()}


def test_pytorch_kernels_stay_on_their_partition():
    ms = gemm_ms_per_device("cuda:0/64+32+16+8")
    whole = gemm_ms_per_device("cuda:0")
    print("GEMM 8192^3 bf16, ms:", ms, "whole GPU:", whole)
    t64, t8 = ms["cuda0.p0"], ms["cuda0.p3"]
    # On 8 SMs a GEMM takes about 8x what it takes on 64 (19 ms vs 2.6 ms
    # on an H100); kernels that left their partition would take about as long.
    assert t8 > 5 * t64
    assert t64 > 1.5 * whole["cuda0"]


def small_cnn():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10))


def reference(model, batches, mb):
    model = copy.deepcopy(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in batches:
        opt.zero_grad(set_to_none=True)
        for lo in range(0, len(x), mb):
            (F.cross_entropy(model(x[lo:lo + mb]), y[lo:lo + mb]) * (len(x[lo:lo + mb]) / len(x))).backward()
        opt.step()
    return model


@pytest.mark.parametrize("spec, policy, graphs", [
    ("cuda:0/64+32+16+8", "static", False), ("cuda:0/64+32+16+8", "ws", False),
    ("cuda:0/64+32+16+8", "ws", True), ("cpu,cuda:0", "ws", False), ("cuda:0", "ws", True)])
def test_gpu_training_equals_one_device_and_replicas_agree(spec, policy, graphs):
    model = small_cnn()
    g = torch.Generator().manual_seed(3)
    batches = [(torch.randn(64, 3, 16, 16, generator=g), torch.randint(0, 10, (64,), generator=g))
               for _ in range(4)]
    ref = reference(model, batches, 8)
    sgd = lambda p: torch.optim.SGD(p, lr=0.1)  # noqa: E731
    with baton.torch.Balanced(model, sgd, devices=spec, policy=policy, micro_batch=8,
                              cuda_graphs=graphs) as bal:
        for x, y in batches:
            bal.step(x, y, F.cross_entropy)
        for p, q in zip(bal.module.parameters(), ref.parameters()):
            torch.testing.assert_close(p.cpu(), q, rtol=1e-4, atol=1e-5)
        master = bal.module.state_dict()
        for r in bal.replicas:
            for k, v in r.state_dict().items():
                assert torch.equal(v.cpu(), master[k].cpu()), (spec, k)


def test_a_partition_that_does_not_fit_is_a_value_error():
    with pytest.raises(ValueError, match="SM"):
        baton.torch.Balanced(small_cnn(), lambda p: torch.optim.SGD(p, 0.1), devices="cuda:0/512+8")
