use crate::{
    api::auth::{Login, Signup},
    ui::components::{
        auth_forms::{LoginForm, SignupForm},
        form::url_error,
    },
};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

/// Where to go after logging in or signing up (`?next=`), if anywhere.
fn next_page() -> Option<String> {
    use_query_map()
        .read_untracked()
        .get("next")
        .filter(|n| !n.is_empty())
}

/// The other form's link, keeping where to go afterwards.
fn keeping_next(path: &str, next: &Option<String>) -> String {
    match next {
        Some(next) => format!("{path}?next={}", crate::domain::url::encode_component(next)),
        None => path.to_owned(),
    }
}

/// `/signup`; `?next=` as for `/login` (an invitation link, say).
#[component]
pub fn SignupPage() -> impl IntoView {
    let next = next_page();
    let login = keeping_next("/login", &next);
    let initial_error = url_error::<Signup>();
    view! {
        <Title text="Sign up"/>
        <section class="card narrow stack" aria-labelledby="signup-title">
            <h1 id="signup-title">"Create your account"</h1>
            <SignupForm next initial_error/>
            <p>"Already registered? " <a href=login>"Log in"</a></p>
        </section>
    }
}

/// `/login`; `?next=/console/…` is where to go afterwards.
#[component]
pub fn LoginPage() -> impl IntoView {
    let next = next_page();
    let signup = keeping_next("/signup", &next);
    let initial_error = url_error::<Login>();
    view! {
        <Title text="Log in"/>
        <section class="card narrow stack" aria-labelledby="login-title">
            <h1 id="login-title">"Log in to Toolwright"</h1>
            <LoginForm next initial_error/>
            <p>"No account yet? " <a href=signup>"Sign up"</a></p>
        </section>
    }
}
