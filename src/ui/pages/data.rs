//! How a page waits for its data.

use std::{
    future::Future,
    pin::Pin,
    task::{Context, Poll},
};

/// A page's data, for the `Suspend` under its `<Suspense>`: the same future,
/// except that it makes no progress when merely peeked at.
///
/// Before it renders, a `<Suspense>` on the server walks the views under it
/// (`dry_resolve`) to find the resources they read, peeking at a `Suspend`'s
/// future with a waker that does nothing; when the data have arrived by then,
/// the walk builds the whole page's view (every tool's card of the app page),
/// throws it away and builds it again to render: a fifth of the app page's
/// time. Pages read no resources, so leaving their data unfinished until they
/// are awaited for real misses nothing.
pub fn page_data<F: Future>(future: F) -> PageData<F> {
    PageData(Box::pin(future))
}

/// See [`page_data`].
pub struct PageData<F>(Pin<Box<F>>);

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
                let content = if wrapped {
                    Suspend::new(async move { view(page_data(data).await) }.boxed()).into_any()
                } else {
                    Suspend::new(async move { view(data.await) }.boxed()).into_any()
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
    async fn the_page_is_built_once_under_suspense() {
        let (unwrapped, html) = views_built(false).await;
        assert!(html.contains("ready"), "{html}");
        // The control: data there at once are walked before rendering.
        assert!(unwrapped > 1, "built {unwrapped} times without page_data");
        let (wrapped, html) = views_built(true).await;
        assert!(html.contains("ready"), "{html}");
        assert_eq!(wrapped, 1);
    }
}
