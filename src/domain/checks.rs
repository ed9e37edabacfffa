//! Checks: what an app's tools still need before each export works where it
//! goes — findings a developer can act on, and whether each format is ready.
//!
//! A pure function of the [`AppConfig`], so the app page ("Checks"), the
//! export page ("Ready for") and the API all say the same thing.

use crate::domain::{
    config::AppConfig,
    export::{llm_description, ExportOptions, Format},
    tool::{HintKind, ParamType, Tool},
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// OpenAI refuses a request that offers more tools than this.
pub const OPENAI_TOOLS_MAX: usize = 128;
/// Fewer words than this rarely say what a tool does and when to use it.
const DESCRIPTION_MIN_WORDS: usize = 5;

const MCP: &[Format] = &[Format::Mcp];
const OPENAI: &[Format] = &[Format::Openai];
/// The formats Mentra's own assistant reads.
const MENTRA: &[Format] = &[Format::Mentra, Format::Tpa];
/// The formats whose description an LLM reads.
const LLM: &[Format] = &[
    Format::Mcp,
    Format::Openai,
    Format::Anthropic,
    Format::Gemini,
    Format::Tambo,
];
/// Every format: each one carries descriptions and allowed values.
const EVERY: &[Format] = &Format::ALL;

/// How much a finding matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A consumer refuses the export or misreads the tool: the format is not ready.
    Blocker,
    /// The export works, but an assistant will pick or call the tool badly.
    Warning,
    /// Worth knowing; nothing is wrong.
    Advice,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Blocker => "blocker",
            Severity::Warning => "warning",
            Severity::Advice => "advice",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Severity::Blocker => "Blocker",
            Severity::Warning => "Warning",
            Severity::Advice => "Advice",
        }
    }
}

/// The rule a finding breaks. The page shows one line per rule, naming
/// every tool it concerns, rather than a line per tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Rule {
    NoTools,
    AppDescription,
    OpenaiToolCount,
    DescriptionRoutes,
    PhrasesPresent,
    PhrasesDistinct,
    PhrasesFit,
    TitleSet,
    HintReadOnly,
    HintDestructive,
    HintIdempotent,
    HintOpenWorld,
    HintsAgree,
    SingleValueEnum,
    StrictOptional,
}

impl Rule {
    /// What to do, said once for every tool the rule concerns — for the
    /// rules whose findings name the tool or its values in their own
    /// sentence. `None`: every finding of the rule says the same, and that
    /// sentence is the line's.
    fn advice(self) -> Option<&'static str> {
        match self {
            Rule::DescriptionRoutes => Some("Say in at least five words what each of these tools does and when to use it, beyond its ID: the assistant picks a tool by its Description."),
            Rule::PhrasesDistinct => Some("Give each activation phrase to one tool only: when one tool's phrase is or contains another's, the assistant cannot tell the two apart."),
            Rule::SingleValueEnum => Some("A parameter with one allowed value is a constant: remove it and let the app use the value, or add the other Allowed values."),
            Rule::StrictOptional => Some("If you export with Strict mode, have the app treat null for an optional parameter as not given: OpenAI then makes every parameter required and sends null for an optional one."),
            _ => None,
        }
    }

    fn of_hint(kind: HintKind) -> Rule {
        match kind {
            HintKind::ReadOnly => Rule::HintReadOnly,
            HintKind::Destructive => Rule::HintDestructive,
            HintKind::Idempotent => Rule::HintIdempotent,
            HintKind::OpenWorld => Rule::HintOpenWorld,
        }
    }
}

/// One thing to do, for the consumers it concerns, at a field's path
/// (`tools[0].hints.destructive`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub rule: Rule,
    pub severity: Severity,
    pub consumers: Vec<Format>,
    pub path: String,
    pub message: String,
    /// The id of the tool the finding is about; `None` for the app itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

/// Every finding about an app — the app's own first, then tool by tool in
/// the app's order — and each format's readiness in [`Format::ALL`] order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checks {
    pub findings: Vec<Finding>,
    pub ready: Vec<(Format, bool)>,
}

