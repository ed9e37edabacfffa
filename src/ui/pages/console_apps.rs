use leptos::prelude::*;
use leptos_meta::Title;

/// `/console/apps`: the developer's apps.
#[component]
pub fn AppsPage() -> impl IntoView {
    view! {
        <Title text="Apps"/>
        <section class="stack" aria-labelledby="apps-title">
            <h1 id="apps-title">"Apps"</h1>
            <p>"Your apps will be listed here."</p>
        </section>
    }
}
