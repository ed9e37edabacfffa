//! Carries eval runs: each server process takes queued runs from the
//! database (see `repo::eval_runs`), one at a time, and sends each call —
//! one trial of one case — to the run's model provider as one Chat
//! Completions request: a short system message naming the app, the
//! utterance as the user's message, and the app's tools (at the run's
//! revision) in the form of the `openai` export, with `tool_choice: "auto"`.
//!
//! A few calls are in flight at once, each through the console's guarded
//! client (`outbound`: the private-address rule, a time-out and a size
//! cap); a call the provider turns away for now (429, 5xx, no answer) is
//! tried again after a pause. A call that still cannot be made, or that the
//! provider refuses outright (a wrong key, an unknown model), fails the run
//! with the reason in words.

use super::{clock::now_ms, outbound, repo, state::AppState};
use crate::domain::{
    config::AppConfig,
    eval::{
        parse_run, passes, retry_delay, summarize, Called, EvalCase, RunStatus, RunSummary,
        Summary, Trial,
    },
    export::{render, ExportOptions, Format},
    AppError, FieldErrors,
};
use async_openai::types::chat::{
    ChatCompletionRequestMessage, ChatCompletionRequestSystemMessage,
    ChatCompletionRequestUserMessage, ChatCompletionToolChoiceOption, ChatCompletionTools,
    CreateChatCompletionRequest, FunctionCall, ToolChoiceOptions,
};
use futures_util::StreamExt;
use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::Duration,
};
use tokio::sync::Semaphore;

/// Calls in flight at once to one provider (from one server process): a
/// provider's rate limits are per key, and a few at a time keeps a run
/// quick without setting them off.
pub const IN_FLIGHT: usize = 4;
/// The most tokens one call is counted for.
const TOKENS_MAX: u64 = i32::MAX as u64;
/// Runs one server process carries at once.
pub const RUNS_AT_ONCE: usize = 4;
/// Tries of one call before the run fails.
pub const ATTEMPTS: u32 = 5;
/// How often an idle process looks for runs another process queued (a run
/// queued in this process starts at once).
const POLL: Duration = Duration::from_secs(1);
/// A model may think for a while; its answer is small.
const LIMITS: outbound::Limits = outbound::Limits {
    timeout: Duration::from_secs(60),
    max_response_bytes: 1024 * 1024,
};

/// "Run evals" (the page's form, or the API for CI): queues a run of the
/// app's cases at its current revision with the organization's provider
/// named `provider`, `trials` times each, on behalf of developer `by`: the
/// run's id. A refusal names its field (`provider`, `trials`).
pub async fn queue(
    state: &AppState,
    app: &repo::apps::StoredApp,
    by: i64,
    provider: &str,
    trials: &str,
) -> Result<i64, AppError> {
    let providers = repo::providers::list(&state.db, app.org_id)
        .await
        .map_err(super::internal)?;
    let (provider, trials) = parse_run(provider, trials, &providers)?;
    let id = repo::eval_runs::create(
        &state.db,
        app.id,
        app.details.revision,
        provider.id,
        trials,
        by,
        now_ms(),
    )
    .await?
    .ok_or_else(|| {
        AppError::Validation(FieldErrors::single(
            "provider",
            "Add a case first: a run sends every case to the model",
        ))
    })?;
    state.eval_queued.notify_one();
    Ok(id)
}

/// Run `id` of the app with what its calls so far say, if it has one.
pub async fn report(
    state: &AppState,
    app_id: i64,
    id: i64,
) -> Result<Option<(RunSummary, Summary)>, sqlx::Error> {
    let Some(run) = repo::eval_runs::get(&state.db, app_id, id).await? else {
        return Ok(None);
    };
    let results = repo::eval_runs::results(&state.db, id).await?;
    Ok(Some((run, summarize(results))))
}

