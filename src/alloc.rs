//! The `cfsim` binary's global allocator: mimalloc, asked through its plain entry points when the
//! layout allows them.
//!
//! The `mimalloc` crate's `GlobalAlloc` calls `mi_malloc_aligned` for every allocation; mimalloc's
//! aligned path checks the alignment and probes the size's free page before it allocates, ~25 more
//! instructions than `mi_malloc` on each of the ~100,000 allocations of a masterfiles check
//! (callgrind: −2.9% instructions on `cfsim promises -f promises.cf`). mimalloc places every block of
//! up to 16 bytes' alignment at its size's natural alignment (`mi_malloc_is_naturally_aligned` in
//! its `alloc-aligned.c`), so an alignment of at most 16 that is not larger than the size needs no
//! aligned call; any other layout goes through the aligned entry points as before.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// mimalloc's `MI_MAX_ALIGN_SIZE` on the 64-bit targets cfsim builds for.
const NATURAL_ALIGN: usize = 16;

pub struct MiMalloc;

fn natural(align: usize, size: usize) -> bool {
    align <= NATURAL_ALIGN && align <= size
}

// SAFETY: every pointer handed out comes from mimalloc with at least the layout's size and alignment
// (plain calls only where mimalloc guarantees the natural alignment, see the module comment) and is
// given back to mimalloc's `mi_free`/`mi_realloc*`, which accept any pointer mimalloc returned.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: mimalloc's allocation functions accept any size and power-of-two alignment.
        unsafe {
            if natural(layout.align(), layout.size()) {
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
            if natural(layout.align(), layout.size()) {
                mi::mi_zalloc(layout.size()) as *mut u8
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` was returned by this allocator, i.e. by mimalloc.
        unsafe { mi::mi_free(ptr as *mut c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was returned by mimalloc; a moved block keeps the natural alignment of its
        // new size, or the aligned call keeps the layout's alignment.
        unsafe {
            if natural(layout.align(), new_size) {
                mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8
            } else {
                mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
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
        for size in 1..=1100usize {
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
}
