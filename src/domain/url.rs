//! Small URL helpers shared by pages and server functions.

/// Percent-encodes everything but RFC 3986's unreserved characters.
pub fn encode_component(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    for byte in input.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Where to go after logging in: the console page that sent the developer
/// to log in, when `next` is one; the apps list otherwise. Anything that
/// could leave the console (`//evil.example`, `https://…`, `/\evil`) is ignored.
pub fn after_login_target(next: Option<&str>) -> String {
    const DEFAULT: &str = "/console/apps";
    let Some(next) = next.map(str::trim).filter(|n| !n.is_empty()) else {
        return DEFAULT.to_owned();
    };
    // The console, or an invitation link opened before logging in.
    let inside_console = next == "/console"
        || next.starts_with("/console/")
        || next.starts_with("/console?")
        || next.starts_with("/invitations/");
    let harmless = next
        .chars()
        .all(|c| !c.is_control() && c != '\\' && !c.is_whitespace());
    // Browsers read `%2e` as a dot in a path: no dot segments either way.
    let dotless = !next.to_ascii_lowercase().contains("%2e");
    if inside_console && harmless && dotless && !next.contains("/../") && !next.ends_with("/..") {
        next.to_owned()
    } else {
        DEFAULT.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreserved_characters_stay_and_the_rest_is_encoded() {
        assert_eq!(
            encode_component("/console/apps?x=1"),
            "%2Fconsole%2Fapps%3Fx%3D1"
        );
        assert_eq!(encode_component("a-b_c.d~e"), "a-b_c.d~e");
        assert_eq!(encode_component("é"), "%C3%A9");
    }

    #[test]
    fn after_login_the_developer_returns_to_the_console_page_they_asked_for() {
        assert_eq!(
            after_login_target(Some("/console/apps/com.example.todo")),
            "/console/apps/com.example.todo"
        );
        assert_eq!(
            after_login_target(Some("/console/apps?x=1")),
            "/console/apps?x=1"
        );
        // An invitation link opened before logging in or signing up.
        assert_eq!(
            after_login_target(Some("/invitations/0a1b")),
            "/invitations/0a1b"
        );
    }

    #[test]
    fn without_a_target_the_developer_goes_to_the_apps_list() {
        assert_eq!(after_login_target(None), "/console/apps");
        assert_eq!(after_login_target(Some("  ")), "/console/apps");
    }

    #[test]
    fn targets_outside_the_console_are_ignored() {
        for next in [
            "//evil.example/console/",
            "https://evil.example/console/apps",
            "/\\evil.example",
            "/console/../logout",
            "/consolex",
            "/",
            "javascript:alert(1)",
            "/console/a\npps",
            "/invitations/../logout",
            "/console/%2e%2e/logout",
            "/invitations/%2E%2E/api",
            "/invitationsx",
        ] {
            assert_eq!(after_login_target(Some(next)), "/console/apps", "{next:?}");
        }
    }
}
