import json

import pytest

import baton


def test_bench_returns_the_json_of_bench_balance(tmp_path):
    r = baton.bench(devices="sim:4,2,1", policies=["static", "ws"], items=1 << 16, repeat=1,
                    trace=str(tmp_path / "t.json"))
    assert [run["policy"] for run in r["runs"]] == ["static", "ws"]
    assert [d["name"] for d in r["runs"][0]["devices"]] == ["sim0", "sim1", "sim2"]
    assert r["oracle_items_per_s"] > 0
    events = json.loads((tmp_path / "t.json").read_text())
    assert events["traceEvents"]


def test_train_returns_the_json_of_baton_train(tmp_path):
    r = baton.train(devices="sim:2,1", policies="static,ws", steps=2, warmup=0, width=64,
                    depth=2, batch=256, micro_batch=32, report=str(tmp_path / "rep"))
    assert {run["policy"] for run in r["runs"]} >= {"static", "ws"}
    assert (tmp_path / "rep" / "index.html").stat().st_size > 0


@pytest.mark.parametrize("fn, kwargs, fragment", [
    (baton.bench, dict(devices="sim:1", policies="nope"), "unknown policy"),
    (baton.bench, dict(no_such_option=3), "no-such-option"),
    (baton.bench, dict(devices="sim:1", items=-5), "items"),
    (baton.train, dict(devices="cpu", lr=float("inf")), "lr"),
    (baton.bench, dict(json_out="x.json"), "returned as a dict"),
])
def test_bad_options_are_one_line_value_errors(fn, kwargs, fragment):
    with pytest.raises(ValueError, match=fragment) as e:
        fn(**kwargs)
    assert "\n" not in str(e.value)
