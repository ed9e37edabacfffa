//! The scripts that wake the page's islands: Leptos's `HydrationScripts` for
//! islands, but for one thing — islands inside an element marked
//! `data-hydrate="on-interaction"` wake when the pointer, a touch or the
//! focus first comes to it, rather than at load (see `islands.js`). The app
//! page's island (its details, tools, API keys and deletion) is such: its
//! code is most of what the page would fetch, and a page that is only
//! looked at never needs it. Such an island must keep what was typed into
//! it before it woke: it reads its fields' values from the page (plain
//! attributes and form data, or a `NodeRef`), or takes them in once awake
//! (`form::typed_before_waking`), never sets them from a signal when waking
//! (a `prop:value` does).

use leptos::prelude::*;

/// The attribute and value that defer the islands inside an element.
pub const ON_INTERACTION: &str = "on-interaction";

/// In the `<head>`: preloads the bundle and runs the island loader. Unlike
/// `HydrationScripts` it does not read content-hashed file names: the
/// console's build does not hash them (`hash-files` is off).
#[component]
pub fn IslandScripts(options: LeptosOptions) -> impl IntoView {
    // Islands are rendered as server HTML, not as hydration markers (what
    // `HydrationScripts` does for islands too).
    if let Some(shared) = Owner::current_shared_context() {
        shared.set_is_hydrating(false);
    }
    // Hashed names would be in a file beside the binary, which this does not
    // read: the bundle would not be found.
    assert!(
        !options.hash_files,
        "IslandScripts does not read hashed file names"
    );
    let pkg = options.site_pkg_dir.to_string();
    let js = options.output_name.to_string();
    // cargo-leptos names the wasm after the output, with `_bg` unless it set
    // LEPTOS_OUTPUT_NAME for the build (as `HydrationScripts` reckons it).
    let wasm = if option_env!("LEPTOS_OUTPUT_NAME").is_some() {
        js.clone()
    } else {
        format!("{js}_bg")
    };
    let nonce = leptos::nonce::use_nonce();
    let script = format!(
        "{}({pkg:?}, {js:?}, {wasm:?});",
        include_str!("islands.js").trim_end()
    );
    view! {
        // Before the body is drawn: the page has JavaScript (`.needs-js`, the
        // tool cards' buttons and `.no-js` in style/main.css).
        <script nonce=nonce.clone()>"document.documentElement.classList.add('js')"</script>
        <link rel="modulepreload" href=format!("/{pkg}/{js}.js")/>
        <link
            rel="preload"
            href=format!("/{pkg}/{wasm}.wasm")
            r#as="fetch"
            r#type="application/wasm"
            crossorigin="anonymous"
        />
        <script type="module" nonce=nonce>{script}</script>
    }
}
