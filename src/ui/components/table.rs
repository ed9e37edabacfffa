//! The console's lists as tables: a row a thing, its columns headed, read
//! as label-and-value pairs on a phone (`table.stacked` in style/main.css,
//! each cell carrying its `data-label`), scrolling inside its own box
//! rather than the page.

use leptos::prelude::*;

/// A table of `columns` holding the rows given as children. Named by a
/// `caption` (shown, or only to screen readers with `hidden_caption`), by
/// the heading `labelled_by`, or by the region it stands in. With
/// `actions`, a last column for each row's buttons, its header read only by
/// screen readers.
#[component]
pub fn StackedTable(
    columns: &'static [&'static str],
    #[prop(optional)] caption: Option<&'static str>,
    #[prop(optional)] hidden_caption: bool,
    #[prop(optional)] labelled_by: Option<&'static str>,
    #[prop(optional)] actions: bool,
    children: Children,
) -> impl IntoView {
    let caption = caption.map(|text| {
        let class = hidden_caption.then_some("visually-hidden");
        view! { <caption class=class>{text}</caption> }
    });
    let headers = columns
        .iter()
        .map(|name| view! { <th scope="col">{*name}</th> })
        .collect_view();
    let actions = actions
        .then(|| view! { <th scope="col"><span class="visually-hidden">"Actions"</span></th> });
    view! {
        <div class="table-wrap">
            <table class="stacked" aria-labelledby=labelled_by>
                {caption}
                <thead>
                    <tr>{headers} {actions}</tr>
                </thead>
                <tbody>{children()}</tbody>
            </table>
        </div>
    }
}
