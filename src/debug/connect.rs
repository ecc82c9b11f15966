//! Reaching an adapter: spawn it (stdio, or delve's `--listen 127.0.0.1:0` whose first stdout
//! line names the port), or connect to a port a running program opened (debugpy.listen, a
//! headless delve). The result is one [`RpcConnection`] speaking DAP over our Content-Length
//! framing, plus what teardown needs (the adapter's pid, the socket, delve's stdout thread).

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;

use crate::debug::adapters::{AdapterSpec, AdapterTransport, ResolvedAdapter};
use crate::debug::state::{OutputRing, OutputStream};
use crate::error::{ErrorKind, ToolError};
use crate::transport::{ProcessSpec, RpcConnection, RpcOptions, WireProtocol};

/// A connected adapter.
pub(crate) struct AdapterLink {
    /// The DAP connection (owning the adapter process when we spawned it).
    pub connection: RpcConnection,
    /// The adapter's pid (its process-group leader), when we spawned it.
    pub adapter_pid: Option<u32>,
    /// The TCP socket, when DAP runs over TCP (shut down at teardown).
    pub tcp: Option<TcpStream>,
    /// delve: the thread reading its stdout (the debuggee's output after the address line),
    /// with a channel that says when it ended.
    pub stdout_thread: Option<(Receiver<()>, JoinHandle<()>)>,
}

/// How to reach the adapter.
pub(crate) enum Reach<'a> {
    /// Spawn the resolved adapter.
    Spawn(&'a ResolvedAdapter),
    /// Connect to a DAP server already listening on this loopback port.
    Port(u16),
}

/// Spawns or connects. `output` receives delve's stdout (the debuggee's, on Debian's delve).
///
/// # Errors
/// `unavailable` when the adapter cannot be spawned, does not print its address within
/// `timeout`, or the port refuses the connection.
pub(crate) fn connect(
    spec: &AdapterSpec,
    reach: Reach<'_>,
    peer_name: &str,
    label: &str,
    output: &Arc<Mutex<OutputRing>>,
    timeout: Duration,
    workspace_root: &std::path::Path,
) -> Result<AdapterLink, ToolError> {
    let options = RpcOptions::new(peer_name.to_owned(), label.to_owned());
    match reach {
        Reach::Port(port) => {
            let stream = connect_loopback(port, timeout).map_err(|err| {
                ToolError::new(ErrorKind::Unavailable, format!("attach: cannot connect to 127.0.0.1:{port}: {err}"))
                    .with_hint(format!("{} expects {}; check that the program is running and listening", spec.name, spec.attach_form))
            })?;
            let reader = stream.try_clone().map_err(|err| ToolError::failed(format!("attach: cannot clone the socket: {err}")))?;
            let tcp = stream.try_clone().ok();
            let connection =
                RpcConnection::over_streams(Box::new(reader), Box::new(stream), None, WireProtocol::DapContentLength, options)?;
            Ok(AdapterLink { connection, adapter_pid: None, tcp, stdout_thread: None })
        }
        Reach::Spawn(resolved) => {
            let mut process = ProcessSpec::new(&resolved.command.program, &resolved.command.cwd)
                .with_args(resolved.command.args.clone())
                .with_display_name(peer_name.to_owned());
            if spec.transport == AdapterTransport::TcpPortFromStdout {
                process = process.with_stdin_piped(false);
            }
            // Under the process guardian: the debuggee and whatever it starts die with the
            // adapter even when the host is killed with SIGKILL (transport::guardian). The
            // guardian's python never comes from inside the workspace.
            let guardian_python = crate::transport::guardian::find_python(workspace_root);
            let child = crate::transport::guardian::spawn_guarded(process, guardian_python.as_deref())?;
            let adapter_pid = Some(child.pid());
            match spec.transport {
                AdapterTransport::Stdio => {
                    let connection = RpcConnection::over_child(child, WireProtocol::DapContentLength, options)?;
                    Ok(AdapterLink { connection, adapter_pid, tcp: None, stdout_thread: None })
                }
                AdapterTransport::TcpPortFromStdout => {
                    let stdout = child.take_stdout().ok_or_else(|| ToolError::failed(format!("{peer_name}: stdout not piped")))?;
                    let (port_tx, port_rx) = crossbeam_channel::bounded::<String>(1);
                    let (done_tx, done_rx) = crossbeam_channel::bounded::<()>(1);
                    let ring = Arc::clone(output);
                    let handle = std::thread::Builder::new()
                        .name(format!("runbound-{label}-stdout"))
                        .spawn(move || pump_listen_stdout(stdout, &port_tx, &ring, &done_tx))
                        .map_err(|err| ToolError::failed(format!("cannot start the stdout thread: {err}")))?;
                    let stdout_thread = Some((done_rx, handle));
                    let Ok(first_line) = port_rx.recv_timeout(timeout) else {
                        let state = child.describe_state();
                        drop(child);
                        return Err(ToolError::new(
                            ErrorKind::Unavailable,
                            format!("{peer_name} did not print its listening address within {} ms: {state}", timeout.as_millis()),
                        ));
                    };
                    let Some(port) = parse_listen_port(&first_line) else {
                        let state = child.describe_state();
                        drop(child);
                        return Err(ToolError::new(
                            ErrorKind::Unavailable,
                            format!("{peer_name} printed {first_line:?} instead of `DAP server listening at: HOST:PORT`: {state}"),
                        ));
                    };
                    let stream = connect_loopback(port, timeout).map_err(|err| {
                        ToolError::new(ErrorKind::Unavailable, format!("cannot connect to {peer_name} at 127.0.0.1:{port}: {err}"))
                    })?;
                    let reader = stream.try_clone().map_err(|err| ToolError::failed(format!("cannot clone the socket: {err}")))?;
                    let tcp = stream.try_clone().ok();
                    let connection = RpcConnection::over_streams(
                        Box::new(reader),
                        Box::new(stream),
                        Some(child),
                        WireProtocol::DapContentLength,
                        options,
                    )?;
                    Ok(AdapterLink { connection, adapter_pid, tcp, stdout_thread })
                }
            }
        }
    }
}

