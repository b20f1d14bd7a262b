//! A regular file's bytes mapped into memory (`mmap`), read in place: no `read` copy from the
//! page cache, which was about 15 % of the cpu of mining a warm 1 GB log.
//!
//! A mapped file that shrinks while mapped (logrotate's `copytruncate` empties the log in
//! place) makes the next touch of a page past its new end raise `SIGBUS`, which would kill the
//! process. A `SIGBUS` handler (installed once, chained to any earlier one) replaces such a page
//! by a page of zeros, marks the mapping as cut, and lets the read go on; the caller checks
//! [`Mapped::was_cut`] once done and discards what it read. A fault outside a live mapping goes
//! to the earlier handler (std's stack-overflow guard) or the default action, as before.

#[cfg(unix)]
mod imp {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Once;

    /// Live mappings the handler may repair: base address and length (0 = free slot).
    const SLOTS: usize = 16;
    static BASE: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
    static LEN: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
    static CUT: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];
    static INSTALL: Once = Once::new();
    static mut PREVIOUS: Option<libc::sigaction> = None;
    static INSTALLED: AtomicBool = AtomicBool::new(false);

    pub struct Mapped {
        ptr: *mut libc::c_void,
        len: usize,
        slot: usize,
    }

    // SAFETY: the mapping is read-only and owned by this value; its bytes may be read from any
    // thread.
    unsafe impl Send for Mapped {}
    unsafe impl Sync for Mapped {}

    impl Mapped {
        /// Maps `len` bytes of `f` from `offset` (any offset: it is aligned down to a page
        /// here). `None` when mapping is not possible (then read instead).
        pub fn new(f: &std::fs::File, offset: u64, len: usize) -> Option<Mapped> {
            use std::os::fd::AsRawFd;
            if len == 0 {
                return None;
            }
            install();
            if !INSTALLED.load(Ordering::Acquire) {
                return None;
            }
            // SAFETY: sysconf has no memory arguments.
            let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
            let skew = usize::try_from(offset % page).ok()?;
            let start = libc::off_t::try_from(offset - offset % page).ok()?;
            let map_len = len.checked_add(skew)?;
            // A slot first: the handler must know the mapping before any page is touched.
            let slot = (0..SLOTS).find(|&i| {
                LEN[i]
                    .compare_exchange(0, usize::MAX, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
            })?;
            // SAFETY: a fresh read-only private mapping of an open file; the kernel picks the
            // address. Nothing else refers to it until it is registered below.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    map_len,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE,
                    f.as_raw_fd(),
                    start,
                )
            };
            if base == libc::MAP_FAILED {
                LEN[slot].store(0, Ordering::Release);
                return None;
            }
            // SAFETY: advice on the mapping just made; failure is harmless.
            unsafe { libc::madvise(base, map_len, libc::MADV_SEQUENTIAL) };
            CUT[slot].store(false, Ordering::Release);
            BASE[slot].store(base as usize, Ordering::Release);
            LEN[slot].store(map_len, Ordering::Release);
            Some(Mapped {
                // SAFETY: skew < page <= map_len: inside the mapping.
                ptr: unsafe { base.cast::<u8>().add(skew) }.cast(),
                len,
                slot,
            })
        }

        pub fn bytes(&self) -> &[u8] {
            // SAFETY: ptr..ptr+len lies inside the live read-only mapping owned by self; a page
            // the file no longer backs reads as zeros (the handler maps them), never faults.
            unsafe { std::slice::from_raw_parts(self.ptr.cast::<u8>(), self.len) }
        }

        /// Whether the file shrank under the mapping and a read met its missing end.
        pub fn was_cut(&self) -> bool {
            CUT[self.slot].load(Ordering::Acquire)
        }
    }

    impl Drop for Mapped {
        fn drop(&mut self) {
            let base = BASE[self.slot].load(Ordering::Acquire);
            let len = LEN[self.slot].load(Ordering::Acquire);
            BASE[self.slot].store(0, Ordering::Release);
            // SAFETY: unmaps the mapping this value made; no borrow of bytes() outlives self.
            unsafe { libc::munmap(base as *mut libc::c_void, len) };
            LEN[self.slot].store(0, Ordering::Release);
        }
    }

    fn install() {
        INSTALL.call_once(|| {
            // SAFETY: sigaction with zero-initialised structs and a handler that only calls
            // async-signal-safe functions (mmap, sigaction, atomics).
            unsafe {
                let mut new: libc::sigaction = std::mem::zeroed();
                new.sa_sigaction = on_sigbus as *const () as usize;
                new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut new.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(libc::SIGBUS, &new, &mut old) == 0 {
                    PREVIOUS = Some(old);
                    INSTALLED.store(true, Ordering::Release);
                }
            }
        });
    }

    extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
        let addr = unsafe { (*info).si_addr() } as usize;
        for i in 0..SLOTS {
            let base = BASE[i].load(Ordering::Acquire);
            let len = LEN[i].load(Ordering::Acquire);
            if base != 0 && len != usize::MAX && addr >= base && addr - base < len {
                // SAFETY: sysconf and mmap are plain system calls; the page replaced lies inside
                // our own mapping, which only this module reads (as zeros from now on).
                unsafe {
                    let page = libc::sysconf(libc::_SC_PAGESIZE) as usize;
                    let at = addr - (addr - base) % page;
                    let r = libc::mmap(
                        at as *mut libc::c_void,
                        page,
                        libc::PROT_READ,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                        -1,
                        0,
                    );
                    if r != libc::MAP_FAILED {
                        CUT[i].store(true, Ordering::Release);
                        return;
                    }
                }
            }
        }
        // Not ours: what would have happened without this handler.
        // SAFETY: PREVIOUS is written once, before this handler can run.
        let previous = unsafe { (*std::ptr::addr_of!(PREVIOUS)).as_ref().copied() };
        match previous {
            Some(old) if old.sa_sigaction != libc::SIG_DFL && old.sa_sigaction != libc::SIG_IGN => {
                // SAFETY: calling the handler that was installed before ours, as it expects.
                unsafe {
                    if old.sa_flags & libc::SA_SIGINFO != 0 {
                        let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                            std::mem::transmute(old.sa_sigaction);
                        f(sig, info, ctx);
                    } else {
                        let f: extern "C" fn(libc::c_int) = std::mem::transmute(old.sa_sigaction);
                        f(sig);
                    }
                }
            }
            _ => {
                // SAFETY: restores the default action; returning re-raises the fault with it.
                unsafe {
                    let mut dfl: libc::sigaction = std::mem::zeroed();
                    dfl.sa_sigaction = libc::SIG_DFL;
                    libc::sigaction(libc::SIGBUS, &dfl, std::ptr::null_mut());
                }
            }
        }
    }
}

#[cfg(not(unix))]
mod imp {
    pub struct Mapped;
    impl Mapped {
        pub fn new(_: &std::fs::File, _: u64, _: usize) -> Option<Mapped> {
            None
        }
        pub fn bytes(&self) -> &[u8] {
            &[]
        }
        pub fn was_cut(&self) -> bool {
            false
        }
    }
}

pub(crate) use imp::Mapped;

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_file_cut_while_mapped_reads_as_zeros_and_says_so() {
        let path = std::env::temp_dir().join(format!(
            "headroom-telemetry-{}-mapped-cut.log",
            std::process::id()
        ));
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(&vec![b'x'; 3 << 16]).unwrap();
        let f = std::fs::File::open(&path).unwrap();
        let m = Mapped::new(&f, 100, (3 << 16) - 100).unwrap();
        assert_eq!(m.bytes()[0], b'x');
        assert!(!m.was_cut());
        // logrotate's copytruncate: the file is emptied in place while mapped.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(0)
            .unwrap();
        let last = m.bytes()[m.bytes().len() - 1];
        assert_eq!(last, 0);
        assert!(m.was_cut());
        drop(m);
        std::fs::remove_file(&path).unwrap();
    }
}
