//! Keep-alive HTTP/1.1 connections to the replicas, one idle list per replica.
//!
//! Smaller than hyper-util's pooled client on purpose: a connection goes back to its list when
//! the relayed response has ended cleanly (the relay knows when), so no task is spawned per
//! request to watch for idleness, and nothing is keyed by URL.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// Idle connections kept per replica; more are closed when returned.
const MAX_IDLE: usize = 1024;
/// A pooled connection must be ready this soon, or it is dropped and another taken.
const READY_WAIT: Duration = Duration::from_millis(200);

pub type Sender = SendRequest<Full<Bytes>>;

#[derive(Debug)]
pub enum SendError {
    Connect(String),
    Http(hyper::Error),
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::Connect(why) => write!(f, "connect failed: {why}"),
            SendError::Http(e) => {
                write!(f, "{e}")?;
                let mut source = std::error::Error::source(e);
                while let Some(s) = source {
                    write!(f, ": {s}")?;
                    source = s.source();
                }
                Ok(())
            }
        }
    }
}

pub struct Pool {
    /// `host:port` of each replica, as connect() takes it.
    addrs: Vec<String>,
    idle: Vec<Mutex<Vec<Sender>>>,
    connect_timeout: Duration,
}

/// A connection lent to one exchange; it returns to the pool only when marked reusable (the
/// response body was read to its end), otherwise it is closed on drop.
pub struct Lease {
    pool: Arc<Pool>,
    replica: usize,
    sender: Option<Sender>,
    reusable: bool,
}

impl Lease {
    pub fn reusable(&mut self) {
        self.reusable = true;
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let Some(sender) = self.sender.take() {
            if self.reusable && !sender.is_closed() {
                let mut idle = self.pool.idle[self.replica]
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                if idle.len() < MAX_IDLE {
                    idle.push(sender);
                }
            }
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

    async fn connect(&self, replica: usize) -> Result<Sender, SendError> {
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
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(SendError::Http)?;
        tokio::spawn(async move {
            // The connection's errors reach the exchange through its response or body.
            let _ = conn.await;
        });
        Ok(sender)
    }

    /// Sends the request `build` makes (origin-form URI, Host set) to `replica` over an idle
    /// connection, or a new one. A pooled connection found closed, before or while the request
    /// is written and before any response byte, is replaced by a fresh one and the request
    /// rebuilt (an idle keep-alive connection the replica closed is no failure of the replica).
    /// Only a failure on a fresh connection is returned.
    pub async fn send(
        self: &Arc<Self>,
        replica: usize,
        build: &(dyn Fn() -> Request<Full<Bytes>> + Sync),
    ) -> Result<(Response<Incoming>, Lease), SendError> {
        loop {
            let pooled = self.idle[replica]
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .pop();
            let fresh = pooled.is_none();
            let mut sender = match pooled {
                Some(s) => s,
                None => self.connect(replica).await?,
            };
            if fresh {
                sender.ready().await.map_err(SendError::Http)?;
            } else if !matches!(
                tokio::time::timeout(READY_WAIT, sender.ready()).await,
                Ok(Ok(()))
            ) {
                continue;
            }
            match sender.try_send_request(build()).await {
                Ok(resp) => {
                    let lease = Lease {
                        pool: self.clone(),
                        replica,
                        sender: Some(sender),
                        reusable: false,
                    };
                    return Ok((resp, lease));
                }
                Err(e)
                    if !fresh && (e.message().is_some() || e.error().is_incomplete_message()) =>
                {
                    continue
                }
                Err(e) => return Err(SendError::Http(e.into_error())),
            }
        }
    }
}
