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

/// `/signup`
#[component]
pub fn SignupPage() -> impl IntoView {
    let initial_error = url_error::<Signup>();
    view! {
        <Title text="Sign up"/>
        <section class="card narrow stack" aria-labelledby="signup-title">
            <h1 id="signup-title">"Create your account"</h1>
            <SignupForm initial_error/>
            <p>"Already registered? " <a href="/login">"Log in"</a></p>
        </section>
    }
}

/// `/login`; `?next=/console/…` is where to go afterwards.
#[component]
pub fn LoginPage() -> impl IntoView {
    let next = use_query_map()
        .read_untracked()
        .get("next")
        .filter(|n| !n.is_empty());
    let initial_error = url_error::<Login>();
    view! {
        <Title text="Log in"/>
        <section class="card narrow stack" aria-labelledby="login-title">
            <h1 id="login-title">"Log in to Toolwright"</h1>
            <LoginForm next initial_error/>
            <p>"No account yet? " <a href="/signup">"Sign up"</a></p>
        </section>
    }
}
