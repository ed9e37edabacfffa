use crate::ui::components::status_page::StatusPage;
use leptos::prelude::*;

/// Every path no route matches: a real 404, not a 200 with an apology.
#[component]
pub fn NotFoundPage() -> impl IntoView {
    view! {
        <StatusPage
            status=404
            title="Page not found"
            message="There is nothing at this address. Check the link, or start again from the start page."
        />
    }
}
