//! The `cfsim` binary's global allocator: mimalloc for blocks under 1 KiB, asked through its plain
//! entry points when the layout allows them; the C library's `malloc` for larger blocks.
//!
//! The `mimalloc` crate's `GlobalAlloc` calls `mi_malloc_aligned` for every allocation; mimalloc's
//! aligned path checks the alignment and probes the size's free page before it allocates, ~25 more
//! instructions than `mi_malloc` on each of the ~100,000 allocations of a masterfiles check
//! (callgrind: −2.9% instructions on `cfsim promises -f promises.cf`). mimalloc places every block of
//! up to 16 bytes' alignment at its size's natural alignment (`mi_malloc_is_naturally_aligned` in
//! its `alloc-aligned.c`), so an alignment of at most 16 that is not larger than the size needs no
//! aligned call; any other layout goes through the aligned entry points as before.
//!
//! Blocks of [`LARGE`] bytes and more go to the C library: mimalloc prepares at least four blocks of
//! a size class when it first serves one (`MI_MIN_EXTEND` in its `page.c`), writing into each, so
//! every size class from 1 KiB up costs two to four fresh pages at its first use however little of it
//! the program needs (four from 4 KiB up); a growing `Vec` or `String` walks through several of them.
//! A fresh page costs a page fault (~1.3 µs here), and a small `cfsim agent` run met ~100 of them
//! that way (clap's command tree, file buffers); glibc's heap hands out only what is asked for, and
//! large blocks are few. Measured (callgrind, `perf stat`): with the threshold at 4 KiB the hello
//! agent took 263 page faults, at 1 KiB 220, at 512 bytes 219 with more instructions on the
//! masterfiles check; mimalloc for every size 295, glibc for every size 201 but 42% more instructions.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// mimalloc's `MI_MAX_ALIGN_SIZE` on the 64-bit targets cfsim builds for.
const NATURAL_ALIGN: usize = 16;

/// Blocks of this many bytes and more come from the C library's allocator.
const LARGE: usize = 1024;

pub struct MiMalloc;

fn natural(align: usize, size: usize) -> bool {
    align <= NATURAL_ALIGN && align <= size
}

/// Whether a block of `layout` comes from the C library (large, and an alignment `malloc` gives).
fn large(size: usize, align: usize) -> bool {
    size >= LARGE && align <= NATURAL_ALIGN
}

// glibc's allocator (the `cfsim` binary links the C library in any case)
extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn calloc(n: usize, size: usize) -> *mut c_void;
    fn realloc(p: *mut c_void, size: usize) -> *mut c_void;
    fn free(p: *mut c_void);
}

// SAFETY: every pointer handed out comes from mimalloc with at least the layout's size and alignment
// (plain calls only where mimalloc guarantees the natural alignment, see the module comment) and is
// given back to mimalloc's `mi_free`/`mi_realloc*`, which accept any pointer mimalloc returned.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: both allocators accept any size; mimalloc any power-of-two alignment, `malloc` the
        // alignments up to 16 it guarantees on the 64-bit targets (`large` asks no more of it).
        unsafe {
            if large(layout.size(), layout.align()) {
                malloc(layout.size()) as *mut u8
            } else if natural(layout.align(), layout.size()) {
                mi::mi_malloc(layout.size()) as *mut u8
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        unsafe {
            if large(layout.size(), layout.align()) {
                calloc(1, layout.size()) as *mut u8
            } else if natural(layout.align(), layout.size()) {
                mi::mi_zalloc(layout.size()) as *mut u8
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was returned by this allocator for `layout`, which says which allocator that
        // was (the rule of `alloc`, `realloc` keeps it).
        unsafe {
            if large(layout.size(), layout.align()) {
                free(ptr as *mut c_void)
            } else {
                mi::mi_free(ptr as *mut c_void)
            }
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let align = layout.align();
        let (was_large, now_large) = (large(layout.size(), align), large(new_size, align));
        // SAFETY: `ptr` was returned by this allocator for `layout` (so by the allocator `was_large`
        // names); a block that changes allocator is copied (the smaller of both sizes) and freed.
        unsafe {
            match (was_large, now_large) {
                (true, true) => realloc(ptr as *mut c_void, new_size) as *mut u8,
                (false, false) => {
                    if natural(align, new_size) {
                        mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8
                    } else {
                        mi::mi_realloc_aligned(ptr as *mut c_void, new_size, align) as *mut u8
                    }
                }
                _ => {
                    let Ok(new_layout) = Layout::from_size_align(new_size, align) else {
                        return std::ptr::null_mut();
                    };
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
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Every block the plain paths hand out has the layout's alignment, for every size class a
    /// small-object program meets and every alignment up to 16 (and the aligned paths for larger).
    #[test]
    fn blocks_have_the_layouts_alignment() {
        let a = MiMalloc;
        for size in (1..=1100usize).chain([4000, 4095, 4096, 4097, 9000, 70000]) {
            for align in [1usize, 2, 4, 8, 16, 32, 64] {
                let Ok(layout) = Layout::from_size_align(size, align) else {
                    continue;
                };
                // SAFETY: non-zero size; every block is freed with the same allocator.
                unsafe {
                    let p = a.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "alloc size {size} align {align}");
                    let z = a.alloc_zeroed(layout);
                    assert_eq!(
                        z as usize % align,
                        0,
                        "alloc_zeroed size {size} align {align}"
                    );
                    assert!(std::slice::from_raw_parts(z, size).iter().all(|b| *b == 0));
                    let r = a.realloc(p, layout, size * 3 + 1);
                    assert_eq!(r as usize % align, 0, "realloc size {size} align {align}");
                    a.dealloc(r, Layout::from_size_align(size * 3 + 1, align).unwrap());
                    a.dealloc(z, layout);
                }
            }
        }
    }

    /// A block that grows or shrinks across [`LARGE`] changes allocator and keeps its bytes.
    #[test]
    fn realloc_across_the_threshold_keeps_the_bytes() {
        let a = MiMalloc;
        for (from, to) in [
            (100usize, 5000usize),
            (4095, 4096),
            (5000, 100),
            (4096, 4095),
            (70000, 8),
        ] {
            let layout = Layout::from_size_align(from, 8).unwrap();
            // SAFETY: non-zero sizes; the block is freed with its last layout.
            unsafe {
                let p = a.alloc(layout);
                for i in 0..from {
                    *p.add(i) = (i % 251) as u8;
                }
                let r = a.realloc(p, layout, to);
                assert!(!r.is_null());
                for i in 0..from.min(to) {
                    assert_eq!(*r.add(i), (i % 251) as u8, "{from} -> {to} at {i}");
                }
                a.dealloc(r, Layout::from_size_align(to, 8).unwrap());
            }
        }
    }
}
