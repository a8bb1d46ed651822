//! Rules of the house the project checks itself (no browser needed):
//! the layers only import downwards, the rooms of `src/page/` import
//! only the rooms listed before them (so there is no circle), no Rust file in src/ and no
//! JavaScript file of the engine or the extension is over 600 lines, the
//! engine's build joins every one of its parts, tools/ names no method of
//! the browser's protocol, and README's tool table names exactly the tools
//! the server offers.

use std::path::{Path, PathBuf};

/// Every file under `dir` whose extension is `ext`.
fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_with_extension(&path, ext));
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
    out
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    files_with_extension(dir, "rs")
}

/// Lines of code (comments aside) in the files of `layer` that name a
/// module of a layer above it.
fn upward_imports(layer: &str, above: &[&str]) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = if layer.ends_with(".rs") {
        vec![src.join(layer)]
    } else {
        rust_files(&src.join(layer))
    };
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for module in above {
                if code.contains(&format!("crate::{module}")) {
                    found.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn layers_import_only_downwards() {
    // tools/ → page/ → backend/ → protocol (and the wire framing).
    let rules: &[(&str, &[&str])] = &[
        ("page", &["tools"]),
        ("engine", &["tools", "page"]),
        ("backend", &["tools", "page", "engine"]),
        ("protocol.rs", &["tools", "page", "engine", "backend"]),
        ("wire.rs", &["tools", "page", "engine", "backend"]),
    ];
    let mut broken = Vec::new();
    for (layer, above) in rules {
        broken.extend(upward_imports(layer, above));
    }
    assert!(
        broken.is_empty(),
        "imports of a layer above:\n{}",
        broken.join("\n")
    );
}

/// The rooms of `src/page/`, bottom up, as the `//! rooms:` line of
/// `page/mod.rs` orders them; every folder of `page/` must be in it.
fn page_rooms() -> Vec<String> {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/page");
    let text = std::fs::read_to_string(page.join("mod.rs")).unwrap();
    let rooms: Vec<String> = text
        .lines()
        .find_map(|l| l.strip_prefix("//! rooms: "))
        .expect("page/mod.rs has a `//! rooms:` line")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    for entry in std::fs::read_dir(&page).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            !path.is_dir() || rooms.contains(&name),
            "page/{name}/ is not in the rooms line of page/mod.rs"
        );
    }
    rooms
}

/// The room a `crate::page::…` path names: a room's own name, or what
/// `page/mod.rs` re-exports from a room.
fn room_of_path(path: &str, rooms: &[String]) -> Option<String> {
    const REEXPORTS: &[(&str, &str)] = &[
        ("Client", "tab"),
        ("Tab", "tab"),
        ("Element", "reading"),
        ("Outcome", "input"),
    ];
    let name: String = path
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if rooms.contains(&name) {
        return Some(name);
    }
    REEXPORTS
        .iter()
        .find(|(item, _)| *item == name)
        .map(|(_, room)| room.to_string())
}

/// The methods the files of `room` add to `Tab`, from their `impl Tab`
/// blocks (a block opens at a line's start and ends at the first `}` there).
fn tab_methods_of(room: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for file in rust_files(room) {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut inside = false;
        for line in text.lines() {
            if line.starts_with("impl Tab {") {
                inside = true;
            } else if line.starts_with('}') {
                inside = false;
            } else if inside {
                let item = line.strip_prefix("    ").unwrap_or("");
                let item = item.trim_start_matches("pub(in crate::page) ");
                let item = item.trim_start_matches("pub ").trim_start_matches("async ");
                if let Some(rest) = item.strip_prefix("fn ") {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    names.push(name);
                }
            }
        }
    }
    names
}

