use crate::{
    api::apps::CreateApp,
    ui::components::{app_forms::NewAppForm, form::url_error},
};
use leptos::prelude::*;
use leptos_meta::Title;

/// `/console/apps/new`
#[component]
pub fn NewAppPage() -> impl IntoView {
    let initial_error = url_error::<CreateApp>();
    view! {
        <Title text="New app"/>
        <section class="card stack narrow-wide" aria-labelledby="new-app-title">
            <h1 id="new-app-title">"Create an app"</h1>
            <NewAppForm initial_error/>
        </section>
    }
}
