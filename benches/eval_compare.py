#!/usr/bin/env python3
"""Bench: trivial-cell round trip (`1+1`) and cold start of runbound's kernel drivers vs
jupyter_client + ipykernel on the same machine.

The runbound kernels are driven exactly as the Rust host drives them (driver source passed with
-c/-e, JSON lines on the child's stdin/stdout), so this measures the kernel and pipe cost; the
Rust dispatch on top is a few microseconds. Usage: python3 benches/eval_compare.py [rounds]
"""
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "src", "kernel")
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 200


def spawn_driver(argv):
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=dict(os.environ, MPLBACKEND="module://_runbound_mpl_backend"))
    ready = json.loads(process.stdout.readline())
    assert ready["type"] == "ready", ready
    return process, time.perf_counter() - started


def run_cell(process, cell, code):
    process.stdin.write((json.dumps({"type": "execute", "cell": cell, "code": code}) + "\n").encode())
    process.stdin.flush()
    echoed = None
    while True:
        message = json.loads(process.stdout.readline())
        if message["type"] == "result":
            echoed = message["item"]["text"]
        if message["type"] == "done":
            return echoed


def bench_driver(name, argv):
    colds = []
    for _ in range(3):
        process, cold = spawn_driver(argv)
        colds.append(cold)
        process.stdin.write(b'{"type":"shutdown"}\n')
        process.stdin.flush()
        process.wait()
    process, _ = spawn_driver(argv)
    assert run_cell(process, 0, "1+1") == "2"
    times = []
    for index in range(ROUNDS):
        started = time.perf_counter()
        run_cell(process, index + 1, "1+1")
        times.append(time.perf_counter() - started)
    process.stdin.write(b'{"type":"shutdown"}\n')
    process.stdin.flush()
    process.wait()
    return name, statistics.median(times), min(colds)


def bench_ipykernel():
    from jupyter_client.manager import start_new_kernel

    colds = []
    for _ in range(3):
        started = time.perf_counter()
        manager, client = start_new_kernel(kernel_name="python3")
        colds.append(time.perf_counter() - started)
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    manager, client = start_new_kernel(kernel_name="python3")
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        reply = client.execute_interactive("1+1", timeout=30, output_hook=lambda message: None)
        assert reply["content"]["status"] == "ok"
        times.append(time.perf_counter() - started)
    client.stop_channels()
    manager.shutdown_kernel(now=True)
    return "ipykernel (jupyter_client)", statistics.median(times), min(colds)


def main():
    python_driver = open(os.path.join(SOURCE, "driver.py")).read()
    node_driver = open(os.path.join(SOURCE, "driver.js")).read()
    rows = [bench_driver("runbound cpython", [sys.executable, "-u", "-X", "utf8", "-c", python_driver])]
    try:
        rows.append(bench_driver("runbound node", ["node", "--expose-internals", "-e", node_driver]))
    except FileNotFoundError:
        print("SKIP node: not on PATH", file=sys.stderr)
    rows.append(bench_ipykernel())
    baseline = rows[-1][1]
    print(f"{'backend':<28} {'1+1 round trip (median)':>24} {'vs ipykernel':>13} {'cold start (min of 3)':>22}")
    for name, median, cold in rows:
        print(f"{name:<28} {median * 1e3:>21.3f} ms {median / baseline:>12.2f}x {cold * 1e3:>19.1f} ms")


if __name__ == "__main__":
    main()
