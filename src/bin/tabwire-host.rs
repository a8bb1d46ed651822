//! `tabwire-host`: the native-messaging host Chrome starts for the tabwire
//! extension (the manifest's `path`). Same code as `tabwire native-host`,
//! in a binary that links only the relay: Chrome keeps one of these per
//! browser for as long as the extension runs, and a process mapped from the
//! whole server binary keeps ~2.5 MiB more of its code pages resident.

use tabwire::{host, wire};

fn main() {
    tabwire::use_one_malloc_arena();
    tabwire::logging::init();
    // Chrome passes the caller's origin first (Windows adds
    // `--parent-window=N` after it).
    let Some(origin) = std::env::args().nth(1) else {
        eprintln!("tabwire-host: Chrome starts this with the extension's origin; to run the host by hand use `tabwire native-host <origin>`");
        std::process::exit(2);
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let code = runtime.block_on(host::run_as(
        "tabwire-host",
        &origin,
        wire::DEFAULT_MAX_FRAME,
        host::SCAN_INTERVAL,
    ));
    // Do not wait for the blocking stdin reader thread: exit now.
    std::process::exit(code);
}
