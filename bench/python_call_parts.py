#!/usr/bin/env python3
"""Where a pplab call on a PyTorch CUDA tensor spends its time, beside PyTorch's own call: the GPU
time between CUDA events recorded on the current stream before and after the call (the host's
gaps inside the call included), the wall time until the call returns, and until a sync after it.
Medians of 41 calls, each after a sync. Needs PyTorch with CUDA. With --profile, the host's
time by CUDA runtime call (torch.profiler) of the calls whose names contain any of the words
given, after the table; with --steps, first the host's time of each step of the Python layer.

    PYTHONPATH=<build>/python python3 bench/python_call_parts.py [--steps] [--profile WORD ...]
"""
import argparse
import statistics
import time

import torch

import pplab
from pplab import _pplab

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--profile", nargs="*", default=[], help="profile the calls named with these words")
ap.add_argument("--steps", action="store_true",
                help="first, the host's time of each step of the Python layer, alone")
args = ap.parse_args()
t = torch.randn(1 << 28, device="cuda")
sync = torch.cuda.synchronize
calls = {}


def host_steps():
    """Microseconds of host time per call of each step the Python layer takes before its kernel
    (medians of 21 rounds of 200 calls; no GPU work but the last two rows' launches)."""
    slots = torch.empty(1027, dtype=torch.int64, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream
    steps = [
        ("torch.cuda.current_stream(device).cuda_stream",
         lambda: torch.cuda.current_stream(t.device).cuda_stream),
        ("pplab._current_stream", lambda: pplab._current_stream(t)),
        ("pplab._on_gpu", lambda: pplab._on_gpu(t)),
        ("pplab._array + _for_pplab", lambda: pplab._for_pplab(pplab._array(t))),
        ("pplab._edge_rule", lambda: pplab._edge_rule("float32", (-4, 4))),
        ("pplab._empty 1027 int64", lambda: pplab._empty(t, (1027,), "int64")),
        ("torch.empty 1027 int64", lambda: torch.empty(1027, dtype=torch.int64, device="cuda")),
        ("_pplab.set_stream twice", lambda: (_pplab.set_stream(stream, "torch"),
                                             _pplab.set_stream(None))),
        ("_pplab.histogram into slots, 1024 (queued)",
         lambda: pplab._run(_pplab.histogram, t, 1024, -4.0, 4.0, True, "f64", None, None, slots)),
        ("pplab.histogram 1024 (queued)", lambda: pplab.histogram(t, 1024, (-4, 4))),
    ]
    for name, f in steps:
        rounds = []
        for _ in range(21):
            t0 = time.perf_counter()
            for _ in range(200):
                f()
            rounds.append((time.perf_counter() - t0) / 200)
            sync()
        print("%-48s host %7.2f us" % (name, statistics.median(rounds) * 1e6), flush=True)


if args.steps:
    host_steps()


def measure(name, f, reps=41):
    calls[name] = f
    for _ in range(3):
        f()
    sync()
    gpu, call, total = [], [], []
    s = torch.cuda.current_stream()
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        sync()
        t0 = time.perf_counter()
        a.record(s)
        f()
        b.record(s)
        t1 = time.perf_counter()
        sync()
        t2 = time.perf_counter()
        gpu.append(a.elapsed_time(b) * 1e-3)
        call.append(t1 - t0)
        total.append(t2 - t0)
    m = statistics.median
    print("%-44s gpu %7.3f ms  call returns %7.3f ms  call+sync %7.3f ms (min %7.3f)" % (
        name, m(gpu) * 1e3, m(call) * 1e3, m(total) * 1e3, min(total) * 1e3), flush=True)

measure("torch.sum().item()", lambda: t.sum().item())
measure("pplab.sum", lambda: pplab.sum(t))
measure("_pplab.reduce", lambda: _pplab.reduce(t, "sum"))
for bins in (1024, 65536, 1 << 20):  # each call binds its own bins and slots (later profiles)
    measure("torch.histc %d" % bins, lambda bins=bins: torch.histc(t, bins, -4, 4))
    measure("pplab.histogram %d" % bins, lambda bins=bins: pplab.histogram(t, bins, (-4, 4)))
    slots = torch.empty(bins + 3, dtype=torch.int64, device="cuda")
    for rule in ("f64", "f32_rounded"):
        def c(rule=rule, bins=bins, slots=slots):
            _pplab.set_stream(torch.cuda.current_stream().cuda_stream, "torch")
            try:
                _pplab.histogram(t, bins, -4.0, 4.0, True, rule, None, None, slots)
            finally:
                _pplab.set_stream(None)
        measure("  _pplab.histogram into slots %s %d" % (rule, bins), c)
m = t.view(1 << 14, 1 << 14)
measure("torch.sum(dim=-1) 16384 rows of 16384", lambda: m.sum(dim=-1))
measure("pplab.sum(axis=-1) 16384 rows of 16384", lambda: pplab.sum(m, axis=-1))
w = t.view(1 << 22, 64)
measure("torch.sum(dim=-1) 2^22 rows of 64", lambda: w.sum(dim=-1))
measure("pplab.sum(axis=-1) 2^22 rows of 64", lambda: pplab.sum(w, axis=-1))
v = t.view(1 << 10, 1 << 18)
measure("torch.sum(dim=-1) 1024 rows of 2^18", lambda: v.sum(dim=-1))
measure("pplab.sum(axis=-1) 1024 rows of 2^18", lambda: pplab.sum(v, axis=-1))
x = torch.randn(1 << 14, device="cuda")
measure("torch.mv 16384^2", lambda: torch.mv(m, x))
measure("pplab.matmul 16384^2 @ vector", lambda: pplab.matmul(m, x))
c = torch.empty(1 << 14, 1, device="cuda")


def matvec_alone():
    _pplab.set_stream(torch.cuda.current_stream().cuda_stream, "torch")
    try:
        _pplab.matmul(m, x.view(-1, 1), c, 1.0, 0.0, None, None)
    finally:
        _pplab.set_stream(None)


measure("  _pplab.matmul 16384^2 @ vector", matvec_alone)
u8 = torch.randint(0, 256, (1 << 30,), dtype=torch.uint8, device="cuda")
measure("torch.bincount 2^30 u8", lambda: torch.bincount(u8, minlength=256))
measure("pplab.bincount 2^30 u8", lambda: pplab.bincount(u8))

for name, f in calls.items():
    if not any(word in name for word in args.profile):
        continue
    from torch.profiler import ProfilerActivity, profile
    for _ in range(3):
        f()
    sync()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            f()
            sync()
    print("=== %s (5 calls)" % name)
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=18, max_name_column_width=60))