/// Where a rule applies: a tool's field (or the app's), and, for a rule
/// whose findings each say something of their own, what this one says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// One line of the page's checks: a rule, what to do, and every place it
/// concerns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindingGroup {
    pub rule: Rule,
    pub severity: Severity,
    pub consumers: Vec<Format>,
    pub message: String,
    pub places: Vec<Place>,
}

/// The checks as the pages show them: a line per rule, blockers first,
/// and each format's readiness.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckSummary {
    pub groups: Vec<FindingGroup>,
    pub ready: Vec<(Format, bool)>,
}

impl CheckSummary {
    /// How many lines there are.
    pub fn count(&self) -> usize {
        self.groups.len()
    }

    /// The lines that keep `format` from being ready.
    pub fn blockers_for(&self, format: Format) -> impl Iterator<Item = &FindingGroup> + '_ {
        self.groups
            .iter()
            .filter(move |g| g.severity == Severity::Blocker && g.consumers.contains(&format))
    }
}

impl Checks {
    /// The findings grouped by rule, in order of severity, then of the
    /// rule's first finding.
    pub fn summary(&self) -> CheckSummary {
        let mut groups: Vec<FindingGroup> = Vec::new();
        for finding in &self.findings {
            let general = finding.rule.advice();
            let place = Place {
                tool: finding.tool.clone(),
                path: finding.path.clone(),
                detail: general.map(|_| finding.message.clone()),
            };
            match groups.iter_mut().find(|g| g.rule == finding.rule) {
                Some(group) => group.places.push(place),
                None => groups.push(FindingGroup {
                    rule: finding.rule,
                    severity: finding.severity,
                    consumers: finding.consumers.clone(),
                    message: general.map_or_else(|| finding.message.clone(), str::to_owned),
                    places: vec![place],
                }),
            }
        }
        let rank = |severity: Severity| match severity {
            Severity::Blocker => 0,
            Severity::Warning => 1,
            Severity::Advice => 2,
        };
        // Stable: within a severity, the order the findings came in.
        groups.sort_by_key(|g| rank(g.severity));
        CheckSummary {
            groups,
            ready: self.ready.clone(),
        }
    }

    /// A format is ready when no blocker concerns it.
    pub fn ready_for(&self, format: Format) -> bool {
        self.blockers_for(format).next().is_none()
    }

    pub fn blockers_for(&self, format: Format) -> impl Iterator<Item = &Finding> + '_ {
        self.findings
            .iter()
            .filter(move |f| f.severity == Severity::Blocker && f.consumers.contains(&format))
    }

    /// What the API answers: `{findings: [{severity, consumers, path,
    /// message}], ready: {mentra: true, …}}`, every format in `ready`.
    pub fn to_json(&self) -> Value {
        let findings: Vec<Value> = self
            .findings
            .iter()
            .map(|f| {
                json!({
                    "severity": f.severity.as_str(),
                    "consumers": f.consumers.iter().map(|c| c.key()).collect::<Vec<_>>(),
                    "path": f.path,
                    "message": f.message,
                })
            })
            .collect();
        let ready: Map<String, Value> = self
            .ready
            .iter()
            .map(|(format, ready)| (format.key().to_owned(), json!(ready)))
            .collect();
        json!({ "findings": findings, "ready": ready })
    }
}

