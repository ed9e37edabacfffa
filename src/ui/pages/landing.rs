use crate::ui::{
    components::phrase_preview::{PhrasePreview, EXAMPLE},
    session::current_developer,
};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

/// `/`: what Toolwright is, and the way in.
#[component]
pub fn LandingPage() -> impl IntoView {
    let signed_in = current_developer().is_some();
    let phrases = use_query_map()
        .read_untracked()
        .get("phrases")
        .unwrap_or_else(|| EXAMPLE.to_owned());
    view! {
        <Title text=""/>
        <section class="hero" aria-labelledby="hero-title">
            <h1 id="hero-title">"Define the AI tools your app exposes"</h1>
            <p class="lead">
                "Toolwright is a console for developers of voice and LLM assistant apps. "
                "Describe each tool once — its id, what it does, the phrases that activate it "
                "and its typed parameters — and export it as Mentra "
                <code>"app_config.json"</code>
                " or as MCP, OpenAI, Anthropic, Gemini and Tambo tool definitions."
            </p>
            <p class="actions">
                {if signed_in {
                    view! { <a class="button primary" href="/console/apps">"Console"</a> }.into_any()
                } else {
                    view! {
                        <a class="button primary" href="/signup">"Sign up"</a>
                        <a class="button" href="/login">"Log in"</a>
                    }
                        .into_any()
                }}
            </p>
        </section>
        <section class="features" aria-label="Features">
            <article>
                <h2>"Validated as you type"</h2>
                <p>"Every rule the assistants enforce is checked in the browser and again on the server, with the message next to the field."</p>
            </article>
            <article>
                <h2>"Seven export formats"</h2>
                <p>"Deterministic JSON — same tools, same bytes — so your config can live in git."</p>
            </article>
            <article>
                <h2>"Nothing lost"</h2>
                <p>"Every change is a revision you can look at and restore; stale saves are refused, never silently overwritten."</p>
            </article>
        </section>
        <PhrasePreview text=phrases/>
    }
}
