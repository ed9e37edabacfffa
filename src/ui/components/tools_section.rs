//! The "AI Tools" section of an app's page: a card per tool, "Add tool",
//! the editor in place of the card being edited, and reordering. The page
//! carries the tools at a glance; "Edit" fetches the whole tool.

use crate::{
    api::{
        tools::{GetTool, GetTools, MoveTool},
        AppError,
    },
    domain::tool::{MoveDirection, Tool, ToolDraft, ToolSummary, ToolsState, ToolsWritten},
    ui::components::{
        checks_panel::count_text,
        form::FormAlert,
        tool_editor::{focus_soon, EditorOutcome, ToolEditor, ToolEditorProps},
    },
};
use leptos::prelude::*;

/// A tool on the page. The key is internal and stable for as long as the
/// tool keeps its id, so its card (and editor) survive refreshed data.
#[derive(Clone)]
struct ToolEntry {
    key: u64,
    tool: ArcRwSignal<ToolSummary>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Editing {
    New,
    /// The card `key`, with the whole tool as fetched for its editor.
    Existing {
        key: u64,
        tool: Box<Tool>,
    },
}

/// Merges the server's list into the entries: same id, same entry (updated);
/// otherwise a new entry.
fn merge(entries: &[ToolEntry], tools: Vec<ToolSummary>, next_key: &mut u64) -> Vec<ToolEntry> {
    tools
        .into_iter()
        .map(|tool| {
            match entries
                .iter()
                .find(|e| e.tool.with_untracked(|t| t.id == tool.id))
            {
                Some(entry) => {
                    if entry.tool.with_untracked(|t| *t != tool) {
                        entry.tool.set(tool);
                    }
                    entry.clone()
                }
                None => {
                    *next_key += 1;
                    ToolEntry {
                        key: *next_key,
                        tool: ArcRwSignal::new(tool),
                    }
                }
            }
        })
        .collect()
}

#[component]
pub fn ToolsSection(
    package_name: String,
    revision: RwSignal<i64>,
    tools: Vec<ToolSummary>,
    /// The page's notice.
    notice: RwSignal<Option<String>>,
    /// How many lines the app's checks have, shown beside the heading.
    findings: Signal<usize>,
) -> impl IntoView {
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    // A finding's link names a tool and a field (`?tool=add_todo&field=title`):
    // the page opens that tool's editor at that field as it loads.
    let focus_on_open = StoredValue::new(None::<String>);

    let next_key = StoredValue::new(0_u64);
    let entries = RwSignal::new({
        let mut key = 0;
        let entries = merge(&[], tools, &mut key);
        next_key.set_value(key);
        entries
    });
    let editing = RwSignal::new(None::<Editing>);
    let alert = RwSignal::new(None::<AppError>);

    let apply = move |state: ToolsState| {
        revision.set(state.revision);
        let mut key = next_key.get_value();
        let merged = entries.with_untracked(|current| merge(current, state.tools, &mut key));
        next_key.set_value(key);
        entries.set(merged);
    };
    let edit_button_of = move |tool_id: &str| {
        entries.with_untracked(|all| {
            all.iter()
                .find(|e| e.tool.with_untracked(|t| t.id == tool_id))
                .map(|e| format!("tool-{}-edit", e.key))
        })
    };

    let package = StoredValue::new(package_name.clone());
    let reload = ServerAction::<GetTools>::new();
    // A write answers with the edit made at the revision this list was at:
    // made here too, it gives the app's list now.
    let apply_written = move |written: ToolsWritten| {
        let mut tools: Vec<ToolSummary> =
            entries.with_untracked(|all| all.iter().map(|e| e.tool.get_untracked()).collect());
        // Only the list at the revision just before is the one the edit was
        // made on; anything else (a reload came in between) is fetched again.
        let made = if revision.get_untracked() == written.revision - 1 {
            written.edit.apply_to_summaries(&mut tools)
        } else {
            Err(crate::domain::tool::EditRefused::NotFound)
        };
        match made {
            Ok(()) => apply(ToolsState {
                revision: written.revision,
                tools,
            }),
            // This list was not the app's after all: fetch the real one.
            Err(_) => {
                reload.dispatch(GetTools {
                    package_name: package.get_value(),
                });
            }
        }
    };

    let on_done = Callback::new(move |outcome: EditorOutcome| {
        apply_written(outcome.written);
        editing.set(None);
        alert.set(None);
        notice.set(Some(outcome.message));
        // Back to where the developer was: the saved tool's "Edit", or "Add tool".
        let target = outcome
            .saved_id
            .and_then(|id| edit_button_of(&id))
            .unwrap_or_else(|| "tools-add".to_owned());
        focus_soon(target);
    });
    // Closing the editor gives the focus back to what opened it.
    let on_cancel = Callback::new(move |()| {
        let opener = match editing.get_untracked() {
            Some(Editing::Existing { key, .. }) => format!("tool-{key}-edit"),
            _ => "tools-add".to_owned(),
        };
        editing.set(None);
        focus_soon(opener);
    });
    // A fetched list replaces this one unless it is older.
    let apply_latest = move |state: ToolsState| {
        if state.revision >= revision.get_untracked() {
            apply(state);
        }
    };
    let on_reload = Callback::new(apply_latest);

    // "Edit" first fetches the whole tool: `opening` is the card waiting for it.
    let opener = ServerAction::<GetTool>::new();
    let opening = RwSignal::new(None::<(u64, String)>);
    let open_editor = move |key: u64, tool_id: String| {
        if opening.get_untracked().is_some() {
            return;
        }
        notice.set(None);
        alert.set(None);
        opening.set(Some((key, tool_id.clone())));
        opener.dispatch(GetTool {
            package_name: package.get_value(),
            tool_id,
        });
    };
    Effect::new(move |_| match opener.value().get() {
        Some(Ok(found)) => {
            let Some((key, tool_id)) = opening.get_untracked() else {
                return;
            };
            opening.set(None);
            if found.tool.id != tool_id {
                return;
            }
            // The list is older than the tool: bring the list up to date too.
            if found.revision > revision.get_untracked() {
                reload.dispatch(GetTools {
                    package_name: package.get_value(),
                });
            }
            editing.set(Some(Editing::Existing {
                key,
                tool: Box::new(found.tool),
            }));
        }
        Some(Err(error)) => {
            opening.set(None);
            alert.set(Some(error));
        }
        None => {}
    });

    let mover = ServerAction::<MoveTool>::new();
    Effect::new(move |_| match mover.value().get() {
        Some(Ok(written)) => {
            apply_written(written);
            alert.set(None);
        }
        Some(Err(error)) => alert.set(Some(error)),
        None => {}
    });
    Effect::new(move |_| match reload.value().get() {
        Some(Ok(state)) => {
            apply_latest(state);
            alert.set(None);
        }
        Some(Err(error)) => alert.set(Some(error)),
        None => {}
    });

    let move_tool = move |tool_id: String, direction: MoveDirection| {
        notice.set(None);
        mover.dispatch(MoveTool {
            package_name: package.get_value(),
            revision: revision.get_untracked(),
            tool_id,
            direction,
        });
    };
    let other_ids = move |except: Option<u64>| {
        Signal::derive(move || {
            entries.with(|all| {
                all.iter()
                    .filter(|e| Some(e.key) != except)
                    .map(|e| e.tool.with(|t| t.id.clone()))
                    .collect::<Vec<_>>()
            })
        })
    };
    let editor_for = move |draft: ToolDraft, original_id: Option<String>, except: Option<u64>| {
        ToolEditor(
            ToolEditorProps::builder()
                .package_name(package.get_value())
                .revision(revision)
                .draft(draft)
                .original_id(original_id)
                .other_ids(other_ids(except))
                .on_done(on_done)
                .on_cancel(on_cancel)
                .on_reload(on_reload)
                .focus_field(focus_on_open.try_update_value(Option::take).flatten())
                .build(),
        )
        .into_any()
    };

    // One of each for all the cards (a card tells which it is).
    let on_edit = Callback::new(move |(key, tool_id): (u64, String)| open_editor(key, tool_id));
    let on_move = Callback::new(move |(id, direction)| move_tool(id, direction));
    Effect::new(move |_| {
        let Some((tool_id, field)) = window()
            .location()
            .search()
            .ok()
            .and_then(|search| tool_and_field(&search))
        else {
            return;
        };
        let key = entries.with_untracked(|all| {
            all.iter()
                .find(|e| e.tool.with_untracked(|t| t.id == tool_id))
                .map(|e| e.key)
        });
        if let Some(key) = key {
            focus_on_open.set_value(Some(field));
            open_editor(key, tool_id);
        }
    });
    let moving: Signal<bool> = mover.pending().into();

    // What the rows follow, made once for all of them. The row being
    // edited: each row wakes only when it starts or stops being the one.
    let edited_row = Selector::new(move || {
        editing.with(|e| match e {
            Some(Editing::Existing { key, .. }) => Some(*key),
            _ => None,
        })
    });
    // The first and the last row, for their "Move up" and "Move down".
    let ends = Memo::new(move |_| {
        entries.with(|all| (all.first().map(|e| e.key), all.last().map(|e| e.key)))
    });

    let is_new = Memo::new(move |_| editing.with(|e| e == &Some(Editing::New)));
    let is_empty = Memo::new(move |_| entries.with(Vec::is_empty));
    let alert_message = Signal::derive(move || alert.get().map(|e| e.to_string()));
    let is_conflict =
        Signal::derive(move || alert.with(|e| e.as_ref().is_some_and(AppError::is_conflict)));

    view! {
        <section
            class="card stack tools"
            aria-labelledby="tools-title"
            data-hydrated=move || if hydrated.get() { "true" } else { "false" }
        >
            <div class="section-head">
                <h2 id="tools-title">"AI Tools"</h2>
                <a
                    class=move || {
                        if findings.get() == 0 { "check-count ok" } else { "check-count" }
                    }
                    href="#checks"
                >
                    {move || count_text(findings.get())}
                </a>
                <button
                    type="button"
                    id="tools-add"
                    class="primary needs-js"
                    on:click=move |_| {
                        notice.set(None);
                        editing.set(Some(Editing::New));
                    }
                >
                    "Add tool"
                </button>
            </div>
            // Without JavaScript the buttons are hidden and this says why
            // (`no-js`, style/main.css).
            <p class="hint no-js">"Adding and editing tools needs JavaScript; everything else works without it."</p>
            <FormAlert message=alert_message/>
            <Show when=move || is_conflict.get()>
                <p>
                    <button
                        type="button"
                        on:click=move |_| {
                            reload.dispatch(GetTools { package_name: package.get_value() });
                        }
                    >
                        "Reload"
                    </button>
                </p>
            </Show>
            <Show when=move || is_empty.get() && !is_new.get()>
                <div class="empty-state">
                    <p><strong>"No tools yet."</strong></p>
                    <p>
                        "A tool is an action your app offers the assistant — like add_todo — with "
                        "the phrases that bring it up and the parameters it needs. The assistant "
                        "calls it by sending your server a request with those parameters."
                    </p>
                </div>
            </Show>
            <ol class="tool-list">
                <For each=move || entries.get() key=|entry| entry.key let:entry>
                    {
                        let key = entry.key;
                        let tool = entry.tool.clone();
                        let edited_row = edited_row.clone();
                        on_cleanup({
                            let edited_row = edited_row.clone();
                            move || edited_row.remove(&Some(key))
                        });
                        move || {
                            let current = editing.with_untracked(|e| match e {
                                Some(Editing::Existing { key: k, tool }) if *k == key => Some(tool.clone()),
                                _ => None,
                            });
                            if let (true, Some(current)) = (edited_row.selected(&Some(key)), current) {
                                let draft = ToolDraft::from_tool(&current);
                                view! {
                                    <li class="editing">
                                        {editor_for(draft, Some(current.id), Some(key))}
                                    </li>
                                }
                                    .into_any()
                            } else {
                                // Tracked: a changed summary draws the card again.
                                tool.with(|tool| {
                                    package.with_value(|package| {
                                        tool_card(key, package, tool, ends, opening, on_edit, on_move, moving)
                                    })
                                })
                                    .into_any()
                            }
                        }
                    }
                </For>
            </ol>
            {move || is_new.get().then(|| editor_for(ToolDraft::default(), None, None))}
        </section>
    }
}

/// A tool at a glance, as an item of the list: id, description, parameter
/// count, first phrases.
/// Drawn from one summary (the row draws it again when the summary
/// changes); only the buttons' states follow signals.
#[allow(clippy::too_many_arguments)]
fn tool_card(
    key: u64,
    package: &str,
    tool: &ToolSummary,
    // The list's first and last cards' keys.
    ends: Memo<(Option<u64>, Option<u64>)>,
    // The card whose "Edit" is fetching its tool.
    opening: RwSignal<Option<(u64, String)>>,
    // "Edit", with the card's key and the tool's id.
    on_edit: Callback<(u64, String)>,
    on_move: Callback<(String, MoveDirection)>,
    busy: Signal<bool>,
) -> impl IntoView {
    use crate::domain::url::encode_component;
    let first = move || ends.with(|(first, _)| *first == Some(key));
    let last = move || ends.with(|(_, last)| *last == Some(key));
    let id = tool.id.as_str();
    let try_href = [
        "/console/apps/",
        &encode_component(package),
        "/tools/",
        &encode_component(id),
        "/try",
    ]
    .concat();
    let up_label = ["Move ", id, " up"].concat();
    let down_label = ["Move ", id, " down"].concat();
    let (up_id, down_id, edit_id) = (id.to_owned(), id.to_owned(), id.to_owned());

    // Without JavaScript the buttons are hidden (style/main.css). They are
    // in no form, so they need no `type`.
    view! {
        <li class="tool-card">
            <div class="tool-text">
                <h3>{tool.id.clone()}</h3>
                <p>{tool.description.clone()}</p>
                <p class="meta">{tool.meta_text()}</p>
            </div>
            <div class="card-actions">
                <button
                    aria-label=up_label
                    disabled=move || first() || busy.get()
                    on:click=move |_| on_move.run((up_id.clone(), MoveDirection::Up))
                >
                    "↑"
                </button>
                <button
                    aria-label=down_label
                    disabled=move || last() || busy.get()
                    on:click=move |_| on_move.run((down_id.clone(), MoveDirection::Down))
                >
                    "↓"
                </button>
                <a class="button" href=try_href>"Try"</a>
                <button
                    id=format!("tool-{key}-edit")
                    aria-busy=move || {
                        if opening.with(|o| matches!(o, Some((k, _)) if *k == key)) {
                            "true"
                        } else {
                            "false"
                        }
                    }
                    on:click=move |_| on_edit.run((key, edit_id.clone()))
                >
                    "Edit"
                </button>
            </div>
        </li>
    }
}

/// The tool and field a finding's link asks to open, from the page's query
/// (`?tool=add_todo&field=hints.destructive`).
fn tool_and_field(search: &str) -> Option<(String, String)> {
    let (mut tool, mut field) = (None, None);
    for pair in search.trim_start_matches('?').split('&') {
        match pair.split_once('=') {
            Some(("tool", value)) => tool = Some(value.to_owned()),
            Some(("field", value)) => field = Some(value.to_owned()),
            _ => {}
        }
    }
    Some((tool.filter(|t| !t.is_empty())?, field.unwrap_or_default()))
}
