//! Tables on stdout and the JSON form of the macro results.

use serde_json::{json, Value};

use crate::scenario::STEPS;
use crate::stats::{median, percentile};
use crate::Measured;

fn f(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or(f64::NAN)
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

pub fn print_micro(m: &Value) {
    println!("## Micro\n");
    println!("Frame codec\n");
    println!("| body | encode MB/s | decode ns/frame (borrows, no copy) | stream reader MB/s |");
    println!("|---:|---:|---:|---:|");
    for c in m["codec"].as_array().into_iter().flatten() {
        println!(
            "| {} | {:.0} | {:.1} | {:.0} |",
            human_bytes(c["body_bytes"].as_u64().unwrap_or(0)),
            f(c, "encode_mb_s"),
            f(c, "decode_ns_per_frame"),
            f(c, "reader_mb_s"),
        );
    }
    let r = &m["relay"];
    println!();
    if let Some(e) = r["error"].as_str() {
        println!("Relay: FAILED: {e}");
    } else {
        println!(
            "Relay: {} round trips (fake extension on the far side)\n",
            r["round_trips"]
        );
        println!("| path | p50 ms | p99 ms | 8 MiB answer: median / min ms |");
        println!("|---|---:|---:|---:|");
        println!(
            "| raw native-messaging pipe | {:.3} | {:.3} | {:.1} / {:.1} |",
            f(r, "raw_pipe_p50_ms"),
            f(r, "raw_pipe_p99_ms"),
            f(r, "raw_big_median_ms"),
            f(r, "raw_big_min_ms")
        );
        println!(
            "| serve socket → native-host → pipe | {:.3} | {:.3} | {:.1} / {:.1} |",
            f(r, "broker_p50_ms"),
            f(r, "broker_p99_ms"),
            f(r, "broker_big_median_ms"),
            f(r, "broker_big_min_ms")
        );
        println!(
            "\nBroker adds {:.3} ms p50 per round trip; 8 MiB through the broker takes {:.2}× the raw transfer by medians, {:.2}× by minima ({:.0} MB/s). Native host RSS {:.1} MiB idle, {:.1} MiB after the 8 MiB transfers (peak {:.1} MiB).",
            f(r, "broker_added_p50_ms"),
            f(r, "big_ratio"),
            f(r, "big_ratio_of_minima"),
            f(r, "broker_big_mb_s"),
            mib(r["native_host_rss_kib_idle"].as_u64().unwrap_or(0)),
            mib(r["native_host_rss_kib_after_big"].as_u64().unwrap_or(0)),
            mib(r["native_host_hwm_kib"].as_u64().unwrap_or(0)),
        );
    }
    let s = &m["snapshot"];
    println!();
    if let Some(e) = s["error"].as_str() {
        println!("Snapshots: FAILED: {e}");
    } else {
        println!("Snapshots (CDP over a pipe, medians)\n");
        println!("| page | AX nodes | AX JSON | getFullAXTree ms | engine first ms | engine ms | outline bytes |");
        println!("|---|---:|---:|---:|---:|---:|---:|");
        for p in s.as_array().into_iter().flatten() {
            println!(
                "| {} | {} | {} | {:.1} | {:.3} | {:.3} | {} |",
                p["page"].as_str().unwrap_or(""),
                p["ax_nodes"],
                human_bytes(p["ax_bytes"].as_u64().unwrap_or(0)),
                f(p, "get_full_ax_tree_median_ms"),
                f(p, "engine_first_ms"),
                f(p, "engine_median_ms"),
                p["outline_bytes"],
            );
        }
    }
    let n = &m["navigation_floor"];
    println!();
    if let Some(e) = n["error"].as_str() {
        println!("Navigation floor: FAILED: {e}");
    } else {
        println!(
            "Navigation floor: Page.navigate → Page.loadEventFired over a CDP pipe, no MCP server ({} runs, medians)\n",
            n["iterations"]
        );
        println!("| page | ms |");
        println!("|---|---:|");
        for l in n["loads"].as_array().into_iter().flatten() {
            println!(
                "| {} | {:.1} |",
                l["path"].as_str().unwrap_or(""),
                f(l, "median_ms")
            );
        }
        println!(
            "| **the scenario's six loads** | **{:.1}** |",
            f(n, "scenario_loads_sum_ms")
        );
    }
    println!();
}

fn human_bytes(n: u64) -> String {
    if n >= 1 << 20 {
        format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64)
    } else if n >= 1 << 10 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}

