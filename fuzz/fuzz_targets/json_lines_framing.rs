//! Fuzz target: newline-delimited JSON reading over arbitrary bytes with a small line cap.
//! No panic, progress on every call, every value read re-writes as one line that reads back equal.
#![no_main]

use std::io::{BufReader, Cursor};

use libfuzzer_sys::fuzz_target;
use runbound::fuzzing::{read_json_line, write_json_line};

const MAX_LINE_BYTES: usize = 4096;

fuzz_target!(|data: &[u8]| {
    let mut reader = BufReader::with_capacity(64, Cursor::new(data));
    for _ in 0..data.len() + 2 {
        match read_json_line(&mut reader, MAX_LINE_BYTES) {
            Ok(None) => return,
            Ok(Some(value)) => {
                let mut line = Vec::new();
                write_json_line(&mut line, &value).unwrap();
                assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
                assert_eq!(line.last(), Some(&b'\n'));
                let reread = read_json_line(&mut Cursor::new(&line), usize::MAX)
                    .unwrap()
                    .unwrap();
                assert_eq!(reread, value);
            }
            Err(err) if err.is_recoverable() => {}
            Err(_) => return,
        }
    }
    panic!("reader made no progress");
});
