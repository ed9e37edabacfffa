//! The `<html>` shell, the routes and the layout every page shares.

use crate::ui::{
    components::site_header::SiteHeader,
    pages::{
        app_page::AppPage,
        auth::{LoginPage, SignupPage},
        console_apps::AppsPage,
        evals_page::EvalsPage,
        export_page::ExportPage,
        exports_guide::ExportsGuidePage,
        hints_page::HintsPage,
        history_page::HistoryPage,
        import_page::ImportPage,
        invitation::InvitationPage,
        landing::LandingPage,
        new_app::NewAppPage,
        new_org::NewOrgPage,
        not_found::NotFoundPage,
        org_page::OrgPage,
        try_page::TryPage,
    },
};
use leptos::nonce::use_nonce;
use leptos::prelude::*;
use leptos_meta::{provide_meta_context, HashedStylesheet, MetaTags, Title};
use leptos_router::{
    components::{Route, Router, Routes},
    path, SsrMode,
};

/// The document around every page. Only the islands are hydrated in the
/// browser; everything else is server-rendered HTML, and a page without
/// islands loads no script at all.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    let console_script = crate::ui::session::current_developer()
        .is_some()
        .then(|| view! { <script nonce=use_nonce()>{CONSOLE_SCRIPT}</script> });
    let hydration = page_has_islands().then(|| {
        view! {
            // Before the body is drawn: the page has JavaScript (`.js` in
            // style/main.css shows what needs it).
            <script nonce=use_nonce()>"document.documentElement.classList.add('js')"</script>
            <HydrationScripts options=options.clone() islands=true/>
        }
    });
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <meta name="color-scheme" content="light dark"/>
                <HashedStylesheet options=options.clone()/>
                <link rel="icon" href="/favicon.svg" type="image/svg+xml"/>
                <AutoReload options=options.clone()/>
                {console_script}
                {hydration}
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// For a signed-in developer's pages, islands or not: a few lines that
/// make the plain forms quicker to use — a select marked
/// `data-submit-on-change` (the organization switcher, a member's role)
/// applies at once, a form marked `data-confirm` asks first (and says so to
/// the server in its `confirmed` field), a button marked `data-copy` copies
/// the field it names, a page opened at a part of it (`#run`, after a
/// plain form's post) puts the focus there (on a form's first field), and
/// an eval run under way (`data-run-progress`) keeps its progress bar up to
/// date and shows its results when it ends.
/// Without them every form still works, with its button, a confirmation
/// page and a "Refresh" link.
const CONSOLE_SCRIPT: &str = r#"document.documentElement.classList.add('js');
document.addEventListener('change', function (e) {
  var t = e.target;
  if (t.matches && t.matches('select[data-submit-on-change]') && t.form) t.form.requestSubmit();
});
document.addEventListener('submit', function (e) {
  var f = e.target, q = f.getAttribute && f.getAttribute('data-confirm');
  if (!q) return;
  if (!window.confirm(q)) { e.preventDefault(); return; }
  var c = f.querySelector('input[name=confirmed]');
  if (c) c.value = 'yes';
});
document.addEventListener('click', function (e) {
  var b = e.target.closest && e.target.closest('button[data-copy]');
  if (!b) return;
  var field = document.getElementById(b.getAttribute('data-copy'));
  if (!field || !navigator.clipboard) return;
  navigator.clipboard.writeText(field.value).then(function () { b.textContent = 'Copied'; });
});
// Once the browser has scrolled to the fragment (which would take the
// focus back to the page).
// Not when the developer has already put the focus somewhere.
window.addEventListener('load', function () {
  var id; try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
  var target = id && document.getElementById(id);
  if (!target || id === 'main') return;
  var now = document.activeElement;
  if (now && now !== document.body && now !== target) return;
  var field = target.matches('form') && target.querySelector('input:not([type=hidden]):not([disabled]), select:not([disabled]), textarea:not([disabled])');
  if (!field && target.tabIndex < 0) target.setAttribute('tabindex', '-1');
  (field || target).focus({ preventScroll: true });
});
document.addEventListener('DOMContentLoaded', function () {
  var run = document.querySelector('[data-run-progress]');
  if (!run) return;
  var bar = run.querySelector('progress'), text = run.querySelector('[data-progress-text]');
  var status = run.querySelector('[data-progress-status]');
  var body = new URLSearchParams({ package_name: run.getAttribute('data-package'), id: run.getAttribute('data-run-progress') });
  function follow() {
    fetch('/api/evals/runs/progress', { method: 'POST', body: body, headers: { Accept: 'application/json' } })
      .then(function (r) { if (!r.ok) throw r; return r.json(); })
      .then(function (p) {
        if (!p.open) { location.hash = 'results'; location.reload(); return; }
        bar.max = Math.max(p.total, 1); bar.value = p.done;
        text.textContent = p.done + ' of ' + p.total + ' calls';
        status.textContent = p.status.charAt(0).toUpperCase() + p.status.slice(1);
        setTimeout(follow, 1000);
      }, function (r) {
        // Logged out, or the app is gone: nothing more to follow.
        if (!(r && r.status >= 400 && r.status < 500)) setTimeout(follow, 5000);
      });
  }
  setTimeout(follow, 1000);
});"#;

