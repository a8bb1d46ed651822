//! The host registrations: where each browser to check reads one (a file,
//! or the Windows registry), and whether the manifest found there is valid
//! and names a host binary that can run.

use std::path::{Path, PathBuf};

use super::report::{Check, Status};
use super::DoctorOptions;
use crate::install::browsers::{self, Browser, HostLocation};
use crate::install::{manifest, registry, Env};

/// A place to check, with the browsers that read it.
pub(super) struct Target {
    pub(super) id: String,
    names: String,
    location: HostLocation,
    /// Named explicitly or detected (a missing registration is a failure),
    /// or merely found (a stray manifest of an absent browser).
    pub(super) expected: bool,
}

pub(super) fn targets(opts: &DoctorOptions, env: &Env) -> Result<Vec<Target>, String> {
    let named: Vec<&'static Browser> = opts
        .browsers
        .iter()
        .flat_map(|n| n.split(','))
        .filter(|n| !n.trim().is_empty())
        .map(|n| {
            browsers::by_name(n)
                .ok_or_else(|| format!("unknown browser {n:?}; known: {}", browsers::known_names()))
        })
        .collect::<Result<_, _>>()?;
    if let Some(udd) = &opts.user_data_dir {
        let b = named
            .first()
            .copied()
            .unwrap_or_else(|| browsers::by_name("chromium").expect("known"));
        return Ok(vec![Target {
            id: b.id.into(),
            names: format!("{} (profile {})", b.name, udd.display()),
            location: HostLocation::File(browsers::manifest_in_user_data_dir(env.os, udd)),
            expected: true,
        }]);
    }
    let chosen: Vec<&'static Browser> = if named.is_empty() {
        crate::install::setup::detected(env)
            .into_iter()
            .map(|(b, _)| b)
            .collect()
    } else {
        named
    };
    let mut out: Vec<Target> = Vec::new();
    let add = |b: &'static Browser, expected: bool, out: &mut Vec<Target>| {
        let Some(loc) = browsers::host_location(b, env) else {
            return;
        };
        match out.iter_mut().find(|t| t.location == loc) {
            Some(t) => {
                if expected && !t.names.contains(b.name) {
                    t.names.push_str(&format!(", {}", b.name));
                }
                t.expected |= expected;
            }
            None => out.push(Target {
                id: b.id.into(),
                names: b.name.into(),
                location: loc,
                expected,
            }),
        }
    };
    for b in &chosen {
        add(b, true, &mut out);
    }
    // Registrations left for browsers that are not here: check them too.
    if opts.browsers.is_empty() {
        for b in browsers::BROWSERS {
            if let Some(HostLocation::File(p)) = browsers::host_location(b, env) {
                if p.exists() {
                    add(b, false, &mut out);
                }
            }
        }
    }
    Ok(out)
}

