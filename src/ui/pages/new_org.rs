//! `/console/orgs/new`: a plain HTML form.

use crate::{
    api::orgs::CreateOrg,
    ui::components::form::{field_message, initial_value, url_error, FormAlert, TextField},
};
use leptos::{prelude::*, server_fn::ServerFn};
use leptos_meta::Title;

/// `/console/orgs/new`
#[component]
pub fn NewOrgPage() -> impl IntoView {
    let error = url_error::<CreateOrg>();
    let name = initial_value(&error, "name", "");
    let name_error = field_message(Signal::stored(error.clone()), "name");
    let message = error.as_ref().map(ToString::to_string);
    view! {
        <Title text="New organization"/>
        <section class="card stack narrow-wide" aria-labelledby="new-org-title">
            <h1 id="new-org-title">"Create an organization"</h1>
            <p>
                "An organization holds apps that a team builds together. You will be its admin, "
                "and can invite others by a link."
            </p>
            <form method="post" action=CreateOrg::PATH novalidate aria-label="New organization">
                <FormAlert message=Signal::stored(message)/>
                <TextField
                    label="Organization name"
                    name="name"
                    id="org-name"
                    value=name
                    autocomplete="organization"
                    required=true
                    hint="1 to 100 characters. Its web address is made from it."
                    error=name_error
                />
                <div class="form-actions">
                    <button type="submit" class="primary">"Create organization"</button>
                </div>
            </form>
        </section>
    }
}
