import pytest

import baton


def test_cpu_devices_are_described():
    devs = baton.devices("cpu:2")
    assert [d["name"] for d in devs] == ["cpu0", "cpu1"]
    for d in devs:
        assert d["backend"] == "cpu"
        assert d["compute_units"] >= 1
        assert d["memory_node"] == 0
        assert "host-cores" in d["shares"]
        t = d["telemetry"]
        assert t["source"] == "host"
        assert 0 <= t["util_pct"] <= 100
        assert t["memory_total"] > t["memory_used"] > 0


def test_sim_devices_have_links_and_no_telemetry():
    devs = baton.devices("sim:4,2", telemetry=False)
    assert [d["name"] for d in devs] == ["sim0", "sim1"]
    assert "telemetry" not in devs[0]
    assert devs[0]["peak_gflops"] > devs[1]["peak_gflops"]
    assert all(link["gbps"] > 0 for d in devs for link in d["links"])
    assert any(d["links"] for d in devs)


@pytest.mark.parametrize("spec", ["cpu:x", "nonsense", "sim:", "cpu:0", "cpu:2x", ",,"])
def test_a_bad_spec_is_a_value_error_with_one_line(spec):
    with pytest.raises(ValueError) as e:
        baton.devices(spec)
    assert isinstance(e.value, baton.UsageError)
    assert isinstance(e.value, baton.Error)
    assert e.value.code == "bad device spec"
    assert "\n" not in str(e.value)
    assert str(e.value).startswith("bad device spec")


def test_a_missing_backend_is_its_own_error():
    # This machine's CUDA backend has no driver (CI), or no such GPU.
    with pytest.raises(baton.Error) as e:
        baton.devices("cuda:63")
    assert e.value.code in ("backend unavailable", "bad device spec")
    assert "\n" not in str(e.value)


def test_the_spec_help_names_every_form():
    text = baton.device_spec_help()
    for form in ("cpu", "sim:", "cuda", "opencl"):
        assert form in text