/// Starts carrying runs in the background, for as long as the server runs:
/// up to [`RUNS_AT_ONCE`] at a time, so that one long run does not hold up
/// another developer's.
pub fn spawn(state: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let process = owner_name();
        let mut claims: u64 = 0;
        let providers = Arc::new(ProviderSlots::default());
        // Dropped with this task when the server stops, which stops the runs
        // under way (another process, or this one restarted, takes them over).
        let mut carrying = tokio::task::JoinSet::new();
        loop {
            while carrying.try_join_next().is_some() {}
            if carrying.len() >= RUNS_AT_ONCE {
                carrying.join_next().await;
                continue;
            }
            // Each claim has a name of its own: should this process lose a
            // lease (its renewals failing) and take the run again, the two
            // carriers are told apart, and the first one stops.
            claims += 1;
            let owner = format!("{process}/{claims}");
            let now = now_ms();
            let until = now.saturating_add(lease_ms(state.config.eval_lease));
            match repo::eval_runs::claim(&state.db, &owner, now, until).await {
                Ok(Some(run)) => {
                    let (state, providers) = (state.clone(), providers.clone());
                    carrying.spawn(async move { carry(&state, &owner, &providers, run).await });
                }
                Ok(None) => {
                    tokio::select! {
                        _ = tokio::time::sleep(POLL) => {}
                        _ = state.eval_queued.notified() => {}
                        _ = carrying.join_next(), if !carrying.is_empty() => {}
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "could not look for eval runs");
                    tokio::time::sleep(POLL).await;
                }
            }
        }
    })
}

/// The calls in flight to each provider, from all the runs this process
/// carries: at most [`IN_FLIGHT`] each.
#[derive(Default)]
struct ProviderSlots(std::sync::Mutex<HashMap<i64, Arc<Semaphore>>>);

impl ProviderSlots {
    fn of(&self, provider: i64) -> Arc<Semaphore> {
        let mut slots = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        slots
            .entry(provider)
            .or_insert_with(|| Arc::new(Semaphore::new(IN_FLIGHT)))
            .clone()
    }
}

fn lease_ms(lease: Duration) -> i64 {
    i64::try_from(lease.as_millis()).unwrap_or(i64::MAX / 2)
}

/// This process's name on the leases it holds: its process id and a random
/// part (two processes on two machines may share an id).
fn owner_name() -> String {
    let mut bytes = [0u8; 6];
    let random = match getrandom::fill(&mut bytes) {
        Ok(()) => bytes.iter().map(|b| format!("{b:02x}")).collect(),
        Err(_) => format!("{}", now_ms()),
    };
    format!("{}-{random}", std::process::id())
}

/// How carrying a run ended.
enum Ended {
    /// Every call is recorded.
    AllMade,
    /// The lease could not be kept (the run cancelled or taken over, or its
    /// provider removed): no further call was started.
    LeaseNotKept,
    /// Nothing more to do here: the run is another carrier's now, or the
    /// database failed (the lease runs out, and the run goes on in whichever
    /// process takes it next).
    Stopped,
}

/// Why carrying a run stopped early.
enum Stop {
    /// The run fails, with this reason in words.
    Fails(String),
    /// See [`Ended::Stopped`].
    Stopped,
}

impl From<sqlx::Error> for Stop {
    fn from(error: sqlx::Error) -> Self {
        tracing::warn!(%error, "eval run: database error; the run goes on when its lease runs out");
        Stop::Stopped
    }
}

impl From<&str> for Stop {
    fn from(reason: &str) -> Self {
        Stop::Fails(reason.to_owned())
    }
}

async fn carry(
    state: &AppState,
    owner: &str,
    providers: &ProviderSlots,
    run: repo::eval_runs::Claimed,
) {
    let (status, error) = match carry_calls(state, owner, providers, &run).await {
        Ok(Ended::AllMade) => (RunStatus::Done, None),
        // Unless the run was cancelled or taken over (then this changes
        // nothing), its provider is gone, or no longer the app's
        // organization's.
        Ok(Ended::LeaseNotKept) => (RunStatus::Failed, Some(PROVIDER_GONE.to_owned())),
        Ok(Ended::Stopped) | Err(Stop::Stopped) => return,
        Err(Stop::Fails(reason)) => (RunStatus::Failed, Some(reason)),
    };
    match repo::eval_runs::finish(&state.db, run.id, owner, status, error.as_deref(), now_ms())
        .await
    {
        Ok(true) => {
            if let Some(reason) = &error {
                tracing::info!(run = run.id, %reason, "eval run failed");
            }
        }
        Ok(false) => {}
        // The lease runs out, and another carrier finishes the run.
        Err(error) => tracing::warn!(%error, run = run.id, "could not finish an eval run"),
    }
}

const PROVIDER_GONE: &str = "The model provider was removed, or the app moved to another organization, before the run finished.";

/// Stops the task it holds when dropped: the lease keeper ends with the run
/// it keeps, however carrying it ends.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// One call's end, as the loop over a run's calls sees it.
enum Step {
    Made,
    /// Not started: the lease could not be kept.
    Skipped,
    LeaseLost,
}

