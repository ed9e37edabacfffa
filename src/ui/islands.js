// Wakes the page's islands. In place of Leptos's island script (which wakes
// every island once the browser is idle), with one addition: the islands
// inside an element marked data-hydrate="on-interaction" wait until the
// pointer, a touch or the focus comes to that element, so their code is not
// part of the page's first load. A button clicked or a form submitted there
// before its island is awake is held, and clicked or submitted again once it
// is (or, for a form, submitted as a plain form post if the island's code
// cannot be had).
((pkgPath, jsName, wasmName) => {
  let bundle;
  const loadBundle = () =>
    (bundle ??= import(`/${pkgPath}/${jsName}.js`).then(async (mod) => {
      await mod.default({ module_or_path: `/${pkgPath}/${wasmName}.wasm` });
      mod.hydrate();
      return mod;
    }));

  const deferred = (el) => el.dataset.hydrate === "on-interaction";

  // The callbacks of the islands' children being walked (nested islands
  // hydrate inside their parent's reactive owner).
  const childrenCallbacks = [];

  async function wakeIsland(el, mod) {
    const wake = mod[el.dataset.component];
    if (!wake) {
      console.warn(`No wasm function for the island ${el.dataset.component}.`);
      return;
    }
    childrenCallbacks.at(-1)?.();
    await wake(el);
  }

  // Wakes the islands under `node` in document order, leaving deferred
  // regions alone unless `node` is the region being woken.
  async function walk(node, mod, region) {
    for (const child of node.children) {
      const tag = child.tagName.toLowerCase();
      if (child !== region && deferred(child)) {
        watch(child);
      } else if (tag === "leptos-island") {
        await wakeIsland(child, mod);
        await walk(child, mod, region);
      } else if (tag === "leptos-children") {
        childrenCallbacks.push(child.$$on_hydrate);
        await walk(child, mod, region);
        childrenCallbacks.pop();
      } else {
        await walk(child, mod, region);
      }
    }
  }

  // Settles when `work` does, or fails on the first uncaught error before
  // then: an island whose code cannot be fetched does not fail its promise,
  // the wasm aborts (a lazy chunk that fails to load panics) and the error
  // surfaces as an uncaught one.
  const untilTrapped = (work) => {
    let fail;
    const trapped = new Promise((_, reject) => {
      fail = (event) => reject(event.error ?? event.reason ?? new Error(event.message));
      addEventListener("error", fail);
      addEventListener("unhandledrejection", fail);
    });
    return Promise.race([work, trapped]).finally(() => {
      removeEventListener("error", fail);
      removeEventListener("unhandledrejection", fail);
    });
  };

  const triggers = ["pointerover", "focusin", "touchstart"];
  const watched = new WeakSet();

  function watch(region) {
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
    const replay = (ok) => {
      for (const [target, submitter] of held) {
        if (!target.isConnected) continue;
        if (target instanceof HTMLFormElement) {
          // Without its island, a form that posts without JavaScript does.
          if (ok || target.hasAttribute("action")) {
            target.requestSubmit(submitter?.isConnected ? submitter : undefined);
          }
        } else if (ok && !target.disabled) {
          target.click();
        }
      }
      held.clear();
    };
    function wake() {
      waking ??= untilTrapped(loadBundle().then((mod) => walk(region, mod, region)))
        .then(
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
        target = event.target.closest?.('button[type="button"]');
        if (!target || !region.contains(target)) return;
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
  idle(() => loadBundle().then((mod) => walk(document.body, mod, null)));
})
