//! Evals: does a model pick the right tool for what a user says?
//!
//! A case is an utterance and the tool a model should call for it (or no
//! tool at all), with the arguments it should pass, if any. A run sends
//! every case several times (trials) to a model with the app's tools, and
//! records what it chose. Everything here is pure: how a trial is scored,
//! and what a run's results say (the score, the confusion of expected and
//! chosen tools, the cases whose trials disagree, and how often each tool
//! was chosen rightly and wrongly).

use crate::domain::{tool::Tool, FieldErrors};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::{collections::BTreeMap, sync::Arc};

/// The longest utterance a case may have, in characters.
pub const UTTERANCE_MAX: usize = 500;
/// Trials of each case in one run.
pub const TRIALS: std::ops::RangeInclusive<u32> = 1..=10;
/// What the confusion table calls "no tool called".
pub const NONE: &str = "none";

/// What the organization page says an admin when the console has no secret
/// key to seal providers' API keys with.
pub const SECRET_KEY_NEEDED: &str = "To add model providers, give the console a secret key: set TOOLWRIGHT_SECRET_KEY to 32 random bytes in base64 (openssl rand -base64 32 prints them) and restart it.";

/// What the evals API tells a key limited to exports.
pub const EVAL_API_EXPORT_ONLY: &str = "This API key is limited to exports. Runs spend the organization's provider credit: use a key made without “Export only”.";

/// A model provider as the organization page lists it: never its key,
/// only the key's last four characters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderSummary {
    pub id: i64,
    pub name: String,
    pub base_url: String,
    pub model: String,
    pub key_last4: String,
}

impl ProviderSummary {
    /// How the key is shown: "…" and its last four characters.
    pub fn key_hint(&self) -> String {
        format!("…{}", self.key_last4)
    }
}

/// A provider as its form sends it, checked: "Provider name", "Base URL"
/// (an OpenAI-compatible Chat Completions endpoint), "Model", "API key".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderInput {
    pub name: String,
    pub base_url: String,
    pub model: String,
    pub api_key: String,
}

impl ProviderInput {
    /// Trimmed and checked; every problem under its field (`name`,
    /// `base_url`, `model`, `api_key`).
    pub fn parse(
        name: &str,
        base_url: &str,
        model: &str,
        api_key: &str,
    ) -> Result<ProviderInput, FieldErrors> {
        let mut errors = FieldErrors::new();
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 60 {
            errors.add(
                "name",
                "Name the provider in 1 to 60 characters, like OpenAI",
            );
        }
        let base_url = base_url.trim().trim_end_matches('/');
        let scheme_ok = base_url
            .strip_prefix("https://")
            .or_else(|| base_url.strip_prefix("http://"))
            .is_some_and(|rest| !rest.is_empty() && !rest.starts_with('/'));
        if !scheme_ok || base_url.len() > 500 || base_url.chars().any(char::is_whitespace) {
            errors.add(
                "base_url",
                "Enter the endpoint's base URL, like https://api.openai.com/v1",
            );
        }
        let model = model.trim();
        if model.is_empty() || model.chars().count() > 200 || model.chars().any(char::is_whitespace)
        {
            errors.add("model", "Enter the model's name, like gpt-4.1-mini");
        }
        let api_key = api_key.trim();
        if api_key.chars().count() < 4
            || api_key.chars().count() > 1000
            || api_key.chars().any(char::is_whitespace)
        {
            errors.add("api_key", "Paste the provider's API key");
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(ProviderInput {
            name: name.to_owned(),
            base_url: base_url.to_owned(),
            model: model.to_owned(),
            api_key: api_key.to_owned(),
        })
    }

    /// The key's last four characters, which the list shows.
    pub fn key_last4(&self) -> String {
        let chars: Vec<char> = self.api_key.chars().collect();
        chars[chars.len().saturating_sub(4)..].iter().collect()
    }
}

/// The evals page of an app: its tools (what a case may expect) and its
/// cases.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalsPage {
    pub package_name: String,
    pub name: String,
    pub tools: Vec<String>,
    /// Activation phrases of all its tools, which can become cases.
    pub phrase_count: usize,
    pub cases: Vec<(i64, EvalCase)>,
    /// The organization's providers to run with (never their keys).
    pub providers: Vec<ProviderSummary>,
    /// The app's runs, newest first.
    pub runs: Vec<RunSummary>,
    /// The run whose results the page shows (the latest by default), and
    /// what its calls so far say.
    pub shown: Option<(RunSummary, Summary)>,
    /// When this was read (ms since the epoch).
    pub read_at: i64,
}

