//! `runbound serve` as a child process driven over pipes, as an MCP host would: requests,
//! responses matched by id, notifications collected in order, a clean close.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};
use serde_json::{json, Value};

const RUNBOUND: &str = env!("CARGO_BIN_EXE_runbound");

/// A `runbound serve` child; killed on drop unless closed.
pub struct ServeProcess {
    /// The serve process.
    pub child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<(String, Value)>,
    next_id: u64,
}

impl ServeProcess {
    /// Starts `runbound --workspace <workspace> <extra_args> serve` (stderr inherited).
    pub fn start(workspace: &Path, extra_args: &[&str]) -> ServeProcess {
        let mut child = Command::new(RUNBOUND)
            .arg("--workspace")
            .arg(workspace)
            .args(extra_args)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn runbound serve");
        let stdout = child.stdout.take().expect("stdout");
        let (message_tx, messages) = crossbeam_channel::unbounded();
        std::thread::Builder::new()
            .name("serve-stdout".to_owned())
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    let message: Value =
                        serde_json::from_str(&line).unwrap_or_else(|err| panic!("stdout carries protocol only, got {line:?}: {err}"));
                    if message_tx.send((line, message)).is_err() {
                        break;
                    }
                }
            })
            .unwrap();
        let stdin = child.stdin.take();
        ServeProcess { child, stdin, messages, next_id: 0 }
    }

    /// Sends one message as a JSON line.
    pub fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends `line` as is (plus a newline).
    pub fn send_raw_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and returns its id.
    pub fn request(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next message serve wrote, parsed; `None` after `timeout` or when stdout closed.
    pub fn next_message(&self, timeout: Duration) -> Option<Value> {
        self.next_line(timeout).map(|(_, message)| message)
    }

    /// The next line serve wrote, exactly as written, with its parse.
    pub fn next_line(&self, timeout: Duration) -> Option<(String, Value)> {
        match self.messages.recv_timeout(timeout) {
            Ok(line) => Some(line),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// The response to request `id` and every notification (or server request) that arrived
    /// before it, in order; panics when no response comes within `timeout`.
    pub fn response_with_notifications(&self, id: u64, timeout: Duration) -> (Value, Vec<Value>) {
        let deadline = Instant::now() + timeout;
        let mut before = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message =
                self.next_message(left).unwrap_or_else(|| panic!("no response to request {id} within {timeout:?}; before: {before:?}"));
            if message.get("method").is_some() {
                before.push(message);
                continue;
            }
            assert_eq!(message["id"], json!(id), "expected the response to {id}, got {message}");
            return (message, before);
        }
    }

    /// The response to request `id`, skipping notifications (a worker's completion can race
    /// the response); panics on anything else arriving first.
    pub fn response(&self, id: u64) -> Value {
        let message = loop {
            let message = self.next_message(Duration::from_secs(30)).unwrap_or_else(|| panic!("no response to request {id}"));
            if message.get("id").is_some() || message.get("method").is_none() {
                break message;
            }
        };
        assert_eq!(message["id"], json!(id), "expected the response to {id}, got {message}");
        assert_eq!(message["jsonrpc"], "2.0");
        message
    }

    /// Sends a request and returns its response.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params);
        self.response(id)
    }

    /// `initialize` with `capabilities` (client `cli-test`), then `notifications/initialized`.
    pub fn initialize(&mut self, capabilities: Value) -> Value {
        let response = self.call(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": capabilities, "clientInfo": {"name": "cli-test", "version": "1"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        response
    }

    /// Closes stdin and waits for a clean exit.
    pub fn close(mut self) {
        drop(self.stdin.take());
        let status = {
            let start = Instant::now();
            loop {
                if let Some(status) = self.child.try_wait().unwrap() {
                    break status;
                }
                if start.elapsed() > Duration::from_secs(20) {
                    let _ = self.child.kill();
                    panic!("runbound serve did not exit after stdin closed");
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        };
        assert!(status.success(), "serve exited with {status}");
    }
}

impl Drop for ServeProcess {
    /// A failed assertion must not leave a serve child behind (after `close` this is a no-op).
    fn drop(&mut self) {
        drop(self.stdin.take());
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}
