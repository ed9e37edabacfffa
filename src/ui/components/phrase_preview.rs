use crate::domain::lists::parse_phrases;
use leptos::prelude::*;

const EXAMPLE: &str = "add a reminder, Create a todo,, create a TODO ,remind me to";

/// A live demonstration of how the console reads a comma-separated
/// "Activation phrases" field, using the same parser as the server.
///
/// An island: the only part of the landing page that runs in the browser.
/// It marks itself `data-hydrated="true"` once awake, which the end-to-end
/// tests wait for instead of sleeping.
#[island(lazy)]
pub fn PhrasePreview() -> impl IntoView {
    let text = RwSignal::new(EXAMPLE.to_owned());
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    let phrases = Memo::new(move |_| parse_phrases(&text.read()));

    view! {
        <section
            class="card demo"
            aria-labelledby="demo-title"
            data-hydrated=move || if hydrated.get() { "true" } else { "false" }
        >
            <h2 id="demo-title">"Try it: how activation phrases are read"</h2>
            <p>
                "Phrases are typed into one field, separated by commas. Toolwright trims them, "
                "drops empty ones and drops repeats regardless of case."
            </p>
            <label for="demo-phrases">"Phrases to parse"</label>
            <input
                id="demo-phrases"
                type="text"
                autocomplete="off"
                value=EXAMPLE
                on:input=move |ev| text.set(event_target_value(&ev))
            />
            <p id="demo-count" aria-live="polite">
                {move || match phrases.read().len() {
                    0 => "No phrases".to_owned(),
                    1 => "1 phrase".to_owned(),
                    n => format!("{n} phrases"),
                }}
            </p>
            <ul class="chips" aria-label="Parsed phrases">
                {move || {
                    phrases
                        .get()
                        .into_iter()
                        .map(|phrase| view! { <li class="chip">{phrase}</li> })
                        .collect_view()
                }}
            </ul>
        </section>
    }
}