fn median_bytes(v: &[usize]) -> f64 {
    median(&v.iter().map(|b| *b as f64).collect::<Vec<_>>())
}

/// Sum of per-step medians, or None if the target has no complete data.
fn total_ms(m: &Measured) -> Option<f64> {
    if m.error.is_some() || m.step_ms.iter().any(|s| s.is_empty()) {
        return None;
    }
    Some(m.step_ms.iter().map(|s| median(s)).sum())
}

fn total_bytes(m: &Measured) -> Option<f64> {
    if m.error.is_some() || m.step_bytes.iter().any(|s| s.is_empty()) {
        return None;
    }
    Some(m.step_bytes.iter().map(|s| median_bytes(s)).sum())
}

/// The smallest value among the peers (the "best peer" for that figure).
fn best_peer(ms: &[Measured], pick: impl Fn(&Measured) -> Option<f64>) -> Option<f64> {
    ms.iter()
        .filter(|m| !m.is_ours)
        .filter_map(pick)
        .filter(|v| v.is_finite())
        .min_by(|a, b| a.total_cmp(b))
}

pub fn print_macro(ms: &[Measured], iterations: usize, warmup: usize) {
    println!(
        "## Macro scenario\n\nmedian / p95 ms and answer bytes per step; {iterations} measured runs per server after {warmup} warm-up, servers alternating\n"
    );
    let ok: Vec<&Measured> = ms.iter().filter(|m| m.error.is_none()).collect();
    let mut header = String::from("| step |");
    let mut rule = String::from("|---|");
    for m in &ok {
        header.push_str(&format!(" {} |", m.label));
        rule.push_str("---:|");
    }
    println!("{header}\n{rule}");
    for (i, step) in STEPS.iter().enumerate() {
        let mut line = format!("| {:>2} {} |", i + 1, step.name);
        for m in &ok {
            let s = &m.step_ms[i];
            line.push_str(&format!(
                " {:.1} / {:.1} · {} B |",
                median(s),
                percentile(s, 95.0),
                median_bytes(&m.step_bytes[i]) as u64
            ));
        }
        println!("{line}");
    }
    let row = |name: &str, cell: &dyn Fn(&Measured) -> String| {
        let mut line = format!("| **{name}** |");
        for m in &ok {
            line.push_str(&format!(" {} |", cell(m)));
        }
        println!("{line}");
    };
    row("total (sum of medians)", &|m| {
        format!(
            "{:.0} ms · {:.0} KiB",
            total_ms(m).unwrap_or(f64::NAN),
            total_bytes(m).unwrap_or(f64::NAN) / 1024.0
        )
    });
    row("spawn → initialize (median)", &|m| {
        format!("{:.1} ms", median(&m.spawn_init_ms))
    });
    row("server RSS / peak", &|m| match m.server_mem {
        Some(mem) => format!("{:.1} / {:.1} MiB", mib(mem.rss_kib), mib(mem.hwm_kib)),
        None => "–".into(),
    });
    row("native host RSS / peak", &|m| match m.host_mem {
        Some(mem) => format!("{:.1} / {:.1} MiB", mib(mem.rss_kib), mib(mem.hwm_kib)),
        None => "–".into(),
    });
    row("tools/list", &|m| {
        format!("{} tools · {} B", m.tools, m.tools_list_bytes)
    });
    println!();
    for m in ms {
        if let Some(e) = &m.error {
            println!("**{}: FAILED** — {e}\n", m.label);
        }
    }
    for m in &ok {
        println!("- {}: {}", m.label, m.version);
    }
    println!();

    // Ratios against the best peer, when peers ran.
    if !ok.iter().any(|m| !m.is_ours) {
        return;
    }
    let ours: Vec<&&Measured> = ok.iter().filter(|m| m.is_ours).collect();
    if ours.is_empty() {
        return;
    }
    println!("### Ratios: tabwire ÷ best peer (lower is better)\n");
    let mut header = String::from("| figure |");
    let mut rule = String::from("|---|");
    for m in &ours {
        header.push_str(&format!(" {} |", m.label));
        rule.push_str("---:|");
    }
    println!("{header}\n{rule}");
    let ratio_row = |name: String, pick: &dyn Fn(&Measured) -> Option<f64>| {
        let best = best_peer(ms, pick);
        let mut line = format!("| {name} |");
        for m in &ours {
            match (pick(m), best) {
                (Some(v), Some(b)) if b > 0.0 => line.push_str(&format!(" {:.3}× |", v / b)),
                _ => line.push_str(" – |"),
            }
        }
        println!("{line}");
    };
    for (i, step) in STEPS.iter().enumerate() {
        ratio_row(format!("{:>2} {}", i + 1, step.name), &|m: &Measured| {
            (m.error.is_none() && !m.step_ms[i].is_empty()).then(|| median(&m.step_ms[i]))
        });
    }
    ratio_row("**scenario total**".into(), &total_ms);
    ratio_row("**scenario answer bytes**".into(), &total_bytes);
    ratio_row("snapshot bytes (form)".into(), &|m: &Measured| {
        (!m.step_bytes[1].is_empty()).then(|| median_bytes(&m.step_bytes[1]))
    });
    ratio_row("snapshot bytes (200 links)".into(), &|m: &Measured| {
        (!m.step_bytes[9].is_empty()).then(|| median_bytes(&m.step_bytes[9]))
    });
    ratio_row("spawn → initialize".into(), &|m: &Measured| {
        (!m.spawn_init_ms.is_empty()).then(|| median(&m.spawn_init_ms))
    });
    ratio_row("server RSS".into(), &|m: &Measured| {
        m.server_mem.map(|x| x.rss_kib as f64)
    });
    ratio_row("tools/list bytes".into(), &|m: &Measured| {
        (m.tools_list_bytes > 0).then_some(m.tools_list_bytes as f64)
    });
    println!();
}

