//! Plain or gzipped trace bytes. Gzip is recognised by its magic bytes, not the file name, and
//! is inflated on a second thread so that decompression and the JSON walk overlap: on two cores
//! the walk then costs little more than the decompression alone.

use flate2::bufread::MultiGzDecoder;
use std::io::{self, BufRead, BufReader, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::thread::JoinHandle;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Plain,
    Gzip,
}

impl Encoding {
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Plain => "json",
            Encoding::Gzip => "gzip",
        }
    }
}

/// Blocks handed from the inflating thread to the walker.
const BLOCK: usize = 1 << 20;
/// Blocks in flight: bounds memory at a few MiB whatever the file size.
const IN_FLIGHT: usize = 4;

/// Wraps `src` so that it reads as JSON bytes, inflating gzip (one or more members) if the
/// first bytes are the gzip magic.
pub fn decode<R: Read + Send + 'static>(src: R) -> io::Result<(Box<dyn Read + Send>, Encoding)> {
    let mut src = BufReader::with_capacity(256 << 10, src);
    let head = src.fill_buf()?;
    if head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b {
        let gz = MultiGzDecoder::new(src);
        Ok((Box::new(Inflating::spawn(gz)), Encoding::Gzip))
    } else {
        Ok((Box::new(src), Encoding::Plain))
    }
}

/// Opens a trace file.
pub fn open(path: &std::path::Path) -> io::Result<(Box<dyn Read + Send>, Encoding)> {
    decode(std::fs::File::open(path)?)
}

/// A reader fed by a thread that reads (inflates) ahead of it.
pub struct Inflating {
    rx: Option<Receiver<io::Result<Vec<u8>>>>,
    back: SyncSender<Vec<u8>>,
    cur: Vec<u8>,
    pos: usize,
    thread: Option<JoinHandle<()>>,
}

impl Inflating {
    pub fn spawn<R: Read + Send + 'static>(mut src: R) -> Self {
        let (tx, rx) = sync_channel::<io::Result<Vec<u8>>>(IN_FLIGHT);
        let (back, recycled) = sync_channel::<Vec<u8>>(IN_FLIGHT + 2);
        let thread = std::thread::spawn(move || loop {
            let mut buf = recycled.try_recv().unwrap_or_default();
            buf.resize(BLOCK, 0);
            let mut n = 0;
            let mut err = None;
            while n < BLOCK {
                match src.read(&mut buf[n..]) {
                    Ok(0) => break,
                    Ok(k) => n += k,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        err = Some(e);
                        break;
                    }
                }
            }
            buf.truncate(n);
            let last = n < BLOCK;
            // A send fails only when the reader was dropped: stop quietly.
            if n > 0 && tx.send(Ok(buf)).is_err() {
                return;
            }
            if let Some(e) = err {
                let _ = tx.send(Err(e));
                return;
            }
            if last {
                return;
            }
        });
        Inflating {
            rx: Some(rx),
            back,
            cur: vec![],
            pos: 0,
            thread: Some(thread),
        }
    }
}

impl Read for Inflating {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.cur.len() {
            let Some(rx) = &self.rx else {
                return Ok(0);
            };
            match rx.recv() {
                Ok(Ok(next)) => {
                    let done = std::mem::replace(&mut self.cur, next);
                    self.pos = 0;
                    if let Err(TrySendError::Full(_)) = self.back.try_send(done) {
                        // Enough spare blocks already.
                    }
                }
                Ok(Err(e)) => {
                    self.rx = None;
                    return Err(e);
                }
                Err(_) => {
                    self.rx = None;
                    return Ok(0);
                }
            }
        }
        let n = out.len().min(self.cur.len() - self.pos);
        out[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl Drop for Inflating {
    fn drop(&mut self) {
        // Closing the channel makes the thread's next send fail, and it exits.
        self.rx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{write::GzEncoder, Compression};
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(vec![], Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn sniffs_and_inflates_across_blocks() {
        let data: Vec<u8> = (0..3 * BLOCK + 123).map(|i| (i % 251) as u8).collect();
        let (mut r, enc) = decode(io::Cursor::new(gz(&data))).unwrap();
        assert_eq!(enc, Encoding::Gzip);
        let mut out = vec![];
        r.read_to_end(&mut out).unwrap();
        assert_eq!(out, data);

        let (mut r, enc) = decode(io::Cursor::new(b"{\"a\": 1}".to_vec())).unwrap();
        assert_eq!(enc, Encoding::Plain);
        let mut out = vec![];
        r.read_to_end(&mut out).unwrap();
        assert_eq!(out, b"{\"a\": 1}");
    }

    #[test]
    fn multi_member_gzip_reads_whole() {
        let mut two = gz(b"hello ");
        two.extend(gz(b"world"));
        let (mut r, _) = decode(io::Cursor::new(two)).unwrap();
        let mut s = String::new();
        r.read_to_string(&mut s).unwrap();
        assert_eq!(s, "hello world");
    }

    #[test]
    fn truncated_gzip_gives_its_prefix_then_an_error() {
        let data: Vec<u8> = (0..2 * BLOCK).map(|i| (i * 7 % 256) as u8).collect();
        let z = gz(&data);
        let (mut r, _) = decode(io::Cursor::new(z[..z.len() / 2].to_vec())).unwrap();
        let mut out = vec![0u8; 4096];
        let mut got = 0;
        let err = loop {
            match r.read(&mut out) {
                Ok(0) => panic!("a truncated gzip must not end cleanly"),
                Ok(n) => {
                    assert_eq!(&out[..n], &data[got..got + n]);
                    got += n;
                }
                Err(e) => break e,
            }
        };
        assert!(
            got > 0,
            "the complete prefix comes through before the error"
        );
        assert!(!err.to_string().is_empty());
    }

    #[test]
    fn dropping_early_stops_the_thread() {
        let data = vec![b'x'; 8 * BLOCK];
        let (mut r, _) = decode(io::Cursor::new(gz(&data))).unwrap();
        let mut one = [0u8; 1];
        r.read_exact(&mut one).unwrap();
        drop(r); // joins the thread; hanging here would fail the test by timeout
    }
}
