#!/bin/sh
# Test worker for the vibe command backend. Reads the brief on stdin; the brief steers it with
# lines that the *last* occurrence wins (so a vibe_send message can override the original):
#   sleep=SECONDS      sleep that long before answering (default 0)
#   mode=ok            print the result on stdout and exit 0 (default)
#   mode=fail          print to stderr and exit 3
#   mode=background    also leave a `sleep 300` running in the background (a grandchild)
# Every process it starts is recorded, one pid per line, in
# pids/$RUNBOUND_WORKER_ID.$RUNBOUND_WORKER_ATTEMPT under the working directory (the workspace),
# so tests can prove the processes are gone.
brief="$(cat)"
last_value() {
    printf '%s\n' "$brief" | sed -n "s/^$1=//p" | tail -n 1
}
seconds="$(last_value sleep)"
mode="$(last_value mode)"
pidfile="pids/$RUNBOUND_WORKER_ID.$RUNBOUND_WORKER_ATTEMPT"
mkdir -p pids
echo $$ > "$pidfile.tmp"
if [ "$mode" = background ]; then
    sleep 300 &
    echo $! >> "$pidfile.tmp"
fi
sleep "${seconds:-0}" &
echo $! >> "$pidfile.tmp"
mv "$pidfile.tmp" "$pidfile"
wait $!
if [ "$mode" = fail ]; then
    echo "partial output before the failure"
    echo "compilation failed: expected ';' at src/lib.rs:3" >&2
    exit 3
fi
echo "worker=$RUNBOUND_WORKER_ID label=$RUNBOUND_WORKER_LABEL tier=$RUNBOUND_WORKER_TIER attempt=$RUNBOUND_WORKER_ATTEMPT caller=$RUNBOUND_WORKER_CALLER"
echo "workspace=$RUNBOUND_WORKSPACE cwd=$(pwd)"
echo "brief:"
printf '%s\n' "$brief"
