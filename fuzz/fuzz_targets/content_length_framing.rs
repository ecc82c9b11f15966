//! Fuzz target: Content-Length frame reading over arbitrary bytes, delivered in arbitrary
//! chunk sizes. No panic, bounded memory (small caps), progress on every call, and every body
//! read back re-frames to itself and decodes as an LSP message without panicking.
#![no_main]

use std::io::{BufReader, Cursor, Read};

use libfuzzer_sys::fuzz_target;
use runbound::fuzzing::{
    decode_lsp_message, read_content_length_frame_reporting_junk, write_content_length_frame,
    FramingLimits,
};

/// Returns at most `chunk` bytes per read, to exercise split headers and bodies.
struct Chunked<'a> {
    inner: Cursor<&'a [u8]>,
    chunk: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let len = buf.len().min(self.chunk);
        self.inner.read(&mut buf[..len])
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let limits = FramingLimits {
        max_header_line_bytes: 256,
        max_header_block_bytes: 1024,
        max_body_bytes: 64 * 1024,
        max_junk_bytes: 4096,
    };
    let mut reader = BufReader::with_capacity(
        64,
        Chunked {
            inner: Cursor::new(rest),
            chunk: usize::from(first % 17) + 1,
        },
    );
    // Every call consumes at least one byte, so this many calls always reach the end.
    for _ in 0..rest.len() + 2 {
        let mut junk_seen = 0usize;
        let read = read_content_length_frame_reporting_junk(&mut reader, &limits, &mut |junk| {
            assert!(junk.len() <= 1024);
            junk_seen += junk.len();
        });
        match read {
            Ok(None) => return,
            Ok(Some(body)) => {
                assert!(body.len() <= limits.max_body_bytes);
                // The LSP decode (strict, then the off-spec repairs) never panics; what it
                // accepts re-serializes.
                if let Ok((message, _)) = decode_lsp_message(&body) {
                    serde_json::to_vec(&message).unwrap();
                }
                let mut framed = Vec::new();
                write_content_length_frame(&mut framed, &body).unwrap();
                let mut again = Cursor::new(framed);
                let reread =
                    read_content_length_frame_reporting_junk(&mut again, &limits, &mut |_| {
                        panic!("junk in our own frame")
                    });
                assert_eq!(reread.unwrap().unwrap(), body);
            }
            Err(err) if err.is_recoverable() => {}
            Err(_) => return,
        }
    }
    panic!("reader made no progress");
});
