//! The server's memory allocator (both binaries install it).
//!
//! mimalloc for everything but the largest blocks: a page of a large app is
//! built from many small allocations, and glibc's malloc spent about a third
//! of the page's time on them (see BENCHMARKS.md). Blocks of 4 MiB and more
//! — argon2's 19 MiB of working memory for each password hash, above all —
//! come from glibc instead, which maps such a block on its own (unless freed
//! heap memory fits it) and unmaps it when it is freed, so a burst of
//! log-ins leaves nothing resident behind it.

use std::alloc::{GlobalAlloc, Layout, System};

/// The size from which a block comes from glibc.
const LARGE: usize = 4 * 1024 * 1024;

/// Installed, with [`configure`], by [`install_allocator!`](crate::install_allocator).
pub struct Allocator;

/// Installs [`Allocator`] as the program's allocator, and on Linux has
/// [`configure`] run among the program's constructors (before any thread
/// starts): mimalloc's options must be set before its first allocation,
/// which Rust's runtime makes before `main`. Elsewhere both allocators keep
/// their defaults.
#[macro_export]
macro_rules! install_allocator {
    () => {
        #[global_allocator]
        static ALLOCATOR: $crate::server::alloc::Allocator = $crate::server::alloc::Allocator;

        #[cfg(target_os = "linux")]
        #[used]
        #[link_section = ".init_array"]
        static CONFIGURE_ALLOCATOR: unsafe extern "C" fn() = $crate::server::alloc::configure;
    };
}

// SAFETY: each block is freed or resized by the allocator that made it: a
// block's layout, which `dealloc` and `realloc` receive unchanged, tells
// which one that was; a block resized across the threshold is copied into a
// new block from the other allocator.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() >= LARGE {
            System.alloc(layout)
        } else {
            mimalloc::MiMalloc.alloc(layout)
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() >= LARGE {
            System.alloc_zeroed(layout)
        } else {
            mimalloc::MiMalloc.alloc_zeroed(layout)
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if layout.size() >= LARGE {
            System.dealloc(ptr, layout)
        } else {
            mimalloc::MiMalloc.dealloc(ptr, layout)
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        match (layout.size() >= LARGE, new_size >= LARGE) {
            (false, false) => mimalloc::MiMalloc.realloc(ptr, layout, new_size),
            (true, true) => System.realloc(ptr, layout, new_size),
            _ => {
                // SAFETY: `realloc`'s contract: `new_size`, rounded up to
                // `layout.align()`, does not overflow `isize`.
                let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
                let new = self.alloc(new_layout);
                if !new.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
                new
            }
        }
    }
}

/// mimalloc's options, by their place in mimalloc 3's `mi_option_e`
/// (mimalloc.h); libmimalloc-sys names only some of them. A test checks
/// that each still reads its documented default.
mod option {
    use libmimalloc_sys::mi_option_t;
    pub const ARENA_EAGER_COMMIT: mi_option_t = 4;
    pub const PURGE_DELAY: mi_option_t = 15;
}

/// Tunes both allocators, before the program's first allocation (see
/// [`install_allocator!`](crate::install_allocator)).
///
/// - mimalloc: arenas are committed as they are used, not all at once, and
///   freed memory goes back to the system after 0.1 s rather than 1 s.
///   With its defaults the resident size after `make bench` was 78–87 MB.
///   Giving memory back at once (no delay) kept it near 33 MB but cost the
///   app page a sixth of its speed: each request faulted in the pages the
///   last one had just returned (madvise, page faults and TLB flushes were
///   about 15% of its profile). With 0.1 s: p50 2.1–2.2 → 1.8 ms for one
///   client, 16 clients 860–930 → 1160 pages/s, resident size 34–38 MB.
/// - glibc (the largest blocks, and SQLite's own allocations): it gives
///   every thread that allocates its own arena and rarely returns freed
///   memory from them; two arenas keep the resident size close to the
///   working set. It maps blocks of 4 MiB and more on their own unless
///   freed heap memory fits them (the threshold is fixed rather than raised
///   as blocks are freed).
///
/// mimalloc's `MIMALLOC_ARENA_EAGER_COMMIT` and `MIMALLOC_PURGE_DELAY`
/// environment variables, when set, win over these values.
///
/// # Safety
///
/// Only while the program has a single thread: neither allocator's options
/// may change while another thread allocates.
pub unsafe extern "C" fn configure() {
    // SAFETY: mi_option_set only stores an option's value; the caller
    // guarantees no other thread is reading it.
    unsafe {
        set_unless_in_environment(
            c"MIMALLOC_ARENA_EAGER_COMMIT",
            option::ARENA_EAGER_COMMIT,
            0,
        );
        set_unless_in_environment(c"MIMALLOC_PURGE_DELAY", option::PURGE_DELAY, 100);
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator tunables, with values it accepts.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
        libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE as libc::c_int);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1024 * 1024);
    }
}

