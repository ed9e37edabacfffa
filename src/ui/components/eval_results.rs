//! The results of eval runs on the evals page: the chosen run's score, its
//! cases trial by trial, the confusion of expected and chosen tools, each
//! tool's tally, the list of runs and a chart of score by revision. All of
//! it server-rendered HTML and SVG.

use crate::domain::{
    eval::{chart_points, RunStatus, RunSummary, Summary, NONE},
    url::encode_component,
};
use crate::ui::components::table::StackedTable;
use leptos::prelude::*;
use std::collections::BTreeSet;

/// Region "Results".
#[component]
pub fn ResultsSection(
    package: String,
    runs: Vec<RunSummary>,
    shown: Option<(RunSummary, Summary)>,
) -> impl IntoView {
    let base = format!("/console/apps/{}/evals", encode_component(&package));
    let body = match shown {
        None => view! { <p class="meta">"No runs yet. Run the cases with a provider to see how the model chooses."</p> }
            .into_any(),
        Some((run, summary)) => view! {
            <ShownRun run=run.clone() summary/>
            <RunsList runs=runs.clone() base shown=run.id/>
            <ScoreChart runs/>
        }
        .into_any(),
    };
    view! {
        <section class="card stack" id="results" aria-labelledby="results-title">
            <h2 id="results-title">"Results"</h2>
            {body}
        </section>
    }
}

/// "Run 3 at revision 4 with OpenAI (gpt-4.1-mini): done", its score and tables.
#[component]
fn ShownRun(run: RunSummary, summary: Summary) -> impl IntoView {
    let heading = format!(
        "Run {} · revision {} · {} ({}) · {}",
        run.id,
        run.revision,
        run.provider,
        run.model,
        run.status.label()
    );
    let error = run
        .error
        .clone()
        .map(|error| view! { <p class="run-error">{format!("The run failed: {error}")}</p> });
    let partial = (run.status != RunStatus::Done && run.calls_done > 0).then(|| {
        view! { <p class="meta">{format!("Of the calls made so far ({} of {}):", run.calls_done, run.calls_total)}</p> }
    });
    let tables = (!summary.cases.is_empty() && run.calls_done > 0).then(|| {
        view! {
            <CaseTable summary=summary.clone()/>
            <Confusion summary=summary.clone()/>
            <PerTool summary/>
        }
    });
    view! {
        <h3 class="run-heading">{heading}</h3>
        {error}
        {partial}
        <p class="score">{run.score().line()}</p>
        {tables}
    }
}

