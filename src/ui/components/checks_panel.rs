//! The app's readiness checks on its page: what a consumer of an export
//! would reject or misread, each with a link that opens the field to fix.

use crate::{
    api::tools::SaveHints,
    domain::{
        checks::{CheckSummary, FindingGroup, Place},
        export::Format,
        tool::{hint_value, hints_echo_key, HintKind, HintsRow, ToolSummary},
        url::encode_component,
        FieldErrors,
    },
};
use leptos::{prelude::*, server_fn::ServerFn};

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

fn consumers_text(consumers: &[Format]) -> String {
    consumers
        .iter()
        .map(|f| f.key())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where a place is fixed, relative to the app's page that shows the
/// checks: the tool editor opened at its field (the page reads `tool` and
/// `field` when it loads), or the app's own field. Relative, because a
/// large app's checks hold a link for every tool a rule concerns.
pub fn place_href(place: &Place) -> String {
    match (&place.tool, tool_field(&place.path)) {
        (Some(tool), Some((_, field))) => format!(
            "?tool={}&field={}#tools-title",
            encode_component(tool),
            encode_component(field)
        ),
        _ => match place.path.as_str() {
            "name" => "#app-name".to_owned(),
            "description" => "#app-description".to_owned(),
            _ => "#tools-title".to_owned(),
        },
    }
}

/// One line: the rule's severity, what to do, for whom, and every tool it
/// concerns as a link to its field (or the app's field); a rule whose
/// findings each say something of their own lists them under it.
pub fn group_item(group: &FindingGroup) -> impl IntoView {
    let links = group
        .places
        .iter()
        .enumerate()
        .map(|(i, place)| {
            let text = match &place.tool {
                Some(tool) => tool.clone(),
                None => format!("Edit {}", field_label(&place.path)),
            };
            view! {
                {(i > 0).then_some(", ")}
                <a href=place_href(place)>{text}</a>
            }
        })
        .collect_view();
    let details: Vec<String> = group
        .places
        .iter()
        .filter_map(|place| place.detail.clone())
        .collect();
    let details = (!details.is_empty()).then(|| {
        view! {
            <details>
                <summary>{match details.len() {
                    1 => "In detail".to_owned(),
                    n => format!("In detail ({n})"),
                }}</summary>
                <ul>{details.into_iter().map(|d| view! { <li>{d}</li> }).collect_view()}</ul>
            </details>
        }
    });
    let concerned = if group.places.iter().any(|p| p.tool.is_some()) {
        "Tools: "
    } else {
        ""
    };
    view! {
        <li class=format!("finding {}", group.severity.as_str())>
            <span class="severity">{group.severity.label()}</span>
            " "
            <span class="message">{group.message.clone()}</span>
            " "
            <span class="consumers">{format!("({})", consumers_text(&group.consumers))}</span>
            <span class="places">{concerned} {links}</span>
            {details}
        </li>
    }
}

/// The checks' lines, or that there is nothing to say.
pub fn findings_list(checks: &CheckSummary) -> impl IntoView {
    if checks.groups.is_empty() {
        view! { <p>"No findings: every export says what you meant."</p> }.into_any()
    } else {
        let items = checks.groups.iter().map(group_item).collect_view();
        view! { <ul class="findings">{items}</ul> }.into_any()
    }
}

/// The "Checks" region: a line per rule, or that there is nothing to say,
/// and the way to "Hints of every tool" (its own page: a row per tool
/// would make a large app's page twice as heavy). Shows the checks as the
/// page drew them (`drawn`, server HTML) until `checks` holds newer ones,
/// which the page asks for after each change to the app.
#[component]
pub fn ChecksPanel(
    package_name: String,
    checks: RwSignal<Option<CheckSummary>>,
    drawn: Children,
) -> impl IntoView {
    let hints_href = format!("/console/apps/{}/hints", encode_component(&package_name));
    view! {
        <section class="card stack checks" id="checks" aria-labelledby="checks-title">
            <h2 id="checks-title">"Checks"</h2>
            <p class="hint">
                "What each export's consumer would refuse or misread. A blocker keeps an export from being ready; "
                <a href="/docs/exports">"what each format does with each field"</a>
                "."
            </p>
            <div class="checks-drawn" hidden=move || checks.with(Option::is_some)>{drawn()}</div>
            {move || {
                checks.with(|checks| {
                    checks
                        .as_ref()
                        .map(findings_list)
                })
            }}
            <p>
                <a class="button" href=hints_href>"Decide the hints of every tool"</a>
                " "
                <span class="hint">"One form, a row per tool: the commonest fix."</span>
            </p>
        </section>
    }
}

/// "Hints of every tool": a row per tool, a select per hint, as a plain
/// form (it works the same with or without JavaScript). `chosen` is what a
/// refused post had chosen, drawn again.
#[component]
pub fn HintsForm(
    package_name: String,
    revision: i64,
    tools: Vec<ToolSummary>,
    chosen: Option<FieldErrors>,
) -> impl IntoView {
    let rows = tools
        .iter()
        .enumerate()
        .map(|(row, tool)| hints_row(row, tool, chosen.as_ref()))
        .collect_view();
    view! {
        <form method="post" action=SaveHints::PATH aria-labelledby="hints-title" class="stack">
            <input type="hidden" name="package_name" value=package_name/>
            <input type="hidden" name="revision" value=revision.to_string()/>
            <div class="table-wrap">
                <table class="stacked hints-table">
                    <thead>
                        <tr>
                            <th scope="col">"Tool"</th>
                            {HintKind::ALL
                                .into_iter()
                                .map(|kind| view! { <th scope="col">{kind.label()}</th> })
                                .collect_view()}
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <div class="form-actions">
                <button type="submit" class="primary">"Save hints"</button>
            </div>
        </form>
    }
}

/// A tool's row: its id, and a select per hint named `hints[row][field]`,
/// holding the tool's hint — or what a refused form had `chosen`.
fn hints_row(row: usize, tool: &ToolSummary, chosen: Option<&FieldErrors>) -> impl IntoView {
    let cells = HintKind::ALL
        .into_iter()
        .map(|kind| {
            let id = format!("hints-{row}-{}", HintsRow::field(kind));
            let chosen = chosen
                .and_then(|c| c.echoed(&hints_echo_key(&tool.id, kind)))
                .unwrap_or(hint_value(tool.hints.get(kind)));
            let options = [("", "Not set"), ("yes", "Yes"), ("no", "No")]
                .into_iter()
                .map(|(value, text)| view! { <option value=value selected=value == chosen>{text}</option> })
                .collect_view();
            view! {
                <td data-label=kind.label()>
                    <label for=id.clone() class="visually-hidden">{format!("{} of {}", kind.label(), tool.id)}</label>
                    <select id=id name=format!("hints[{row}][{}]", HintsRow::field(kind))>{options}</select>
                </td>
            }
        })
        .collect_view();
    view! {
        <tr>
            <th scope="row">
                <code>{tool.id.clone()}</code>
                <input type="hidden" name=format!("hints[{row}][tool_id]") value=tool.id.clone()/>
            </th>
            {cells}
        </tr>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(path: &str, tool: Option<&str>) -> Place {
        Place {
            tool: tool.map(str::to_owned),
            path: path.into(),
            detail: None,
        }
    }

    #[test]
    fn a_tool_finding_links_to_its_field_in_the_editor() {
        let f = finding("tools[1].hints.destructive", Some("add_todo"));
        assert_eq!(
            place_href(&f),
            "?tool=add_todo&field=hints.destructive#tools-title"
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
        assert_eq!(place_href(&f), "#app-description");
        assert_eq!(field_label("name"), "Name");
    }

    #[test]
    fn counts_read_as_words() {
        assert_eq!(count_text(0), "No findings");
        assert_eq!(count_text(1), "1 finding");
        assert_eq!(count_text(4), "4 findings");
    }
}