/// Reads dlv's stdout: the first line (the listening address) goes to `port_tx`; every later
/// line is the debuggee's stdout (Debian's delve 1.20 does not forward it as `output` events).
fn pump_listen_stdout(stdout: std::process::ChildStdout, port_tx: &Sender<String>, ring: &Mutex<OutputRing>, done: &Sender<()>) {
    let mut reader = BufReader::new(stdout);
    let mut first = true;
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if first && line.contains("listening at") {
                    first = false;
                    let _ = port_tx.send(line.trim().to_owned());
                    continue;
                }
                if first {
                    // Anything before the address line is noise from the adapter itself.
                    continue;
                }
                ring.lock().push(OutputStream::Stdout, &line);
            }
        }
    }
    if first {
        let _ = port_tx.send(String::new());
    }
    let _ = done.send(());
}

/// The port of `DAP server listening at: 127.0.0.1:PORT` (also `[::1]:PORT`).
pub fn parse_listen_port(line: &str) -> Option<u16> {
    let address = line.split("listening at:").nth(1)?.trim();
    address.rsplit(':').next()?.trim().parse().ok()
}

/// Connects to 127.0.0.1:`port`, retrying a refused connection every 50 ms until `timeout`.
fn connect_loopback(port: u16, timeout: Duration) -> std::io::Result<TcpStream> {
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = Instant::now() + timeout;
    loop {
        match TcpStream::connect_timeout(&address, Duration::from_millis(500)) {
            Ok(stream) => {
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Err(err) if Instant::now() + Duration::from_millis(50) < deadline && err.kind() == std::io::ErrorKind::ConnectionRefused => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(err) => return Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_port_is_parsed_from_dlv_first_line() {
        assert_eq!(parse_listen_port("DAP server listening at: 127.0.0.1:41234"), Some(41234));
        assert_eq!(parse_listen_port("DAP server listening at: [::1]:5000\n"), Some(5000));
        assert_eq!(parse_listen_port("Type 'dlv help' for list of commands."), None);
    }
}