/// Makes the run's calls not made yet.
async fn carry_calls(
    state: &AppState,
    owner: &str,
    providers: &ProviderSlots,
    run: &repo::eval_runs::Claimed,
) -> Result<Ended, Stop> {
    let db = &state.db;
    let provider_id = run.provider_id.ok_or(PROVIDER_GONE)?;
    let access = repo::providers::access(db, provider_id, run.app_id)
        .await?
        .ok_or(PROVIDER_GONE)?;
    let slots = providers.of(provider_id);
    let key = state
        .secret
        .as_ref()
        .and_then(|secret| secret.open(&access.key_sealed))
        .ok_or(
            "The provider's API key cannot be read: the console's secret key changed since it was added. Add the provider again.",
        )?;
    let snapshot = repo::revisions::at(db, run.app_id, run.revision)
        .await?
        .ok_or("The app's revision this run tests is gone.")?;
    let provider = Provider {
        url: format!("{}/chat/completions", access.base_url),
        model: access.model,
        key,
        allow_private: state.config.allow_private_targets,
    };
    let tools = tools_of(&snapshot.config).map_err(Stop::Fails)?;
    let system = system_message(&snapshot.config);
    let pending = repo::eval_runs::pending(db, run.id).await?;

    // The lease is kept while calls are made; once it cannot be, no further
    // call starts.
    let stopped = Arc::new(AtomicBool::new(false));
    let _keeper = AbortOnDrop(tokio::spawn({
        let (db, owner, stopped, id) = (db.clone(), owner.to_owned(), stopped.clone(), run.id);
        let lease = state.config.eval_lease;
        async move {
            loop {
                tokio::time::sleep(lease / 3).await;
                let until = now_ms().saturating_add(lease_ms(lease));
                match repo::eval_runs::renew(&db, id, &owner, until).await {
                    Ok(true) => {}
                    Ok(false) => {
                        stopped.store(true, Ordering::SeqCst);
                        return;
                    }
                    Err(error) => {
                        tracing::warn!(%error, run = id, "could not renew an eval run's lease")
                    }
                }
            }
        }
    }));
    let made = futures_util::stream::iter(pending)
        .map(|call| {
            let (provider, tools, stopped, slots, system) =
                (&provider, &tools, &stopped, &slots, &system);
            async move {
                let _slot = slots.acquire().await.map_err(|_| Stop::Stopped)?;
                if stopped.load(Ordering::SeqCst) {
                    return Ok::<Step, Stop>(Step::Skipped);
                }
                let made = provider
                    .call(system, &call.case, tools)
                    .await
                    .map_err(Stop::Fails)?;
                Ok(
                    match repo::eval_runs::record(
                        db,
                        run.id,
                        owner,
                        call.case_no,
                        call.trial,
                        &made,
                    )
                    .await?
                    {
                        repo::eval_runs::Recorded::Recorded
                        | repo::eval_runs::Recorded::Already => Step::Made,
                        repo::eval_runs::Recorded::LeaseLost => Step::LeaseLost,
                    },
                )
            }
        })
        .buffer_unordered(IN_FLIGHT);
    futures_util::pin_mut!(made);
    while let Some(step) = made.next().await {
        match step? {
            Step::Made => {}
            Step::Skipped => return Ok(Ended::LeaseNotKept),
            Step::LeaseLost => return Ok(Ended::Stopped),
        }
    }
    Ok(Ended::AllMade)
}

/// The app's tools as the `openai` export gives them.
fn tools_of(config: &AppConfig) -> Result<Vec<ChatCompletionTools>, String> {
    serde_json::from_value(render(config, Format::Openai, ExportOptions::default()))
        .map_err(|error| format!("The app's tools could not be sent: {error}"))
}

fn system_message(config: &AppConfig) -> String {
    let mut text = format!("You are the assistant of the app “{}”.", config.name);
    if !config.description.trim().is_empty() {
        text.push(' ');
        text.push_str(config.description.trim());
    }
    text.push_str(
        " When the user's request calls for one of the app's tools, call it; otherwise answer in words.",
    );
    text
}

/// One provider, as a run calls it.
struct Provider {
    url: String,
    model: String,
    key: String,
    allow_private: bool,
}