impl EvalCase {
    /// "Expected tool" as the cases table shows it.
    pub fn expected_text(&self) -> &str {
        self.expected.as_deref().unwrap_or("No tool")
    }

    /// The expected arguments as compact JSON, if any.
    pub fn arguments_text(&self) -> Option<String> {
        self.arguments
            .as_ref()
            .map(|arguments| Value::Object(arguments.clone()).to_string())
    }
}

/// One case: what a user says, and what a model should do with it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalCase {
    pub utterance: String,
    /// The tool's id; `None` when no tool should be called.
    pub expected: Option<String>,
    /// Arguments the call must contain (a subset of those it passes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
}

/// A case as its form sends it: "Utterance", "Expected tool" (a tool's id,
/// or empty for "No tool") and "Expected arguments" (JSON, or empty).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseDraft {
    pub utterance: String,
    pub expected: String,
    #[serde(default)]
    pub arguments: String,
}

impl CaseDraft {
    /// The case, if it is one for `tools`; every problem under its field
    /// otherwise (`utterance`, `expected`, `arguments`).
    pub fn parse(&self, tools: &[Arc<Tool>]) -> Result<EvalCase, FieldErrors> {
        let mut errors = FieldErrors::new();
        let utterance = self.utterance.trim();
        if utterance.is_empty() {
            errors.add(
                "utterance",
                "Enter what a user says, like “add milk to my list”",
            );
        } else if utterance.chars().count() > UTTERANCE_MAX {
            errors.add(
                "utterance",
                format!("An utterance has at most {UTTERANCE_MAX} characters"),
            );
        }
        let expected = match self.expected.trim() {
            "" => None,
            id if tools.iter().any(|t| t.id == id) => Some(id.to_owned()),
            _ => {
                errors.add("expected", "Choose one of this app's tools, or “No tool”");
                None
            }
        };
        let arguments = match self.arguments.trim() {
            "" => None,
            text => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(object)) if expected.is_some() => Some(object),
                Ok(Value::Object(_)) => {
                    errors.add("arguments", "A case with “No tool” expects no arguments");
                    None
                }
                Ok(_) => {
                    errors.add(
                        "arguments",
                        "Write the arguments as a JSON object, like {\"todo_item\": \"milk\"}",
                    );
                    None
                }
                Err(error) => {
                    errors.add("arguments", format!("This is not JSON: {error}"));
                    None
                }
            },
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(EvalCase {
            utterance: utterance.to_owned(),
            expected,
            arguments,
        })
    }
}

/// "Add cases from activation phrases": a case for each phrase of each
/// tool, expecting that tool, unless a case already says the same (case
/// and surrounding spaces aside).
pub fn cases_from_phrases(tools: &[Arc<Tool>], existing: &[EvalCase]) -> Vec<EvalCase> {
    let key = |utterance: &str| utterance.trim().to_lowercase();
    let mut seen: std::collections::HashSet<String> =
        existing.iter().map(|case| key(&case.utterance)).collect();
    let mut cases = Vec::new();
    for tool in tools {
        for phrase in &tool.activation_phrases {
            if seen.insert(key(phrase)) {
                cases.push(EvalCase {
                    utterance: phrase.trim().to_owned(),
                    expected: Some(tool.id.clone()),
                    arguments: None,
                });
            }
        }
    }
    cases
}

/// One tool call a model made: the tool's name and its arguments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Called {
    pub name: String,
    pub arguments: Value,
}

/// What a model did with one trial of a case.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trial {
    /// The tool calls it made, in order (none: it answered in words).
    pub calls: Vec<Called>,
}

impl Trial {
    /// The tool it chose: its first call's, or [`NONE`].
    pub fn chosen(&self) -> &str {
        self.calls.first().map_or(NONE, |call| call.name.as_str())
    }
}