#[component]
fn CaseTable(summary: Summary) -> impl IntoView {
    let rows = summary
        .cases
        .iter()
        .map(|result| {
            let chosen = result
                .trials
                .iter()
                .map(|trial| trial.chosen().to_owned())
                .collect::<Vec<_>>()
                .join(", ");
            let passed = result.passed.iter().filter(|p| **p).count();
            let all = !result.passed.is_empty() && passed == result.passed.len();
            view! {
                <tr>
                    <td data-label="Utterance">{result.case.utterance.clone()}</td>
                    <td data-label="Expected"><code>{result.case.expected.clone().unwrap_or_else(|| NONE.to_owned())}</code></td>
                    <td data-label="Chosen"><code>{chosen}</code></td>
                    <td data-label="Passed">
                        <span class=if all { "pass" } else { "fail" }>
                            {format!("{passed} of {}", result.passed.len())}
                        </span>
                        {result.unstable.then(|| view! { <span class="badge unstable">"Unstable"</span> })}
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <StackedTable
            columns=&["Utterance", "Expected", "Chosen", "Passed"]
            caption="Cases, trial by trial"
        >
            {rows}
        </StackedTable>
    }
}

/// Expected tools down, chosen tools across: how many calls each pair had.
#[component]
fn Confusion(summary: Summary) -> impl IntoView {
    let expected: BTreeSet<&str> = summary
        .confusion
        .iter()
        .map(|(e, _, _)| e.as_str())
        .collect();
    let chosen: Vec<String> = summary
        .confusion
        .iter()
        .map(|(_, c, _)| c.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let count = |e: &str, c: &str| {
        summary
            .confusion
            .iter()
            .find(|(x, y, _)| x == e && y == c)
            .map_or(0, |(_, _, n)| *n)
    };
    let head = chosen
        .iter()
        .map(|c| view! { <th scope="col"><code>{c.clone()}</code></th> })
        .collect_view();
    let rows = expected
        .iter()
        .map(|e| {
            let cells = chosen
                .iter()
                .map(|c| {
                    let n = count(e, c);
                    let class = match (n, *e == c.as_str()) {
                        (0, _) => "zero",
                        (_, true) => "right",
                        (_, false) => "wrong",
                    };
                    view! { <td class=class>{n}</td> }
                })
                .collect_view();
            view! {
                <tr>
                    <th scope="row"><code>{e.to_string()}</code></th>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    // Named by a heading outside the table: a caption is as wide as the
    // table, which may scroll sideways on a phone.
    view! {
        <h4 class="table-title" id="confusion-title">"Confusion: expected tool (rows) by chosen tool (columns), in calls"</h4>
        <div class="table-wrap">
            <table class="confusion" aria-labelledby="confusion-title">
                <thead>
                    <tr>
                        <th scope="col">"Expected \\ chosen"</th>
                        {head}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

#[component]
fn PerTool(summary: Summary) -> impl IntoView {
    if summary.per_tool.is_empty() {
        return view! { <p class="meta">"No tool was chosen in this run."</p> }.into_any();
    }
    let rows = summary
        .per_tool
        .iter()
        .map(|(tool, tally)| {
            view! {
                <tr>
                    <th scope="row"><code>{tool.clone()}</code></th>
                    <td data-label="Chosen rightly">{tally.right}</td>
                    <td data-label="Chosen wrongly">{tally.wrong}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <StackedTable
            columns=&["Tool", "Chosen rightly", "Chosen wrongly"]
            caption="Per tool: how often it was chosen rightly and wrongly"
        >
            {rows}
        </StackedTable>
    }
    .into_any()
}

#[component]
fn RunsList(runs: Vec<RunSummary>, base: String, shown: i64) -> impl IntoView {
    let rows = runs
        .into_iter()
        .map(|run| {
            let current = (run.id == shown).then_some("true");
            let score = if run.calls_done > 0 {
                format!("{}%", (run.score().ratio() * 100.0).round() as u32)
            } else {
                "—".to_owned()
            };
            view! {
                <tr>
                    <td data-label="Run">
                        <a href=format!("{base}?run={}#results", run.id) aria-current=current>{format!("Run {}", run.id)}</a>
                    </td>
                    <td data-label="Revision">{run.revision}</td>
                    <td data-label="Provider">{run.provider.clone()}</td>
                    <td data-label="Model"><code>{run.model.clone()}</code></td>
                    <td data-label="Status">{run.status.label()}</td>
                    <td data-label="Score">{score}</td>
                    <td data-label="Duration">{run.duration_text()}</td>
                    <td data-label="Tokens">{run.prompt_tokens + run.completion_tokens}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h3 class="table-title" id="runs-title">"Runs"</h3>
        <StackedTable
            columns=&["Run", "Revision", "Provider", "Model", "Status", "Score", "Duration", "Tokens"]
            labelled_by="runs-title"
        >
            {rows}
        </StackedTable>
    }
}

const CHART_WIDTH: f64 = 560.0;
const CHART_HEIGHT: f64 = 140.0;
/// Room around the plot for the axes' labels.
const CHART_LEFT: f64 = 76.0;
const CHART_TOP: f64 = 12.0;

/// Score by revision, oldest run first: a drop shows a change that hurt.
#[component]
fn ScoreChart(runs: Vec<RunSummary>) -> impl IntoView {
    let points = chart_points(&runs, CHART_WIDTH, CHART_HEIGHT);
    if points.is_empty() {
        return ().into_any();
    }
    let at = |x: f64, y: f64| format!("{:.1},{:.1}", CHART_LEFT + x, CHART_TOP + y);
    let line = points
        .iter()
        .map(|p| at(p.x, p.y))
        .collect::<Vec<_>>()
        .join(" ");
    let described = points
        .iter()
        .map(|p| format!("revision {}: {}%", p.revision, p.percent))
        .collect::<Vec<_>>()
        .join(", ");
    let grid = [0.0, 0.5, 1.0]
        .into_iter()
        .map(|ratio: f64| {
            let y = CHART_TOP + (1.0 - ratio) * CHART_HEIGHT;
            view! {
                <line class="grid" x1=CHART_LEFT y1=y x2=CHART_LEFT + CHART_WIDTH y2=y/>
                <text class="axis" x=CHART_LEFT - 6.0 y=y + 4.0 text-anchor="end">{format!("{}%", (ratio * 100.0) as u32)}</text>
            }
        })
        .collect_view();
    let dots = points
        .iter()
        .map(|p| {
            view! {
                <circle cx=CHART_LEFT + p.x cy=CHART_TOP + p.y r="4">
                    <title>{format!("Revision {}: {}%", p.revision, p.percent)}</title>
                </circle>
                <text class="axis" x=CHART_LEFT + p.x y=CHART_TOP + CHART_HEIGHT + 18.0 text-anchor="middle">{format!("r{}", p.revision)}</text>
            }
        })
        .collect_view();
    view! {
        <h3 class="table-title">"Score by revision"</h3>
        <figure class="score-chart">
            <svg
                viewBox=format!("0 0 {} {}", CHART_LEFT + CHART_WIDTH + 16.0, CHART_TOP + CHART_HEIGHT + 26.0)
                role="img"
                aria-labelledby="score-chart-caption"
                aria-describedby="score-chart-points"
            >
                {grid}
                <polyline points=line/>
                {dots}
            </svg>
            <figcaption id="score-chart-caption">"Score by revision, oldest run first"</figcaption>
            <p class="visually-hidden" id="score-chart-points">{described}</p>
        </figure>
    }
    .into_any()
}
