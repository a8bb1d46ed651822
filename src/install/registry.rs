//! Windows registry access through the system's `reg.exe`: the command
//! lines are built (and tested) here on every OS; they run only on Windows.
//! Using `reg.exe` keeps tabwire free of a registry crate.

/// The root every per-user registration lives under.
pub const HKCU: &str = "HKCU";

/// `reg add <key> /ve /t REG_SZ /d <value> /f`: set the key's default value.
pub fn add_default_args(key: &str, value: &str) -> Vec<String> {
    [
        "add",
        &format!(r"{HKCU}\{key}"),
        "/ve",
        "/t",
        "REG_SZ",
        "/d",
        value,
        "/f",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// `reg query <key> /ve`: read the key's default value.
pub fn query_default_args(key: &str) -> Vec<String> {
    vec!["query".into(), format!(r"{HKCU}\{key}"), "/ve".into()]
}

/// `reg delete <key> /f`: remove the key.
pub fn delete_args(key: &str) -> Vec<String> {
    vec!["delete".into(), format!(r"{HKCU}\{key}"), "/f".into()]
}

/// `reg query <root>\<key> /v <name>`: read one named value.
pub fn query_value_args(root: &str, key: &str, name: &str) -> Vec<String> {
    vec![
        "query".into(),
        format!(r"{root}\{key}"),
        "/v".into(),
        name.into(),
    ]
}

/// The data of the first `REG_SZ` value in `reg query` output. The value's
/// name column ("(Default)") is localized, so only the type is matched.
pub fn parse_sz(output: &str) -> Option<String> {
    output.lines().find_map(|line| {
        let (_, rest) = line.split_once("REG_SZ")?;
        Some(rest.trim().to_string())
    })
}

/// The number in the first `REG_DWORD` value of `reg query` output.
pub fn parse_dword(output: &str) -> Option<u32> {
    output.lines().find_map(|line| {
        let (_, rest) = line.split_once("REG_DWORD")?;
        let hex = rest.trim().strip_prefix("0x")?;
        u32::from_str_radix(hex, 16).ok()
    })
}

/// Runs `reg.exe` and returns its standard output.
#[cfg(windows)]
pub fn run(args: &[String]) -> Result<String, String> {
    let out = std::process::Command::new("reg")
        .args(args)
        .output()
        .map_err(|e| format!("could not run reg.exe: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// The registry exists only on Windows.
#[cfg(not(windows))]
pub fn run(_args: &[String]) -> Result<String, String> {
    Err("the Windows registry is only available on Windows".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines() {
        let key = r"Software\Google\Chrome\NativeMessagingHosts\com.tabwire.host";
        assert_eq!(
            add_default_args(
                key,
                r"C:\Users\a\AppData\Local\tabwire\data\com.tabwire.host.json"
            ),
            [
                "add",
                r"HKCU\Software\Google\Chrome\NativeMessagingHosts\com.tabwire.host",
                "/ve",
                "/t",
                "REG_SZ",
                "/d",
                r"C:\Users\a\AppData\Local\tabwire\data\com.tabwire.host.json",
                "/f"
            ]
        );
        assert_eq!(
            query_default_args(key),
            [
                "query",
                r"HKCU\Software\Google\Chrome\NativeMessagingHosts\com.tabwire.host",
                "/ve"
            ]
        );
        assert_eq!(
            delete_args(key),
            [
                "delete",
                r"HKCU\Software\Google\Chrome\NativeMessagingHosts\com.tabwire.host",
                "/f"
            ]
        );
        assert_eq!(
            query_value_args(
                "HKLM",
                r"SOFTWARE\Policies\Google\Chrome",
                "NativeMessagingUserLevelHosts"
            ),
            [
                "query",
                r"HKLM\SOFTWARE\Policies\Google\Chrome",
                "/v",
                "NativeMessagingUserLevelHosts"
            ]
        );
    }

    #[test]
    fn parses_query_output_in_any_language() {
        let en = "\r\nHKEY_CURRENT_USER\\Software\\Google\\Chrome\\NativeMessagingHosts\\com.tabwire.host\r\n    (Default)    REG_SZ    C:\\Users\\a b\\m.json\r\n\r\n";
        assert_eq!(parse_sz(en).as_deref(), Some(r"C:\Users\a b\m.json"));
        let de = "HKEY_CURRENT_USER\\x\n    (Standard)    REG_SZ    D:\\m.json\n";
        assert_eq!(parse_sz(de).as_deref(), Some(r"D:\m.json"));
        assert_eq!(parse_sz("ERROR: not found"), None);
        let policy = "HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\Google\\Chrome\n    NativeMessagingUserLevelHosts    REG_DWORD    0x0\n";
        assert_eq!(parse_dword(policy), Some(0));
        assert_eq!(parse_dword("    X    REG_DWORD    0x1\n"), Some(1));
    }
}
