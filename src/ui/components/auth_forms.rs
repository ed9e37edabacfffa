//! The sign-up and log-in forms. Islands: with JavaScript they submit in the
//! background, keep what was typed and show errors in place; without it they
//! are plain form posts, and the page shows the error the server sent back.

use crate::{
    api::{
        auth::{Login, Signup},
        AppError,
    },
    ui::components::form::{
        field_message, form_error, form_message, initial_value, FormAlert, SubmitButton, TextField,
    },
};
use leptos::prelude::*;

#[component]
pub fn SignupForm(next: Option<String>, initial_error: Option<AppError>) -> impl IntoView {
    let action = ServerAction::<Signup>::new();
    let email = initial_value(&initial_error, "email", "");
    let error = form_error(action, initial_error);
    view! {
        <ActionForm action=action attr:novalidate=true attr:aria-label="Sign up">
            <FormAlert message=form_message(error)/>
            <TextField
                label="Email"
                name="email"
                id="signup-email"
                value=email
                kind="email"
                autocomplete="email"
                required=true
                error=field_message(error, "email")
            />
            <TextField
                label="Password"
                name="password"
                id="signup-password"
                kind="password"
                autocomplete="new-password"
                hint="12 to 128 characters. A few unrelated words make a good one."
                required=true
                error=field_message(error, "password")
            />
            {next.map(|next| view! { <input type="hidden" name="next" value=next/> })}
            <div class="form-actions">
                <SubmitButton label="Create account" pending=action.pending()/>
            </div>
        </ActionForm>
    }
}

#[component]
pub fn LoginForm(next: Option<String>, initial_error: Option<AppError>) -> impl IntoView {
    let action = ServerAction::<Login>::new();
    let email = initial_value(&initial_error, "email", "");
    let error = form_error(action, initial_error);
    view! {
        <ActionForm action=action attr:novalidate=true attr:aria-label="Log in">
            <FormAlert message=form_message(error)/>
            <TextField
                label="Email"
                name="email"
                id="login-email"
                value=email
                kind="email"
                autocomplete="username"
                required=true
                error=field_message(error, "email")
            />
            <TextField
                label="Password"
                name="password"
                id="login-password"
                kind="password"
                autocomplete="current-password"
                required=true
                error=field_message(error, "password")
            />
            {next.map(|next| view! { <input type="hidden" name="next" value=next/> })}
            <div class="form-actions">
                <SubmitButton label="Log in" pending=action.pending()/>
            </div>
        </ActionForm>
    }
}
