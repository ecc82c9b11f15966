//! The process layer, framing and RPC correlation, driven against real child processes
//! (`sh`, `python3` peers) and byte-level edge cases.

use crate::test_support as support;

use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use runbound::transport::framing::{
    decode_lsp_message, read_content_length_frame, read_content_length_frame_reporting_junk, read_dap_message, read_json_line,
    read_lsp_message, write_content_length_frame, write_dap_message, write_json_line, write_lsp_message, DapMessage, DapRequest,
    FramingErrorKind, FramingLimits,
};
use runbound::transport::process::{run_to_completion, ChildProcess, ProcessSpec};
use runbound::transport::rpc::{Incoming, RpcConnection, RpcErrorKind, RpcOptions, WireProtocol};
use runbound::ErrorKind;
use serde_json::{json, Value};

use support::{require_binary, wait_until};

/// Tests that spawn processes run one at a time, so thread names and process groups seen by
/// one test are its own.
static SERIAL: parking_lot::Mutex<()> = parking_lot::Mutex::new(());

fn serial() -> parking_lot::MutexGuard<'static, ()> {
    SERIAL.lock()
}

fn tmp_dir() -> PathBuf {
    std::env::temp_dir().canonicalize().unwrap()
}

fn sh(script: &str) -> ProcessSpec {
    ProcessSpec::new("/bin/sh", tmp_dir()).with_arg("-c").with_arg(script)
}

/// Live (non-zombie) members of process group `pgid`, from /proc.
fn group_members(pgid: u32) -> Vec<u32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        // fields: state ppid pgrp ...
        if fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z" && fields[0] != "X" {
            members.push(pid);
        }
    }
    members
}

/// Names (comm, cut to 15 bytes by the kernel) of this process's threads.
fn thread_names() -> Vec<String> {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("comm")).ok())
        .map(|name| name.trim().to_owned())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Processes

#[test]
fn drop_kills_the_whole_group_including_grandchildren() {
    // Thread names are process-wide: other modules' tests start threads with the same prefixes.
    if !support::alone("transport::tests::drop_kills_the_whole_group_including_grandchildren") {
        return;
    }
    let _serial = serial();
    let child = ChildProcess::spawn(sh("sleep 30 & sleep 30 & echo ready; wait")).unwrap();
    let pgid = child.pid();
    let mut stdout = BufReader::new(child.take_stdout().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    assert!(wait_until(Duration::from_secs(5), || group_members(pgid).len() >= 3), "sh + 2 sleeps expected");
    let members = group_members(pgid);
    assert!(members.contains(&pgid), "the leader is the group: {members:?}");
    // The OS thread name is set by the new thread itself when it first runs: on a loaded machine
    // that can come after `spawn` returned.
    assert!(
        wait_until(Duration::from_secs(5), || thread_names().iter().any(|name| name.starts_with("runbound-sh-std"))),
        "{:?}",
        thread_names()
    );

    let started = Instant::now();
    drop(child);
    assert!(started.elapsed() < Duration::from_secs(3), "drop took {:?}", started.elapsed());
    assert!(wait_until(Duration::from_secs(3), || group_members(pgid).is_empty()), "survivors of group {pgid}: {:?}", group_members(pgid));
    for pid in members {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(state.is_empty() || state.contains(") Z"), "pid {pid} still alive: {state}");
    }
    assert!(!thread_names().iter().any(|name| name.starts_with("runbound-sh-std")), "{:?}", thread_names());
    assert!(!thread_names().iter().any(|name| name == "runbound-spawne"), "{:?}", thread_names());
}

/// Whether `pid` is gone or a zombie (an escaped process is reparented to init, which may
/// reap it later).
fn dead(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.is_empty() || stat.contains(") Z") || stat.contains(") X")
}

#[test]
fn drop_kills_descendants_that_left_the_group() {
    let _serial = serial();
    // One grandchild leaves with setsid, one with a double fork into a new session; the shell
    // prints both pids and waits.
    let script = "setsid sleep 301 & echo $!; (setsid sh -c 'sleep 302 & echo $!' &) ; sleep 30";
    let child = ChildProcess::spawn(sh(script)).unwrap();
    let tag = child.descendant_tag().to_owned();
    assert!(tag.to_string_lossy().starts_with(&format!("RUNBOUND_DESCENDANT_OF_{}_", std::process::id())), "{tag:?}");
    let mut stdout = BufReader::new(child.take_stdout().unwrap());
    let mut escaped = Vec::new();
    for _ in 0..2 {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        escaped.push(line.trim().parse::<u32>().unwrap_or_else(|_| panic!("a pid, got {line:?}")));
    }
    let pgid = child.pid();
    assert!(wait_until(Duration::from_secs(5), || escaped.iter().all(|pid| !dead(*pid))), "both sleeps started: {escaped:?}");
    for pid in &escaped {
        // While a fork execs, /proc/PID/environ reads empty for a moment (the old memory is gone,
        // the new one not yet set up): on a loaded machine the read can land there.
        let needle = format!("{}=1", tag.to_string_lossy());
        let carries_tag = || {
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            environ.split(|b| *b == 0).any(|entry| entry == needle.as_bytes())
        };
        assert!(wait_until(Duration::from_secs(5), carries_tag), "pid {pid} inherits the tag");
        // `$!` is the forked shell, which becomes `setsid` and leaves the group only once it has
        // run: on a loaded machine the check can come first.
        assert!(wait_until(Duration::from_secs(5), || !group_members(pgid).contains(pid)), "pid {pid} really left group {pgid}");
    }

    drop(child);
    assert!(
        wait_until(Duration::from_secs(3), || escaped.iter().all(|pid| dead(*pid))),
        "escaped descendants survived the drop: {escaped:?}"
    );
}

/// The sweep never touches a process older than the child whose tag it looks for, even one that
/// carries the same variable (a leftover of an earlier host that had our pid, say).
#[test]
fn the_tag_sweep_spares_processes_older_than_the_child() {
    let _serial = serial();
    let tag = std::ffi::OsString::from(format!("RUNBOUND_TEST_TAG_{}", std::process::id()));
    let mut older = std::process::Command::new("sleep").arg("60").env(&tag, "1").spawn().unwrap();
    let pid = older.id();
    // Until it has exec'd, the fork shows this test's environment, without the tag.
    let needle = format!("{}=1", tag.to_string_lossy());
    let carries_tag =
        || std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default().split(|b| *b == 0).any(|entry| entry == needle.as_bytes());
    assert!(wait_until(Duration::from_secs(5), carries_tag), "the sleep runs with the tag");
    let started = runbound::transport::process::process_start_time_ticks(pid).expect("start time of the sleep");
    assert_eq!(runbound::transport::process::kill_tagged_processes(&tag, started + 1), 0, "a process older than the child is spared");
    assert!(!dead(pid), "the older process still runs");
    assert_eq!(runbound::transport::process::kill_tagged_processes(&tag, started), 1, "the same process counts once it is not older");
    older.wait().unwrap();
}

#[test]
fn kill_group_escalates_to_sigkill_when_sigterm_is_ignored() {
    let _serial = serial();
    let child = ChildProcess::spawn(sh("trap '' TERM; echo armed; sleep 30 & wait; sleep 30")).unwrap();
    let mut stdout = BufReader::new(child.take_stdout().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "armed");
    let started = Instant::now();
    let status = child.kill_group().expect("reaped");
    assert!(started.elapsed() < Duration::from_secs(3));
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(9), "{status:?}");
    assert!(wait_until(Duration::from_secs(3), || group_members(child.pid()).is_empty()));
    // Idempotent.
    assert_eq!(child.kill_group(), Some(status));
}

