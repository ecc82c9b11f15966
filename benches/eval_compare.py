#!/usr/bin/env python3
"""Bench: trivial-cell round trip (`1+1`) and cold start of runbound's kernel drivers vs
jupyter_client + ipykernel on the same machine, and what the process guardian costs.

The runbound kernels are driven exactly as the Rust host drives them (src/kernel/session.rs):
the driver's source on fd 5 read by a one-line boot program, JSON lines on fds 3 (host -> kernel)
and 4 (kernel -> host), stdout and stderr apart; "guarded" runs the interpreter under the
process guardian (src/transport/guardian.py, its source on fd 6) as runbound does. This measures
the kernel and pipe cost; the Rust dispatch on top is a few microseconds.
Usage: python3 benches/eval_compare.py [rounds]
"""
import fcntl
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "src")
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 200

PYTHON_BOOT = "exec(compile(open(5,'rb').read(),'<runbound-kernel>','exec'))"
NODE_BOOT = (
    "(function(){const fs=require('fs');const source=fs.readFileSync(5,'utf8');fs.closeSync(5);"
    "require('vm').runInThisContext(source,{filename:'runbound-kernel.js'})})()"
)
GUARDIAN_BOOT = "exec(compile(open(6,'rb').read(),'<runbound-guardian>','exec'))"


def read(*parts):
    with open(os.path.join(SOURCE, *parts), encoding="utf-8") as handle:
        return handle.read()


class Kernel:
    """One kernel process wired like runbound's host wires it."""

    def __init__(self, argv, driver_source, guarded):
        started = time.perf_counter()
        to_kernel_read, self.to_kernel = os.pipe()
        self.from_kernel, from_kernel_write = os.pipe()
        driver_read, driver_write = os.pipe()
        guardian_read, guardian_write = os.pipe()
        targets = {3: to_kernel_read, 4: from_kernel_write, 5: driver_read, 6: guardian_read}

        def install():
            # Above every target first, so no dup2 overwrites a source not yet placed; dup2
            # leaves the targets inheritable, the pipes' own descriptors close at exec.
            high = {target: fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100) for target, fd in targets.items()}
            for target, fd in high.items():
                os.dup2(fd, target)

        if guarded:
            argv = [sys.executable, "-I", "-S", "-B", "-c", GUARDIAN_BOOT] + argv
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=install,
            close_fds=False,
            env=dict(os.environ, MPLBACKEND="module://_runbound_mpl_backend"),
        )
        for fd in targets.values():
            os.close(fd)
        if guarded:
            os.write(guardian_write, read("transport", "guardian.py").encode())
        os.close(guardian_write)
        os.write(driver_write, driver_source.encode())
        os.close(driver_write)
        self.reader = os.fdopen(self.from_kernel, "rb")
        ready = self.next_message()
        assert ready["type"] == "ready", ready
        assert (ready.get("guardian_pid") is not None) == guarded, ready
        self.cold = time.perf_counter() - started

    def next_message(self):
        while True:
            line = self.reader.readline()
            if not line:
                raise RuntimeError("the kernel closed its output pipe")
            message = json.loads(line)
            if "type" in message:
                return message

    def send(self, message):
        os.write(self.to_kernel, (json.dumps(message) + "\n").encode())

    def run_cell(self, cell, code):
        self.send({"type": "execute", "cell": cell, "code": code})
        echoed = None
        while True:
            message = self.next_message()
            if message["type"] == "result":
                echoed = message["item"]["text"]
            if message["type"] == "done":
                return echoed

    def stop(self):
        self.send({"type": "shutdown"})
        os.close(self.to_kernel)
        self.process.wait(timeout=30)
        self.reader.close()


def bench_driver(name, argv, driver_source, guarded):
    colds = []
    for _ in range(3):
        kernel = Kernel(argv, driver_source, guarded)
        colds.append(kernel.cold)
        kernel.stop()
    kernel = Kernel(argv, driver_source, guarded)
    assert kernel.run_cell(0, "1+1") == "2"
    times = []
    for index in range(ROUNDS):
        started = time.perf_counter()
        kernel.run_cell(index + 1, "1+1")
        times.append(time.perf_counter() - started)
    kernel.stop()
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
    python_driver = read("kernel", "driver_common.py") + read("kernel", "driver.py")
    node_driver = read("kernel", "driver.js")
    python_argv = [sys.executable, "-u", "-X", "utf8", "-c", PYTHON_BOOT]
    rows = [
        bench_driver("runbound cpython, guarded", python_argv, python_driver, True),
        bench_driver("runbound cpython, unguarded", python_argv, python_driver, False),
    ]
    try:
        node_argv = ["node", "--expose-internals", "-e", NODE_BOOT]
        rows.append(bench_driver("runbound node, guarded", node_argv, node_driver, True))
        rows.append(bench_driver("runbound node, unguarded", node_argv, node_driver, False))
    except FileNotFoundError:
        print("SKIP node: not on PATH", file=sys.stderr)
    rows.append(bench_ipykernel())
    baseline = rows[-1][1]
    print(f"{'backend':<30} {'1+1 round trip (median)':>24} {'vs ipykernel':>13} {'cold start (min of 3)':>22}")
    for name, median, cold in rows:
        print(f"{name:<30} {median * 1e3:>21.3f} ms {median / baseline:>12.2f}x {cold * 1e3:>19.1f} ms")


if __name__ == "__main__":
    main()
