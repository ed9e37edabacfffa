use crate::domain::lists::parse_phrases;
use leptos::prelude::*;

/// The text the demonstration starts with.
pub const EXAMPLE: &str = "add a reminder, Create a todo,, create a TODO ,remind me to";

/// A demonstration of how the console reads a comma-separated "Activation
/// phrases" field, with the same parser as the server: `text` parsed, and a
/// form that parses what is typed into it. A plain GET form, so the landing
/// page needs no JavaScript.
#[component]
pub fn PhrasePreview(text: String) -> impl IntoView {
    let phrases = parse_phrases(&text);
    let count = match phrases.len() {
        0 => "No phrases".to_owned(),
        1 => "1 phrase".to_owned(),
        n => format!("{n} phrases"),
    };
    view! {
        <section class="card demo" aria-labelledby="demo-title">
            <h2 id="demo-title">"Try it: how activation phrases are read"</h2>
            <p>
                "Phrases are typed into one field, separated by commas. Toolwright trims them, "
                "drops empty ones and drops repeats regardless of case."
            </p>
            <form method="get" action="/#demo-title" class="demo-form">
                <label for="demo-phrases">"Phrases to parse"</label>
                <input id="demo-phrases" name="phrases" type="text" autocomplete="off" value=text/>
                <button type="submit">"Parse"</button>
            </form>
            <p id="demo-count">{count}</p>
            <ul class="chips" aria-label="Parsed phrases">
                {phrases
                    .into_iter()
                    .map(|phrase| view! { <li class="chip">{phrase}</li> })
                    .collect_view()}
            </ul>
        </section>
    }
}
