//! The app's readiness checks on its page: what a consumer of an export
//! would reject or misread, each with a link that opens the field to fix.

use crate::domain::{
    checks::{Checks, Finding},
    export::Format,
    tool::HintKind,
    url::encode_component,
};
use leptos::prelude::*;

/// "3 findings", "1 finding", "No findings".
pub fn count_text(count: usize) -> String {
    match count {
        0 => "No findings".to_owned(),
        1 => "1 finding".to_owned(),
        n => format!("{n} findings"),
    }
}

/// What a finding's path points at, in the editor's words: "Destructive",
/// "Allowed values of city", "Name".
pub fn field_label(path: &str) -> String {
    let field = tool_field(path).map(|(_, field)| field).unwrap_or(path);
    if let Some(key) = field.strip_prefix("hints.") {
        return HintKind::ALL
            .into_iter()
            .find(|kind| kind.key() == key)
            .map(|kind| kind.label().to_owned())
            .unwrap_or_else(|| key.to_owned());
    }
    if let Some(rest) = field.strip_prefix("parameters.") {
        let (name, what) = rest.rsplit_once('.').unwrap_or((rest, ""));
        return match what {
            "enum" => format!("Allowed values of {name}"),
            "required" => format!("Required of {name}"),
            _ => format!("Parameter {name}"),
        };
    }
    match field {
        "name" => "Name",
        "description" => "Description",
        "title" => "Title",
        "activationPhrases" => "Activation phrases",
        "tools" => "AI Tools",
        other => other,
    }
    .to_owned()
}

/// `tools[2].hints.destructive` → `(2, "hints.destructive")`.
fn tool_field(path: &str) -> Option<(usize, &str)> {
    let rest = path.strip_prefix("tools[")?;
    let (index, field) = rest.split_once("].")?;
    Some((index.parse().ok()?, field))
}

/// Where a finding is fixed: the tool editor opened at its field (the
/// page reads `tool` and `field` when it loads), or the app's own field.
pub fn finding_href(package_name: &str, finding: &Finding) -> String {
    let page = format!("/console/apps/{}", encode_component(package_name));
    match (&finding.tool, tool_field(&finding.path)) {
        (Some(tool), Some((_, field))) => format!(
            "{page}?tool={}&field={}#tools-title",
            encode_component(tool),
            encode_component(field)
        ),
        _ => match finding.path.as_str() {
            "name" => format!("{page}#app-name"),
            "description" => format!("{page}#app-description"),
            _ => format!("{page}#tools-title"),
        },
    }
}

fn consumers_text(consumers: &[Format]) -> String {
    consumers
        .iter()
        .map(|f| f.key())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One finding: its severity, the tool's id, what to do, for whom, and the
/// link to the field.
pub fn finding_item(package_name: &str, finding: &Finding) -> impl IntoView {
    let link_text = match &finding.tool {
        Some(tool) => format!("Edit {tool}: {}", field_label(&finding.path)),
        None => format!("Edit {}", field_label(&finding.path)),
    };
    view! {
        <li class=format!("finding {}", finding.severity.as_str())>
            <span class="severity">{finding.severity.label()}</span>
            " "
            {finding.tool.clone().map(|tool| view! { <code>{tool}</code> " " })}
            <span class="message">{finding.message.clone()}</span>
            " "
            <span class="consumers">{format!("({})", consumers_text(&finding.consumers))}</span>
            " "
            <a href=finding_href(package_name, finding)>{link_text}</a>
        </li>
    }
}

/// The "Checks" region: every finding, or that there are none. Follows
/// `checks`, which the page refreshes after each change to the app.
#[component]
pub fn ChecksPanel(package_name: String, checks: RwSignal<Checks>) -> impl IntoView {
    let package = StoredValue::new(package_name);
    view! {
        <section class="card stack checks" id="checks" aria-labelledby="checks-title">
            <h2 id="checks-title">"Checks"</h2>
            <p class="hint">
                "What each export's consumer would refuse or misread. A blocker keeps an export from being ready; "
                <a href="/docs/exports">"what each format does with each field"</a>
                "."
            </p>
            {move || {
                checks
                    .with(|checks| {
                        if checks.findings.is_empty() {
                            view! { <p>"No findings: every export says what you meant."</p> }.into_any()
                        } else {
                            let items = package
                                .with_value(|package| {
                                    checks
                                        .findings
                                        .iter()
                                        .map(|finding| finding_item(package, finding))
                                        .collect_view()
                                });
                            let more = (checks.more > 0).then(|| {
                                let api = package.with_value(|package| {
                                    format!("/api/v1/apps/{}/checks", encode_component(package))
                                });
                                view! {
                                    <p class="hint">
                                        {format!("… and {} more. ", checks.more)}
                                        "The first are listed; the rest follow as these are fixed. "
                                        "All of them: " <code>{format!("GET {api}")}</code> " with an API key."
                                    </p>
                                }
                            });
                            view! { <ul class="findings">{items}</ul> {more} }.into_any()
                        }
                    })
            }}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::checks::Severity;

    fn finding(path: &str, tool: Option<&str>) -> Finding {
        Finding {
            severity: Severity::Blocker,
            consumers: vec![Format::Mcp],
            path: path.into(),
            message: "Decide it.".into(),
            tool: tool.map(str::to_owned),
        }
    }

    #[test]
    fn a_tool_finding_links_to_its_field_in_the_editor() {
        let f = finding("tools[1].hints.destructive", Some("add_todo"));
        assert_eq!(
            finding_href("com.example.todo", &f),
            "/console/apps/com.example.todo?tool=add_todo&field=hints.destructive#tools-title"
        );
        assert_eq!(field_label(&f.path), "Destructive");
        assert_eq!(
            field_label("tools[0].parameters.city.enum"),
            "Allowed values of city"
        );
        assert_eq!(
            field_label("tools[0].activationPhrases"),
            "Activation phrases"
        );
    }

    #[test]
    fn an_app_finding_links_to_the_details_form() {
        let f = finding("description", None);
        assert_eq!(
            finding_href("com.example.todo", &f),
            "/console/apps/com.example.todo#app-description"
        );
        assert_eq!(field_label("name"), "Name");
    }

    #[test]
    fn counts_read_as_words() {
        assert_eq!(count_text(0), "No findings");
        assert_eq!(count_text(1), "1 finding");
        assert_eq!(count_text(4), "4 findings");
    }
}