pub(super) fn manifest_checks(
    targets: &[Target],
    me: Option<&Path>,
    expected_host: Option<PathBuf>,
) -> Vec<Check> {
    let mut checks = Vec::new();
    if targets.is_empty() {
        checks.push(
            Check::new(
                "browsers",
                Status::Fail,
                "browsers",
                "no Chromium-family browser found (Chrome, Chromium, Edge, Brave, Vivaldi, Opera)",
            )
            .fix("install one, or name yours: tabwire doctor --browser chrome"),
        );
        return checks;
    }
    let reinstall = |t: &Target| {
        if t.expected {
            format!("run `tabwire install --browser {}`", t.id)
        } else {
            "run `tabwire install`, or `tabwire uninstall` if you no longer use this browser"
                .to_string()
        }
    };
    for t in targets {
        let mid = format!("manifest.{}", t.id);
        let mtitle = format!("host manifest for {}", t.names);
        let path = match &t.location {
            HostLocation::File(p) => p.clone(),
            HostLocation::Registry { key, manifest } => {
                let value = registry::run(&registry::query_default_args(key))
                    .ok()
                    .and_then(|o| registry::parse_sz(&o));
                match value {
                    Some(v) => {
                        if Path::new(&v) != manifest.as_path() {
                            checks.push(Check::new(
                                format!("registry.{}", t.id),
                                Status::Info,
                                format!("registry key for {}", t.names),
                                format!(r"HKCU\{key} points at {v}, not at {}", manifest.display()),
                            ));
                        }
                        PathBuf::from(v)
                    }
                    None => {
                        checks.push(
                            Check::new(
                                mid,
                                Status::Fail,
                                mtitle,
                                format!(r"not registered: HKCU\{key} is missing"),
                            )
                            .fix(reinstall(t)),
                        );
                        continue;
                    }
                }
            }
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(_) => {
                let status = if t.expected {
                    Status::Fail
                } else {
                    Status::Info
                };
                checks.push(
                    Check::new(
                        mid,
                        status,
                        mtitle,
                        format!("not registered: {} does not exist", path.display()),
                    )
                    .fix(reinstall(t)),
                );
                continue;
            }
        };
        let found = manifest::inspect(&text, &manifest::check_binary_on_disk);
        if found.manifest_problems.is_empty() {
            checks.push(Check::new(
                mid,
                Status::Ok,
                mtitle,
                path.display().to_string(),
            ));
        } else {
            let why: Vec<String> = found
                .manifest_problems
                .iter()
                .map(|p| p.to_string())
                .collect();
            checks.push(
                Check::new(
                    mid,
                    Status::Fail,
                    mtitle,
                    format!("{}: {}", path.display(), why.join("; ")),
                )
                .fix(format!("{} to rewrite it", reinstall(t))),
            );
            continue;
        }
        let bid = format!("binary.{}", t.id);
        let btitle = format!("host binary for {}", t.names);
        let binary = found.binary.unwrap_or_default();
        if let Some(problem) = found.binary_problems.first() {
            let this = me
                .map(|p| format!(" (this one is {})", p.display()))
                .unwrap_or_default();
            checks.push(
                Check::new(
                    bid,
                    Status::Fail,
                    btitle,
                    format!("{problem}; the browser cannot start the host"),
                )
                .fix(format!(
                    "{} from the tabwire binary you want the browser to start{this}",
                    reinstall(t)
                )),
            );
        } else {
            // What `tabwire install` run from this binary would register.
            let note = match &expected_host {
                Some(e) if Path::new(&binary) != e => {
                    format!(" (not this tabwire's host, {})", e.display())
                }
                _ => String::new(),
            };
            checks.push(Check::new(
                bid,
                Status::Ok,
                btitle,
                format!("{binary} is executable{note}"),
            ));
        }
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::Os;

    #[tokio::test]
    async fn manifest_checks_name_each_failure() {
        let tmp = tempfile::tempdir().unwrap();
        let env = Env::for_tests(Os::Linux, tmp.path().to_str().unwrap());
        let udd = tmp.path().join("p");
        let opts = DoctorOptions {
            browsers: vec![],
            user_data_dir: Some(udd.clone()),
        };
        let t = targets(&opts, &env).unwrap();
        let c = manifest_checks(&t, None, None);
        assert_eq!(c[0].id, "manifest.chromium");
        assert_eq!(c[0].status, Status::Fail);
        assert!(c[0].detail.contains("not registered"));

        let path = udd.join("NativeMessagingHosts/com.tabwire.host.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, manifest::render(Path::new("/nonexistent/tabwire"))).unwrap();
        let c = manifest_checks(&t, None, None);
        assert_eq!(c[0].status, Status::Ok);
        assert_eq!(c[1].id, "binary.chromium");
        assert_eq!(c[1].status, Status::Fail);
        assert!(
            c[1].detail.contains("/nonexistent/tabwire does not exist"),
            "{}",
            c[1].detail
        );
        assert!(c[1].fix.as_ref().unwrap().contains("tabwire install"));

        std::fs::write(&path, "{\"name\": \"com.tabwire.host\"").unwrap();
        let c = manifest_checks(&t, None, None);
        assert_eq!(c[0].status, Status::Fail);
        assert!(c[0].detail.contains("not valid JSON"), "{}", c[0].detail);
    }
}
