//! Arbitrary bytes as a serve ⇄ host socket stream: the codec must never
//! panic, and every frame it accepts must fit the limit and the buffer.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabwire::frame::{decode, Decoded, Framing};

fuzz_target!(|data: &[u8]| {
    let mut rest = data;
    while let Ok(Decoded::Frame { body, consumed }) = decode(rest, Framing::Socket, 1 << 16) {
        assert!(!body.is_empty() && body.len() <= 1 << 16 && consumed <= rest.len());
        rest = &rest[consumed..];
    }
});