/// Every finding about `app`, and each format's readiness.
pub fn check(app: &AppConfig) -> Checks {
    let mut findings = Vec::new();
    no_tools(app, &mut findings);
    app_description(app, &mut findings);
    openai_tool_count(app, &mut findings);
    // Each phrase's words once, not once per pair of tools compared.
    let phrase_words: Vec<Vec<Vec<String>>> = app
        .tools
        .iter()
        .map(|tool| {
            tool.activation_phrases
                .iter()
                .map(|p| words_of(p))
                .collect()
        })
        .collect();
    for (index, tool) in app.tools.iter().enumerate() {
        let at = format!("tools[{index}]");
        let earlier = PhraseWords {
            tools: app.tools.get(..index).unwrap_or_default(),
            words: phrase_words.get(..index).unwrap_or_default(),
        };
        let own_words = phrase_words
            .get(index)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let first = findings.len();
        description_routes(tool, &at, &mut findings);
        phrases_present(tool, &at, &mut findings);
        phrases_distinct(tool, own_words, &earlier, &at, &mut findings);
        phrases_fit(tool, &at, &mut findings);
        title_set(tool, &at, &mut findings);
        hints_set(tool, &at, &mut findings);
        hints_agree(tool, &at, &mut findings);
        single_value_enums(tool, &at, &mut findings);
        strict_optional(tool, &at, &mut findings);
        for finding in findings.iter_mut().skip(first) {
            finding.tool = Some(tool.id.clone());
        }
    }
    let mut checks = Checks {
        findings,
        ready: Vec::new(),
    };
    checks.ready = Format::ALL
        .into_iter()
        .map(|format| (format, checks.ready_for(format)))
        .collect();
    checks
}

fn finding(
    rule: Rule,
    severity: Severity,
    consumers: &[Format],
    path: impl Into<String>,
    message: impl Into<String>,
) -> Finding {
    Finding {
        rule,
        severity,
        consumers: consumers.to_vec(),
        path: path.into(),
        message: message.into(),
        tool: None,
    }
}

/// An app without tools gives an assistant nothing to call: no export of
/// it is worth making yet.
fn no_tools(app: &AppConfig, out: &mut Vec<Finding>) {
    if app.tools.is_empty() {
        out.push(finding(
            Rule::NoTools,
            Severity::Blocker,
            EVERY,
            "tools",
            "This app has no tools yet: add one with “Add tool”, or import a config file. An export without tools gives an assistant nothing to call.",
        ));
    }
}

/// An empty app description tells the people installing the app nothing.
fn app_description(app: &AppConfig, out: &mut Vec<Finding>) {
    if app.description.trim().is_empty() {
        out.push(finding(
            Rule::AppDescription,
            Severity::Advice,
            MENTRA,
            "description",
            "Add a Description saying what the app does: the Mentra configs carry it, and an empty one tells people nothing.",
        ));
    }
}

/// OpenAI refuses a request that offers more than 128 tools.
fn openai_tool_count(app: &AppConfig, out: &mut Vec<Finding>) {
    let count = app.tools.len();
    if count > OPENAI_TOOLS_MAX {
        out.push(finding(
            Rule::OpenaiToolCount,
            Severity::Blocker,
            OPENAI,
            "tools",
            format!("Keep the app to {OPENAI_TOOLS_MAX} tools for OpenAI, which refuses a request with more (this app has {count})."),
        ));
    }
}

/// The assistant picks a tool by its description, so it has to say what the
/// tool does and when to use it.
fn description_routes(tool: &Tool, at: &str, out: &mut Vec<Finding>) {
    let words = words_of(&tool.description);
    let message = if !words.is_empty() && words == words_of(&tool.id) {
        format!("Say in the Description what {} does and when to use it: repeating the tool ID gives the assistant nothing to pick it by.", tool.id)
    } else if tool.description.split_whitespace().count() < DESCRIPTION_MIN_WORDS {
        "Describe in at least five words what the tool does and when to use it: the assistant picks a tool by its Description.".to_owned()
    } else {
        return;
    };
    out.push(finding(
        Rule::DescriptionRoutes,
        Severity::Warning,
        EVERY,
        format!("{at}.description"),
        message,
    ));
}

/// Mentra's assistant picks a tool by the phrases a user says for it; without
/// any it has only the description.
fn phrases_present(tool: &Tool, at: &str, out: &mut Vec<Finding>) {
    if tool.activation_phrases.is_empty() {
        out.push(finding(
            Rule::PhrasesPresent,
            Severity::Advice,
            MENTRA,
            format!("{at}.activationPhrases"),
            "Add Activation phrases, the words a user says to ask for this tool: Mentra's assistant uses them to pick it.",
        ));
    }
}

