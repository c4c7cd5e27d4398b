"""Two processes under Gloo: shares by rate, weighted gradients, every sample once."""

import json
import os
import socket
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ddp_job import make_data, make_model  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_job(tmp_path, name, *args, world=2, env_style="torchrun", check=True):
    port = free_port()
    procs = []
    for rank in range(world):
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                   OMP_NUM_THREADS="1", BATON_PERF_MODEL_FILE="")
        if env_style == "torchrun":
            env.update(RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank))
        else:
            env.update(OMPI_COMM_WORLD_RANK=str(rank), OMPI_COMM_WORLD_SIZE=str(world),
                       OMPI_COMM_WORLD_LOCAL_RANK=str(rank))
        out = tmp_path / f"{name}{rank}.json"
        procs.append((subprocess.Popen([sys.executable, os.path.join(HERE, "ddp_job.py"),
                                        "--out", str(out), *args], env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
                      out))
    results = []
    for p, out in procs:
        try:
            _, err = p.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            for q, _ in procs:
                q.kill()
            _, err = p.communicate()
            raise AssertionError(f"a rank hung; what it printed: {err[-3000:]}") from None
        if not check:
            results.append((p.returncode, err))
            continue
        assert p.returncode == 0, err[-3000:]
        results.append(json.loads(out.read_text()))
    return results


def one_process(batch, steps):
    """The same global batches on one process: what the ranks together must equal."""
    x, y = make_data(batch * steps)
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for s in range(steps):
        loss = F.cross_entropy(model(x[s * batch:(s + 1) * batch]), y[s * batch:(s + 1) * batch])
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(float(loss))
    return losses, [p.detach().flatten() for p in model.parameters()]


def test_a_slowed_rank_gets_less_and_the_job_equals_one_process(tmp_path):
    balanced = run_job(tmp_path, "b", "--mode", "balanced", "--steps", "14")
    equal = run_job(tmp_path, "e", "--mode", "equal", "--steps", "14", env_style="mpirun")
    assert {r["launcher"] for r in balanced} == {"torchrun"}
    assert {r["launcher"] for r in equal} == {"mpirun"}
    ref_losses, ref_weights = one_process(32, 14)
    # The losses and the weights of one process on the same global batches.
    assert [s["loss"] for s in balanced[0]["steps"]] == pytest.approx(ref_losses, rel=1e-5)
    for w, ref in zip(balanced[0]["weights"], ref_weights):
        torch.testing.assert_close(torch.tensor(w), ref, rtol=1e-5, atol=1e-6)
    # Every sample once: the ranks' indices cover the epoch without overlap.
    seen = sorted(i for r in balanced for s in r["steps"] for i in s["indices"])
    assert seen == list(range(32 * 14))
    # The slowed rank (3 ms a sample) ends with a small share...
    last = [len(r["steps"][-1]["indices"]) for r in balanced]
    assert last[1] < last[0] / 2, last
    # ...and the step takes less than with equal halves (the last five steps).
    def tail(results):
        return sorted(max(r["steps"][s]["seconds"] for r in results) for s in range(-5, 0))[2]
    print(f"median step of the last five: {1e3 * tail(balanced):.2f} ms with shares by rate "
          f"({last[0]}+{last[1]} samples), {1e3 * tail(equal):.2f} ms with equal halves")
    assert tail(balanced) < 0.7 * tail(equal), (tail(balanced), tail(equal))


def test_ranks_of_several_devices_each_equal_one_process(tmp_path):
    results = run_job(tmp_path, "d", "--mode", "devices", "--steps", "8", "--slow-ms", "1")
    ref_losses, ref_weights = one_process(32, 8)
    assert [s["loss"] for s in results[0]["steps"]] == pytest.approx(ref_losses, rel=1e-5)
    assert [s["loss"] for s in results[1]["steps"]] == pytest.approx(ref_losses, rel=1e-5)
    for w, ref in zip(results[0]["weights"], ref_weights):
        torch.testing.assert_close(torch.tensor(w), ref, rtol=1e-5, atol=1e-6)
    seen = sorted(i for r in results for s in r["steps"] for i in s["indices"])
    assert seen == list(range(32 * 8))


def test_bf16_compression_composes_with_the_weights(tmp_path):
    results = run_job(tmp_path, "c", "--mode", "balanced", "--hook", "bf16", "--steps", "6")
    ref_losses, _ = one_process(32, 6)
    # bf16 rounds each all-reduced gradient: the losses follow closely, not exactly.
    assert [s["loss"] for s in results[0]["steps"]] == pytest.approx(ref_losses, rel=2e-2)


def test_a_rank_that_dies_is_named_and_the_others_do_not_hang(tmp_path):
    (rc0, err0), (rc1, err1) = run_job(tmp_path, "x", "--steps", "6", "--die-at", "3", check=False)
    assert rc1 != 0 and "baton: rank 1 (" in err1 and "planted failure at step 3" in err1
    assert rc0 != 0, err0[-2000:]  # not hung: the others fail too, naming themselves
    assert "rank 0 (" in err0


def test_a_resumed_job_goes_on_with_the_same_losses(tmp_path):
    ck = str(tmp_path / "job.ckpt")
    first = run_job(tmp_path, "r", "--steps", "10", "--stop-at", "6", "--checkpoint", ck)
    rest = run_job(tmp_path, "s", "--steps", "10", "--resume", "--checkpoint", ck)
    ref_losses, ref_weights = one_process(32, 10)
    losses = [s["loss"] for s in first[0]["steps"] + rest[0]["steps"]]
    assert losses == pytest.approx(ref_losses, rel=1e-5)
    for w, ref in zip(rest[0]["weights"], ref_weights):
        torch.testing.assert_close(torch.tensor(w), ref, rtol=1e-5, atol=1e-6)
    seen = sorted(i for part in (first, rest) for r in part for s in r["steps"] for i in s["indices"])
    assert seen == list(range(32 * 10))
    assert len(rest[1]["steps"][0]["indices"]) < 16  # the slowed rank's share came back with it


def test_launcher_environments_are_read():
    import baton.torch.distributed as bd

    l = bd.Launch.from_env({"SLURM_PROCID": "3", "SLURM_NTASKS": "8", "SLURM_LOCALID": "1"})
    assert (l.launcher, l.rank, l.world_size, l.local_rank) == ("srun", 3, 8, 1)
    l = bd.Launch.from_env({"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2"})
    assert (l.launcher, l.rank, l.world_size) == ("mpirun", 1, 2)
    with pytest.raises(ValueError, match="no launcher"):
        bd.Launch.from_env({})
    with pytest.raises(ValueError, match="rank 5 is not in a world of 2"):
        bd.Launch.from_env({"RANK": "5", "WORLD_SIZE": "2"})
    with pytest.raises(ValueError, match="world size 4 given, but torchrun started 2"):
        bd.init_process_group(world_size=4, env={"RANK": "0", "WORLD_SIZE": "2"})


def test_the_ledger_follows_the_rates_and_keeps_a_step_once_cut():
    from baton.torch.distributed.ledger import Ledger

    ledger = Ledger(3, 60)
    assert ledger.split(1) == [20, 20, 20]
    ledger.learn([400.0, 200.0, 0.0])  # rank 2 not measured: its rate stays
    assert ledger.rates == [400.0, 200.0, 1.0]
    assert ledger.split(1) == [20, 20, 20]  # step 1 was cut before
    two = ledger.split(2, 61)
    assert sum(two) == 61 and two[0] > two[1] > two[2] >= 1
    for rate in (100.0, 100.0, 100.0):  # the median of the last five moves after three
        ledger.learn([rate, 200.0, 0.0])
    assert ledger.rates[0] == 100.0
    state = ledger.state_dict()
    again = Ledger(3, 60)
    again.load_state_dict(state)
    assert again.split(7) == ledger.split(7)
    with pytest.raises(ValueError, match="checkpoint holds 3 ranks"):
        Ledger(2, 60).load_state_dict(state)
    with pytest.raises(ValueError, match="smaller than the 3 ranks"):
        Ledger(3, 2)