impl Provider {
    /// One trial of `case`: tried again after a pause while the provider
    /// is busy, failing (in words, never with the key) when it cannot be
    /// made.
    async fn call(
        &self,
        system: &str,
        case: &EvalCase,
        tools: &[ChatCompletionTools],
    ) -> Result<repo::eval_runs::Made, String> {
        let request = CreateChatCompletionRequest {
            model: self.model.clone(),
            messages: vec![
                ChatCompletionRequestMessage::System(ChatCompletionRequestSystemMessage::from(
                    system,
                )),
                ChatCompletionRequestMessage::User(ChatCompletionRequestUserMessage::from(
                    case.utterance.as_str(),
                )),
            ],
            tools: (!tools.is_empty()).then(|| tools.to_vec()),
            tool_choice: (!tools.is_empty()).then_some(ChatCompletionToolChoiceOption::Mode(
                ToolChoiceOptions::Auto,
            )),
            ..CreateChatCompletionRequest::default()
        };
        let body = serde_json::to_value(&request)
            .map_err(|error| format!("The request could not be written: {error}"))?;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let outcome =
                outbound::post_json_bearer(&self.url, &body, &self.key, self.allow_private, LIMITS)
                    .await;
            let (retry, wait) = match outcome {
                outbound::Outcome::Answered {
                    status: 200..=299,
                    body,
                    latency,
                    ..
                } => return self.made(case, &body, latency),
                outbound::Outcome::Answered {
                    status,
                    body,
                    retry_after,
                    ..
                } => (
                    status == 429 || status >= 500,
                    (
                        format!("The provider answered {status}: {}", self.message_of(&body)),
                        retry_after,
                    ),
                ),
                outbound::Outcome::TimedOut { .. } => (
                    true,
                    (
                        format!(
                            "The provider did not answer within {} seconds.",
                            LIMITS.timeout.as_secs()
                        ),
                        None,
                    ),
                ),
                outbound::Outcome::Unreachable(reason) => (true, (self.redact(&reason), None)),
                outbound::Outcome::Blocked(reason) => (false, (reason, None)),
                outbound::Outcome::TooLarge { .. } => (
                    false,
                    (
                        "The provider's answer was larger than 1 MB.".to_owned(),
                        None,
                    ),
                ),
            };
            let (reason, asked) = wait;
            if !retry {
                return Err(reason);
            }
            if attempt >= ATTEMPTS {
                return Err(format!("{reason} (tried {ATTEMPTS} times)"));
            }
            tokio::time::sleep(retry_delay(attempt, asked)).await;
        }
    }

    /// A successful answer as a recorded call.
    fn made(
        &self,
        case: &EvalCase,
        body: &[u8],
        latency: Duration,
    ) -> Result<repo::eval_runs::Made, String> {
        let answer: Answer = serde_json::from_slice(body).map_err(|error| {
            self.redact(&format!(
                "The provider's answer is not a Chat Completions response: {error}"
            ))
        })?;
        let (trial, finish_reason) = trial_of(&answer);
        let usage = answer.usage.unwrap_or_default();
        Ok(repo::eval_runs::Made {
            passed: passes(case, &trial),
            trial,
            finish_reason,
            latency_ms: i64::try_from(latency.as_millis()).unwrap_or(i64::MAX),
            // However many a provider says, a run's sums must stay numbers.
            prompt_tokens: usage.prompt_tokens.min(TOKENS_MAX) as i64,
            completion_tokens: usage.completion_tokens.min(TOKENS_MAX) as i64,
        })
    }

    /// The `error.message` of a provider's refusal (or the start of its
    /// body), short, and never with the key in it (taken out before the
    /// message is cut, so that no part of it is left).
    fn message_of(&self, body: &[u8]) -> String {
        let text = serde_json::from_slice::<serde_json::Value>(body)
            .ok()
            .and_then(|json| json["error"]["message"].as_str().map(str::to_owned))
            .unwrap_or_else(|| String::from_utf8_lossy(body).into_owned());
        self.redact(text.trim()).chars().take(300).collect()
    }

    fn redact(&self, text: &str) -> String {
        if self.key.len() >= 4 {
            text.replace(&self.key, "(the API key)")
        } else {
            text.to_owned()
        }
    }
}

/// What a run reads of a Chat Completions answer. Read leniently rather
/// than as async-openai's `CreateChatCompletionResponse`: providers send
/// values outside the specification's lists (a `service_tier` or a
/// `finish_reason` of their own) that say nothing about the tool chosen,
/// and a run should not fail on them.
#[derive(Debug, Default, serde::Deserialize)]
struct Answer {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<Usage>,
}

