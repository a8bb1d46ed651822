//! Logging setup shared by the binaries: always stderr, since stdout of
//! `serve` and of the native host carries protocol bytes only.

/// Installs the global subscriber: `RUST_LOG` when set, else INFO for
/// tabwire's own targets.
pub fn init() {
    use tracing_subscriber::prelude::*;
    // stdout is protocol-only in both serve and native-host: logs go to stderr.
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false);
    match tracing_subscriber::EnvFilter::try_from_default_env() {
        Ok(filter) => tracing_subscriber::registry()
            .with(fmt.with_filter(filter))
            .init(),
        // Without RUST_LOG, a plain per-target level: parsing filter
        // directives touches ~1 MiB of code pages that every process
        // (the native host Chrome starts, above all) would keep resident.
        Err(_) => tracing_subscriber::registry()
            .with(
                fmt.with_filter(
                    tracing_subscriber::filter::Targets::new()
                        .with_target("tabwire", tracing::Level::INFO),
                ),
            )
            .init(),
    }
}
