//! Fuzz target: lenient DAP envelope decoding of arbitrary bodies. No panic; anything that
//! decodes re-encodes to a value that decodes to the same envelope (encoding is idempotent).
#![no_main]

use libfuzzer_sys::fuzz_target;
use runbound::fuzzing::DapMessage;

fuzz_target!(|data: &[u8]| {
    let Ok(message) = DapMessage::from_json_bytes(data) else {
        return;
    };
    let encoded = message.to_value();
    let decoded = DapMessage::from_value(encoded.clone()).expect("our own encoding decodes");
    assert_eq!(decoded.seq(), message.seq());
    assert_eq!(decoded.to_value(), encoded);
});
