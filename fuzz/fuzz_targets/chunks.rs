//! Arbitrary JSON as a message too big for one native-messaging frame: every
//! chunk stays within the limit and the chunks join back to the message.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::value::RawValue;
use tabwire::protocol::chunk_for_extension;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let Ok(raw) = serde_json::from_str::<&RawValue>(text) else { return };
    // The chunker promises to fit limits of 1 KiB and more (Chrome's is 1 MiB).
    let limit = 1024 + usize::from(first) * 64;
    let mut joined = String::new();
    for part in chunk_for_extension(3, 1, raw, limit) {
        assert!(part.len() <= limit, "chunk of {} bytes over {limit}", part.len());
        let v: serde_json::Value = serde_json::from_slice(&part).expect("chunk is JSON");
        joined.push_str(v["chunk"]["data"].as_str().expect("data is a string"));
    }
    assert_eq!(joined, raw.get());
});
