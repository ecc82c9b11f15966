#!/bin/sh
# Test worker that edits files, for `isolation: "worktree"` (and the Ray backend). The brief
# steers it with KEY=VALUE lines (the last occurrence wins, so a vibe_send message overrides):
#   append=FILE:TEXT   append the line TEXT to FILE (created if missing)
#   create=FILE:TEXT   write FILE with the single line TEXT
#   delete=FILE        delete FILE
#   sleep=SECONDS      sleep before editing (default 0)
#   mode=fail          exit 3 after editing
# It prints what it saw before editing (the content of a.txt and whether notes.txt exists), so
# a test can prove the worker started from HEAD plus the uncommitted changes.
brief="$(cat)"
last_value() {
    printf '%s\n' "$brief" | sed -n "s/^$1=//p" | tail -n 1
}
echo "cwd=$(pwd)"
echo "saw a.txt: $(cat a.txt 2>/dev/null | tr '\n' '|')"
if [ -e notes.txt ]; then echo "saw notes.txt: $(cat notes.txt)"; else echo "saw notes.txt: absent"; fi
sleep "$(last_value sleep | grep . || echo 0)"
append="$(last_value append)"
if [ -n "$append" ]; then printf '%s\n' "${append#*:}" >> "${append%%:*}"; fi
create="$(last_value create)"
if [ -n "$create" ]; then printf '%s\n' "${create#*:}" > "${create%%:*}"; fi
delete="$(last_value delete)"
if [ -n "$delete" ]; then rm -f "$delete"; fi
echo "attempt $RUNBOUND_WORKER_ATTEMPT edited"
if [ "$(last_value mode)" = fail ]; then
    echo "edit failed on purpose" >&2
    exit 3
fi
