//! The native-messaging host manifest: filled in from the template in
//! `nm-manifests/`, and checked by `tabwire doctor`.

use std::path::Path;

use serde_json::Value;

use crate::protocol::{extension_origins, EXTENSION_ID, HOST_NAME};

/// The manifest template, shipped in `nm-manifests/`.
pub const TEMPLATE: &str = include_str!("../../nm-manifests/com.tabwire.host.json");

/// Fills the template for a host binary at `binary`: `allowed_origins`
/// lists the pinned development ID and, when the build was given one, the
/// store build's ID ([`crate::protocol::STORE_EXTENSION_ID`]).
pub fn render(binary: &Path) -> String {
    let path = serde_json::to_string(&binary.to_string_lossy()).expect("string serializes");
    let origins: Vec<String> = extension_origins()
        .iter()
        .map(|o| serde_json::to_string(o).expect("string serializes"))
        .collect();
    TEMPLATE
        .replace("\"@TABWIRE_BINARY@\"", &path)
        .replace("\"@EXTENSION_ORIGIN@\"", &origins.join(", "))
}

/// True if `text` is a manifest for tabwire's host (whatever its other
/// fields say): the files install may overwrite and uninstall may remove.
pub fn is_tabwire_manifest(text: &str) -> bool {
    serde_json::from_str::<Value>(text)
        .map(|v| v["name"] == HOST_NAME)
        .unwrap_or(false)
}

/// One thing wrong with a manifest, named for `doctor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Not JSON, or not an object.
    Invalid(String),
    /// `name` is not `com.tabwire.host`.
    WrongName(String),
    /// `type` is not `stdio`.
    WrongType(String),
    /// `allowed_origins` does not list tabwire's extension (and, in a build
    /// given a store ID, its store build).
    WrongOrigins(Vec<String>),
    /// `path` is missing or relative (Chrome needs an absolute path on Linux and macOS).
    PathNotAbsolute(String),
    /// `path` names a file that does not exist.
    BinaryMissing(String),
    /// `path` exists but is not an executable file.
    BinaryNotExecutable(String),
}

/// What `doctor` reads from a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inspection {
    /// The `path` field, if present.
    pub binary: Option<String>,
    /// Problems with the JSON itself, its name, type and origins.
    pub manifest_problems: Vec<Problem>,
    /// Problems with the binary it names.
    pub binary_problems: Vec<Problem>,
}

/// Checks manifest text. `check_binary` answers whether a path exists and
/// is executable (a closure so tests need no real files).
pub fn inspect(text: &str, check_binary: &dyn Fn(&Path) -> Result<(), Problem>) -> Inspection {
    let v: Value = match serde_json::from_str(text) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => {
            return Inspection {
                binary: None,
                manifest_problems: vec![Problem::Invalid("it is not a JSON object".into())],
                binary_problems: vec![],
            }
        }
        Err(e) => {
            return Inspection {
                binary: None,
                manifest_problems: vec![Problem::Invalid(e.to_string())],
                binary_problems: vec![],
            }
        }
    };
    let mut manifest_problems = Vec::new();
    let name = v["name"].as_str().unwrap_or_default();
    if name != HOST_NAME {
        manifest_problems.push(Problem::WrongName(name.to_string()));
    }
    let kind = v["type"].as_str().unwrap_or_default();
    if kind != "stdio" {
        manifest_problems.push(Problem::WrongType(kind.to_string()));
    }
    let origins: Vec<String> = v["allowed_origins"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|o| o.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default();
    if !extension_origins()
        .iter()
        .all(|want| origins.contains(want))
    {
        manifest_problems.push(Problem::WrongOrigins(origins));
    }
    let binary = v["path"].as_str().map(str::to_string);
    let mut binary_problems = Vec::new();
    match &binary {
        None => binary_problems.push(Problem::PathNotAbsolute(String::new())),
        Some(p) if !looks_absolute(p) => binary_problems.push(Problem::PathNotAbsolute(p.clone())),
        Some(p) => {
            if let Err(problem) = check_binary(Path::new(p)) {
                binary_problems.push(problem);
            }
        }
    }
    Inspection {
        binary,
        manifest_problems,
        binary_problems,
    }
}

/// Absolute on either Unix (`/…`) or Windows (`C:\…`, `\\server\…`).
fn looks_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    p.starts_with('/')
        || p.starts_with(r"\\")
        || (b.len() > 2
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && (b[2] == b'\\' || b[2] == b'/'))
}

