//! Keep-alive connections to the replicas, one idle list per replica, and the read buffer each
//! connection carries. A connection goes back to its list only when its last response ended
//! cleanly at a message boundary (the relay knows when), so nothing watches idle connections:
//! one the replica closed meanwhile is found closed on its next use and replaced.
use std::io::IoSlice;
use std::sync::Mutex;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::h1::{self, HeadError, ResponseHead};

/// Idle connections kept per replica; more are closed when returned.
const MAX_IDLE: usize = 1024;
/// A connection's read buffer to start with; it grows only to hold a long head.
const BUF_START: usize = 16 << 10;

/// Bytes read from a socket and not yet used: `data[start..end]`.
pub struct Buf {
    data: Vec<u8>,
    start: usize,
    end: usize,
}

impl Buf {
    /// An empty buffer; its memory is taken at the first read that has bytes to give, so an
    /// idle connection holds none (measured with 10,000 idle clients: 34 KB per connection
    /// when every connection had its buffer, 2.4 KB without; tests/faults.rs).
    pub fn new() -> Buf {
        Buf {
            data: Vec::new(),
            start: 0,
            end: 0,
        }
    }

    pub fn filled(&self) -> &[u8] {
        &self.data[self.start..self.end]
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn consume(&mut self, n: usize) {
        self.start += n.min(self.len());
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
    }

    /// Reads what the socket has (at least one byte, or 0 at its end) after the bytes held,
    /// making room first: unused space at the front is reclaimed, then the buffer doubles, up
    /// to `max` bytes held. Holding `max` already is an error of the caller's framing.
    pub async fn read_from(&mut self, s: &mut TcpStream, max: usize) -> std::io::Result<usize> {
        if self.data.is_empty() {
            // Wait for a byte (or the end) without taking it: readiness alone is not enough,
            // a fresh socket can report readable with nothing to read.
            s.peek(&mut [0u8; 1]).await?;
            self.data.resize(BUF_START.min(max.max(1)), 0);
        }
        if self.end == self.data.len() {
            if self.start > 0 {
                self.data.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            } else if self.data.len() < max {
                let grown = (self.data.len() * 2).min(max);
                self.data.resize(grown, 0);
            } else {
                return Err(std::io::Error::other(format!(
                    "more than {max} bytes without an end"
                )));
            }
        }
        let n = s.read(&mut self.data[self.end..]).await?;
        self.end += n;
        Ok(n)
    }
}

impl Default for Buf {
    fn default() -> Self {
        Buf::new()
    }
}

/// Writes `a` then `b` with as few system calls as the socket allows (one, usually).
pub async fn write_two(s: &mut TcpStream, a: &[u8], b: &[u8]) -> std::io::Result<()> {
    let (mut a, mut b) = (a, b);
    while !a.is_empty() {
        let n = if b.is_empty() {
            s.write(a).await?
        } else {
            s.write_vectored(&[IoSlice::new(a), IoSlice::new(b)])
                .await?
        };
        if n == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        if n < a.len() {
            a = &a[n..];
        } else {
            b = &b[n - a.len()..];
            a = &[];
        }
    }
    if !b.is_empty() {
        s.write_all(b).await?;
    }
    Ok(())
}

/// A connection to a replica with its read buffer, and the header list its last response
/// head used (handed to the next one).
pub struct Conn {
    pub stream: TcpStream,
    pub buf: Buf,
    pub spare: Vec<h1::Header>,
}

pub struct Pool {
    /// `host:port` of each replica, as connect() takes it.
    addrs: Vec<String>,
    idle: Vec<Mutex<Vec<Conn>>>,
    connect_timeout: Duration,
}

/// Why an exchange failed before a response head was in hand.
#[derive(Debug)]
pub enum SendError {
    Connect(String),
    Io(std::io::Error),
    /// The connection ended before a whole response head.
    Closed,
    Head(HeadError),
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::Connect(why) => write!(f, "connect failed: {why}"),
            SendError::Io(e) => write!(f, "{e}"),
            SendError::Closed => write!(f, "connection closed before a response"),
            SendError::Head(e) => write!(f, "{e}"),
        }
    }
}

impl Pool {
    pub fn new(addrs: Vec<String>, connect_timeout: Duration) -> Pool {
        let idle = addrs.iter().map(|_| Mutex::new(Vec::new())).collect();
        Pool {
            addrs,
            idle,
            connect_timeout,
        }
    }

    /// Returns a connection whose last response ended cleanly.
    pub fn put(&self, replica: usize, conn: Conn) {
        let mut idle = self.idle[replica].lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < MAX_IDLE {
            idle.push(conn);
        }
    }

    async fn connect(&self, replica: usize) -> Result<Conn, SendError> {
        let addr = &self.addrs[replica];
        let stream =
            match tokio::time::timeout(self.connect_timeout, TcpStream::connect(addr.as_str()))
                .await
            {
                Err(_) => {
                    return Err(SendError::Connect(format!(
                        "no connection within {:?}",
                        self.connect_timeout
                    )))
                }
                Ok(Err(e)) => return Err(SendError::Connect(e.to_string())),
                Ok(Ok(s)) => s,
            };
        let _ = stream.set_nodelay(true);
        Ok(Conn {
            stream,
            buf: Buf::new(),
            spare: Vec::new(),
        })
    }

    /// Sends `head` and `body` to `replica` over an idle connection, or a new one, and reads
    /// the response head (interim 1xx answers skipped). A pooled connection that turns out
    /// closed before any response byte is replaced by a fresh one and the request sent again
    /// (an idle keep-alive connection the replica closed is no failure of the replica); only
    /// a failure on a fresh connection is returned.
    pub async fn send(
        &self,
        replica: usize,
        head: &[u8],
        body: &[u8],
    ) -> Result<(Conn, ResponseHead), SendError> {
        loop {
            let pooled = self.idle[replica]
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .pop();
            let fresh = pooled.is_none();
            let mut conn = match pooled {
                Some(c) => c,
                None => self.connect(replica).await?,
            };
            if let Err(e) = write_two(&mut conn.stream, head, body).await {
                if fresh {
                    return Err(SendError::Io(e));
                }
                continue;
            }
            match read_head(&mut conn).await {
                Ok(h) => return Ok((conn, h)),
                Err(SendError::Closed | SendError::Io(_)) if !fresh && conn.buf.is_empty() => {
                    continue
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// Reads until a whole response head is buffered; 1xx interim answers are skipped.
async fn read_head(conn: &mut Conn) -> Result<ResponseHead, SendError> {
    loop {
        if let Some(mut h) =
            h1::parse_response(conn.buf.filled(), &mut conn.spare).map_err(SendError::Head)?
        {
            if (100..200).contains(&h.status) && h.status != 101 {
                conn.buf.consume(h.common.len);
                conn.spare = std::mem::take(&mut h.common.headers);
                continue;
            }
            return Ok(h);
        }
        let n = conn
            .buf
            .read_from(&mut conn.stream, h1::MAX_HEAD + 1)
            .await
            .map_err(SendError::Io)?;
        if n == 0 {
            return Err(SendError::Closed);
        }
    }
}
