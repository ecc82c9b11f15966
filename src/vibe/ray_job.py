"""runbound's Ray job wrapper: runs one worker attempt inside a Ray job.

Shipped by runbound's Ray backend as the `runbound_ray_job` package (runtime_env py_modules),
next to `brief.txt`; the entrypoint is `python -m runbound_ray_job`. It

1. copies the job's working directory (Ray unpacks a working_dir package once per node and
   shares it between jobs with the same content) into a private temp dir and notes every
   file's hash;
2. when the parent run has a human attached, opens a local ask channel (the directory protocol
   of runbound's `ask::ChannelAskPort`) for a `runbound` run inside the worker, and relays each
   card as a framed line in this job's log; the answer comes back through the cluster's
   key-value store (the parent uploads it with `PUT /api/packages/gcs/<name>.zip`, read here
   with Ray's GCS client and deleted);
3. runs the tier's command with `/bin/sh -c` in the copy, the brief on stdin, the worker's
   environment variables set; stdout is captured (the result), stderr goes to the job log;
4. prints one result frame: exit status, stdout, and the files the command added, modified or
   deleted (with their new contents when the parent asked for them);
5. removes the copy and exits with the command's exit code.

Frames are single lines `<<runbound:KIND:NONCE>>BASE64(JSON)<<end>>`; NONCE is per job and
never reaches the worker command's environment.
"""

import base64
import hashlib
import json
import os
import pathlib
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time

NONCE = os.environ.pop("RUNBOUND_RAY_NONCE", "")
SUBMISSION_ID = os.environ.pop("RUNBOUND_RAY_SUBMISSION_ID", "")
COMMAND = os.environ.pop("RUNBOUND_RAY_COMMAND", "")
RELAY = os.environ.pop("RUNBOUND_RAY_ASK_RELAY", "0") == "1"
RELAY_QUESTIONS = os.environ.pop("RUNBOUND_RAY_ASK_QUESTIONS", "0") == "1"
RETURN_CHANGES = os.environ.pop("RUNBOUND_RAY_RETURN_CHANGES", "0") == "1"
WORKER_LABEL = os.environ.pop("RUNBOUND_RAY_WORKER_LABEL", "worker")
PARENT_SPACE = os.environ.pop("RUNBOUND_RAY_PARENT_SPACE", "")
STDOUT_MAX = int(os.environ.pop("RUNBOUND_RAY_STDOUT_MAX", str(1024 * 1024)))
CHANGES_MAX = int(os.environ.pop("RUNBOUND_RAY_CHANGES_MAX", str(64 * 1024 * 1024)))
ANSWER_GRACE_S = 5.0
POLL_S = 0.1


def emit(kind, payload):
    data = base64.b64encode(json.dumps(payload).encode()).decode()
    line = f"\n<<runbound:{kind}:{NONCE}>>{data}<<end>>\n".encode()
    # One write per frame, so stderr of the worker cannot land in the middle of it.
    sys.stdout.flush()
    os.write(1, line)


def file_hashes(root):
    """Regular files (hash) and symlinks (target) under root, by relative path."""
    entries = {}
    for directory, dirnames, filenames in os.walk(root):
        for name in list(dirnames):
            path = os.path.join(directory, name)
            if os.path.islink(path):
                entries[os.path.relpath(path, root)] = ("symlink", os.readlink(path))
                dirnames.remove(name)
        for name in filenames:
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, root)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                entries[relative] = ("symlink", os.readlink(path))
            elif stat.S_ISREG(mode):
                with open(path, "rb") as handle:
                    entries[relative] = ("file", hashlib.sha256(handle.read()).hexdigest())
    return entries