/// The real check: the file exists and (on Unix) has an execute bit.
pub fn check_binary_on_disk(path: &Path) -> Result<(), Problem> {
    let shown = path.display().to_string();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(_) => return Err(Problem::BinaryMissing(shown)),
    };
    if !meta.is_file() {
        return Err(Problem::BinaryNotExecutable(shown));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 == 0 {
            return Err(Problem::BinaryNotExecutable(shown));
        }
    }
    Ok(())
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Invalid(e) => write!(f, "the manifest is not valid JSON: {e}"),
            Problem::WrongName(n) => write!(f, "its name is {n:?}, not {HOST_NAME:?}"),
            Problem::WrongType(t) => write!(f, "its type is {t:?}, not \"stdio\""),
            Problem::WrongOrigins(o) => write!(
                f,
                "allowed_origins is {o:?}; it must list the tabwire extension \
                 ({}), or the browser refuses to start the host",
                match crate::protocol::STORE_EXTENSION_ID {
                    Some(store) => format!("ID {EXTENSION_ID} and the store build's {store}"),
                    None => format!("ID {EXTENSION_ID}"),
                }
            ),
            Problem::PathNotAbsolute(p) if p.is_empty() => {
                write!(f, "it names no host binary (\"path\" is missing)")
            }
            Problem::PathNotAbsolute(p) => {
                write!(f, "its binary path {p:?} is not absolute")
            }
            Problem::BinaryMissing(p) => write!(f, "its binary {p} does not exist"),
            Problem::BinaryNotExecutable(p) => {
                write!(f, "its binary {p} is not an executable file")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_names_host_binary_and_origin() {
        let m: Value = serde_json::from_str(&render(Path::new("/opt/tw \"x\"/tabwire"))).unwrap();
        assert_eq!(m["name"], HOST_NAME);
        assert_eq!(m["type"], "stdio");
        assert_eq!(m["path"], "/opt/tw \"x\"/tabwire");
        assert_eq!(m["allowed_origins"], serde_json::json!(extension_origins()));
        assert_eq!(m["allowed_origins"][0], crate::protocol::extension_origin());
        assert!(is_tabwire_manifest(&render(Path::new("/x"))));
        assert!(!is_tabwire_manifest(r#"{"name":"com.other.host"}"#));
        assert!(!is_tabwire_manifest("not json"));
    }

    #[test]
    fn a_rendered_manifest_passes_inspection() {
        let text = render(Path::new("/usr/bin/tabwire"));
        let i = inspect(&text, &|_| Ok(()));
        assert_eq!(i.binary.as_deref(), Some("/usr/bin/tabwire"));
        assert!(i.manifest_problems.is_empty(), "{:?}", i.manifest_problems);
        assert!(i.binary_problems.is_empty());
        let win = render(Path::new(r"C:\Users\a\.cargo\bin\tabwire.exe"));
        assert!(inspect(&win, &|_| Ok(())).binary_problems.is_empty());
    }

    #[test]
    fn each_problem_is_named() {
        let i = inspect("{nope", &|_| Ok(()));
        assert!(matches!(i.manifest_problems[..], [Problem::Invalid(_)]));
        let i = inspect(
            r#"{"name":"x","type":"pipe","path":"tabwire","allowed_origins":["chrome-extension://aaaa/"]}"#,
            &|_| Ok(()),
        );
        assert_eq!(
            i.manifest_problems,
            vec![
                Problem::WrongName("x".into()),
                Problem::WrongType("pipe".into()),
                Problem::WrongOrigins(vec!["chrome-extension://aaaa/".into()]),
            ]
        );
        assert_eq!(
            i.binary_problems,
            vec![Problem::PathNotAbsolute("tabwire".into())]
        );
        let text = render(Path::new("/gone/tabwire"));
        let i = inspect(&text, &|p| {
            Err(Problem::BinaryMissing(p.display().to_string()))
        });
        assert_eq!(
            i.binary_problems,
            vec![Problem::BinaryMissing("/gone/tabwire".into())]
        );
        assert!(i.binary_problems[0].to_string().contains("does not exist"));
    }

    #[cfg(unix)]
    #[test]
    fn binary_check_on_disk() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("tw");
        assert!(matches!(
            check_binary_on_disk(&f),
            Err(Problem::BinaryMissing(_))
        ));
        std::fs::write(&f, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(matches!(
            check_binary_on_disk(&f),
            Err(Problem::BinaryNotExecutable(_))
        ));
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(check_binary_on_disk(&f), Ok(()));
        assert!(matches!(
            check_binary_on_disk(tmp.path()),
            Err(Problem::BinaryNotExecutable(_))
        ));
    }
}