/// Whether `trial` passes `case`: its first tool call names the expected
/// tool (for "No tool": it calls none), and its arguments contain the
/// expected ones.
pub fn passes(case: &EvalCase, trial: &Trial) -> bool {
    match (&case.expected, trial.calls.first()) {
        (None, None) => true,
        (Some(expected), Some(call)) if &call.name == expected => match &case.arguments {
            None => true,
            Some(wanted) => contains(&call.arguments, &Value::Object(wanted.clone())),
        },
        _ => false,
    }
}

/// Whether `actual` contains `wanted`: every key of a wanted object is in
/// the actual one with a value that contains the wanted value; anything
/// else is equal. A number matches the same number however written (2 and
/// 2.0).
fn contains(actual: &Value, wanted: &Value) -> bool {
    match (actual, wanted) {
        (Value::Object(actual), Value::Object(wanted)) => wanted
            .iter()
            .all(|(key, value)| actual.get(key).is_some_and(|a| contains(a, value))),
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => actual == wanted,
    }
}

/// The label a case's expectation has in the results and the confusion.
pub fn expected_label(case: &EvalCase) -> &str {
    case.expected.as_deref().unwrap_or(NONE)
}

/// A score: `passed` of `total` calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    pub passed: usize,
    pub total: usize,
}

impl Score {
    /// 0 to 1 (0 for no calls).
    pub fn ratio(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.passed as f64 / self.total as f64
        }
    }

    /// "Score: 83% (10 of 12 calls)".
    pub fn line(&self) -> String {
        let calls = if self.total == 1 { "call" } else { "calls" };
        format!(
            "Score: {}% ({} of {} {calls})",
            (self.ratio() * 100.0).round() as u32,
            self.passed,
            self.total
        )
    }
}

/// How often a tool was chosen rightly (when expected) and wrongly (when
/// another tool, or none, was).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolTally {
    pub right: usize,
    pub wrong: usize,
}

/// One case's results in a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    pub case: EvalCase,
    pub trials: Vec<Trial>,
    /// Per trial, whether it passed.
    pub passed: Vec<bool>,
    /// Its trials chose different tools.
    pub unstable: bool,
}

/// What a run's trials say, case by case and as a whole.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub score: Score,
    pub cases: Vec<CaseResult>,
    /// (expected, chosen, how many trials), in order; "none" for no tool.
    pub confusion: Vec<(String, String, usize)>,
    pub per_tool: BTreeMap<String, ToolTally>,
}

/// Sums up a run: each case with its trials (in order).
pub fn summarize(results: Vec<(EvalCase, Vec<Trial>)>) -> Summary {
    let mut summary = Summary::default();
    let mut confusion: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (case, trials) in results {
        let expected = expected_label(&case).to_owned();
        let passed: Vec<bool> = trials.iter().map(|trial| passes(&case, trial)).collect();
        summary.score.total += trials.len();
        summary.score.passed += passed.iter().filter(|p| **p).count();
        for trial in &trials {
            let chosen = trial.chosen().to_owned();
            *confusion
                .entry((expected.clone(), chosen.clone()))
                .or_default() += 1;
            if chosen != NONE {
                let tally = summary.per_tool.entry(chosen.clone()).or_default();
                if chosen == expected {
                    tally.right += 1;
                } else {
                    tally.wrong += 1;
                }
            }
        }
        let unstable = trials
            .iter()
            .any(|trial| trial.chosen() != trials[0].chosen());
        summary.cases.push(CaseResult {
            case,
            trials,
            passed,
            unstable,
        });
    }
    summary.confusion = confusion
        .into_iter()
        .map(|((expected, chosen), n)| (expected, chosen, n))
        .collect();
    summary
}

/// Where a run stands. A run is queued until a server process takes it,
/// running while one carries it, and then done, failed (a call could not
/// be made: the reason is kept) or cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Queued,
    Running,
    Done,
    Failed,
    Cancelled,
}