/// Whether the page asked for has islands: an app's own pages (the app,
/// its export, import and "Try" pages) do; the landing page, the forms to
/// sign up, log in and create an app, the lists, the history, the hints
/// of every tool and the evals work as plain HTML.
fn page_has_islands() -> bool {
    #[cfg(feature = "ssr")]
    {
        use_context::<http::request::Parts>().is_some_and(|parts| is_island_page(parts.uri.path()))
    }
    #[cfg(not(feature = "ssr"))]
    {
        true
    }
}

#[cfg(any(feature = "ssr", test))]
fn is_island_page(path: &str) -> bool {
    let mut segments = path.trim_end_matches('/').split('/').skip(1);
    let (Some("console"), Some("apps"), Some(package)) =
        (segments.next(), segments.next(), segments.next())
    else {
        return false;
    };
    package != "new" && !matches!(segments.next(), Some("history" | "hints" | "evals"))
}

/// The console's whole HTTP surface: its pages and server functions, in
/// the routes and layers of `server::http`.
#[cfg(feature = "ssr")]
pub fn router(state: crate::server::AppState) -> axum::Router {
    use crate::server::{http, AppState};
    use leptos_axum::{file_and_error_handler_with_context, generate_route_list, LeptosRoutes};

    let context = http::page_context(state.clone());
    let options = state.leptos_options.clone();
    let pages = axum::Router::new()
        .leptos_routes_with_context(
            &state,
            generate_route_list(App),
            context.clone(),
            move || shell(options.clone()),
        )
        .fallback(file_and_error_handler_with_context::<AppState, _>(
            context, shell,
        ));
    http::router(state, pages)
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();

    view! {
        <Title formatter=|page: String| {
            if page.is_empty() { "Toolwright".to_owned() } else { format!("{page} · Toolwright") }
        }/>
        <a class="skip-link" href="#main">"Skip to content"</a>
        <Router>
            <SiteHeader/>
            <main id="main" tabindex="-1">
                <Routes fallback=NotFoundPage>
                    <Route path=path!("/") view=LandingPage/>
                    <Route path=path!("/signup") view=SignupPage/>
                    <Route path=path!("/login") view=LoginPage/>
                    <Route path=path!("/docs/exports") view=ExportsGuidePage/>
                    // Console pages wait for their data before answering, so that
                    // the status (404 for someone else's app) is right and the
                    // page is complete without JavaScript.
                    <Route path=path!("/console/apps") view=AppsPage ssr=SsrMode::Async/>
                    <Route path=path!("/console/apps/new") view=NewAppPage ssr=SsrMode::Async/>
                    <Route
                        path=path!("/console/apps/:package_name")
                        view=AppPage
                        ssr=SsrMode::Async
                    />
                    <Route
                        path=path!("/console/apps/:package_name/export")
                        view=ExportPage
                        ssr=SsrMode::Async
                    />
                    <Route
                        path=path!("/console/apps/:package_name/import")
                        view=ImportPage
                        ssr=SsrMode::Async
                    />
                    <Route
                        path=path!("/console/apps/:package_name/tools/:tool_id/try")
                        view=TryPage
                        ssr=SsrMode::Async
                    />
                    <Route
                        path=path!("/console/apps/:package_name/history")
                        view=HistoryPage
                        ssr=SsrMode::Async
                    />
                    <Route
                        path=path!("/console/apps/:package_name/hints")
                        view=HintsPage
                        ssr=SsrMode::Async
                    />
                    <Route
                        path=path!("/console/apps/:package_name/evals")
                        view=EvalsPage
                        ssr=SsrMode::Async
                    />
                    <Route path=path!("/console/orgs/new") view=NewOrgPage ssr=SsrMode::Async/>
                    <Route path=path!("/console/orgs/:slug") view=OrgPage ssr=SsrMode::Async/>
                    <Route path=path!("/invitations/:token") view=InvitationPage ssr=SsrMode::Async/>
                </Routes>
            </main>
        </Router>
    }
}

#[cfg(test)]
mod tests {
    use super::is_island_page;

    #[test]
    fn only_an_apps_own_pages_load_the_islands() {
        for path in [
            "/console/apps/com.example.todo",
            "/console/apps/com.example.todo/",
            "/console/apps/com.example.todo/export",
            "/console/apps/com.example.todo/import",
            "/console/apps/com.example.todo/tools/add_todo/try",
        ] {
            assert!(is_island_page(path), "{path}");
        }
        for path in [
            "/",
            "/login",
            "/signup",
            "/console/apps",
            "/console/apps/new",
            "/console/apps/com.example.todo/history",
            "/console/apps/com.example.todo/hints",
            "/console/apps/com.example.todo/evals",
            "/no/such/page",
        ] {
            assert!(!is_island_page(path), "{path}");
        }
    }
}