/// Two tools answering to the same words leave the assistant guessing which
/// one the user means; the later tool is the one to change.
fn phrases_distinct(
    tool: &Tool,
    own_words: &[Vec<String>],
    earlier: &PhraseWords<'_>,
    at: &str,
    out: &mut Vec<Finding>,
) {
    for (phrase, words) in tool.activation_phrases.iter().zip(own_words) {
        let clash = earlier
            .tools
            .iter()
            .zip(earlier.words)
            .find_map(|(other, their_phrases)| {
                other
                    .activation_phrases
                    .iter()
                    .zip(their_phrases)
                    .find(|(_, their_words)| overlaps(words, their_words))
                    .map(|(theirs, their_words)| (other, theirs, their_words))
            });
        let Some((other, theirs, their_words)) = clash else {
            continue;
        };
        let message = if words == their_words {
            format!("Keep the activation phrase “{phrase}” on only one of {} and {}: the assistant cannot tell the two tools apart.", other.id, tool.id)
        } else {
            format!("Change the activation phrase “{phrase}” of {} or “{theirs}” of {}: one contains the other, so the assistant cannot tell the two tools apart.", tool.id, other.id)
        };
        out.push(finding(
            Rule::PhrasesDistinct,
            Severity::Warning,
            MENTRA,
            format!("{at}.activationPhrases"),
            message,
        ));
    }
}

/// With "Include activation phrases in descriptions", the phrases that do not
/// fit in an LLM format's 1024-character description are left out.
fn phrases_fit(tool: &Tool, at: &str, out: &mut Vec<Finding>) {
    let Some((_, all_but_last)) = tool.activation_phrases.split_last() else {
        return;
    };
    let options = ExportOptions {
        include_phrases: true,
        ..ExportOptions::default()
    };
    // The export adds phrases in order until one does not fit, so every
    // phrase fits exactly when the last one still changes the description.
    let with_all = llm_description(&tool.description, &tool.activation_phrases, options);
    if with_all == llm_description(&tool.description, all_but_last, options) {
        out.push(finding(
            Rule::PhrasesFit,
            Severity::Advice,
            LLM,
            format!("{at}.activationPhrases"),
            "Shorten the Description or the Activation phrases, or put the telling phrases first: with “Include activation phrases in descriptions” not all of them fit in the 1024 characters an LLM format's description has.",
        ));
    }
}

/// Claude's connector directory asks every tool for a title, and MCP clients
/// show the tool ID without one.
fn title_set(tool: &Tool, at: &str, out: &mut Vec<Finding>) {
    let titled = tool.title.as_deref().is_some_and(|t| !t.trim().is_empty());
    if !titled {
        out.push(finding(
            Rule::TitleSet,
            Severity::Warning,
            MCP,
            format!("{at}.title"),
            "Give the tool a Title people can read: MCP clients show the tool ID without one, and Claude's connector directory asks for it.",
        ));
    }
}

/// An MCP client reads a hint the author did not set as the protocol's
/// default (not read-only, destructive, not idempotent, open world), and
/// ChatGPT's app review refuses a tool without Read-only, Destructive and
/// Open world. Tambo is not concerned: it only reads Read-only = yes, and
/// "not set" exports for it exactly as "no".
fn hints_set(tool: &Tool, at: &str, out: &mut Vec<Finding>) {
    let read_only = tool.hints.read_only == Some(true);
    for kind in HintKind::ALL {
        if tool.hints.get(kind).is_some() {
            continue;
        }
        let (severity, message) = match kind {
            HintKind::ReadOnly => (Severity::Blocker, "Set Read-only to Yes or No: MCP clients take a tool without it as one that changes data, and ChatGPT's app review refuses it."),
            // MCP reads Destructive and Idempotent only on a tool that is not read-only.
            HintKind::Destructive | HintKind::Idempotent if read_only => continue,
            HintKind::Destructive => (Severity::Blocker, "Set Destructive to Yes or No: MCP clients take a tool without it as one that may delete or overwrite data, and ChatGPT's app review refuses it."),
            HintKind::Idempotent => (Severity::Warning, "Set Idempotent to Yes or No: MCP clients take a tool without it as unsafe to call twice with the same arguments."),
            HintKind::OpenWorld => (Severity::Blocker, "Set Open world to Yes or No: MCP clients take a tool without it as one that reaches beyond the app, and ChatGPT's app review refuses it."),
        };
        out.push(finding(
            Rule::of_hint(kind),
            severity,
            MCP,
            format!("{at}.hints.{}", kind.key()),
            message,
        ));
    }
}

