#![recursion_limit = "256"]
//! Toolwright: a console where developers define the AI tools their voice and
//! LLM assistant apps expose, and export them as config JSON.
//!
//! One crate, two builds: the `ssr` feature builds the server (binary in
//! `main.rs`), the `hydrate` feature builds the wasm that wakes the islands.

pub mod api;
pub mod app;
pub mod domain;
pub mod ui;

#[cfg(feature = "ssr")]
pub mod server;

/// The wasm entry point: hydrates the interactive islands of a server-rendered page.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // Islands have no client-side router, so a server function's redirect
    // (after log-in, say) becomes a page load.
    let _ = leptos::server_fn::redirect::set_redirect_hook(|location: &str| {
        let _ = leptos::prelude::window().location().set_href(location);
    });
    leptos::mount::hydrate_islands();
}