#[test]
fn stderr_tail_is_captured_and_exit_is_described() {
    let _serial = serial();
    let child = ChildProcess::spawn(sh("echo first line >&2; echo 'fatal: boom' >&2; exit 3")).unwrap();
    let status = child.wait_timeout(Duration::from_secs(5)).expect("exits");
    assert_eq!(status.code(), Some(3));
    assert!(wait_until(Duration::from_secs(2), || child.stderr_tail().contains("fatal: boom")));
    assert_eq!(child.stderr_tail(), "first line\nfatal: boom\n");
    let described = child.describe_state();
    assert!(described.contains("exited with exit status: 3") && described.contains("fatal: boom"), "{described}");
    // The handle outlives the child handle.
    let tail = child.stderr_tail_handle();
    drop(child);
    assert!(tail.text().contains("fatal: boom"));
}

#[test]
fn a_child_flooding_stderr_does_not_block_and_the_tail_is_bounded() {
    let _serial = serial();
    // 8 MB of stderr, far beyond a pipe buffer (64 KiB), then a line on stdout.
    let spec = sh("head -c 8000000 /dev/zero | tr '\\0' x >&2; echo tail-marker >&2; echo done").with_stderr_tail_bytes(4096);
    let child = ChildProcess::spawn(spec).unwrap();
    let mut stdout = String::new();
    child.take_stdout().unwrap().read_to_string(&mut stdout).unwrap();
    assert_eq!(stdout.trim(), "done");
    assert!(child.wait_timeout(Duration::from_secs(20)).is_some(), "child blocked on a full stderr pipe");
    let tail = child.stderr_tail_handle();
    assert!(wait_until(Duration::from_secs(5), || tail.total_bytes() == 8_000_000 + "tail-marker\n".len() as u64));
    let text = tail.text();
    assert!(text.starts_with("[stderr: showing last "), "truncation must be said: {}", &text[..80.min(text.len())]);
    assert!(text.ends_with("tail-marker\n"));
    assert!(text.len() < 4096 + 100, "tail is bounded: {} bytes", text.len());
}

#[test]
fn cwd_must_be_absolute_and_missing_programs_are_not_found() {
    let _serial = serial();
    let err = ChildProcess::spawn(ProcessSpec::new("/bin/sh", "relative/dir")).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArguments);
    assert!(err.message.contains("relative/dir") && err.message.contains("relative"), "{err}");

    let err = ChildProcess::spawn(ProcessSpec::new("/bin/sh", "/definitely/not/here")).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotFound, "{err}");

    let err = ChildProcess::spawn(ProcessSpec::new("runbound-no-such-program", tmp_dir()).with_display_name("ghost @ /tmp")).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotFound, "{err}");
    assert!(err.message.contains("ghost @ /tmp") && err.message.contains("runbound-no-such-program"), "{err}");
}

#[test]
fn cwd_and_env_are_applied() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().canonicalize().unwrap();
    let spec = ProcessSpec::new("/bin/sh", &cwd)
        .with_args(["-c", "pwd; echo \"$RUNBOUND_TEST_VAR\"; echo \"${HOME:-unset}\""])
        .with_env("RUNBOUND_TEST_VAR", "value 1")
        .with_env_remove("HOME");
    let done = run_to_completion(spec, b"", Duration::from_secs(10), 4096).unwrap();
    assert_eq!(String::from_utf8(done.stdout).unwrap(), format!("{}\nvalue 1\nunset\n", cwd.display()));
}

#[test]
fn a_child_started_on_a_short_lived_thread_survives_that_thread() {
    let _serial = serial();
    // PR_SET_PDEATHSIG fires when the forking thread exits; spawns go through the spawner thread.
    let child = std::thread::spawn(|| ChildProcess::spawn(sh("sleep 30")).unwrap()).join().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(child.try_wait(), None, "child died with the thread that asked for it");
    drop(child);
}

#[test]
fn children_die_when_runbound_dies_without_dropping_them() {
    // Re-run this test binary as a helper that spawns `sleep 30` (in its own process group, so
    // no group kill reaches it) and then aborts without running any destructor: only
    // PR_SET_PDEATHSIG can kill the sleep.
    if std::env::var_os("RUNBOUND_PDEATHSIG_HELPER").is_some() {
        let child = ChildProcess::spawn(sh("sleep 30")).unwrap();
        println!("GRANDCHILD_PID={}", child.pid());
        std::io::Write::flush(&mut std::io::stdout()).unwrap();
        std::process::abort();
    }
    let _serial = serial();
    let helper = ProcessSpec::new(std::env::current_exe().unwrap(), tmp_dir())
        .with_args(["--exact", "transport::tests::children_die_when_runbound_dies_without_dropping_them", "--nocapture"])
        .with_env("RUNBOUND_PDEATHSIG_HELPER", "1");
    let done = run_to_completion(helper, b"", Duration::from_secs(30), 64 * 1024).unwrap();
    let stdout = String::from_utf8_lossy(&done.stdout);
    let pid: u32 = stdout
        .lines()
        .find_map(|line| line.strip_prefix("GRANDCHILD_PID="))
        .unwrap_or_else(|| panic!("helper printed no pid: {stdout}"))
        .parse()
        .unwrap();
    assert!(
        wait_until(Duration::from_secs(3), || {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| stat.contains(") Z"))
        }),
        "sleep {pid} outlived the process that spawned it"
    );
}

#[test]
fn run_to_completion_captures_output_and_feeds_stdin() {
    let _serial = serial();
    let done = run_to_completion(sh("cat; echo err >&2; exit 4"), b"hello\nworld\n", Duration::from_secs(10), 1024).unwrap();
    assert_eq!(done.status.code(), Some(4));
    assert_eq!(done.stdout, b"hello\nworld\n");
    assert_eq!(done.stderr, b"err\n");
    assert!(!done.timed_out && !done.truncated);
}

#[test]
fn run_to_completion_truncates_and_counts() {
    let _serial = serial();
    let done = run_to_completion(sh("head -c 100000 /dev/zero"), b"", Duration::from_secs(10), 1000).unwrap();
    assert!(done.status.success());
    assert_eq!(done.stdout.len(), 1000);
    assert_eq!(done.stdout_total_bytes, 100_000);
    assert!(done.truncated && !done.timed_out);
}

#[test]
fn run_to_completion_timeout_kills_the_group() {
    let _serial = serial();
    let started = Instant::now();
    let done =
        run_to_completion(sh("sleep 30 & echo $! > /dev/stderr; echo started; sleep 30"), b"", Duration::from_millis(500), 4096).unwrap();
    assert!(done.timed_out);
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert_eq!(String::from_utf8_lossy(&done.stdout), "started\n");
    let background: u32 = String::from_utf8_lossy(&done.stderr).trim().parse().unwrap();
    assert!(
        wait_until(Duration::from_secs(3), || {
            std::fs::read_to_string(format!("/proc/{background}/stat")).map_or(true, |stat| stat.contains(") Z"))
        }),
        "background sleep {background} survived the timeout"
    );
}

