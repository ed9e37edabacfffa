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
use std::collections::BTreeMap;

/// The longest utterance a case may have, in characters.
pub const UTTERANCE_MAX: usize = 500;
/// Trials of each case in one run.
pub const TRIALS: std::ops::RangeInclusive<u32> = 1..=10;
/// What the confusion table calls "no tool called".
pub const NONE: &str = "none";

/// What the organization page says an admin when the console has no secret
/// key to seal providers' API keys with.
pub const SECRET_KEY_NEEDED: &str = "To add model providers, give the console a secret key: set TOOLWRIGHT_SECRET_KEY to 32 random bytes in base64 (openssl rand -base64 32 prints them) and restart it.";

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
    pub fn parse(&self, tools: &[Tool]) -> Result<EvalCase, FieldErrors> {
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
pub fn cases_from_phrases(tools: &[Tool], existing: &[EvalCase]) -> Vec<EvalCase> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(id: &str, phrases: &[&str]) -> Tool {
        Tool {
            id: id.into(),
            description: format!("The {id} tool"),
            activation_phrases: phrases.iter().map(|p| p.to_string()).collect(),
            ..Tool::default()
        }
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
}