impl RunStatus {
    /// The word the database and the API use.
    pub fn key(self) -> &'static str {
        match self {
            RunStatus::Queued => "queued",
            RunStatus::Running => "running",
            RunStatus::Done => "done",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(key: &str) -> Option<RunStatus> {
        [
            RunStatus::Queued,
            RunStatus::Running,
            RunStatus::Done,
            RunStatus::Failed,
            RunStatus::Cancelled,
        ]
        .into_iter()
        .find(|status| status.key() == key)
    }

    /// Still to finish: it can be cancelled, and the page follows it.
    pub fn is_open(self) -> bool {
        matches!(self, RunStatus::Queued | RunStatus::Running)
    }

    /// As the list of runs says it.
    pub fn label(self) -> &'static str {
        match self {
            RunStatus::Queued => "Queued",
            RunStatus::Running => "Running",
            RunStatus::Done => "Done",
            RunStatus::Failed => "Failed",
            RunStatus::Cancelled => "Cancelled",
        }
    }
}

/// A run as the list of runs shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub id: i64,
    /// The app's revision the run sent the tools of.
    pub revision: i64,
    pub provider: String,
    pub model: String,
    pub trials: u32,
    pub status: RunStatus,
    /// Why it failed.
    pub error: Option<String>,
    /// Calls made so far (of `score.total` when done), and of them passed.
    pub calls_done: u32,
    pub calls_total: u32,
    pub calls_passed: u32,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
}

impl RunSummary {
    /// The score of the calls made so far.
    pub fn score(&self) -> Score {
        Score {
            passed: self.calls_passed as usize,
            total: self.calls_done as usize,
        }
    }

    /// From the first call to the last, once finished.
    pub fn duration_ms(&self) -> Option<i64> {
        Some(self.finished_at? - self.started_at?).filter(|ms| *ms >= 0)
    }

    /// "1.2 s", "3 min 5 s", or "—" while it runs.
    pub fn duration_text(&self) -> String {
        match self.duration_ms() {
            None => "—".to_owned(),
            Some(ms) if ms < 60_000 => format!("{:.1} s", ms as f64 / 1000.0),
            Some(ms) => format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1000),
        }
    }
}

/// "Run evals": which provider, and how many trials of each case, checked
/// against the organization's providers (by name). Problems under
/// `provider` and `trials`.
pub fn parse_run<'a>(
    provider: &str,
    trials: &str,
    providers: &'a [ProviderSummary],
) -> Result<(&'a ProviderSummary, u32), FieldErrors> {
    let mut errors = FieldErrors::new();
    let found = providers.iter().find(|p| p.name == provider.trim());
    if found.is_none() {
        errors.add(
            "provider",
            if providers.is_empty() {
                "Add a model provider on the organization page first"
            } else {
                "Choose one of the organization's providers"
            },
        );
    }
    let trials = match trials.trim().parse::<u32>() {
        Ok(n) if TRIALS.contains(&n) => Some(n),
        _ => {
            errors.add(
                "trials",
                format!(
                    "Enter a number of trials from {} to {}",
                    TRIALS.start(),
                    TRIALS.end()
                ),
            );
            None
        }
    };
    match (found, trials) {
        (Some(provider), Some(trials)) if errors.is_empty() => Ok((provider, trials)),
        _ => Err(errors),
    }
}

/// How long to wait before trying a call again after its `attempt`-th
/// failure (1 for the first): what the provider asked for, if it said, else
/// doubling from a quarter of a second; never more than 20 seconds.
pub fn retry_delay(attempt: u32, asked: Option<std::time::Duration>) -> std::time::Duration {
    const MAX: std::time::Duration = std::time::Duration::from_secs(20);
    let doubling = std::time::Duration::from_millis(250) * 2u32.saturating_pow(attempt.min(10) - 1);
    asked.unwrap_or(doubling).min(MAX)
}

/// A point of the chart of score by revision: where, in a `width` ×
/// `height` box, and what it says.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartPoint {
    pub x: f64,
    pub y: f64,
    pub revision: i64,
    pub percent: u32,
}