/// A read-only tool cannot destroy data; MCP clients ignore Destructive on a
/// read-only tool, so one of the two hints is wrong.
fn hints_agree(tool: &Tool, at: &str, out: &mut Vec<Finding>) {
    if tool.hints.read_only == Some(true) && tool.hints.destructive == Some(true) {
        out.push(finding(
            Rule::HintsAgree,
            Severity::Warning,
            MCP,
            format!("{at}.hints.destructive"),
            "Set Destructive to No, or Read-only to No if the tool does change data: MCP clients ignore Destructive on a read-only tool.",
        ));
    }
}

/// A parameter with one allowed value is a constant: the assistant is asked
/// for something it cannot choose.
fn single_value_enums(tool: &Tool, at: &str, out: &mut Vec<Finding>) {
    for parameter in &tool.parameters {
        if let ([value], ParamType::String) =
            (parameter.enum_values.as_slice(), parameter.param_type)
        {
            out.push(finding(
                Rule::SingleValueEnum,
                Severity::Advice,
                EVERY,
                format!("{at}.parameters.{}.enum", parameter.name),
                format!("“{}” has one allowed value, so it is a constant: remove the parameter and let the app use “{value}”, or add the other Allowed values.", parameter.name),
            ));
        }
    }
}

/// OpenAI's Strict mode makes every parameter required and lets an optional
/// one be null, so the app receives null where it would otherwise get no
/// value.
///
/// Optional parameters are good design, so this is advice (it never blocks)
/// and comes once per tool; it is kept because strict mode really changes what
/// reaches the app, and the checks cannot know whether the box is ticked.
fn strict_optional(tool: &Tool, at: &str, out: &mut Vec<Finding>) {
    let optional: Vec<&str> = tool
        .parameters
        .iter()
        .filter(|p| !p.required)
        .map(|p| p.name.as_str())
        .collect();
    let Some(first) = optional.first() else {
        return;
    };
    let names = optional
        .iter()
        .map(|name| format!("“{name}”"))
        .collect::<Vec<_>>()
        .join(", ");
    out.push(finding(
        Rule::StrictOptional,
        Severity::Advice,
        OPENAI,
        format!("{at}.parameters.{first}.required"),
        format!("If you export with Strict mode, have the app treat null for {names} as not given: OpenAI then makes every parameter required and sends null for an optional one."),
    ));
}

// Gemini gets no finding: a tool without parameters loses its `parameters`
// object there, but nothing the author wrote goes with it.

/// The tools before the one checked, with their phrases' words.
struct PhraseWords<'a> {
    tools: &'a [Arc<Tool>],
    words: &'a [Vec<Vec<String>>],
}

/// The words of a phrase, description or ID, lower-cased: `get_todos`,
/// "Get todos." and "get-todos" all give `["get", "todos"]`.
fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether one phrase contains the other as whole words: "remind me" is in
/// "remind me to", "todo" is not in "show my todos".
fn overlaps(a: &[String], b: &[String]) -> bool {
    contains_words(a, b) || contains_words(b, a)
}

fn contains_words(outer: &[String], inner: &[String]) -> bool {
    !inner.is_empty() && outer.windows(inner.len()).any(|window| window == inner)
}

#[cfg(test)]
mod tests;