pub fn macro_json(ms: &[Measured]) -> Value {
    let servers: Vec<Value> = ms
        .iter()
        .map(|m| {
            let steps: Vec<Value> = STEPS
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let t = m.step_ms.get(i).cloned().unwrap_or_default();
                    let b = m.step_bytes.get(i).cloned().unwrap_or_default();
                    json!({
                        "step": i + 1,
                        "name": s.name,
                        "median_ms": median(&t),
                        "p95_ms": percentile(&t, 95.0),
                        "answer_bytes_median": median_bytes(&b),
                        "samples_ms": t,
                    })
                })
                .collect();
            json!({
                "label": m.label,
                "version": m.version,
                "ours": m.is_ours,
                "error": m.error,
                "total_ms_sum_of_medians": total_ms(m),
                "total_answer_bytes": total_bytes(m),
                "spawn_init_ms": m.spawn_init_ms,
                "spawn_init_median_ms": median(&m.spawn_init_ms),
                "server_rss_kib": m.server_mem.map(|x| x.rss_kib),
                "server_hwm_kib": m.server_mem.map(|x| x.hwm_kib),
                "native_host_rss_kib": m.host_mem.map(|x| x.rss_kib),
                "native_host_hwm_kib": m.host_mem.map(|x| x.hwm_kib),
                "tools": m.tools,
                "tools_list_bytes": m.tools_list_bytes,
                "steps": steps,
            })
        })
        .collect();
    json!({ "servers": servers })
}
