"""The CLI's benchmark and training commands as functions returning dicts.

Each keyword is the command's long option: devices="cpu:2" is --devices cpu:2,
micro_batch=64 is --micro-batch 64, a list is joined by commas, True is a
flag. trace= and report= write the same files as on the command line.
`baton bench balance --help` and `baton train --help` list the options.
"""

import json
import os
import tempfile

from . import _baton


def _arguments(options):
    args = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            args += [flag, ",".join(str(v) for v in value)]
        else:
            args += [flag, str(value)]
    return args


def _run(command, options, echo):
    if "json_out" in options or "json" in options:
        raise _baton.UsageError("invalid argument (json_out): the result is returned as a dict")
    with tempfile.TemporaryDirectory(prefix="baton-") as tmp:
        path = os.path.join(tmp, "results.json")
        _baton.run_command(command + _arguments(options) + ["--json-out", path], echo)
        with open(path, encoding="utf-8") as f:
            return json.load(f)


def bench(*, echo=False, **options):
    """Runs `baton bench balance` with these options; returns its --json as a dict.

    bench(devices="sim:8,4,2,1", policies=["static", "ws"], items=1 << 20)
    echo=True also prints its table.
    """
    return _run(["bench", "balance"], options, echo)


def sweep(*, echo=False, **options):
    """Runs `baton bench sweep` with these options; returns its --json as a dict."""
    return _run(["bench", "sweep"], options, echo)


def train(*, echo=False, **options):
    """Runs `baton train` (the MLP it carries) with these options; returns its --json.

    train(devices="cpu:2", batch=512, steps=5, policies="static,ws")
    """
    return _run(["train"], options, echo)