class AskRelay:
    """The parent side of a local ask channel, relayed through the job log and the GCS KV."""

    def __init__(self, directory):
        self.directory = directory
        self.stopped = threading.Event()
        self.gcs = None
        self.gcs_error = None
        self.lock = threading.Lock()
        description = {
            "version": 1,
            "worker_label": WORKER_LABEL,
            "questions": RELAY_QUESTIONS,
            "parent_target_space": PARENT_SPACE,
        }
        self.write(os.path.join(directory, "channel.json"), json.dumps(description).encode())
        self.thread = threading.Thread(target=self.serve, name="runbound-ask-relay", daemon=True)
        self.thread.start()
        # Connecting to the key-value store takes seconds on a busy node: done before the first
        # card needs it, so the first answer is as quick as the others.
        threading.Thread(target=self.client, name="runbound-ask-connect", daemon=True).start()

    @staticmethod
    def write(path, data):
        handle, temp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temp, path)

    def client(self):
        with self.lock:
            if self.gcs is None and self.gcs_error is None:
                try:
                    from ray._raylet import GcsClient

                    self.gcs = GcsClient(address=os.environ["RAY_ADDRESS"])
                except Exception as error:  # reported in every answer it prevents
                    self.gcs_error = f"cannot reach the cluster's key-value store: {error!r}"
            return self.gcs

    def serve(self):
        seen = set()
        while not self.stopped.is_set():
            try:
                names = sorted(os.listdir(self.directory))
            except FileNotFoundError:
                return
            for name in names:
                if name.startswith("q-") and name.endswith(".json") and name not in seen:
                    seen.add(name)
                    threading.Thread(target=self.relay, args=(name,), name="runbound-ask-card", daemon=True).start()
            time.sleep(POLL_S)

    def relay(self, name):
        path = os.path.join(self.directory, name)
        card_id = name[len("q-") : -len(".json")]
        try:
            with open(path, "rb") as handle:
                card = json.load(handle)
            os.unlink(path)
        except (OSError, ValueError):
            return
        answer_key = f"gcs://_runbound_answer_{SUBMISSION_ID}_{card_id}.zip".encode()
        emit("ask", {"id": card_id, "card": card, "answer_key": answer_key.decode()})
        deadline = time.monotonic() + card.get("timeout_ms", 0) / 1000.0 + ANSWER_GRACE_S
        answer = {"outcome": "timed_out"}
        while time.monotonic() < deadline and not self.stopped.is_set():
            client = self.client()
            if client is None:
                answer = {"outcome": "no_human", "reason": self.gcs_error}
                break
            try:
                value = client.internal_kv_get(answer_key, None)
            except Exception as error:
                answer = {"outcome": "no_human", "reason": f"the cluster's key-value store failed: {error!r}"}
                break
            if value is not None:
                try:
                    answer = json.loads(value)
                except ValueError:
                    answer = {"outcome": "cancelled", "reason": "the parent's answer could not be read"}
                try:
                    client.internal_kv_del(answer_key, False, None)
                except Exception:
                    pass
                break
            time.sleep(0.25)
        try:
            self.write(os.path.join(self.directory, f"a-{card_id}.json"), json.dumps(answer).encode())
        except OSError:
            pass

    def stop(self):
        self.stopped.set()


def main():
    here = pathlib.Path(__file__).resolve().parent
    brief = (here / "brief.txt").read_bytes()
    scratch = tempfile.mkdtemp(prefix="runbound-ray-job-")
    work = os.path.join(scratch, "work")
    shutil.copytree(os.getcwd(), work, symlinks=True)
    base = file_hashes(work)
    environment = dict(os.environ)
    environment["RUNBOUND_WORKSPACE"] = work
    environment.update({"GIT_EDITOR": "true", "GIT_PAGER": "cat", "PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"})
    relay = None
    if RELAY:
        channel = os.path.join(scratch, "ask")
        os.mkdir(channel, 0o700)
        relay = AskRelay(channel)
        environment["RUNBOUND_ASK_CHANNEL"] = channel
    started = time.monotonic()
    process = subprocess.Popen(
        ["/bin/sh", "-c", COMMAND], cwd=work, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=environment
    )

    def feed():
        try:
            process.stdin.write(brief)
        except OSError:
            pass
        try:
            process.stdin.close()
        except OSError:
            pass

    threading.Thread(target=feed, name="runbound-brief", daemon=True).start()
    captured = bytearray()
    total = 0
    while True:
        chunk = process.stdout.read(65536)
        if not chunk:
            break
        total += len(chunk)
        room = STDOUT_MAX - len(captured)
        if room > 0:
            captured.extend(chunk[:room])
    returncode = process.wait()
    if relay is not None:
        relay.stop()
    after = file_hashes(work)
    changes = []
    left_out = []
    change_bytes = 0
    for path in sorted(set(base) | set(after)):
        before, now = base.get(path), after.get(path)
        if before == now:
            continue
        if (before and before[0] == "symlink") or (now and now[0] == "symlink"):
            left_out.append(f"{path} (a symlink: staged changes write regular files only)")
            continue
        status = "added" if before is None else "deleted" if now is None else "modified"
        entry = {"path": path, "status": status}
        if RETURN_CHANGES and now is not None:
            with open(os.path.join(work, path), "rb") as handle:
                content = handle.read()
            change_bytes += len(content)
            entry["content_b64"] = base64.b64encode(content).decode()
        changes.append(entry)
    result = {
        "exit_code": returncode if returncode >= 0 else None,
        "signal": -returncode if returncode < 0 else None,
        "elapsed_s": round(time.monotonic() - started, 3),
        "stdout_b64": base64.b64encode(bytes(captured)).decode(),
        "stdout_total": total,
        "changes": changes,
        "left_out": left_out,
    }
    if change_bytes > CHANGES_MAX:
        for entry in changes:
            entry.pop("content_b64", None)
        result["changes_error"] = (
            f"the changed files hold {change_bytes} bytes, more than the {CHANGES_MAX} a job returns; nothing was returned"
        )
    emit("result", result)
    shutil.rmtree(scratch, ignore_errors=True)
    sys.exit(returncode if 0 <= returncode < 256 else 1)


if __name__ == "__main__":
    main()