/// Sets a mimalloc option unless the environment variable that sets it is
/// there (mimalloc then reads that). `getenv` does not allocate.
///
/// # Safety
///
/// As [`configure`].
unsafe fn set_unless_in_environment(
    variable: &std::ffi::CStr,
    option: libmimalloc_sys::mi_option_t,
    value: std::ffi::c_long,
) {
    // SAFETY: a NUL-terminated name; single-threaded (the caller's contract).
    if unsafe { libc::getenv(variable.as_ptr()) }.is_null() {
        // SAFETY: as above.
        unsafe { libmimalloc_sys::mi_option_set(option, value) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether mimalloc made the block at `ptr`.
    fn from_mimalloc(ptr: *const u8) -> bool {
        // SAFETY: only asks whether an address is in mimalloc's arenas.
        unsafe { libmimalloc_sys::mi_is_in_heap_region(ptr.cast()) }
    }

    #[test]
    fn the_mimalloc_options_are_the_ones_meant() {
        // Their documented defaults (mimalloc 3, options.c): a changed
        // numbering would read some other option's value. (`configure` is
        // not run in this test program.) The environment can set them too.
        if ["MIMALLOC_ARENA_EAGER_COMMIT", "MIMALLOC_PURGE_DELAY"]
            .iter()
            .any(|name| std::env::var_os(name).is_some())
        {
            eprintln!("skipped: a MIMALLOC_ option is set in the environment");
            return;
        }
        // SAFETY: mi_option_get only reads an option's value.
        let (eager, delay) = unsafe {
            (
                libmimalloc_sys::mi_option_get(option::ARENA_EAGER_COMMIT),
                libmimalloc_sys::mi_option_get(option::PURGE_DELAY),
            )
        };
        assert_eq!((eager, delay), (2, 1000));
    }

    #[test]
    fn an_option_is_set_only_when_its_environment_variable_is_not() {
        // `os_tag` (18): an option nothing here reads (it names memory on
        // macOS); its default is 100.
        const OS_TAG: libmimalloc_sys::mi_option_t = 18;
        // SAFETY: only this test touches `os_tag`; setting an option only
        // stores its value.
        let read = || unsafe { libmimalloc_sys::mi_option_get(OS_TAG) };
        assert_eq!(read(), 100);
        // PATH is set wherever cargo runs tests: the option is left alone.
        assert!(std::env::var_os("PATH").is_some());
        unsafe { set_unless_in_environment(c"PATH", OS_TAG, 42) };
        assert_eq!(read(), 100);
        unsafe { set_unless_in_environment(c"TOOLWRIGHT_NO_SUCH_VARIABLE", OS_TAG, 42) };
        assert_eq!(read(), 42);
    }

    #[test]
    fn blocks_below_the_threshold_come_from_mimalloc_and_the_rest_from_glibc() {
        let allocator = Allocator;
        for (size, mimalloc) in [
            (64, true),
            (LARGE - 1, true),
            (LARGE, false),
            (LARGE + 1, false),
        ] {
            let layout = Layout::from_size_align(size, 16).unwrap();
            // SAFETY: a fresh block of `layout`, freed with the same layout.
            unsafe {
                let block = allocator.alloc(layout);
                assert!(!block.is_null());
                assert_eq!(from_mimalloc(block), mimalloc, "a block of {size} bytes");
                allocator.dealloc(block, layout);
            }
        }
    }

    /// Resizes a block of `from` bytes to `to`: it must come from the
    /// allocator its new size says, with its contents (as far as both
    /// sizes go) kept.
    fn resize(allocator: &Allocator, from: usize, to: usize) {
        let layout = Layout::from_size_align(from, 16).unwrap();
        let kept = from.min(to);
        let marks = [0, kept / 3, kept / 2, kept - 1];
        let mark = |i: usize| (i % 251) as u8 + 1;
        // SAFETY: a fresh block of `layout`, written and read within its
        // size, resized with the same layout and freed with the new one.
        unsafe {
            let block = allocator.alloc(layout);
            assert!(!block.is_null());
            for i in marks {
                *block.add(i) = mark(i);
            }
            let resized = allocator.realloc(block, layout, to);
            assert!(!resized.is_null());
            assert_eq!(from_mimalloc(resized), to < LARGE, "{from} → {to} bytes");
            for i in marks {
                assert_eq!(*resized.add(i), mark(i), "byte {i} after {from} → {to}");
            }
            allocator.dealloc(resized, Layout::from_size_align(to, 16).unwrap());
        }
    }

    #[test]
    fn blocks_keep_their_contents_when_resized_within_and_across_the_threshold() {
        let allocator = Allocator;
        resize(&allocator, 1024, 4096); // mimalloc → mimalloc
        resize(&allocator, LARGE - 1024, LARGE); // mimalloc → glibc
        resize(&allocator, LARGE + 1024, 1024); // glibc → mimalloc
        resize(&allocator, LARGE, 2 * LARGE); // glibc → glibc
    }

    #[test]
    fn zeroed_blocks_are_zero_on_both_sides_of_the_threshold() {
        let allocator = Allocator;
        for size in [64, LARGE - 64, LARGE, LARGE + 64] {
            let layout = Layout::from_size_align(size, 8).unwrap();
            // SAFETY: a fresh zeroed block, read within its size, then freed.
            unsafe {
                let block = allocator.alloc_zeroed(layout);
                assert!(!block.is_null());
                assert!([0, size / 2, size - 1].iter().all(|&i| *block.add(i) == 0));
                allocator.dealloc(block, layout);
            }
        }
    }
}
