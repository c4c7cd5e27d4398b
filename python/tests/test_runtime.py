import threading

import pytest

import baton


def collect(rt, n, **kw):
    seen = []
    lock = threading.Lock()

    def fn(device, begin, end, stream):
        with lock:
            seen.append((device, begin, end, stream))

    stats = rt.run(n, fn, **kw)
    return seen, stats


@pytest.mark.parametrize("policy", ["static", "weighted", "ws", "model"])
def test_every_item_runs_once_on_some_device(policy, tmp_path):
    with baton.Runtime("cpu:2", policy=policy, perf_model_file=str(tmp_path / "m.json")) as rt:
        seen, stats = collect(rt, 1000)
    items = sorted(i for _, b, e, _ in seen for i in range(b, e))
    assert items == list(range(1000))
    assert {d for d, *_ in seen} <= {0, 1}
    assert all(s == 0 for *_, s in seen)  # host cores: no stream
    assert stats["items"] == 1000
    assert sum(d["items"] for d in stats["devices"]) == 1000
    assert stats["policy"] == policy


def test_the_run_policy_overrides_the_runtime_default():
    with baton.Runtime("sim:8,1", policy="static") as rt:
        _, stats = collect(rt, 900, policy="weighted")
    assert stats["policy"] == "weighted"
    fast, slow = (d["items"] for d in stats["devices"])
    assert fast > 4 * slow  # split by the devices' speeds, 8:1


def test_learned_rates_follow_what_each_device_runs():
    import time

    def fn(device, begin, end, stream):
        time.sleep((end - begin) * (0.0004 if device == 1 else 0.0001))

    with baton.Runtime("cpu:2", policy="weighted") as rt:
        for _ in range(4):
            stats = rt.run(200, fn, kernel="slow1", learn_rates=True)
    a, b = (d["items"] for d in stats["devices"])
    assert a > 2 * b  # cpu1 is 4x slower per item


def test_an_exception_in_fn_is_raised_as_itself_and_the_runtime_goes_on():
    def fn(device, begin, end, stream):
        raise KeyError(f"chunk {begin}")

    with baton.Runtime("cpu:2") as rt:
        with pytest.raises(KeyError):
            rt.run(10, fn)
        assert not rt.failed(0) and not rt.failed(1)  # a usage error retires no device
        seen, _ = collect(rt, 10)
    assert sorted(i for _, b, e, _ in seen for i in range(b, e)) == list(range(10))


def test_a_device_that_fails_leaves_its_work_to_the_others():
    with baton.Runtime("cpu:2", policy="static", fault="cpu1:after=1") as rt:
        seen, stats = collect(rt, 400)
        assert rt.failed(1)
        assert "cpu1" in rt.failure(1) or rt.failure(1)
    items = sorted(i for _, b, e, _ in seen for i in range(b, e))
    assert items == list(range(400))
    assert stats["devices"][1]["failed"]


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(devices="cpu", policy="fastest"), "unknown policy"),
    (dict(devices="cpu:abc"), "bad device spec"),
    (dict(devices="cpu", fault="cpu9:after=x"), "BATON_FAULT"),
])
def test_bad_runtime_arguments_are_value_errors(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        baton.Runtime(**kwargs)


def test_bad_run_arguments_are_value_errors():
    with baton.Runtime("cpu") as rt:
        with pytest.raises(ValueError, match="at least one item"):
            rt.run(0, lambda *a: None)
        with pytest.raises(ValueError, match="callable"):
            rt.run(5, 42)
        with pytest.raises(ValueError, match="unknown policy"):
            rt.run(5, lambda *a: None, policy="nope")
        with pytest.raises(ValueError, match="one rate per device"):
            rt.set_rates("python", [1.0, 2.0])
        with pytest.raises(ValueError, match="finite"):
            rt.set_rates("python", [float("nan")])
        with pytest.raises(ValueError, match="items"):
            rt.run(-1, lambda *a: None)
        with pytest.raises(TypeError, match="items: expected an int, got str"):
            rt.run("5", lambda *a: None)
        with pytest.raises(ValueError, match="99 is not a device"):
            rt.failed(99)
    with pytest.raises(ValueError, match="closed"):
        rt.run(5, lambda *a: None)


def test_devices_of_a_runtime_say_which_failed():
    with baton.Runtime("cpu:2") as rt:
        devs = rt.devices
    assert [d["name"] for d in devs] == ["cpu0", "cpu1"]
    assert [d["failed"] for d in devs] == [False, False]


def test_two_threads_run_side_by_side_under_their_own_kernel_names():
    started, results = threading.Event(), {}

    def slow(device, begin, end, stream):
        started.set()
        threading.Event().wait(0.05)

    with baton.Runtime("cpu:2") as rt:
        a = threading.Thread(target=lambda: results.setdefault("a", rt.run(4, slow, kernel="a")))
        a.start()
        started.wait(5)
        with pytest.raises(ValueError, match="under way on another thread"):
            rt.run(4, slow, kernel="a")
        results["b"] = rt.run(4, lambda *args: None, kernel="b")
        a.join()
    assert results["a"]["items"] == 4 and results["b"]["items"] == 4