/// The chart's points: each finished run (oldest first) at its score, one
/// step apart from left to right, 0% at the bottom and 100% at the top.
pub fn chart_points(runs: &[RunSummary], width: f64, height: f64) -> Vec<ChartPoint> {
    let mut done: Vec<&RunSummary> = runs
        .iter()
        .filter(|run| run.status == RunStatus::Done)
        .collect();
    done.sort_by_key(|run| run.id);
    let step = if done.len() > 1 {
        width / (done.len() - 1) as f64
    } else {
        0.0
    };
    done.iter()
        .enumerate()
        .map(|(i, run)| {
            let ratio = run.score().ratio();
            ChartPoint {
                x: if done.len() > 1 {
                    i as f64 * step
                } else {
                    width / 2.0
                },
                y: (1.0 - ratio) * height,
                revision: run.revision,
                percent: (ratio * 100.0).round() as u32,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(id: &str, phrases: &[&str]) -> Arc<Tool> {
        Arc::new(Tool {
            id: id.into(),
            description: format!("The {id} tool"),
            activation_phrases: phrases.iter().map(|p| p.to_string()).collect(),
            ..Tool::default()
        })
    }

    fn case(utterance: &str, expected: Option<&str>, arguments: Option<Value>) -> EvalCase {
        EvalCase {
            utterance: utterance.into(),
            expected: expected.map(str::to_owned),
            arguments: arguments.map(|a| a.as_object().unwrap().clone()),
        }
    }

    fn trial(calls: &[(&str, Value)]) -> Trial {
        Trial {
            calls: calls
                .iter()
                .map(|(name, arguments)| Called {
                    name: (*name).into(),
                    arguments: arguments.clone(),
                })
                .collect(),
        }
    }

    #[test]
    fn a_trial_passes_when_its_first_call_is_the_expected_tool_with_the_expected_arguments() {
        let add = case(
            "add milk",
            Some("add_todo"),
            Some(json!({"todo_item": "milk"})),
        );
        assert!(passes(
            &add,
            &trial(&[("add_todo", json!({"todo_item": "milk", "priority": "low"}))])
        ));
        assert!(!passes(
            &add,
            &trial(&[("add_todo", json!({"todo_item": "bread"}))])
        ));
        assert!(!passes(&add, &trial(&[("add_todo", json!({}))])));
        assert!(!passes(
            &add,
            &trial(&[
                ("get_todos", json!({})),
                ("add_todo", json!({"todo_item": "milk"}))
            ])
        ));
        assert!(!passes(&add, &trial(&[])));
        let any_arguments = case("add milk", Some("add_todo"), None);
        assert!(passes(&any_arguments, &trial(&[("add_todo", json!({}))])));
        let nothing = case("hello", None, None);
        assert!(passes(&nothing, &trial(&[])));
        assert!(!passes(&nothing, &trial(&[("add_todo", json!({}))])));
    }

    #[test]
    fn arguments_match_as_a_subset_at_every_depth_and_numbers_by_value() {
        let wanted = json!({"when": {"day": "monday"}, "count": 2});
        assert!(contains(
            &json!({"when": {"day": "monday", "hour": 9}, "count": 2.0, "x": true}),
            &wanted
        ));
        assert!(!contains(
            &json!({"when": {"day": "friday"}, "count": 2}),
            &wanted
        ));
        assert!(!contains(&json!({"when": "monday", "count": 2}), &wanted));
        assert!(contains(&json!([1, 2]), &json!([1, 2])));
        assert!(!contains(&json!([1, 2, 3]), &json!([1, 2])));
    }

    #[test]
    fn a_run_is_scored_with_its_confusion_instability_and_tallies() {
        let summary = summarize(vec![
            (
                case("add milk", Some("add_todo"), None),
                vec![
                    trial(&[("add_todo", json!({}))]),
                    trial(&[("get_todos", json!({}))]),
                    trial(&[("add_todo", json!({}))]),
                ],
            ),
            (
                case("hello", None, None),
                vec![trial(&[]), trial(&[]), trial(&[])],
            ),
        ]);
        assert_eq!(
            summary.score,
            Score {
                passed: 5,
                total: 6
            }
        );
        assert_eq!(summary.score.line(), "Score: 83% (5 of 6 calls)");
        assert!(summary.cases[0].unstable);
        assert!(!summary.cases[1].unstable);
        assert_eq!(summary.cases[0].passed, [true, false, true]);
        let confusion: Vec<(&str, &str, usize)> = summary
            .confusion
            .iter()
            .map(|(e, c, n)| (e.as_str(), c.as_str(), *n))
            .collect();
        assert_eq!(
            confusion,
            [
                ("add_todo", "add_todo", 2),
                ("add_todo", "get_todos", 1),
                ("none", "none", 3)
            ]
        );
        assert_eq!(
            summary.per_tool["add_todo"],
            ToolTally { right: 2, wrong: 0 }
        );
        assert_eq!(
            summary.per_tool["get_todos"],
            ToolTally { right: 0, wrong: 1 }
        );
        assert_eq!(Score::default().line(), "Score: 0% (0 of 0 calls)");
        assert_eq!(
            Score {
                passed: 1,
                total: 1
            }
            .line(),
            "Score: 100% (1 of 1 call)"
        );
    }

    #[test]
    fn a_provider_form_is_checked_and_only_the_keys_end_is_kept_to_show() {
        let input = ProviderInput::parse(
            " OpenAI ",
            "https://api.openai.com/v1/",
            "gpt-4.1-mini",
            " sk-abcdef123456 ",
        )
        .unwrap();
        assert_eq!(input.name, "OpenAI");
        assert_eq!(input.base_url, "https://api.openai.com/v1");
        assert_eq!(input.api_key, "sk-abcdef123456");
        assert_eq!(input.key_last4(), "3456");
        assert!(
            ProviderInput::parse("Local", "http://127.0.0.1:11434/v1", "llama3", "none").is_ok()
        );
        let refused = ProviderInput::parse("", "ftp://x", "two words", "").unwrap_err();
        for field in ["name", "base_url", "model", "api_key"] {
            assert!(refused.first(field).is_some(), "{field}: {refused:?}");
        }
        assert!(ProviderInput::parse("A", "https://", "m", "key1").is_err());
    }

    #[test]
    fn phrases_become_cases_once() {
        let tools = [
            tool("add_todo", &["add a to-do", "Remember this"]),
            tool("get_todos", &["list my reminders", "add a to-do"]),
        ];
        let existing = [case("remember this ", Some("add_todo"), None)];
        let cases = cases_from_phrases(&tools, &existing);
        let made: Vec<(&str, Option<&str>)> = cases
            .iter()
            .map(|c| (c.utterance.as_str(), c.expected.as_deref()))
            .collect();
        assert_eq!(
            made,
            [
                ("add a to-do", Some("add_todo")),
                ("list my reminders", Some("get_todos"))
            ]
        );
    }

    #[test]
    fn a_case_form_is_checked_field_by_field() {
        let tools = [tool("add_todo", &[])];
        let draft = |utterance: &str, expected: &str, arguments: &str| CaseDraft {
            utterance: utterance.into(),
            expected: expected.into(),
            arguments: arguments.into(),
        };
        assert_eq!(
            draft(" add milk ", "add_todo", r#"{"todo_item": "milk"}"#)
                .parse(&tools)
                .unwrap(),
            case(
                "add milk",
                Some("add_todo"),
                Some(json!({"todo_item": "milk"}))
            )
        );
        assert_eq!(
            draft("hello", "", "").parse(&tools).unwrap(),
            case("hello", None, None)
        );
        let refused = draft("", "nope", "[1]").parse(&tools).unwrap_err();
        for field in ["utterance", "expected", "arguments"] {
            assert!(refused.first(field).is_some(), "{field}: {refused:?}");
        }
        assert!(draft("hi", "", "{}")
            .parse(&tools)
            .unwrap_err()
            .first("arguments")
            .is_some());
        assert!(draft("hi", "add_todo", "{")
            .parse(&tools)
            .unwrap_err()
            .first("arguments")
            .is_some());
        let long = "a".repeat(UTTERANCE_MAX + 1);
        assert!(draft(&long, "", "")
            .parse(&tools)
            .unwrap_err()
            .first("utterance")
            .is_some());
    }

    fn provider(name: &str) -> ProviderSummary {
        ProviderSummary {
            id: 7,
            name: name.into(),
            base_url: "https://api.openai.com/v1".into(),
            model: "gpt-4.1-mini".into(),
            key_last4: "abcd".into(),
        }
    }

    #[test]
    fn a_run_names_one_of_the_organizations_providers_and_1_to_10_trials() {
        let providers = [provider("OpenAI"), provider("Local")];
        let (chosen, trials) = parse_run(" Local ", "3", &providers).unwrap();
        assert_eq!((chosen.name.as_str(), trials), ("Local", 3));
        assert_eq!(parse_run("OpenAI", "10", &providers).unwrap().1, 10);
        let refused = parse_run("Nope", "11", &providers).unwrap_err();
        assert_eq!(
            refused.first("provider"),
            Some("Choose one of the organization's providers")
        );
        assert_eq!(
            refused.first("trials"),
            Some("Enter a number of trials from 1 to 10")
        );
        for trials in ["0", "", "two", "-1", "2.5"] {
            assert!(parse_run("OpenAI", trials, &providers).is_err(), "{trials}");
        }
        assert_eq!(
            parse_run("OpenAI", "3", &[]).unwrap_err().first("provider"),
            Some("Add a model provider on the organization page first")
        );
    }

    #[test]
    fn a_call_turned_away_waits_as_asked_or_twice_as_long_each_time() {
        use std::time::Duration;
        let ms = Duration::from_millis;
        assert_eq!(retry_delay(1, None), ms(250));
        assert_eq!(retry_delay(2, None), ms(500));
        assert_eq!(retry_delay(4, None), ms(2000));
        assert_eq!(retry_delay(30, None), Duration::from_secs(20));
        assert_eq!(retry_delay(1, Some(ms(50))), ms(50));
        assert_eq!(
            retry_delay(1, Some(Duration::from_secs(600))),
            Duration::from_secs(20)
        );
    }

    fn run(id: i64, revision: i64, status: RunStatus, passed: u32, done: u32) -> RunSummary {
        RunSummary {
            id,
            revision,
            provider: "OpenAI".into(),
            model: "m".into(),
            trials: 3,
            status,
            error: None,
            calls_done: done,
            calls_total: done,
            calls_passed: passed,
            prompt_tokens: 0,
            completion_tokens: 0,
            created_at: 0,
            started_at: Some(1_000),
            finished_at: Some(3_500),
        }
    }

    #[test]
    fn the_chart_shows_finished_runs_oldest_first_from_0_at_the_bottom_to_100_at_the_top() {
        let runs = [
            run(3, 5, RunStatus::Done, 3, 4),
            run(2, 4, RunStatus::Failed, 0, 1),
            run(1, 4, RunStatus::Done, 4, 4),
            run(4, 6, RunStatus::Running, 1, 2),
        ];
        let points = chart_points(&runs, 100.0, 50.0);
        let drawn: Vec<(f64, f64, i64, u32)> = points
            .iter()
            .map(|p| (p.x, p.y, p.revision, p.percent))
            .collect();
        assert_eq!(drawn, [(0.0, 0.0, 4, 100), (100.0, 12.5, 5, 75)]);
        let one = chart_points(&runs[2..3], 100.0, 50.0);
        assert_eq!((one[0].x, one[0].y), (50.0, 0.0));
        assert!(chart_points(&[], 100.0, 50.0).is_empty());
    }

    #[test]
    fn a_runs_status_reads_back_and_its_time_and_progress_are_told() {
        for status in [
            RunStatus::Queued,
            RunStatus::Running,
            RunStatus::Done,
            RunStatus::Failed,
            RunStatus::Cancelled,
        ] {
            assert_eq!(RunStatus::parse(status.key()), Some(status));
            assert_eq!(serde_json::to_value(status).unwrap(), json!(status.key()));
        }
        assert_eq!(RunStatus::parse("paused"), None);
        let mut done = run(1, 1, RunStatus::Done, 2, 3);
        assert_eq!(done.duration_text(), "2.5 s");
        assert_eq!(done.score().line(), "Score: 67% (2 of 3 calls)");
        done.finished_at = Some(1_000 + 125_000);
        assert_eq!(done.duration_text(), "2 min 5 s");
        done.finished_at = None;
        assert_eq!(done.duration_text(), "—");
    }
}
