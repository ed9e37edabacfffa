//! How a page waits for its data.

use leptos::prelude::Suspend;
use std::{
    future::Future,
    pin::Pin,
    task::{Context, Poll},
};

/// What a page's `<Suspense>` shows: the view its future makes once the
/// page's data are loaded, built once.
///
/// Before it renders, a `<Suspense>` on the server walks the views under it
/// (`dry_resolve`) to find the resources they read, peeking at a `Suspend`'s
/// future with a waker that does nothing; when the data had arrived by then,
/// the walk built the whole page's view (every tool's card of the app page),
/// threw it away and built it again to render: a fifth of the app page's
/// time. Pages read no resources, so leaving their future unfinished until it
/// is awaited for real misses nothing.
pub fn page_view<V: 'static>(view: impl Future<Output = V> + Send + 'static) -> Suspend<V> {
    Suspend::new(page_data(view))
}

/// The same future, except that it makes no progress when merely peeked at.
fn page_data<F: Future>(future: F) -> PageData<F> {
    PageData(Box::pin(future))
}

/// See [`page_data`].
struct PageData<F>(Pin<Box<F>>);

impl<F: Future> Future for PageData<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // A waker without data cannot wake anything: it belongs to a peek
        // (futures' `now_or_never`, std's `Waker::noop`), never to a task an
        // executor runs (tokio's and the browser's point at their task).
        if cx.waker().data().is_null() {
            return Poll::Pending;
        }
        self.0.as_mut().poll(cx)
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use futures_util::FutureExt;
    use leptos::prelude::*;
    use std::sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    };

    #[tokio::test]
    async fn a_peek_makes_no_progress_and_awaiting_does() {
        let polled = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&polled);
        let mut data = page_data(async move {
            counter.fetch_add(1, Ordering::SeqCst);
            7
        });
        assert_eq!((&mut data).now_or_never(), None);
        assert_eq!(polled.load(Ordering::SeqCst), 0, "the peek ran the future");
        assert_eq!(data.await, 7);
        assert_eq!(polled.load(Ordering::SeqCst), 1);
    }

    /// Renders `<Suspense>` over a `Suspend` of data that are there at once,
    /// and counts how often the view under it was built.
    async fn views_built(wrapped: bool) -> (usize, String) {
        let built = Arc::new(AtomicUsize::new(0));
        let html = {
            let built = Arc::clone(&built);
            let _ = any_spawner::Executor::init_tokio();
            let owner = Owner::new_root(Some(Arc::new(hydration_context::SsrSharedContext::new())));
            let stream = owner.with(move || {
                let data = async { "ready".to_owned() };
                let view = move |text: String| {
                    let built = Arc::clone(&built);
                    view! {
                        <p>{move || {
                            built.fetch_add(1, Ordering::SeqCst);
                            text.clone()
                        }}</p>
                    }
                };
                // As the pages do: the future that loads and makes the view.
                let make = async move { view(data.await) };
                let content = if wrapped {
                    page_view(make).into_any()
                } else {
                    Suspend::new(make).into_any()
                };
                view! { <Suspense fallback=|| "Loading">{content}</Suspense> }
                    .to_html_stream_in_order()
            });
            use futures_util::StreamExt;
            stream.collect::<Vec<_>>().await.concat()
        };
        (built.load(Ordering::SeqCst), html)
    }

    #[tokio::test]
    async fn a_page_view_is_built_once_under_suspense() {
        let (unwrapped, html) = views_built(false).await;
        assert!(html.contains("ready"), "{html}");
        // The control: data there at once are walked before rendering.
        assert!(unwrapped > 1, "built {unwrapped} times without page_view");
        let (wrapped, html) = views_built(true).await;
        assert!(html.contains("ready"), "{html}");
        assert_eq!(wrapped, 1);
    }
}
