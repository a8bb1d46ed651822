//! Arbitrary bytes as messages from the extension or a serve: parsing the
//! routing envelope never panics, and a routed payload wraps back verbatim.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabwire::protocol::{wrap_for_extension, FromExtension, HostHello, Incoming};

fuzz_target!(|data: &[u8]| {
    if let Ok(env) = serde_json::from_slice::<FromExtension>(data) {
        if let (Some(c), Some(m)) = (env.c, env.m) {
            let wrapped = wrap_for_extension(c, m);
            let back: FromExtension = serde_json::from_slice(&wrapped).expect("wrapped is JSON");
            assert_eq!(back.c, Some(c));
            assert_eq!(back.m.expect("payload").get(), m.get());
        }
    }
    let _ = serde_json::from_slice::<Incoming>(data);
    let _ = serde_json::from_slice::<HostHello>(data);
});
