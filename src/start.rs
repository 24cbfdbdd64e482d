//! The process entry point on Linux/glibc: the C runtime's `main`, doing what Rust's own start-up
//! (`std::rt::lang_start`) does for cfsim, less the probe of the main thread's stack.
//!
//! Rust's start-up finds the main thread's stack guard with `pthread_getattr_np`, which in glibc reads
//! and parses `/proc/self/maps` (the kernel formats every mapping of the process), and installs an
//! alternate signal stack (an `mmap` and an `mprotect`) for its "has overflowed its stack" message:
//! 16 system calls and ~45,000 instructions at every start, 3–4% of a small `cfsim agent` run
//! (benches/cputime.py). cfsim bounds its recursion itself (`--max-call-depth`, an evaluation thread
//! with a stack sized from it when the main stack is too small), so an overflow is a bug either way;
//! without the handler it ends in a plain SIGSEGV instead of that message.
//!
//! What the start-up does and cfsim needs is done here: the standard descriptors 0–2, when closed,
//! are opened on `/dev/null` (else the first file opened would become stdout), `SIGPIPE` is ignored
//! (a closed pipe is an `EPIPE` error the front ends handle, as under Rust's start-up), and stdout is
//! flushed before the exit code goes back to the C runtime, which then exits.
#![allow(unsafe_code)]

use std::process::ExitCode;

extern "C" {
    fn signal(signum: i32, handler: usize) -> usize;
}

/// `SIGPIPE` and `SIG_IGN` on Linux.
const SIGPIPE: i32 = 13;
const SIG_IGN: usize = 1;

/// Opens `/dev/null` on each standard descriptor that is closed (as Rust's start-up does).
fn sanitize_standard_fds() {
    for fd in 0..3 {
        // SAFETY: the descriptor is only asked for its flags; a closed one answers EBADF.
        let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
        if rustix::io::fcntl_getfd(borrowed) == Err(rustix::io::Errno::BADF) {
            // the lowest free descriptor is the closed one: keep it open for the process's life
            if let Ok(f) = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open("/dev/null")
            {
                std::mem::forget(f);
            }
        }
    }
}

/// The number behind an `ExitCode` (it has no getter; it compares equal to `ExitCode::from(n)`).
fn code_number(code: ExitCode) -> i32 {
    (0..=u8::MAX)
        .find(|&n| code == ExitCode::from(n))
        .map_or(1, i32::from)
}

#[no_mangle]
extern "C" fn main(_argc: i32, _argv: *const *const std::ffi::c_char) -> i32 {
    sanitize_standard_fds();
    // SAFETY: setting a signal's disposition to "ignore" has no handler to run.
    unsafe {
        signal(SIGPIPE, SIG_IGN);
    }
    let code = crate::run();
    use std::io::Write;
    let _ = std::io::stdout().flush();
    code_number(code)
}
