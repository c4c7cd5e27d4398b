import copy
import json
import math

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import baton  # noqa: E402
import baton.torch  # noqa: E402


def small_cnn():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 8, 3, padding=1, stride=2), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 10))


def batch(n, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, 3, 16, 16, generator=g), torch.randint(0, 10, (n,), generator=g)


def sgd(params):
    return torch.optim.SGD(params, lr=0.1)


def reference_steps(model, batches, micro_batch):
    """One replica over the same micro-batches, in order: what the devices must equal."""
    model = copy.deepcopy(model)
    opt = sgd(model.parameters())
    losses = []
    for x, y in batches:
        opt.zero_grad(set_to_none=True)
        n, total = len(x), 0.0
        for lo in range(0, n, micro_batch):
            xs, ys = x[lo:lo + micro_batch], y[lo:lo + micro_batch]
            loss = F.cross_entropy(model(xs), ys)
            (loss * (len(xs) / n)).backward()
            total += float(loss) * len(xs) / n
        opt.step()
        losses.append(total)
    return model, losses


def assert_replicas_identical(bal):
    master = bal.module.state_dict()
    for r in bal.replicas:
        for k, v in r.state_dict().items():
            assert torch.equal(v.cpu(), master[k].cpu()), k


@pytest.mark.parametrize("policy", ["static", "weighted", "ws", "model"])
def test_training_over_two_devices_equals_one_device(policy, tmp_path):
    model = small_cnn()
    batches = [batch(60, s) for s in range(3)]  # 60 = 7 micro-batches of 8 and one of 4
    ref, ref_losses = reference_steps(model, batches, 8)
    with baton.torch.Balanced(model, sgd, devices="cpu:2", policy=policy, micro_batch=8,
                              perf_model_file=str(tmp_path / "m.json")) as bal:
        losses = [bal.step(x, y, F.cross_entropy) for x, y in batches]
        stats = bal.stats()
        for p, q in zip(bal.module.parameters(), ref.parameters()):
            torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
        assert losses == pytest.approx(ref_losses, rel=1e-5)
        assert_replicas_identical(bal)
    assert stats["micro_batches"] == 8
    assert sum(d["micro_batches"] for d in stats["devices"]) == 8
    assert set(stats["seconds"]) == {"fwd_bwd", "reduce", "update"}
    if policy == "model":  # its performance models persist, per model and micro-batch size
        models = json.loads((tmp_path / "m.json").read_text())["models"]
        assert {m["kernel"] for m in models} == {"torch.Sequential.mb8"}
        assert {m["device"].split(" ")[0] for m in models} == {"cpu0", "cpu1"}


def test_resnet18_at_32x32_trains_identically_on_both_replicas():
    tv = pytest.importorskip("torchvision")
    torch.manual_seed(1)
    model = tv.models.resnet18(num_classes=10)
    batches = [(torch.randn(16, 3, 32, 32), torch.randint(0, 10, (16,))) for _ in range(2)]
    ref, ref_losses = reference_steps(model, batches, 4)
    with baton.torch.Balanced(model, sgd, devices="cpu:2", policy="ws", micro_batch=4) as bal:
        losses = [bal.step(x, y, F.cross_entropy) for x, y in batches]
        for p, q in zip(bal.module.parameters(), ref.parameters()):
            torch.testing.assert_close(p, q, rtol=1e-4, atol=1e-5)
        assert_replicas_identical(bal)
    assert losses == pytest.approx(ref_losses, rel=1e-5)
    assert all(math.isfinite(l) for l in losses)


def test_a_device_that_fails_mid_run_is_left_out_and_training_goes_on():
    model = small_cnn()
    batches = [batch(32, s) for s in range(3)]
    ref, ref_losses = reference_steps(model, batches, 4)
    with baton.torch.Balanced(model, sgd, devices="cpu:2", policy="static", micro_batch=4,
                              fault="cpu1:after=2") as bal:
        losses = [bal.step(x, y, F.cross_entropy) for x, y in batches]
        stats = bal.stats()
        for p, q in zip(bal.module.parameters(), ref.parameters()):
            torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
    assert losses == pytest.approx(ref_losses, rel=1e-5)
    assert stats["devices"][1]["failed"]
    assert stats["devices"][0]["micro_batches"] == 8  # every micro-batch of the last step


def test_trace_and_report_are_written(tmp_path):
    model = small_cnn()
    with baton.torch.Balanced(model, sgd, devices="cpu:2", micro_batch=8,
                              report=str(tmp_path / "rep")) as bal:
        for s in range(2):
            bal.step(*batch(32, s), F.cross_entropy)
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "Training by step" in html
    assert (tmp_path / "rep" / "trace.json").stat().st_size > 0


def test_bad_input_is_a_one_line_value_error():
    model = small_cnn()
    x, y = batch(8, 0)
    with baton.torch.Balanced(model, sgd, devices="cpu:2", micro_batch=2) as bal:
        cases = [
            ((x[:0], y[:0], F.cross_entropy), "empty"),
            ((x, y[:5], F.cross_entropy), "ragged"),
            ((x, y, lambda out, t: F.cross_entropy(out, t, reduction="none")), "scalar"),
            ((x.numpy(), y, F.cross_entropy), "tensors"),
        ]
        for args, fragment in cases:
            with pytest.raises(ValueError, match=fragment) as e:
                bal.step(*args)
            assert "\n" not in str(e.value)
        # The runtime is whole after them: a good step still trains.
        assert math.isfinite(bal.step(x, y, F.cross_entropy))


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(devices="cpu:zz"), "bad device spec"),
    (dict(devices="sim:2,1"), "no device for the sim backend"),
    (dict(devices="cpu", policy="fastest"), "unknown policy"),
    (dict(devices="cpu", micro_batch=0), "micro_batch"),
])
def test_bad_balancer_arguments_are_value_errors(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        baton.torch.Balanced(small_cnn(), sgd, **kwargs)


def test_a_model_off_the_host_is_refused():
    model = torch.nn.Linear(4, 2).to("meta")
    with pytest.raises(ValueError, match="build the model on the CPU"):
        baton.torch.Balanced(model, sgd, devices="cpu")
    with pytest.raises(ValueError, match="torch.nn.Module"):
        baton.torch.Balanced(lambda x: x, sgd, devices="cpu")


def test_losing_the_device_that_holds_the_weights_is_a_device_error():
    with baton.torch.Balanced(small_cnn(), sgd, devices="cpu:2", policy="static", micro_batch=4,
                              fault="cpu0:after=1") as bal:
        bal.step(*batch(16, 0), F.cross_entropy)
        with pytest.raises(baton.DeviceError, match="cpu0"):
            bal.step(*batch(16, 1), F.cross_entropy)
