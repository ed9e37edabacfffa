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

/// The query keys a plain form post's error is sent back to its page
/// under (by `server_fn`, appended to the page's address).
const FORM_ERROR_KEYS: [&str; 2] = ["__path", "__err"];

/// `page` without the error an earlier refused form post left in its query:
/// a page refused twice then says only the latest error, once.
/// `None` when there is nothing to take out.
pub fn without_form_error(page: &str) -> Option<String> {
    let (before, query) = page.split_once('?')?;
    let (query, fragment) = match query.split_once('#') {
        Some((query, fragment)) => (query, Some(fragment)),
        None => (query, None),
    };
    let is_error = |pair: &&str| {
        let key = pair.split_once('=').map_or(*pair, |(key, _)| key);
        FORM_ERROR_KEYS.contains(&key)
    };
    if !query.split('&').any(|pair| is_error(&pair)) {
        return None;
    }
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| !pair.is_empty() && !is_error(pair))
        .collect();
    let mut out = before.to_owned();
    if !kept.is_empty() {
        out.push('?');
        out.push_str(&kept.join("&"));
    }
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    Some(out)
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

    #[test]
    fn an_earlier_form_error_is_taken_out_of_the_page_address() {
        assert_eq!(
            without_form_error(
                "http://h/login?__path=%2Fapi%2Flogin&__err=x&__path=%2Fapi%2Flogin&__err=y"
            )
            .as_deref(),
            Some("http://h/login")
        );
        assert_eq!(
            without_form_error("http://h/login?next=%2Finvitations%2Fabc&__path=p&__err=e#main")
                .as_deref(),
            Some("http://h/login?next=%2Finvitations%2Fabc#main")
        );
        // Nothing to take out: left as it is.
        assert_eq!(without_form_error("http://h/login?next=%2Fconsole"), None);
        assert_eq!(without_form_error("http://h/login"), None);
        // A key that only starts like one is kept.
        assert_eq!(without_form_error("http://h/x?__errata=1"), None);
    }
}