// ---------------------------------------------------------------------------------------------
// Content-Length framing

/// A reader that returns one byte per `read`, to split every header and body.
struct OneByteReader<R>(R);

impl<R: Read> Read for OneByteReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let len = buf.len().min(1);
        self.0.read(&mut buf[..len])
    }
}

fn frame(body: &str) -> Vec<u8> {
    let mut out = Vec::new();
    write_content_length_frame(&mut out, body.as_bytes()).unwrap();
    out
}

fn read_all_frames(reader: &mut dyn BufRead, limits: &FramingLimits) -> Vec<Result<String, FramingErrorKind>> {
    let mut out = Vec::new();
    loop {
        match read_content_length_frame(reader, limits) {
            Ok(Some(body)) => out.push(Ok(String::from_utf8(body).unwrap())),
            Ok(None) => return out,
            Err(err) => {
                let recoverable = err.is_recoverable();
                out.push(Err(err.kind()));
                if !recoverable {
                    return out;
                }
            }
        }
    }
}

#[test]
fn several_messages_in_one_read_then_clean_eof() {
    let mut bytes = frame(r#"{"a":1}"#);
    bytes.extend(frame(r#"{"b":"two"}"#));
    bytes.extend(frame("{}"));
    let frames = read_all_frames(&mut Cursor::new(bytes), &FramingLimits::default());
    assert_eq!(frames, vec![Ok(r#"{"a":1}"#.into()), Ok(r#"{"b":"two"}"#.into()), Ok("{}".into())]);
}

#[test]
fn split_reads_one_byte_at_a_time() {
    let mut bytes = frame(r#"{"jsonrpc":"2.0","method":"x"}"#);
    bytes.extend(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:4\r\n\r\n[12]");
    let mut reader = BufReader::new(OneByteReader(Cursor::new(bytes)));
    let frames = read_all_frames(&mut reader, &FramingLimits::default());
    assert_eq!(frames, vec![Ok(r#"{"jsonrpc":"2.0","method":"x"}"#.into()), Ok("[12]".into())]);
}

#[test]
fn junk_before_a_header_is_skipped_and_reported() {
    let mut bytes = b"Stop hook #1 added.\nWarning: not json\n".to_vec();
    bytes.extend(frame("{}"));
    bytes.extend(b"true startContent-Length: 2\r\n\r\n[]");
    let mut junk = Vec::new();
    let mut reader = Cursor::new(bytes);
    let limits = FramingLimits::default();
    let mut on_junk = |bytes: &[u8]| junk.push(String::from_utf8_lossy(bytes).into_owned());
    assert_eq!(read_content_length_frame_reporting_junk(&mut reader, &limits, &mut on_junk).unwrap().unwrap(), b"{}");
    assert_eq!(read_content_length_frame_reporting_junk(&mut reader, &limits, &mut on_junk).unwrap().unwrap(), b"[]");
    assert!(read_content_length_frame_reporting_junk(&mut reader, &limits, &mut on_junk).unwrap().is_none());
    assert_eq!(junk, vec!["Stop hook #1 added.", "Warning: not json", "true start"]);
}

#[test]
fn bare_newlines_case_and_spacing_variants_are_accepted() {
    let bytes = b"CONTENT-LENGTH:\t 2 \n\n{}Content-Length: 2\r\nX-Unknown: y\r\n\r\n[]".to_vec();
    let frames = read_all_frames(&mut Cursor::new(bytes), &FramingLimits::default());
    assert_eq!(frames, vec![Ok("{}".into()), Ok("[]".into())]);
}

#[test]
fn oversized_length_is_skipped_without_storing_and_the_stream_recovers() {
    let limits = FramingLimits { max_body_bytes: 16, ..FramingLimits::default() };
    let mut bytes = frame(&format!("[\"{}\"]", "x".repeat(100)));
    bytes.extend(frame("{}"));
    let frames = read_all_frames(&mut Cursor::new(bytes), &limits);
    assert_eq!(frames, vec![Err(FramingErrorKind::BodyTooLarge), Ok("{}".into())]);

    // A declared 1 TiB body: rejected without allocating; the stream then ends inside it.
    let huge = b"Content-Length: 1099511627776\r\n\r\n{}".to_vec();
    let err = read_content_length_frame(&mut Cursor::new(huge), &FramingLimits::default()).unwrap_err();
    assert_eq!(err.kind(), FramingErrorKind::UnexpectedEof, "{err}");
}

#[test]
fn missing_or_malformed_content_length_is_recoverable() {
    let mut bytes = b"Content-Type: application/json\r\n\r\n".to_vec();
    bytes.extend(frame("{}"));
    for bad in ["-1", "+12", "0x10", "", "1 2", "99999999999999999999999"] {
        bytes.extend(format!("Content-Length: {bad}\r\n\r\n").as_bytes());
    }
    bytes.extend(b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}");
    bytes.extend(frame("[]"));
    let frames = read_all_frames(&mut Cursor::new(bytes), &FramingLimits::default());
    let mut expected = vec![Err(FramingErrorKind::MissingContentLength), Ok("{}".into())];
    expected.extend(std::iter::repeat_n(Err(FramingErrorKind::MalformedHeader), 6));
    expected.extend([Err(FramingErrorKind::MalformedHeader), Ok("[]".into())]);
    assert_eq!(frames, expected);
}

#[test]
fn eof_mid_body_mid_header_and_clean_eof() {
    let limits = FramingLimits::default();
    let err = read_content_length_frame(&mut Cursor::new(b"Content-Length: 10\r\n\r\n{}".to_vec()), &limits).unwrap_err();
    assert_eq!(err.kind(), FramingErrorKind::UnexpectedEof);
    assert!(!err.is_recoverable());
    assert!(err.message().contains("got 2 of 10 bytes"), "{err}");
    let named = err.with_peer("pyright @ /ws");
    assert!(named.to_string().starts_with("pyright @ /ws: "), "{named}");

    for partial in [&b"Content-Length: 10\r\n"[..], b"Content-Length: 10", b"Content-Len"] {
        let err = read_content_length_frame(&mut Cursor::new(partial.to_vec()), &limits);
        // "Content-Len" without a colon is junk, so EOF there is clean.
        if partial == b"Content-Len" {
            assert_eq!(err.unwrap(), None);
            continue;
        }
        assert_eq!(err.unwrap_err().kind(), FramingErrorKind::UnexpectedEof, "{partial:?}");
    }
    assert_eq!(read_content_length_frame(&mut Cursor::new(Vec::new()), &limits).unwrap(), None);
    assert_eq!(read_content_length_frame(&mut Cursor::new(b"\r\n\r\n".to_vec()), &limits).unwrap(), None);
}

#[test]
fn oversized_header_and_junk_caps_hold() {
    let limits = FramingLimits { max_header_line_bytes: 64, max_junk_bytes: 100, ..FramingLimits::default() };
    let mut bytes = format!("Content-Length: 2\r\nX-Big: {}\r\n\r\n{{}}", "y".repeat(200)).into_bytes();
    bytes.extend(frame("[]"));
    let frames = read_all_frames(&mut Cursor::new(bytes), &limits);
    assert_eq!(frames, vec![Err(FramingErrorKind::HeaderTooLarge), Ok("[]".into())]);

    let mut bytes = "log line\n".repeat(20).into_bytes();
    bytes.extend(frame("[]"));
    let frames = read_all_frames(&mut Cursor::new(bytes), &limits);
    assert_eq!(frames, vec![Err(FramingErrorKind::TooMuchJunk), Ok("[]".into())]);
}

#[test]
fn written_length_is_the_byte_length_of_non_ascii_bodies() {
    let body = json!({"text": "héllo 世界 🦀 \r\n\r\nContent-Length: 5"}).to_string();
    let bytes = frame(&body);
    assert!(bytes.starts_with(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes()));
    let mut reader = BufReader::new(OneByteReader(Cursor::new(bytes)));
    assert_eq!(read_content_length_frame(&mut reader, &FramingLimits::default()).unwrap().unwrap(), body.as_bytes());
}

#[test]
fn lsp_messages_round_trip_through_lsp_server_types() {
    let request = lsp_server::Message::Request(lsp_server::Request::new(7.into(), "textDocument/hover".into(), json!({"x": 1})));
    let mut bytes = Vec::new();
    write_lsp_message(&mut bytes, &request).unwrap();
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(text.contains(r#""jsonrpc":"2.0""#), "{text}");
    bytes.extend(b"garbage line\n");
    bytes.extend(frame(r#"{"jsonrpc":"2.0","id":7,"result":{"contents":"doc"}}"#));
    bytes.extend(frame(r#"{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"nope"}}"#));
    bytes.extend(frame(r#"{"not":"rpc"}"#));
    let mut reader = Cursor::new(bytes);
    let limits = FramingLimits::default();
    let Some(lsp_server::Message::Request(echoed)) = read_lsp_message(&mut reader, &limits).unwrap() else { panic!() };
    assert_eq!(echoed.method, "textDocument/hover");
    let Some(lsp_server::Message::Response(ok)) = read_lsp_message(&mut reader, &limits).unwrap() else { panic!() };
    assert_eq!(ok.response_result.unwrap(), json!({"contents": "doc"}));
    let Some(lsp_server::Message::Response(failed)) = read_lsp_message(&mut reader, &limits).unwrap() else { panic!() };
    assert_eq!(failed.response_result.unwrap_err().code, -32601);
    let err = read_lsp_message(&mut reader, &limits).unwrap_err();
    assert_eq!(err.kind(), FramingErrorKind::MalformedMessage);
    assert!(err.is_recoverable());
    assert!(read_lsp_message(&mut reader, &limits).unwrap().is_none());
}

#[test]
fn off_spec_lsp_responses_are_repaired_and_named() {
    // Strict messages decode without a repair.
    let (_, repair) = decode_lsp_message(br#"{"jsonrpc":"2.0","id":1,"result":null}"#).unwrap();
    assert_eq!(repair, None);
    // No `result` and no `error`: read as `result: null`, so the request is answered.
    let (message, repair) = decode_lsp_message(br#"{"jsonrpc":"2.0","id":2}"#).unwrap();
    let lsp_server::Message::Response(response) = message else { panic!("{message:?}") };
    assert_eq!(response.response_result.unwrap(), json!(null));
    assert!(repair.unwrap().contains("neither `result` nor `error`"));
    // `"error": null` beside a result (read strictly when the result comes first; repaired when
    // the null error does).
    let (message, _) = decode_lsp_message(br#"{"jsonrpc":"2.0","id":3,"result":[1],"error":null}"#).unwrap();
    let lsp_server::Message::Response(response) = message else { panic!("{message:?}") };
    assert_eq!(response.response_result.unwrap(), json!([1]));
    let (message, repair) = decode_lsp_message(br#"{"jsonrpc":"2.0","id":3,"error":null,"result":[1]}"#).unwrap();
    let lsp_server::Message::Response(response) = message else { panic!("{message:?}") };
    assert_eq!(response.response_result.unwrap(), json!([1]));
    assert!(repair.unwrap().contains("`\"error\": null`"));
    // An error without a message, with a string code.
    let (message, repair) = decode_lsp_message(br#"{"jsonrpc":"2.0","id":4,"error":{"code":"-32801"}}"#).unwrap();
    let lsp_server::Message::Response(response) = message else { panic!("{message:?}") };
    let error = response.response_result.unwrap_err();
    assert_eq!((error.code, error.message.as_str()), (-32801, "(no message)"));
    assert!(repair.unwrap().contains("message"));
    // What no repair makes a message stays a recoverable error quoting the body.
    for body in [&br#"{"not":"rpc"}"#[..], br#"{"jsonrpc":"2.0","id":99999999999,"result":1}"#, b"[1,2]"] {
        let err = decode_lsp_message(body).unwrap_err();
        assert_eq!(err.kind(), FramingErrorKind::MalformedMessage);
        assert!(err.is_recoverable() && err.message().contains("skipped"), "{err}");
    }
}

// ---------------------------------------------------------------------------------------------
// DAP envelope

#[test]
fn dap_messages_decode_leniently() {
    let cases = [
        (json!({"seq": 3, "type": "event", "event": "stopped", "body": {"threadId": 1}}), "event stopped seq 3"),
        (json!({"seq": -5, "type": "response", "request_seq": 2, "success": true, "command": "initialize"}), "response 2 ok seq -5"),
        (json!({"type": "response", "request_seq": "4", "command": "launch", "message": "cancelled"}), "response 4 failed seq 0"),
        (json!({"seq": 1.9e3, "event": "output", "extra": [1, 2]}), "event output seq 1900"),
        (json!({"seq": 9, "command": "runInTerminal", "arguments": {"args": ["x"]}}), "request runInTerminal seq 9"),
        (json!({"seq": 18446744073709551615u64, "type": "event", "event": "x"}), "event x seq 9223372036854775807"),
    ];
    for (value, expected) in cases {
        let message = DapMessage::from_value(value.clone()).unwrap();
        let summary = match &message {
            DapMessage::Event(event) => format!("event {} seq {}", event.event, event.seq),
            DapMessage::Response(response) => {
                format!("response {} {} seq {}", response.request_seq, if response.success { "ok" } else { "failed" }, response.seq)
            }
            DapMessage::Request(request) => {
                format!("request {} seq {}", request.command, request.seq)
            }
        };
        assert_eq!(summary, expected, "{value}");
    }
    for bad in [json!([1]), json!({"type": "event"}), json!({"type": "request"}), json!({"type": "weird"}), json!({})] {
        let err = DapMessage::from_value(bad.clone()).unwrap_err();
        assert_eq!(err.kind(), FramingErrorKind::MalformedMessage, "{bad}");
        assert!(err.is_recoverable());
    }
    assert_eq!(DapMessage::from_json_bytes(b"{oops").unwrap_err().kind(), FramingErrorKind::MalformedMessage);
}

#[test]
fn dap_messages_are_written_clean() {
    let request = DapMessage::Request(DapRequest { seq: 1, command: "configurationDone".into(), arguments: None });
    assert_eq!(request.to_value(), json!({"seq": 1, "type": "request", "command": "configurationDone", "arguments": {}}));
    let request = DapMessage::Request(DapRequest {
        seq: 2,
        command: "launch".into(),
        arguments: Some(json!({"program": "/a.py", "cwd": null, "env": {"A": null, "B": "1"}, "args": [null]})),
    });
    let mut bytes = Vec::new();
    write_dap_message(&mut bytes, &request).unwrap();
    let decoded = read_dap_message(&mut Cursor::new(bytes), &FramingLimits::default()).unwrap().unwrap();
    let DapMessage::Request(decoded) = decoded else { panic!("{decoded:?}") };
    assert_eq!(decoded.arguments.unwrap(), json!({"program": "/a.py", "env": {"B": "1"}, "args": [null]}));
}

// ---------------------------------------------------------------------------------------------
// JSON lines

#[test]
fn json_lines_skip_blanks_and_recover_from_bad_lines() {
    let input = "\n  \r\n{\"a\":1}\r\nnot json\n{\"b\":2}\n".to_owned() + &"x".repeat(300) + "\n[3]\n{\"last\":true}";
    let mut reader = Cursor::new(input.into_bytes());
    assert_eq!(read_json_line(&mut reader, 100).unwrap(), Some(json!({"a": 1})));
    let err = read_json_line(&mut reader, 100).unwrap_err();
    assert_eq!(err.kind(), FramingErrorKind::MalformedMessage);
    assert!(err.is_recoverable() && err.message().contains("not json"), "{err}");
    assert_eq!(read_json_line(&mut reader, 100).unwrap(), Some(json!({"b": 2})));
    let err = read_json_line(&mut reader, 100).unwrap_err();
    assert_eq!(err.kind(), FramingErrorKind::LineTooLong);
    assert!(err.is_recoverable() && err.message().contains("300 bytes"), "{err}");
    assert_eq!(read_json_line(&mut reader, 100).unwrap(), Some(json!([3])));
    assert_eq!(read_json_line(&mut reader, 100).unwrap(), Some(json!({"last": true})));
    assert_eq!(read_json_line(&mut reader, 100).unwrap(), None);
}

#[test]
fn json_lines_split_reads_and_one_line_per_message() {
    let mut bytes = Vec::new();
    write_json_line(&mut bytes, &json!({"text": "two\nlines", "n": 1})).unwrap();
    write_json_line(&mut bytes, &json!("second")).unwrap();
    assert_eq!(bytes.iter().filter(|&&b| b == b'\n').count(), 2);
    let mut reader = BufReader::new(OneByteReader(Cursor::new(bytes)));
    assert_eq!(read_json_line(&mut reader, 1024).unwrap(), Some(json!({"text": "two\nlines", "n": 1})));
    assert_eq!(read_json_line(&mut reader, 1024).unwrap(), Some(json!("second")));
    assert_eq!(read_json_line(&mut reader, 1024).unwrap(), None);
}

// ---------------------------------------------------------------------------------------------
// RPC against real peer processes

/// A JSON-RPC server over Content-Length frames (or lines with argv[1] == "lines"). Methods:
/// `echo` (result = params), `sleep` ({seconds}, answered from a thread so later requests can
/// overtake it), `fail` (error -32000), `poke` (sends a notification and a request to the
/// client, answers with the client's answer), `die` (stderr line, exit 3 without answering).
const JSON_RPC_PEER: &str = r#"
import json, sys, threading, time
lines = len(sys.argv) > 1 and sys.argv[1] == "lines"
out = sys.stdout.buffer
inp = sys.stdin.buffer
lock = threading.Lock()
waiting = {}
def send(msg):
    body = json.dumps(msg).encode()
    with lock:
        if lines:
            out.write(body + b"\n")
        else:
            out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        out.flush()
def read():
    if lines:
        line = inp.readline()
        return json.loads(line) if line else None
    length = None
    while True:
        line = inp.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        k, v = line.split(b":", 1)
        if k.lower() == b"content-length":
            length = int(v)
    return json.loads(inp.read(length))
out.write(b"peer says hello on stdout\n"); out.flush()
if lines:
    out.write(b"{broken json\n"); out.flush()
while True:
    msg = read()
    if msg is None:
        break
    if "method" not in msg:
        ev = waiting.pop(msg["id"], None)
        if ev: ev[1].append(msg); ev[0].set()
        continue
    m, p, i = msg["method"], msg.get("params"), msg.get("id")
    if m == "echo":
        send({"jsonrpc": "2.0", "id": i, "result": p})
    elif m == "sleep":
        def later(i=i, p=p):
            time.sleep(p["seconds"]); send({"jsonrpc": "2.0", "id": i, "result": {"slept": p["seconds"]}})
        threading.Thread(target=later, daemon=True).start()
    elif m == "fail":
        send({"jsonrpc": "2.0", "id": i, "error": {"code": -32000, "message": "it failed", "data": {"why": "test"}}})
    elif m == "poke":
        def poke(i=i):
            send({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"message": "poked"}})
            ev = (threading.Event(), [])
            waiting["srv-1"] = ev
            send({"jsonrpc": "2.0", "id": "srv-1", "method": "workspace/configuration", "params": {"items": [1]}})
            ev[0].wait(10)
            send({"jsonrpc": "2.0", "id": i, "result": {"client_said": ev[1][0] if ev[1] else None}})
        threading.Thread(target=poke, daemon=True).start()
    elif m == "die":
        sys.stderr.write("fatal: simulated crash\n"); sys.stderr.flush()
        sys.exit(3)
"#;

fn python_peer(test: &str, script: &str, extra_arg: Option<&str>) -> Option<ChildProcess> {
    let python = require_binary(test, "python3")?;
    let mut spec = ProcessSpec::new(python, tmp_dir()).with_args(["-u", "-c", script]).with_display_name("fake-peer @ /tmp");
    if let Some(arg) = extra_arg {
        spec = spec.with_arg(arg);
    }
    Some(ChildProcess::spawn(spec).unwrap())
}

fn json_rpc_peer(test: &str, protocol: WireProtocol) -> Option<RpcConnection> {
    let lines = (protocol == WireProtocol::JsonRpcLines).then_some("lines");
    let child = python_peer(test, JSON_RPC_PEER, lines)?;
    Some(RpcConnection::over_child(child, protocol, RpcOptions::new("fake-peer @ /tmp", "fakepeer")).unwrap())
}

fn next_incoming(connection: &RpcConnection) -> Incoming {
    connection.incoming().recv_timeout(Duration::from_secs(10)).expect("an incoming message within 10 s")
}

#[test]
fn rpc_correlates_out_of_order_responses() {
    let _serial = serial();
    let Some(connection) = json_rpc_peer("rpc_correlates_out_of_order_responses", WireProtocol::JsonRpcContentLength) else {
        return;
    };
    let slow = connection.send_request("sleep", json!({"seconds": 2.0})).unwrap();
    let fast = connection.send_request("echo", json!({"n": 42})).unwrap();
    assert_eq!(fast.wait(Duration::from_secs(10)).unwrap(), json!({"n": 42}));
    // The later request was answered first, and the earlier one is still pending.
    assert!(slow.receiver().is_empty(), "the sleep was answered before the echo");
    assert_eq!(slow.wait(Duration::from_secs(10)).unwrap(), json!({"slept": 2.0}));
    // Concurrent callers from several threads.
    std::thread::scope(|scope| {
        for n in 0..8 {
            let connection = &connection;
            scope.spawn(move || {
                assert_eq!(connection.request("echo", json!([n]), Duration::from_secs(10)).unwrap(), json!([n]));
            });
        }
    });
    let err = connection.request("fail", Value::Null, Duration::from_secs(10)).unwrap_err();
    assert_eq!(err.kind, RpcErrorKind::ErrorResponse);
    assert_eq!(err.response_error.as_ref().unwrap().code, -32000);
    assert!(err.message.contains("fail") && err.message.contains("it failed"), "{err}");
    // The junk line the peer printed before its first frame was surfaced, not dropped.
    let Incoming::Diagnostic(text) = next_incoming(&connection) else { panic!("expected the junk diagnostic") };
    assert!(text.contains("peer says hello on stdout"), "{text}");
}

#[test]
fn rpc_per_request_timeout_names_request_and_budget() {
    let _serial = serial();
    let Some(connection) = json_rpc_peer("rpc_per_request_timeout_names_request_and_budget", WireProtocol::JsonRpcContentLength) else {
        return;
    };
    let started = Instant::now();
    let err = connection.request("sleep", json!({"seconds": 2.0}), Duration::from_millis(200)).unwrap_err();
    // Gave up at the budget, long before the answer (2 s) came.
    assert!(started.elapsed() < Duration::from_millis(1500), "{:?}", started.elapsed());
    assert_eq!(err.kind, RpcErrorKind::Timeout);
    assert!(err.message.contains("`sleep`") && err.message.contains("200 ms") && err.message.contains("fake-peer"), "{err}");
    let tool_error = err.to_tool_error();
    assert_eq!(tool_error.kind, ErrorKind::Timeout);
    // The late answer arrives as unmatched, and the connection still works.
    loop {
        match next_incoming(&connection) {
            Incoming::UnmatchedResponse { result, .. } => {
                assert_eq!(result.unwrap(), json!({"slept": 2.0}));
                break;
            }
            Incoming::Diagnostic(_) => continue,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(connection.request("echo", json!(1), Duration::from_secs(10)).unwrap(), json!(1));
}

#[test]
fn rpc_server_requests_and_notifications_reach_the_owner() {
    let _serial = serial();
    let Some(connection) = json_rpc_peer("rpc_server_requests_and_notifications_reach_the_owner", WireProtocol::JsonRpcContentLength)
    else {
        return;
    };
    let poke = connection.send_request("poke", Value::Null).unwrap();
    let mut saw_notification = false;
    loop {
        match next_incoming(&connection) {
            Incoming::Diagnostic(_) => {}
            Incoming::Notification(notification) => {
                assert_eq!(notification.method, "window/logMessage");
                assert_eq!(notification.params["message"], "poked");
                saw_notification = true;
            }
            Incoming::Request(request) => {
                assert_eq!(request.method, "workspace/configuration");
                assert_eq!(request.id.to_string(), "\"srv-1\"");
                connection.respond(&request, Ok(json!([{"answer": 1}]))).unwrap();
                break;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(saw_notification);
    assert_eq!(
        poke.wait(Duration::from_secs(10)).unwrap(),
        json!({"client_said": {"jsonrpc": "2.0", "id": "srv-1", "result": [{"answer": 1}]}})
    );
}

#[test]
fn rpc_peer_exit_fails_pending_requests_with_the_stderr_tail() {
    let _serial = serial();
    let Some(connection) = json_rpc_peer("rpc_peer_exit_fails_pending_requests_with_the_stderr_tail", WireProtocol::JsonRpcContentLength)
    else {
        return;
    };
    let pending = connection.send_request("sleep", json!({"seconds": 30})).unwrap();
    let dying = connection.send_request("die", Value::Null).unwrap();
    for pending in [pending, dying] {
        let err = pending.wait(Duration::from_secs(10)).unwrap_err();
        assert_eq!(err.kind, RpcErrorKind::PeerClosed, "{err}");
        let closed = err.closed.as_ref().unwrap();
        assert_eq!(closed.exit_status.and_then(|status| status.code()), Some(3), "{err}");
        assert!(closed.stderr_tail.contains("fatal: simulated crash"), "{err}");
        assert!(err.message.contains("fatal: simulated crash") && err.message.contains("fake-peer @ /tmp"), "{err}");
        assert_eq!(err.to_tool_error().kind, ErrorKind::Unavailable);
    }
    // Later calls fail at once, the same way.
    let started = Instant::now();
    let err = connection.request("echo", json!(1), Duration::from_secs(10)).unwrap_err();
    assert_eq!(err.kind, RpcErrorKind::PeerClosed);
    assert!(started.elapsed() < Duration::from_secs(1));
    assert!(connection.closed().is_some());
    loop {
        if let Incoming::Closed(closed) = next_incoming(&connection) {
            assert!(closed.stderr_tail.contains("fatal: simulated crash"));
            break;
        }
    }
}

#[test]
fn rpc_over_json_lines_skips_malformed_lines() {
    let _serial = serial();
    let Some(connection) = json_rpc_peer("rpc_over_json_lines_skips_malformed_lines", WireProtocol::JsonRpcLines) else {
        return;
    };
    assert_eq!(connection.request("echo", json!({"via": "lines"}), Duration::from_secs(10)).unwrap(), json!({"via": "lines"}));
    let mut diagnostics = Vec::new();
    while let Ok(Incoming::Diagnostic(text)) = connection.incoming().recv_timeout(Duration::from_millis(500)) {
        diagnostics.push(text);
    }
    assert!(diagnostics.iter().any(|text| text.contains("peer says hello")), "{diagnostics:?}");
    assert!(diagnostics.iter().any(|text| text.contains("broken json")), "{diagnostics:?}");
}

#[test]
fn rpc_drop_kills_the_peer_and_joins_its_threads() {
    // Thread names are process-wide: other modules' tests start threads with the same prefixes.
    if !support::alone("transport::tests::rpc_drop_kills_the_peer_and_joins_its_threads") {
        return;
    }
    let _serial = serial();
    let Some(connection) = json_rpc_peer("rpc_drop_kills_the_peer_and_joins_its_threads", WireProtocol::JsonRpcContentLength) else {
        return;
    };
    assert_eq!(connection.request("echo", json!(1), Duration::from_secs(10)).unwrap(), json!(1));
    let pid = connection.child().unwrap().pid();
    let names = thread_names();
    assert!(names.iter().any(|name| name == "runbound-fakepe"), "{names:?}");
    let started = Instant::now();
    drop(connection);
    assert!(started.elapsed() < Duration::from_secs(3), "drop took {:?}", started.elapsed());
    assert!(group_members(pid).is_empty());
    let names = thread_names();
    assert!(!names.iter().any(|name| name.starts_with("runbound-fakepe") || name.starts_with("runbound-python")), "{names:?}");
}

#[test]
fn rpc_close_waits_for_a_voluntary_exit() {
    let _serial = serial();
    let Some(connection) = json_rpc_peer("rpc_close_waits_for_a_voluntary_exit", WireProtocol::JsonRpcContentLength) else {
        return;
    };
    assert_eq!(connection.request("echo", json!(1), Duration::from_secs(10)).unwrap(), json!(1));
    // Closing stdin makes the peer's read loop end and exit 0 on its own.
    let status = connection.close(Duration::from_secs(5)).expect("exit status");
    assert!(status.success(), "{status:?}");
}

/// A DAP adapter: answers `initialize` and sends `initialized`; `fail` → success:false;
/// `reverse` → sends a `runInTerminal` reverse request and answers with the client's reply.
const DAP_PEER: &str = r#"
import json, sys, threading
out = sys.stdout.buffer
inp = sys.stdin.buffer
lock = threading.Lock()
seq = [0]
def send(msg):
    with lock:
        seq[0] += 1
        msg["seq"] = seq[0]
        body = json.dumps(msg).encode()
        out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        out.flush()
def read():
    length = None
    while True:
        line = inp.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        k, v = line.split(b":", 1)
        if k.lower() == b"content-length":
            length = int(v)
    return json.loads(inp.read(length))
pending_reverse = {}
while True:
    msg = read()
    if msg is None:
        break
    if msg["type"] == "response":
        req = pending_reverse.pop(msg["request_seq"])
        send({"type": "response", "request_seq": req, "success": True, "command": "reverse", "body": {"client": msg.get("body")}})
        continue
    c, s = msg["command"], msg["seq"]
    if c == "initialize":
        send({"type": "response", "request_seq": s, "success": True, "command": c, "body": {"supportsConfigurationDoneRequest": True, "args": msg["arguments"]}})
        send({"type": "event", "event": "initialized"})
    elif c == "fail":
        send({"type": "response", "request_seq": s, "success": False, "command": c, "message": "notStopped", "body": {"error": {"id": 1, "format": "Thread is not stopped"}}})
    elif c == "reverse":
        send({"type": "request", "command": "runInTerminal", "arguments": {"args": ["ls"]}})
        pending_reverse[seq[0]] = s
"#;

#[test]
fn rpc_over_dap_correlates_on_request_seq() {
    let _serial = serial();
    let Some(child) = python_peer("rpc_over_dap_correlates_on_request_seq", DAP_PEER, None) else {
        return;
    };
    let connection =
        RpcConnection::over_child(child, WireProtocol::DapContentLength, RpcOptions::new("fake-adapter @ /tmp", "fakeadapter")).unwrap();
    let body = connection.request("initialize", json!({"adapterID": "x", "pathFormat": null}), Duration::from_secs(10)).unwrap();
    assert_eq!(body["supportsConfigurationDoneRequest"], true);
    assert_eq!(body["args"], json!({"adapterID": "x"}), "nulls are stripped from arguments");
    let Incoming::Notification(event) = next_incoming(&connection) else { panic!() };
    assert_eq!(event.method, "initialized");

    let err = connection.request("fail", Value::Null, Duration::from_secs(10)).unwrap_err();
    assert_eq!(err.kind, RpcErrorKind::ErrorResponse);
    assert!(err.message.contains("notStopped: Thread is not stopped"), "{err}");

    let reverse = connection.send_request("reverse", Value::Null).unwrap();
    let Incoming::Request(request) = next_incoming(&connection) else { panic!() };
    assert_eq!(request.method, "runInTerminal");
    connection.respond(&request, Ok(json!({"processId": 12}))).unwrap();
    assert_eq!(reverse.wait(Duration::from_secs(10)).unwrap(), json!({"client": {"processId": 12}}));

    let err = connection.notify("x", Value::Null).unwrap_err();
    assert!(err.message.contains("DAP has no client notifications"), "{err}");
}

#[test]
fn handles_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<ChildProcess>();
    assert_send_sync::<RpcConnection>();
    assert_send_sync::<runbound::transport::process::StderrTail>();
}

// Extra pipes at fixed fd numbers (the eval kernels' protocol channel).

#[test]
fn extra_pipes_reach_the_child_at_fixed_fds_apart_from_stdout() {
    let Some(python) = require_binary("extra_pipes_reach_the_child_at_fixed_fds_apart_from_stdout", "python3") else {
        return;
    };
    let _guard = serial();
    use runbound::transport::process::PipeDirection;
    use std::io::Write;
    use std::os::fd::AsRawFd;
    let script = r#"
import os, sys
inheritable = (os.get_inheritable(3), os.get_inheritable(4))
request = os.read(3, 1000)
print("plain stdout line", flush=True)
os.write(4, b"reply:" + request.upper())
os.write(4, b"inheritable:%d,%d\n" % inheritable)
"#;
    let spec = ProcessSpec::new(python, tmp_dir())
        .with_args(["-c", script])
        .with_extra_pipe(3, PipeDirection::ParentWrites)
        .with_extra_pipe(4, PipeDirection::ParentReads);
    let child = ChildProcess::spawn(spec).unwrap();
    let mut to_child = child.take_extra_pipe(3).expect("parent end of fd 3");
    let from_child = child.take_extra_pipe(4).expect("parent end of fd 4");
    assert!(child.take_extra_pipe(4).is_none(), "an extra pipe is taken once");
    assert!(child.take_extra_pipe(5).is_none(), "no pipe was asked for fd 5");
    for file in [&to_child, &from_child] {
        // SAFETY: F_GETFD on a descriptor we own.
        let flags = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFD) };
        assert_eq!(flags & libc::FD_CLOEXEC, libc::FD_CLOEXEC, "the parent's end must be close-on-exec");
    }
    to_child.write_all(b"hello over fd 3\n").unwrap();
    drop(to_child);
    let mut stdout = String::new();
    child.take_stdout().unwrap().read_to_string(&mut stdout).unwrap();
    assert_eq!(stdout, "plain stdout line\n", "stdout carries only the child's own output");
    // EOF on fd 4 after the child exits proves the parent kept no copy of the child's end.
    let mut replies = String::new();
    let reader = std::thread::spawn(move || {
        let mut from_child = from_child;
        from_child.read_to_string(&mut replies).map(|_| replies)
    });
    let status = child.wait_timeout(Duration::from_secs(10)).expect("child exits");
    assert!(status.success(), "{}", child.describe_state());
    let replies = reader.join().unwrap().unwrap();
    assert_eq!(replies, "reply:HELLO OVER FD 3\ninheritable:1,1\n");
}

#[test]
fn extra_pipes_survive_fd_number_collisions_and_bad_fds_are_refused() {
    let _guard = serial();
    use runbound::transport::process::PipeDirection;
    // Several pipes: whatever numbers pipe2 hands out in the parent, every child end must land
    // on its own target (a dup2 onto 5 must not clobber the end meant for 6, and so on).
    let spec = sh("for fd in 5 6 7 8; do echo \"fd$fd\" >&$fd; done")
        .with_extra_pipe(8, PipeDirection::ParentReads)
        .with_extra_pipe(5, PipeDirection::ParentReads)
        .with_extra_pipe(7, PipeDirection::ParentReads)
        .with_extra_pipe(6, PipeDirection::ParentReads);
    let child = ChildProcess::spawn(spec).unwrap();
    let status = child.wait_timeout(Duration::from_secs(10)).expect("sh exits");
    assert!(status.success(), "{}", child.describe_state());
    for fd in [5, 6, 7, 8] {
        let mut text = String::new();
        child.take_extra_pipe(fd).unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, format!("fd{fd}\n"));
    }
    for (fds, needle) in [(vec![2], "fds 0-2"), (vec![3, 3], "given twice")] {
        let mut spec = sh("true");
        for fd in fds {
            spec = spec.with_extra_pipe(fd, PipeDirection::ParentWrites);
        }
        let err = ChildProcess::spawn(spec).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArguments, "{err:?}");
        assert!(err.message.contains(needle), "{}", err.message);
    }
}

// try_wait and a leader that /proc shows as a zombie.

/// The state letter of `pid` in /proc/<pid>/stat.
fn proc_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..].split_whitespace().next()?.chars().next()
}

#[test]
fn a_zombie_looking_leader_with_live_threads_is_running_until_its_last_thread_ends() {
    let Some(python) = require_binary("a_zombie_looking_leader_with_live_threads_is_running_until_its_last_thread_ends", "python3") else {
        return;
    };
    let _guard = serial();
    // The main thread ends (pthread_exit) while a worker thread lives 1.5 s more: /proc shows
    // the leader as `Z`, yet the process runs; try_wait must say so, then report the real exit.
    let script = "import threading, time, ctypes, sys\n\
                  threading.Thread(target=lambda: (time.sleep(1.5), sys.stdout.flush())).start()\n\
                  ctypes.CDLL(None).pthread_exit(None)";
    let child = ChildProcess::spawn(ProcessSpec::new(python, tmp_dir()).with_args(["-c", script])).unwrap();
    let pid = child.pid();
    assert!(wait_until(Duration::from_secs(5), || proc_state(pid) == Some('Z')), "leader never showed as Z");
    assert_eq!(child.try_wait(), None, "the worker thread is still running");
    assert!(child.describe_state().contains("is running"), "{}", child.describe_state());
    let status = child.wait_timeout(Duration::from_secs(10)).expect("exits once the worker thread ends");
    assert!(status.success(), "{status}: {}", child.describe_state());
    assert_eq!(child.try_wait(), Some(status), "the status is cached after the reap");
    assert_eq!(proc_state(pid), None, "reaped: no /proc entry left");
}

#[test]
fn a_leader_reaped_outside_the_handle_is_reported_gone_not_running() {
    let _guard = serial();
    let child = ChildProcess::spawn(sh("exit 3")).unwrap();
    let pid = child.pid() as libc::pid_t;
    let mut raw_status = 0;
    // Someone else (a stray waitpid) reaps the leader before the handle does.
    // SAFETY: waitpid on our own child pid with a valid status pointer.
    let reaped = unsafe { libc::waitpid(pid, &mut raw_status, 0) };
    assert_eq!(reaped, pid);
    let started = Instant::now();
    assert_eq!(child.wait_timeout(Duration::from_secs(5)), None, "no status can be made up");
    assert!(started.elapsed() < Duration::from_secs(1), "wait_timeout must not spin once the pid is gone");
    let state = child.describe_state();
    assert!(state.contains("reaped outside") && !state.contains("is running"), "{state}");
}

// Moved from `tests/it/containment.rs` (the guardian's contract as the process layer's callers see it).
/// `spawn_guarded` as the process layer's callers see it: the handle's exit status is the
/// program's (code and signal), a descendant that left the process group is killed by the
/// guardian when the program exits, and one that stayed in the group is left for the handle's
/// group kill (so the host can see and report it), which then finds it.
#[test]
fn a_guarded_program_keeps_its_exit_status_and_loses_what_left_its_group() {
    let Some(python) = support::require_binary("a_guarded_program_keeps_its_exit_status_and_loses_what_left_its_group", "python3") else {
        return;
    };
    use crate::transport::guardian::spawn_guarded;
    use crate::transport::process::ProcessSpec;
    use std::os::unix::process::ExitStatusExt;
    let workspace = tempfile::tempdir().unwrap();
    let marker = 500 + std::process::id() % 400;
    // The program exits only once its children have left the group: `Popen` returns after the
    // child's exec, and `start_new_session` calls setsid before it; `.3` is a double fork (its
    // parent exited, so it was re-parented to the guardian). A shell's `setsid sleep &` could
    // still be on its way out of the group when the shell exits.
    let script = format!(
        "import os, subprocess, sys\n\
         subprocess.Popen(['sleep', '{marker}.1'])\n\
         subprocess.Popen(['sleep', '{marker}.2'], start_new_session=True)\n\
         middle = os.fork()\n\
         if middle == 0:\n    subprocess.Popen(['sleep', '{marker}.3'], start_new_session=True)\n    os._exit(0)\n\
         os.waitpid(middle, 0)\n\
         print('started')\n\
         sys.exit(5)\n"
    );
    let spec = ProcessSpec::new(&python, workspace.path()).with_args(["-c", &script]).with_stdin_piped(false);
    let child = spawn_guarded(spec, Some(&python)).unwrap();
    let status = child.wait_timeout(Duration::from_secs(30)).expect("the guarded program exits");
    assert_eq!(status.code(), Some(5), "the program's exit code: {status:?}");
    let runs = |suffix: u32| {
        std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
            std::fs::read(entry.path().join("cmdline"))
                .map(|cmdline| String::from_utf8_lossy(&cmdline).replace('\0', " ").trim() == format!("sleep {marker}.{suffix}"))
                .unwrap_or(false)
        })
    };
    assert!(!runs(2) && !runs(3), "the guardian killed the children that left the group");
    assert!(runs(1), "the child in the group is left for the handle's group kill");
    drop(child);
    assert!(support::wait_until(Duration::from_secs(5), || !runs(1)), "the group kill on drop finds it");

    let spec = ProcessSpec::new("/bin/sh", workspace.path()).with_args(["-c", "kill -SEGV $$"]).with_stdin_piped(false);
    let child = spawn_guarded(spec, Some(&python)).unwrap();
    let status = child.wait_timeout(Duration::from_secs(30)).expect("exits");
    assert_eq!(status.signal(), Some(11), "the program's signal: {status:?}");
    let spec = ProcessSpec::new("/bin/sh", workspace.path()).with_args(["-c", "echo $RUNBOUND_GUARDIAN_PID $$ $PPID"]);
    let child = spawn_guarded(spec, Some(&python)).unwrap();
    let mut output = String::new();
    std::io::Read::read_to_string(&mut child.take_stdout().unwrap(), &mut output).unwrap();
    let numbers: Vec<u32> = output.split_whitespace().map(|word| word.parse().unwrap()).collect();
    assert_eq!((numbers[0], numbers[2]), (child.pid(), child.pid()), "the program's parent is the guardian, the handle's pid: {output}");
    assert_ne!(numbers[1], child.pid());
}
