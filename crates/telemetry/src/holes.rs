//! Where a regular file's holes are (`lseek` with `SEEK_HOLE`/`SEEK_DATA`, Linux 3.1+, the
//! BSDs, macOS, Solaris): a sparse file's unwritten ranges, which read back as NUL bytes.
//! GNU grep skips them the same way (grep.c, `fillbuf`/`file_must_have_nulls`).

use std::io;

/// The read position of a file and the next hole after it.
pub(crate) struct Holes {
    #[cfg(unix)]
    fd: std::os::fd::RawFd,
    /// The file's read position.
    pos: u64,
    /// Where the next hole (or the end of the file) begins, as last asked.
    next_hole: u64,
}

impl Holes {
    /// For a regular file whose file system can tell; `None` otherwise (a pipe, a device, or
    /// no unix). The file must outlive the result, and be read only through it since.
    #[cfg(unix)]
    pub fn new(f: &std::fs::File) -> Option<Holes> {
        use std::os::fd::AsRawFd;
        if !f.metadata().ok()?.is_file() {
            return None;
        }
        let fd = f.as_raw_fd();
        // SAFETY: lseek on a file descriptor the caller keeps open; no memory is passed.
        let pos = unsafe { libc::lseek(fd, 0, libc::SEEK_CUR) };
        let pos = u64::try_from(pos).ok()?;
        let mut h = Holes {
            fd,
            pos,
            next_hole: pos,
        };
        // lseek moves the read position to what it finds: put it back.
        h.next_hole = h.seek(libc::SEEK_HOLE, pos).ok()??;
        h.set(pos).ok()?;
        Some(h)
    }

    #[cfg(not(unix))]
    pub fn new(_: &std::fs::File) -> Option<Holes> {
        None
    }

    /// The read position.
    pub fn pos(&self) -> u64 {
        self.pos
    }

    /// Moves the read position to `at`, within the data before the next hole (bytes that
    /// were read another way, e.g. mapped).
    #[cfg(unix)]
    pub fn skip_to(&mut self, at: u64) -> io::Result<()> {
        self.set(at)?;
        self.pos = at;
        Ok(())
    }

    #[cfg(not(unix))]
    pub fn skip_to(&mut self, _: u64) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }

    /// `n` bytes were read from the position.
    pub fn advance(&mut self, n: usize) {
        self.pos += n as u64;
    }

    /// Bytes before the next hole, when the position is before it.
    pub fn before_hole(&self) -> Option<u64> {
        self.next_hole.checked_sub(self.pos).filter(|&n| n > 0)
    }

    /// At the start of a hole: when `skip(length)` says so, moves the position past the hole
    /// (to the next data, or the end of the file) and returns the bytes skipped. Returns 0
    /// when not at a hole or not skipping it.
    #[cfg(unix)]
    pub fn at_hole(&mut self, skip: impl FnOnce(u64) -> bool) -> io::Result<u64> {
        if self.pos < self.next_hole {
            return Ok(0);
        }
        let data = match self.seek(libc::SEEK_DATA, self.pos)? {
            Some(d) => d,
            // No data after the position: the hole runs to the end of the file.
            None => self.size()?.max(self.pos),
        };
        let len = data - self.pos.min(data);
        let skipped = if len > 0 && skip(len) {
            self.pos = data;
            len
        } else {
            0
        };
        // Find the hole after the data (the end of the file when none; a file that grows past
        // it is asked again there), then put the read position where reading goes on.
        self.next_hole = match self.seek(libc::SEEK_HOLE, data)? {
            Some(h) => h,
            None => data,
        };
        if self.next_hole <= self.pos {
            // At the end of the file: nothing to skip until it grows.
            self.next_hole = self.pos;
        }
        self.set(self.pos)?;
        Ok(skipped)
    }

    #[cfg(not(unix))]
    pub fn at_hole(&mut self, _: impl FnOnce(u64) -> bool) -> io::Result<u64> {
        Ok(0)
    }

    /// `lseek(fd, at, whence)`; `None` for ENXIO (no data or hole at or after `at`: past the
    /// end of the file).
    #[cfg(unix)]
    fn seek(&self, whence: libc::c_int, at: u64) -> io::Result<Option<u64>> {
        let at =
            libc::off_t::try_from(at).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        // SAFETY: lseek on an open file descriptor; no memory is passed.
        let r = unsafe { libc::lseek(self.fd, at, whence) };
        if r >= 0 {
            return Ok(Some(r as u64));
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::ENXIO) {
            Ok(None)
        } else {
            Err(e)
        }
    }

    #[cfg(unix)]
    fn set(&self, at: u64) -> io::Result<()> {
        self.seek(libc::SEEK_SET, at).map(|_| ())
    }

    #[cfg(unix)]
    fn size(&self) -> io::Result<u64> {
        self.seek(libc::SEEK_END, 0).map(|s| s.unwrap_or(0))
    }
}
