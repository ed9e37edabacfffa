//! `/docs/exports`: the guide to what each export format does with each
//! field (`docs/exports.md`), as a page of the console. The checks and the
//! export page link to it.

use leptos::prelude::*;
use leptos_meta::Title;

/// The guide, rendered from its Markdown on the server (the page has no
/// islands, so it is never drawn in the browser).
#[component]
pub fn ExportsGuidePage() -> impl IntoView {
    view! {
        <Title text="Exports: which field becomes what"/>
        <article class="card guide" inner_html=guide_html()/>
    }
}

/// The guide's HTML: its own file, tables included.
fn guide_html() -> String {
    #[cfg(feature = "ssr")]
    {
        markdown_to_html(include_str!("../../../docs/exports.md"))
    }
    #[cfg(not(feature = "ssr"))]
    {
        String::new()
    }
}

#[cfg(feature = "ssr")]
fn markdown_to_html(markdown: &str) -> String {
    use pulldown_cmark::{html, Options, Parser};
    let parser = Parser::new_ext(markdown, Options::ENABLE_TABLES);
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, parser);
    // A wide table scrolls inside its own box, not the page.
    out.replace("<table>", r#"<div class="table-wrap"><table>"#)
        .replace("</table>", "</table></div>")
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;

    #[test]
    fn the_guide_is_a_page_with_a_heading_and_real_tables() {
        let html = guide_html();
        assert!(
            html.starts_with("<h1>Exports: which field becomes what</h1>"),
            "{html}"
        );
        assert!(html.contains(r#"<div class="table-wrap"><table>"#));
        assert!(html.contains("<code>readOnlyHint</code>"));
        assert!(!html.contains("| --- |"), "no table is left as Markdown");
    }
}
