// Wakes the page's islands. In place of Leptos's island script (which wakes
// every island once the browser is idle), with one addition: the islands
// inside an element marked data-hydrate="on-interaction" wait until the
// pointer, a touch or the focus comes to that element, so their code is not
// part of the page's first load. A button clicked or a form submitted there
// before its island is awake is held, and clicked or submitted again once it
// is (or, for a form that posts without JavaScript, submitted as a plain form
// post if the island's code cannot be had).
((pkgPath, jsName, wasmName) => {
  let bundle;
  const loadBundle = () =>
    (bundle ??= import(`/${pkgPath}/${jsName}.js`).then(async (mod) => {
      await mod.default({ module_or_path: `/${pkgPath}/${wasmName}.wasm` });
      mod.hydrate();
      return mod;
    }));

  const deferred = (el) => el.dataset.hydrate === "on-interaction";

  async function wakeIsland(el, mod, onHydrate) {
    const wake = mod[el.dataset.component];
    if (!wake) {
      console.warn(`No wasm function for the island ${el.dataset.component}.`);
      return;
    }
    // A nested island hydrates inside its parent's reactive owner.
    onHydrate?.();
    await wake(el);
  }

  // Wakes the islands under `node` in document order, leaving the deferred
  // regions in it to wake on their own. `onHydrate` is the callback of the
  // island children being walked (`leptos-children`), if any.
  async function walk(node, mod, onHydrate) {
    for (const child of node.children) {
      const tag = child.tagName.toLowerCase();
      if (deferred(child)) {
        watch(child, onHydrate);
      } else if (tag === "leptos-island") {
        await wakeIsland(child, mod, onHydrate);
        await walk(child, mod, onHydrate);
      } else if (tag === "leptos-children") {
        await walk(child, mod, child.$$on_hydrate);
      } else {
        await walk(child, mod, onHydrate);
      }
    }
  }

  // Settles when `work` does; fails if the wasm aborts first (a lazy chunk
  // that fails to load panics, and the abort surfaces as an uncaught
  // RuntimeError, not as a failed promise) or if `work` takes longer than a
  // page should wait (a request that hangs).
  const untilTrapped = (work, ms) => {
    let fail, timer;
    const trapped = new Promise((_, reject) => {
      fail = (event) => {
        const error = event.error ?? event.reason;
        if (error instanceof WebAssembly.RuntimeError) reject(error);
      };
      addEventListener("error", fail);
      addEventListener("unhandledrejection", fail);
      timer = setTimeout(() => reject(new Error(`not awake after ${ms / 1000} s`)), ms);
    });
    return Promise.race([work, trapped]).finally(() => {
      removeEventListener("error", fail);
      removeEventListener("unhandledrejection", fail);
      clearTimeout(timer);
    });
  };

  const triggers = ["pointerover", "focusin", "touchstart"];
  const watched = new WeakSet();
  // The callback of the island children a region is in, once a walk has
  // found it there (regions are watched before any walk).
  const childrenOf = new WeakMap();

  function watch(region, onHydrate) {
    if (onHydrate) childrenOf.set(region, onHydrate);
    if (watched.has(region)) return;
    watched.add(region);
    let waking;
    // What was asked of the region before it woke: each element once.
    const held = new Map();

    const stopHolding = () => {
      for (const type of triggers) region.removeEventListener(type, wake);
      region.removeEventListener("click", hold, true);
      region.removeEventListener("submit", hold, true);
    };
    const replay = (awake) => {
      for (const [target, submitter] of held) {
        if (!target.isConnected) continue;
        try {
          if (target instanceof HTMLFormElement) {
            // Without its island, a form that posts without JavaScript does.
            if (awake || target.hasAttribute("action")) {
              try {
                target.requestSubmit(submitter?.isConnected ? submitter : undefined);
              } catch {
                target.requestSubmit(); // the submitter is no longer this form's
              }
            }
          } else if (awake && !target.disabled) {
            target.click();
          }
        } catch (error) {
          console.error(error);
        }
      }
      held.clear();
    };
    function wake() {
      waking ??= untilTrapped(
        loadBundle().then((mod) => walk(region, mod, childrenOf.get(region))),
        15_000,
      ).then(
        () => {
          stopHolding();
          replay(true);
        },
        (error) => {
          console.error("Could not wake the islands here:", error);
          stopHolding();
          replay(false);
        },
      );
    }
    function hold(event) {
      let target;
      if (event.type === "submit") {
        target = event.target;
        held.set(target, event.submitter);
      } else {
        // A button that submits no form (a submit is held as such).
        target = event.target.closest?.("button");
        if (!target || !region.contains(target) || (target.form && target.type !== "button")) return;
        held.set(target, null);
      }
      event.preventDefault();
      event.stopImmediatePropagation();
      wake();
    }

    for (const type of triggers) region.addEventListener(type, wake, { passive: true });
    region.addEventListener("click", hold, true);
    region.addEventListener("submit", hold, true);
  }

  // Deferred regions listen at once (the pointer may get there before the
  // bundle does); the rest wake when the browser is idle, as Leptos does.
  for (const region of document.querySelectorAll('[data-hydrate="on-interaction"]')) watch(region);
  const idle = window.requestIdleCallback ?? ((callback) => callback());
  idle(() =>
    loadBundle()
      .then((mod) => walk(document.body, mod, undefined))
      .catch((error) => console.error("Could not wake the page's islands:", error)),
  );
})