#[derive(Debug, Default, serde::Deserialize)]
struct Choice {
    #[serde(default)]
    message: Option<Message>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Debug, Default, serde::Deserialize)]
struct Message {
    #[serde(default)]
    tool_calls: Option<Vec<ToolCall>>,
}

#[derive(Debug, serde::Deserialize)]
struct ToolCall {
    function: Option<FunctionCall>,
}

#[derive(Debug, Default, serde::Deserialize)]
struct Usage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

/// The tool calls of an answer's first choice, and why it stopped.
fn trial_of(answer: &Answer) -> (Trial, String) {
    let Some(choice) = answer.choices.first() else {
        return (Trial::default(), "none".to_owned());
    };
    let calls = choice
        .message
        .iter()
        .flat_map(|message| message.tool_calls.iter().flatten())
        .filter_map(|call| call.function.as_ref())
        .map(|function| Called {
            name: function.name.clone(),
            // Arguments that are not JSON are kept as the text they are.
            arguments: serde_json::from_str(&function.arguments)
                .unwrap_or_else(|_| serde_json::Value::String(function.arguments.clone())),
        })
        .collect();
    let finish_reason = choice
        .finish_reason
        .clone()
        .unwrap_or_else(|| "none".to_owned());
    (Trial { calls }, finish_reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::tool::Tool;
    use serde_json::json;

    #[test]
    fn the_tools_go_in_the_openai_exports_form() {
        let config = AppConfig {
            name: "Todo".into(),
            tools: vec![Tool {
                id: "add_todo".into(),
                description: "Add an item".into(),
                ..Tool::default()
            }]
            .into_iter()
            .map(std::sync::Arc::new)
            .collect(),
            ..AppConfig::default()
        };
        let tools = tools_of(&config).unwrap();
        let sent = serde_json::to_value(&tools).unwrap();
        assert_eq!(
            sent,
            render(&config, Format::Openai, ExportOptions::default())
        );
        assert_eq!(sent[0]["function"]["name"], "add_todo");
    }

    #[test]
    fn an_answer_becomes_a_trial_with_its_calls_in_order() {
        let answer: Answer = serde_json::from_value(json!({
            "id": "x", "object": "chat.completion", "created": 1, "model": "m", "service_tier": "on_demand",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null,
                "tool_calls": [
                    {"id": "1", "type": "function", "function": {"name": "add_todo", "arguments": "{\"todo_item\":\"milk\"}"}},
                    {"id": "2", "type": "function", "function": {"name": "get_todos", "arguments": "not json"}}
                ]}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        }))
        .unwrap();
        let (trial, finish) = trial_of(&answer);
        assert_eq!(finish, "tool_calls");
        assert_eq!(trial.chosen(), "add_todo");
        assert_eq!(trial.calls[0].arguments, json!({"todo_item": "milk"}));
        assert_eq!(trial.calls[1].arguments, json!("not json"));
        let words: Answer = serde_json::from_value(json!({
            "id": "y", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hi"}}]
        }))
        .unwrap();
        let (trial, finish) = trial_of(&words);
        assert_eq!((trial.chosen(), finish.as_str()), ("none", "stop"));
    }

    #[test]
    fn a_refusal_is_told_in_words_without_the_key() {
        let provider = Provider {
            url: String::new(),
            model: "m".into(),
            key: "sk-secret-1234".into(),
            allow_private: false,
        };
        let body = br#"{"error":{"message":"Incorrect API key provided: sk-secret-1234."}}"#;
        assert_eq!(
            provider.message_of(body),
            "Incorrect API key provided: (the API key)."
        );
        assert_eq!(provider.message_of(b"Bad gateway"), "Bad gateway");
        // A key across the cut: none of it is left.
        let long = format!("{}sk-secret-1234", "x".repeat(295));
        let told = provider.message_of(long.as_bytes());
        assert!(
            !told.contains("sk-sec") && told.starts_with("xxx"),
            "{told}"
        );
        // An answer that is not one, quoting the key back.
        let case = EvalCase::default();
        let refused = provider
            .made(&case, b"{\"choices\": \"sk-secret-1234\"}", Duration::ZERO)
            .unwrap_err();
        assert!(!refused.contains("sk-secret-1234"), "{refused}");
        assert!(
            refused.starts_with("The provider's answer is not"),
            "{refused}"
        );
    }
}