#[test]
fn the_rooms_of_page_call_only_tab_methods_of_the_rooms_before_them() {
    // A method on `Tab` needs no import, so the import rule above cannot
    // see a room calling a method a room after it adds: this checks
    // `self.NAME(` in `impl Tab` blocks and `tab.NAME(` anywhere against
    // the room each method is defined in (Tab's methods share one
    // namespace, so a name is one method).
    let rooms = page_rooms();
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/page");
    let defined: Vec<(String, usize)> = rooms
        .iter()
        .enumerate()
        .flat_map(|(rank, room)| {
            tab_methods_of(&page.join(room))
                .into_iter()
                .map(move |name| (name, rank))
        })
        .collect();
    assert!(
        defined.len() > 100,
        "few methods found on Tab: {}",
        defined.len()
    );
    let mut broken = Vec::new();
    for (rank, room) in rooms.iter().enumerate() {
        for file in rust_files(&page.join(room)) {
            let text = std::fs::read_to_string(&file).unwrap();
            let mut inside = false;
            for (i, line) in text.lines().enumerate() {
                if line.starts_with("impl Tab {") {
                    inside = true;
                } else if line.starts_with('}') {
                    inside = false;
                }
                let code = line.split("//").next().unwrap_or("");
                for (name, at_rank) in defined.iter().filter(|(_, r)| *r > rank) {
                    let called = code.contains(&format!("tab.{name}("))
                        || (inside && code.contains(&format!("self.{name}(")));
                    if called {
                        broken.push(format!(
                            "{}:{}: room {room} calls Tab::{name}, added by {}, listed after it: {}",
                            file.display(),
                            i + 1,
                            rooms[*at_rank],
                            line.trim()
                        ));
                    }
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "calls against the order of page/'s rooms (page/mod.rs):\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_rooms_of_page_import_only_the_rooms_before_them() {
    // page/mod.rs orders the rooms bottom up: a room may use the rooms
    // before it, never one after it (nor the parent's re-export of one),
    // so no two rooms can lean on each other.
    let rooms = page_rooms();
    assert!(rooms.len() >= 5, "page/mod.rs lists rooms: {rooms:?}");
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/page");
    let mut broken = Vec::new();
    for (rank, room) in rooms.iter().enumerate() {
        for file in rust_files(&page.join(room)) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (i, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if code.contains("super::super::") {
                    broken.push(format!(
                        "{}:{}: reaches another room through super::super (name it as crate::page::ROOM): {}",
                        file.display(),
                        i + 1,
                        line.trim()
                    ));
                }
                let mut uses: Vec<String> = Vec::new();
                for (at, _) in code.match_indices("crate::page::") {
                    let rest = &code[at + "crate::page::".len()..];
                    match rest.strip_prefix('{') {
                        // A group: each item names its own room.
                        Some(group) => uses.extend(
                            group
                                .split(['}', ','])
                                .filter_map(|item| room_of_path(item.trim(), &rooms)),
                        ),
                        None => uses.extend(room_of_path(rest, &rooms)),
                    }
                }
                for used in uses {
                    let used_rank = rooms.iter().position(|r| *r == used).unwrap();
                    if used_rank > rank {
                        broken.push(format!(
                            "{}:{}: room {room} uses {used}, listed after it: {}",
                            file.display(),
                            i + 1,
                            line.trim()
                        ));
                    }
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "imports against the order of page/'s rooms (page/mod.rs):\n{}",
        broken.join("\n")
    );
}

#[test]
fn only_the_fence_writes_or_reads_its_markers() {
    // Page text is fenced in one place, src/fence.rs: elsewhere the
    // markers appear only as prose (`<<page-content ID>>`), never built
    // or parsed, so no second renderer can leave a page string unfenced.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for file in rust_files(&src) {
        if file.ends_with("fence.rs") || file.ends_with("tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        // Unit tests spell answers out; they build nothing.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (i, line) in code.lines().enumerate() {
            for marker in ["<<page-content ", "<<end-page-content "] {
                for (at, _) in line.match_indices(marker) {
                    if !line[at + marker.len()..].starts_with("ID>>") {
                        found.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "fence markers built or parsed outside src/fence.rs (use Fence::wrap, Fence::quote, \
         fence::cut_line, fence::opens_block):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_readme_tool_table_names_every_tool_and_no_other() {
    // Every group on: the whole registry.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tabwire"))
        .args([
            "call",
            "--list",
            "--caps",
            "network,emulation,vision,devtools,testing,storage",
        ])
        .env(
            "TABWIRE_DATA_DIR",
            std::env::temp_dir().join("tabwire-house-test"),
        )
        .output()
        .expect("run tabwire call --list");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut registry: Vec<String> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    registry.sort();

    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    // The tool table names tools in its first cell; the capability groups'
    // table (a group in the first cell) in its second.
    const GROUPS: &[&str] = &[
        "`network`",
        "`emulation`",
        "`vision`",
        "`devtools`",
        "`testing`",
        "`storage`",
    ];
    let mut documented: Vec<String> = readme
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let first = *cells.get(1)?;
            if first.starts_with("`browser_") {
                Some(first)
            } else if GROUPS.contains(&first) {
                cells.get(2).copied()
            } else {
                None
            }
        })
        .flat_map(|cell| {
            cell.split('`')
                .filter(|w| w.starts_with("browser_") && !w.contains(' '))
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    documented.sort();
    documented.dedup();

    let missing: Vec<_> = registry
        .iter()
        .filter(|t| !documented.contains(t))
        .collect();
    let unknown: Vec<_> = documented
        .iter()
        .filter(|t| !registry.contains(t))
        .collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "README's tool table lacks {missing:?} and names tools that do not exist: {unknown:?}"
    );
}

#[test]
fn tools_name_no_method_of_the_browsers_protocol() {
    // tools/ declares and words answers; what the browser is told to do is
    // page/'s business.
    const DOMAINS: &[&str] = &[
        "Accessibility",
        "Browser",
        "CSS",
        "DOM",
        "Emulation",
        "Fetch",
        "Input",
        "Network",
        "Page",
        "Runtime",
        "Storage",
        "Target",
        "Tracing",
    ];
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tools");
    let mut found = Vec::new();
    for file in rust_files(&tools) {
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, line) in text.lines().enumerate() {
            for d in DOMAINS {
                let quoted = format!("\"{d}.");
                if let Some(at) = line.find(&quoted) {
                    let next = line[at + quoted.len()..].chars().next();
                    if next.is_some_and(|c| c.is_ascii_lowercase()) {
                        found.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "CDP methods in tools/:\n{}",
        found.join("\n")
    );
}

#[test]
fn tools_do_not_call_the_backend() {
    // The backend is reached through page/ (the Client's methods); its
    // types (a TabId) may be named.
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tools");
    let found: Vec<String> = rust_files(&tools)
        .into_iter()
        .flat_map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            text.lines()
                .enumerate()
                .filter(|(_, l)| l.contains(".backend()"))
                .map(|(i, l)| format!("{}:{}: {}", file.display(), i + 1, l.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        found.is_empty(),
        "backend calls in tools/:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_rust_file_in_src_is_over_600_lines() {
    // A file that long holds more than one job: split it by what its parts
    // do (see docs/ARCHITECTURE.md for where things live).
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    assert_none_over_600_lines(rust_files(&src));
}

/// Fails naming every one of `files` over 600 lines.
fn assert_none_over_600_lines(files: Vec<std::path::PathBuf>) {
    let long: Vec<String> = files
        .into_iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(&f).unwrap().lines().count();
            (lines > 600).then(|| format!("{}: {lines} lines", f.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "files over 600 lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn no_js_file_of_the_engine_or_the_extension_is_over_600_lines() {
    // The same rule as for Rust: the engine is one script, kept as parts
    // (src/engine/parts/) that say what they do.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = files_with_extension(&root.join("src/engine"), "js");
    files.extend(files_with_extension(&root.join("extension"), "js"));
    assert_none_over_600_lines(files);
}

#[test]
fn the_engine_joins_every_part_once_in_the_order_of_their_numbers() {
    // src/engine/mod.rs builds the engine with
    // concat!(include_str!("parts/01-….js"), …): a part left out of that
    // list would silently drop its code from the engine, one listed twice
    // would define its names twice, and a list out of step with the file
    // names' numbers would make them lie about the order.
    let engine = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    let mod_rs = std::fs::read_to_string(engine.join("mod.rs")).unwrap();
    const INCLUDE: &str = "include_str!(\"parts/";
    let listed: Vec<String> = mod_rs
        .match_indices(INCLUDE)
        .filter_map(|(at, _)| {
            let rest = &mod_rs[at + INCLUDE.len()..];
            rest.find('"').map(|end| rest[..end].to_string())
        })
        .collect();
    assert!(!listed.is_empty(), "src/engine/mod.rs includes no parts");

    let mut parts: Vec<String> = std::fs::read_dir(engine.join("parts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    parts.sort();

    let missing: Vec<&String> = parts.iter().filter(|p| !listed.contains(*p)).collect();
    let twice: Vec<&String> = parts
        .iter()
        .filter(|p| listed.iter().filter(|l| l == p).count() > 1)
        .collect();
    let unknown: Vec<&String> = listed.iter().filter(|l| !parts.contains(*l)).collect();
    assert!(
        missing.is_empty() && twice.is_empty() && unknown.is_empty(),
        "src/engine/mod.rs's include list leaves out {missing:?}, lists {twice:?} more than \
         once and names {unknown:?}, which src/engine/parts/ does not hold"
    );
    assert_eq!(
        listed, parts,
        "src/engine/mod.rs's include list is not in the order of the parts' numbers"
    );
}
