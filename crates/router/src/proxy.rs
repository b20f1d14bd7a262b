//! The proxy. HTTP/1.1 on both sides is handled here directly (heads parsed in place by `h1`,
//! headers copied through as bytes, bodies relayed as they arrive), with keep-alive connections
//! to the replicas from `pool`. It owns what the policy does not: reading the body under a
//! limit, retrying before the first byte, demotion and probing, and draining on shutdown.
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::doc::{Attempt, ErrorBody, HealthBody, ReplicaState};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::h1::{self, Chunked, Framing, HeadError, RequestHead, ResponseHead};
use crate::health::{Health, View};
use crate::key::{self, RequestFacts};
use crate::metrics::{FailureKind, Metrics, Rejection, Snapshot};
use crate::observe::{Capture, Exchange, Observer};
use crate::policy::{Policy, Route};
use crate::pool::{write_two, Buf, Conn, Pool};
use crate::{Config, RouteError};

/// The router's own endpoints: `/headroom/metrics`, `/headroom/health`. No engine serves a
/// path under it, so it shadows nothing.
pub const OWN_PREFIX: &[u8] = b"/headroom/";

/// Room for a replica's response head and the first body bytes read with it.
const UPSTREAM_BUF: usize = h1::MAX_HEAD + (16 << 10);

/// What the router reports while it runs (the binary prints these on stderr).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Demoted {
        replica: String,
        reason: String,
    },
    Restored {
        replica: String,
    },
    /// Bound to an address other hosts can reach (told to: the default is loopback). The
    /// router has no authentication of its own, so this is worth a warning.
    PublicBind {
        addr: SocketAddr,
    },
    Draining {
        connections: usize,
    },
    DrainTimedOut {
        connections: usize,
    },
}

pub type EventSink = Arc<dyn Fn(&Event) + Send + Sync>;

/// One replica's state and totals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaStatus {
    pub replica: String,
    pub live: bool,
    pub in_flight: usize,
    pub requests: u64,
    pub pins: u64,
    pub failures: u64,
    pub demotions: u64,
}

/// Totals when the router stops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub replicas: Vec<ReplicaStatus>,
    pub pinned: u64,
    pub spread: u64,
    pub failover: u64,
    pub rejected: u64,
    /// False when --drain ran out with responses still open (they were cut).
    pub drained: bool,
    pub cut_connections: usize,
}

struct Backend {
    /// The URL as reports, logs, metrics and headers name it: as given, without its userinfo.
    name: String,
    /// `Basic ...`: the URL's userinfo, sent to the replica as its `Authorization` when the
    /// client's request carries none (and on probes).
    auth: Option<String>,
    /// `host:port` to connect to.
    addr: String,
    /// The Host header it is sent.
    host: String,
    base_path: String,
}

impl Backend {
    fn parse(url: &str) -> Result<Backend, RouteError> {
        let bad = |reason: &str| RouteError::Backend {
            url: redact_url(url),
            reason: reason.to_string(),
        };
        if url.starts_with("https://") {
            return Err(bad(
                "https is not supported; run the router beside the replicas over http",
            ));
        }
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| bad("expected http://host:port"))?;
        let (authority, path) = match rest.find(['/', '?', '#']) {
            Some(p) => rest.split_at(p),
            None => (rest, ""),
        };
        if path.contains(['?', '#']) {
            return Err(bad("a backend URL takes no query"));
        }
        // Userinfo (`user:password@`) is a credential: kept out of every name, sent as Basic auth.
        let (auth, authority) = match authority.rfind('@') {
            Some(at) => {
                let userinfo = percent_decode(&authority[..at])
                    .ok_or_else(|| bad("the user:password part has a bad %-escape"))?;
                (
                    Some(format!("Basic {}", base64(&userinfo))),
                    &authority[at + 1..],
                )
            }
            None => (None, authority),
        };
        if authority.is_empty() {
            return Err(bad("no host"));
        }
        let allowed = |c: char| c.is_ascii_alphanumeric() || ".-_:[]".contains(c);
        if !authority.chars().all(allowed) || !path.chars().all(|c| c.is_ascii_graphic()) {
            return Err(bad("not a URL; expected http://host:port"));
        }
        // A port is what follows the last colon, unless that colon is inside [IPv6].
        let (host, port) = match authority.rfind(':') {
            Some(c) if !authority[c..].contains(']') => {
                let port = authority[c + 1..]
                    .parse::<u16>()
                    .map_err(|_| bad("the port is not a number from 0 to 65535"))?;
                (&authority[..c], port)
            }
            _ => (authority, 80),
        };
        if host.is_empty() {
            return Err(bad("no host"));
        }
        Ok(Backend {
            name: format!("http://{authority}{}", path.trim_end_matches('/')),
            auth,
            addr: format!("{host}:{port}"),
            host: authority.to_string(),
            base_path: path.trim_end_matches('/').to_string(),
        })
    }

    /// Appends this replica's `Authorization` line, from its URL's userinfo, unless the client
    /// sent its own (`client` holds the request's headers, or none for a probe).
    fn authorize(&self, out: &mut Vec<u8>, client: Option<(&[u8], &h1::Common)>) {
        let Some(auth) = &self.auth else { return };
        let has_own = client.is_some_and(|(buf, c)| {
            c.headers
                .iter()
                .any(|h| buf[h.name.clone()].eq_ignore_ascii_case(b"authorization"))
        });
        if !has_own {
            out.extend_from_slice(b"authorization: ");
            out.extend_from_slice(auth.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
    }

    /// Appends the origin-form request target on this replica.
    fn target(&self, path_and_query: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(self.base_path.as_bytes());
        out.extend_from_slice(path_and_query);
    }
}

struct Shared {
    config: Config,
    backends: Vec<Backend>,
    names: Vec<String>,
    policy: Box<dyn Policy>,
    health: Health,
    metrics: Metrics,
    /// Connections for the prober (each worker has its own pool for requests).
    probe_pool: Arc<Pool>,
    events: EventSink,
    draining: AtomicBool,
    /// Told of every proxied request that carried a prompt (`--trace`); set once, before serving.
    observer: std::sync::OnceLock<Observer>,
}

impl Shared {
    /// Counts a failed attempt and demotes the replica (once): its conversations are re-pinned.
    /// A first-byte timeout does not demote: the replica may only be busy with a long prefill.
    fn fail(&self, r: usize, kind: FailureKind, reason: &str) {
        self.metrics.failure(r, kind);
        if kind != FailureKind::Timeout {
            self.demote(r, reason);
        }
    }

    fn demote(&self, r: usize, reason: &str) {
        if self.health.demote(r) {
            self.metrics.replicas[r]
                .demotions
                .fetch_add(1, Ordering::Relaxed);
            let moved = self.policy.demoted(
                r,
                &View {
                    health: &self.health,
                    excluded: &[],
                },
            );
            self.metrics.replicas[r]
                .repinned
                .fetch_add(moved as u64, Ordering::Relaxed);
            (self.events)(&Event::Demoted {
                replica: self.names[r].clone(),
                reason: reason.to_string(),
            });
        }
    }

    fn restore(&self, r: usize) {
        if self.health.restore(r) {
            self.metrics.replicas[r]
                .restores
                .fetch_add(1, Ordering::Relaxed);
            (self.events)(&Event::Restored {
                replica: self.names[r].clone(),
            });
        }
    }

    fn status(&self) -> Vec<ReplicaStatus> {
        (0..self.backends.len())
            .map(|r| {
                let c = &self.metrics.replicas[r];
                ReplicaStatus {
                    replica: self.names[r].clone(),
                    live: self.health.is_live(r),
                    in_flight: self.health.in_flight(r),
                    requests: c.requests.load(Ordering::Relaxed),
                    pins: c.pins.load(Ordering::Relaxed),
                    failures: c.failures.iter().map(|f| f.load(Ordering::Relaxed)).sum(),
                    demotions: c.demotions.load(Ordering::Relaxed),
                }
            })
            .collect()
    }

    fn metrics_text(&self) -> String {
        let n = self.backends.len();
        self.metrics.render(&Snapshot {
            names: &self.names,
            live: (0..n).map(|r| self.health.is_live(r)).collect(),
            in_flight: (0..n).map(|r| self.health.in_flight(r)).collect(),
            pinned_conversations: self.policy.pinned_conversations(),
        })
    }

    /// GET /health, then /v1/models where /health is not served: 2xx means healthy.
    async fn probe(&self, r: usize) -> Result<(), String> {
        for path in ["/health", "/v1/models"] {
            let wait = self.config.probe_timeout;
            let status = match tokio::time::timeout(wait, self.get(r, path)).await {
                Err(_) => return Err(format!("probe {path}: no answer in {wait:?}")),
                Ok(Err(e)) => return Err(format!("probe {path}: {e}")),
                Ok(Ok(status)) => status,
            };
            if (200..300).contains(&status) {
                return Ok(());
            }
            if status != 404 && status != 405 {
                return Err(format!("probe {path}: answered {status}"));
            }
        }
        Err("probe: neither /health nor /v1/models answered 2xx".to_string())
    }

    /// One GET on the prober's pool; the small body is read so the connection can be reused.
    async fn get(&self, r: usize, path: &str) -> Result<u16, String> {
        let backend = &self.backends[r];
        let mut head = b"GET ".to_vec();
        backend.target(path.as_bytes(), &mut head);
        head.extend_from_slice(b" HTTP/1.1\r\nhost: ");
        head.extend_from_slice(backend.host.as_bytes());
        head.extend_from_slice(b"\r\n");
        backend.authorize(&mut head, None);
        head.extend_from_slice(b"\r\n");
        let (mut conn, resp) = self
            .probe_pool
            .send(r, &head, b"")
            .await
            .map_err(|e| e.to_string())?;
        let framing = resp.framing(false);
        conn.buf.consume(resp.common.len);
        let mut chunked = Chunked::default();
        let mut left = match framing {
            Framing::Length(n) => n,
            _ => 0,
        };
        loop {
            let have = conn.buf.len();
            let (used, done) = match framing {
                Framing::Length(_) => {
                    let t = left.min(have as u64);
                    left -= t;
                    (t as usize, left == 0)
                }
                Framing::Chunked => {
                    let used = chunked
                        .feed(conn.buf.filled(), None)
                        .map_err(|e| e.to_string())?;
                    (used, chunked.is_done())
                }
                Framing::Close => (have, false),
            };
            conn.buf.consume(used);
            if done {
                if !resp.common.close && conn.buf.is_empty() {
                    self.probe_pool.put(r, conn);
                }
                return Ok(resp.status);
            }
            let n = conn
                .buf
                .read_from(&mut conn.stream, UPSTREAM_BUF)
                .await
                .map_err(|e| e.to_string())?;
            if n == 0 {
                return match framing {
                    Framing::Close => Ok(resp.status),
                    _ => Err("connection closed inside the response body".into()),
                };
            }
        }
    }
}

/// A bound router, ready to serve.
pub struct Router {
    listener: TcpListener,
    shared: Arc<Shared>,
}

impl Router {
    /// Checks the configuration, binds the listener, and probes every replica once: the ones
    /// that do not answer start demoted (and come back by themselves).
    pub async fn bind(config: Config, events: EventSink) -> Result<Router, RouteError> {
        if config.backends.is_empty() {
            return Err(RouteError::Config(
                "at least one --backend is needed".into(),
            ));
        }
        if config.prefix_bytes == 0 {
            return Err(RouteError::Config("--prefix-kib must be at least 1".into()));
        }
        let backends = config
            .backends
            .iter()
            .map(|u| Backend::parse(u))
            .collect::<Result<Vec<_>, _>>()?;
        let names: Vec<String> = backends.iter().map(|b| b.name.clone()).collect();
        for (i, name) in names.iter().enumerate() {
            if names[..i].contains(name) {
                return Err(RouteError::Backend {
                    url: name.clone(),
                    reason: "given twice".into(),
                });
            }
        }
        if config.workers == 0 {
            return Err(RouteError::Config("--workers must be at least 1".into()));
        }
        let bind_error = |source| RouteError::Bind {
            addr: config.listen,
            source,
        };
        // SO_REUSEPORT would let a second router share the port silently: first make sure
        // nothing listens there (an exclusive bind, released at once).
        if config.listen.port() != 0 {
            drop(std::net::TcpListener::bind(config.listen).map_err(bind_error)?);
        }
        let listener = reuseport_listener(config.listen).map_err(bind_error)?;
        let addrs = backends.iter().map(|b| b.addr.clone()).collect();
        let pool = Arc::new(Pool::new(addrs, config.connect_timeout));
        let n = backends.len();
        let shared = Arc::new(Shared {
            policy: config.policy.build(config.affinity_entries),
            config,
            backends,
            names,
            health: Health::new(n),
            metrics: Metrics::new(n),
            probe_pool: pool,
            events,
            draining: AtomicBool::new(false),
            observer: std::sync::OnceLock::new(),
        });
        let bound = listener.local_addr().unwrap_or(shared.config.listen);
        if !bound.ip().is_loopback() {
            (shared.events)(&Event::PublicBind { addr: bound });
        }
        let mut probes = tokio::task::JoinSet::new();
        for r in 0..n {
            let s = shared.clone();
            probes.spawn(async move { (r, s.probe(r).await) });
        }
        while let Some(done) = probes.join_next().await {
            if let Ok((r, Err(why))) = done {
                shared.demote(r, &format!("startup {why}"));
            }
        }
        Ok(Router { listener, shared })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .unwrap_or(self.shared.config.listen)
    }

    pub fn replicas(&self) -> Vec<ReplicaStatus> {
        self.shared.status()
    }

    /// Tells `observer` of every proxied request that carries a prompt, once it ends. Only
    /// the first observer set counts.
    pub fn observe(&self, observer: Observer) {
        let _ = self.shared.observer.set(observer);
    }

    /// Serves until `shutdown` resolves, then stops accepting and lets open responses finish,
    /// for at most `Config::drain`.
    ///
    /// Thread per core, as nginx runs its workers: `Config::workers` accept loops, each on its
    /// own single-threaded runtime with its own listener on the same port (SO_REUSEPORT) and
    /// its own connection pool, so a request never crosses threads. Worker 0 runs on the
    /// caller's runtime, with the prober. Policy, health and metrics are shared.
    pub async fn serve(self, shutdown: impl Future<Output = ()>) -> Summary {
        let Router { listener, shared } = self;
        let addr = listener.local_addr().unwrap_or(shared.config.listen);
        let prober = tokio::spawn(probe_loop(shared.clone()));
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let open = Arc::new(AtomicUsize::new(0));
        let mut workers = Vec::new();
        for i in 1..shared.config.workers {
            let (s, stop, open) = (shared.clone(), stop_rx.clone(), open.clone());
            let (done_tx, done_rx) = tokio::sync::oneshot::channel();
            let spawned = std::thread::Builder::new()
                .name(format!("route-worker-{i}"))
                .spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build();
                    let cut = rt.map(|rt| {
                        rt.block_on(async move {
                            match reuseport_listener(addr) {
                                Ok(l) => accept_loop(l, s, stop, open).await,
                                Err(_) => 0,
                            }
                        })
                    });
                    let _ = done_tx.send(cut.unwrap_or(0));
                });
            if spawned.is_ok() {
                workers.push(done_rx);
            }
        }
        let own = tokio::spawn(accept_loop(listener, shared.clone(), stop_rx, open.clone()));
        shutdown.await;
        shared.draining.store(true, Ordering::Release);
        let _ = stop_tx.send(true);
        (shared.events)(&Event::Draining {
            connections: open.load(Ordering::Relaxed),
        });
        let mut cut_connections = own.await.unwrap_or(0);
        for done in workers {
            cut_connections += done.await.unwrap_or(0);
        }
        if cut_connections > 0 {
            (shared.events)(&Event::DrainTimedOut {
                connections: cut_connections,
            });
        }
        prober.abort();
        let load = |i: usize| shared.metrics.routes[i].load(Ordering::Relaxed);
        Summary {
            replicas: shared.status(),
            pinned: load(0),
            spread: load(1),
            failover: load(2),
            rejected: shared
                .metrics
                .rejections
                .iter()
                .map(|a| a.load(Ordering::Relaxed))
                .sum(),
            drained: cut_connections == 0,
            cut_connections,
        }
    }
}

/// A listening socket that other workers can bind too (SO_REUSEPORT: the kernel spreads new
/// connections over them).
fn reuseport_listener(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    #[cfg(unix)]
    socket.set_reuseport(true)?;
    socket.bind(addr)?;
    socket.listen(1024)
}

/// One worker: accepts until told to stop, then drains its connections for at most
/// `Config::drain`. Returns how many connections the drain had to cut.
async fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
    open: Arc<AtomicUsize>,
) -> usize {
    let addrs = shared.backends.iter().map(|b| b.addr.clone()).collect();
    let pool = Arc::new(Pool::new(addrs, shared.config.connect_timeout));
    let mut conns = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(_) => {
                        // Out of descriptors or a reset before accept: back off, keep serving.
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let open = Open::enter(open.clone());
                let (s, p, stop) = (shared.clone(), pool.clone(), stop.clone());
                conns.spawn(async move {
                    serve_connection(stream, &s, &p, stop).await;
                    drop(open);
                });
            }
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
            _ = stop.changed() => break,
        }
    }
    drop(listener);
    // Idle connections close at once (they watch `stop`); open responses run to their end.
    let drained = tokio::time::timeout(shared.config.drain, async {
        while conns.join_next().await.is_some() {}
    })
    .await;
    match drained {
        Ok(()) => 0,
        Err(_) => {
            let left = conns.len();
            conns.abort_all();
            left
        }
    }
}

/// Counts an open client connection for as long as its task lives.
struct Open(Arc<AtomicUsize>);

impl Open {
    fn enter(n: Arc<AtomicUsize>) -> Open {
        n.fetch_add(1, Ordering::Relaxed);
        Open(n)
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A client request read whole: its head, and where its body is.
struct Incoming {
    head: RequestHead,
    /// Bytes of the request in the client buffer, head and body as sent.
    raw_len: usize,
    body: BodyAt,
}

/// Where a request's body is.
enum BodyAt {
    /// In the client buffer, as sent.
    Buffer(std::ops::Range<usize>),
    /// Sent chunked: decoded into `Scratch::decoded`.
    Decoded,
}

/// Buffers one client connection keeps across its requests.
#[derive(Default)]
struct Scratch {
    client: Buf,
    /// The header list of the last request head, handed to the next one.
    spare: Vec<h1::Header>,
    /// A chunked request body, decoded.
    decoded: Vec<u8>,
    /// The request head sent to a replica.
    upstream: Vec<u8>,
    /// What is written to the client next (a response head, re-framed body bytes).
    out: Vec<u8>,
}

/// How an exchange left the client connection.
#[derive(PartialEq, Eq)]
enum After {
    KeepAlive,
    Close,
}

async fn serve_connection(
    mut client: TcpStream,
    shared: &Shared,
    pool: &Pool,
    stop: watch::Receiver<bool>,
) {
    let mut s = Scratch::default();
    let mut waits = Waits {
        timer: Box::pin(tokio::time::sleep(shared.config.client_timeout)),
        stop,
    };
    loop {
        let mut req = match read_request(&mut client, &mut s, shared, &mut waits).await {
            Ok(Some(req)) => req,
            Ok(None) => return,
            Err(answer) => {
                if answer.write(&mut client, &mut s.out, true).await.is_ok() {
                    Box::pin(linger(&mut client)).await;
                }
                return;
            }
        };
        // Boxed: the exchange's state (the relay's, the pool's) lives only while a request
        // does; inline, every idle connection's task would carry it.
        let after = Box::pin(exchange(&mut client, &mut s, &req, shared, pool)).await;
        s.client.consume(req.raw_len);
        s.spare = std::mem::take(&mut req.head.common.headers);
        if after == After::Close || req.head.common.close || shared.draining.load(Ordering::Acquire)
        {
            let _ = client.shutdown().await;
            return;
        }
    }
}

/// After refusing a request whose body was not read (a 413, a bad head): close the sending
/// side, then read and discard what the client still sends, for a bounded time and amount.
/// Closing with unread bytes would make the kernel send a reset, which can destroy the answer
/// before the client reads it.
async fn linger(client: &mut TcpStream) {
    use tokio::io::AsyncReadExt;
    const LINGER: Duration = Duration::from_secs(2);
    const LINGER_BYTES: usize = 4 << 20;
    if client.shutdown().await.is_err() {
        return;
    }
    let mut sink = vec![0u8; 16 << 10];
    let mut left = LINGER_BYTES;
    let _ = tokio::time::timeout(LINGER, async {
        while left > 0 {
            match client.read(&mut sink).await {
                Ok(0) | Err(_) => return,
                Ok(n) => left = left.saturating_sub(n),
            }
        }
    })
    .await;
}

/// What a client connection waits on besides its socket: one timer, re-armed only when it
/// fires (so a keep-alive connection does not register a timer per request), and the drain.
struct Waits {
    timer: Pin<Box<tokio::time::Sleep>>,
    stop: watch::Receiver<bool>,
}

enum Read {
    Bytes,
    Closed,
    TimedOut,
    /// The router is draining (only watched while the connection is idle).
    Stopped,
}

impl Waits {
    /// Reads more of the client's bytes into `buf` (up to `max` held), until `deadline`.
    async fn read(
        &mut self,
        client: &mut TcpStream,
        buf: &mut Buf,
        max: usize,
        deadline: tokio::time::Instant,
        idle: bool,
    ) -> Read {
        loop {
            tokio::select! {
                biased;
                n = buf.read_from(client, max) => {
                    return match n {
                        Ok(0) | Err(_) => Read::Closed,
                        Ok(_) => Read::Bytes,
                    }
                }
                _ = &mut self.timer => {
                    if tokio::time::Instant::now() >= deadline {
                        return Read::TimedOut;
                    }
                    self.timer.as_mut().reset(deadline);
                }
                _ = self.stop.changed(), if idle => return Read::Stopped,
            }
        }
    }
}

/// Reads the next request, head and body, within `--client-timeout` of its first byte (an idle
/// keep-alive connection waits as long, and closes at once when the router drains).
/// `Ok(None)`: the connection is done. `Err`: answer it and close.
async fn read_request(
    client: &mut TcpStream,
    s: &mut Scratch,
    shared: &Shared,
    waits: &mut Waits,
) -> Result<Option<Incoming>, Answer> {
    let timeout = shared.config.client_timeout;
    let deadline = tokio::time::Instant::now() + timeout;
    let head = loop {
        match h1::parse_request(s.client.filled(), &mut s.spare) {
            Ok(Some(head)) => break head,
            Ok(None) => {}
            Err(e) => return Err(bad_head(shared, e)),
        }
        let idle = s.client.is_empty();
        if idle && shared.draining.load(Ordering::Acquire) {
            return Ok(None);
        }
        match waits
            .read(client, &mut s.client, h1::MAX_HEAD + 1, deadline, idle)
            .await
        {
            Read::Bytes => {}
            Read::Closed | Read::Stopped => return Ok(None),
            Read::TimedOut if idle => return Ok(None),
            Read::TimedOut => {
                shared.metrics.reject(Rejection::BadRequest);
                let msg =
                    format!("request head not received within {timeout:?} (--client-timeout)");
                return Err(Answer::error(408, Rejection::BadRequest, msg));
            }
        }
    };
    let max = shared.config.max_body;
    let start = head.common.len;
    let too_large = |size: String| {
        shared.metrics.reject(Rejection::BodyTooLarge);
        let msg = format!(
            "request body is {size}; the router accepts at most {max} bytes (--max-body). Raise --max-body to accept it."
        );
        let mut body = ErrorBody::new(Rejection::BodyTooLarge.as_str(), msg);
        body.error.max_body = Some(max);
        Answer::body(413, body)
    };
    let framing = head.framing();
    if let Framing::Length(n) = framing {
        if n > max as u64 {
            return Err(too_large(format!("{n} bytes")));
        }
    }
    let unread = |e: Option<std::io::Error>| {
        shared.metrics.reject(Rejection::BodyUnreadable);
        match e {
            None => Answer::error(
                408,
                Rejection::BodyUnreadable,
                format!("request body not received within {timeout:?} (--client-timeout)"),
            ),
            Some(e) => Answer::error(
                400,
                Rejection::BodyUnreadable,
                format!("could not read the request body: {e}"),
            ),
        }
    };
    let complete = match framing {
        Framing::Length(n) => s.client.len() - start >= n as usize,
        _ => false,
    };
    if head.expect_continue && !complete {
        client
            .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
            .await
            .map_err(|e| unread(Some(e)))?;
    }
    // Chunk framing may add several bytes per data byte: allow for it, bounded.
    let cap = start + 2 * max + (64 << 10);
    let mut chunked = Chunked::default();
    s.decoded.clear();
    let mut pos = start;
    let body = loop {
        match framing {
            Framing::Length(n) => {
                if s.client.len() - start >= n as usize {
                    break BodyAt::Buffer(start..start + n as usize);
                }
            }
            _ => {
                let used = chunked
                    .feed(&s.client.filled()[pos..], Some(&mut s.decoded))
                    .map_err(|e| unread(Some(std::io::Error::other(e.to_string()))))?;
                pos += used;
                if s.decoded.len() > max {
                    return Err(too_large("larger than that".into()));
                }
                if chunked.is_done() {
                    break BodyAt::Decoded;
                }
            }
        }
        let want = match framing {
            Framing::Length(n) => start + n as usize,
            _ => cap,
        };
        match waits
            .read(client, &mut s.client, want, deadline, false)
            .await
        {
            Read::Bytes => {}
            Read::Closed | Read::Stopped => {
                return Err(unread(Some(std::io::Error::other(
                    "the client closed the connection",
                ))))
            }
            Read::TimedOut => return Err(unread(None)),
        }
    };
    let raw_len = match &body {
        BodyAt::Buffer(range) => range.end,
        BodyAt::Decoded => pos,
    };
    Ok(Some(Incoming {
        head,
        raw_len,
        body,
    }))
}

fn bad_head(shared: &Shared, e: HeadError) -> Answer {
    shared.metrics.reject(Rejection::BadRequest);
    let status = match e {
        HeadError::TooLarge => 431,
        HeadError::Framing(ref why) if why.contains("not supported") => 501,
        _ => 400,
    };
    Answer::error(status, Rejection::BadRequest, e.to_string())
}

/// Answers one request: the router's own paths, or a replica's response relayed.
async fn exchange(
    client: &mut TcpStream,
    s: &mut Scratch,
    req: &Incoming,
    shared: &Shared,
    pool: &Pool,
) -> After {
    let buf = s.client.filled();
    let target = &buf[req.head.target.clone()];
    let path = target.split(|&b| b == b'?').next().unwrap_or(b"");
    let method = &buf[req.head.method.clone()];
    // The router's own endpoints live under a prefix no engine serves; every other path and
    // method goes to a replica.
    let answer = match path.strip_prefix(OWN_PREFIX) {
        Some(b"metrics") if method == b"GET" => Some(Answer::local(
            200,
            "text/plain; version=0.0.4",
            shared.metrics_text(),
        )),
        Some(b"health") => Some(router_health(shared)),
        Some(_) => {
            shared.metrics.reject(Rejection::NotFound);
            let msg = format!(
                "{} is not an endpoint of headroom route: it serves GET /headroom/metrics and /headroom/health, and forwards every other path to the replicas",
                String::from_utf8_lossy(path)
            );
            Some(Answer::error(404, Rejection::NotFound, msg))
        }
        None => None,
    };
    if let Some(answer) = answer {
        return match answer.write(client, &mut s.out, false).await {
            Ok(()) => After::KeepAlive,
            Err(_) => After::Close,
        };
    }
    let body: &[u8] = match &req.body {
        BodyAt::Buffer(range) => &buf[range.clone()],
        BodyAt::Decoded => &s.decoded,
    };
    proxy(
        client,
        req,
        buf,
        body,
        &mut s.upstream,
        &mut s.out,
        shared,
        pool,
    )
    .await
}

/// Routes a /v1/ request: choose, send, fail over before the first byte, then relay.
#[allow(clippy::too_many_arguments)]
async fn proxy(
    client: &mut TcpStream,
    req: &Incoming,
    buf: &[u8],
    body: &[u8],
    upstream: &mut Vec<u8>,
    out: &mut Vec<u8>,
    shared: &Shared,
    pool: &Pool,
) -> After {
    let started = Instant::now();
    let target = &buf[req.head.target.clone()];
    let path = target.split(|&b| b == b'?').next().unwrap_or(b"");
    let facts = if body.is_empty() {
        RequestFacts::default()
    } else {
        let fields = shared
            .config
            .prompt_paths
            .iter()
            .find(|p| p.path.as_bytes() == path)
            .map_or(&[][..], |p| &p.fields[..]);
        key::facts_in(body, shared.config.prefix_bytes, fields)
    };
    // A streamed answer's first byte comes when the first token does; a non-streamed one's
    // when the whole generation is done, so it waits under its own, longer limit.
    let (wait, flag) = if facts.stream {
        (shared.config.first_byte_timeout, "--first-byte-timeout")
    } else {
        (shared.config.request_timeout, "--request-timeout")
    };
    let method = &buf[req.head.method.clone()];
    let head_request = method == b"HEAD";
    // Only requests with a prompt are observed: the others are nothing a cache replays.
    let observer = shared.observer.get().filter(|_| facts.whole.is_some());
    let exchange = |replica: usize, first_byte, status, response| Exchange {
        replica,
        path: String::from_utf8_lossy(path).into_owned(),
        body: body.to_vec(),
        conversation: facts.history.last().copied().or(facts.whole),
        arrived: started,
        first_byte,
        ended: Instant::now(),
        status,
        response,
    };
    let mut excluded: Vec<usize> = Vec::new();
    let mut attempts: Vec<Attempt> = Vec::new();
    while let Some(decision) = shared.policy.choose(
        &facts,
        &View {
            health: &shared.health,
            excluded: &excluded,
        },
    ) {
        let r = decision.replica;
        let route = if excluded.is_empty() {
            decision.route
        } else {
            Route::Failover
        };
        shared.policy.served(&facts, r);
        let backend = &shared.backends[r];
        upstream.clear();
        upstream.extend_from_slice(method);
        upstream.push(b' ');
        backend.target(&buf[req.head.target.clone()], upstream);
        upstream.extend_from_slice(b" HTTP/1.1\r\nhost: ");
        upstream.extend_from_slice(backend.host.as_bytes());
        upstream.extend_from_slice(b"\r\n");
        h1::forward_headers(upstream, buf, &req.head.common, true, false);
        backend.authorize(upstream, Some((buf, &req.head.common)));
        if !body.is_empty() || method == b"POST" || method == b"PUT" {
            upstream.extend_from_slice(b"content-length: ");
            h1::push_decimal(upstream, body.len() as u64);
            upstream.extend_from_slice(b"\r\n");
        }
        upstream.extend_from_slice(b"\r\n");
        if excluded.is_empty() {
            shared.metrics.overhead.observe(started.elapsed());
        }
        shared.metrics.replicas[r]
            .requests
            .fetch_add(1, Ordering::Relaxed);
        let guard = InFlight::enter(shared, r);
        let first = tokio::time::timeout(wait, first_byte(pool, r, upstream, body, head_request));
        // While the replica works, the client may hang up: then the upstream request is dropped
        // (its connection closed), which is how an engine learns to free the slot.
        let first = tokio::select! {
            biased;
            first = first => first,
            () = client_gone(client) => {
                shared.metrics.client_closed();
                // The replica may have admitted it (and looked its prefix up) before it was
                // cancelled.
                if let Some(o) = observer {
                    o(exchange(r, None, None, Capture::default()));
                }
                return After::Close;
            }
        };
        match first {
            Err(_) if shared.probe(r).await.is_err() => {
                // Nothing since the request, and /health does not answer either: the replica
                // is hung (it accepts and never answers), not busy with a long prefill. Nothing
                // reached the client, and dropping the connection cancels the request on the
                // replica, so it is demoted and the request fails over.
                let why = format!(
                    "no first byte within {flag} ({wait:?}) and no answer to its health probe"
                );
                shared.metrics.failure(r, FailureKind::Timeout);
                shared.demote(r, &why);
                attempts.push(Attempt {
                    replica: shared.names[r].clone(),
                    failure: why,
                });
                excluded.push(r);
            }
            Err(_) => {
                shared.fail(r, FailureKind::Timeout, "no first byte in time");
                shared.metrics.reject(Rejection::UpstreamTimeout);
                let msg = format!(
                    "{} sent no first byte within {flag} ({wait:?}); not retried, the replica may still be working on it",
                    shared.names[r]
                );
                let mut answer = Answer::error(504, Rejection::UpstreamTimeout, msg);
                answer.replica = Some(shared.names[r].clone());
                answer.route = route.as_str();
                return match answer.write(client, out, false).await {
                    Ok(()) => After::KeepAlive,
                    Err(_) => After::Close,
                };
            }
            Ok(Err(why)) => {
                shared.fail(r, FailureKind::Connection, &why);
                attempts.push(Attempt {
                    replica: shared.names[r].clone(),
                    failure: why,
                });
                excluded.push(r);
            }
            Ok(Ok(up)) if up.head.status == 502 || up.head.status == 503 => {
                let why = format!("answered {} before the first byte", up.head.status);
                shared.fail(r, FailureKind::Status, &why);
                attempts.push(Attempt {
                    replica: shared.names[r].clone(),
                    failure: why,
                });
                excluded.push(r);
            }
            Ok(Ok(up)) => {
                shared.metrics.route(route);
                if route == Route::Pinned {
                    shared.metrics.replicas[r]
                        .pins
                        .fetch_add(1, Ordering::Relaxed);
                }
                let Some(o) = observer else {
                    return relay(client, up, &req.head, out, shared, pool, guard, route, None)
                        .await;
                };
                let (first_at, status) = (Instant::now(), up.head.status);
                let mut capture = Capture::default();
                let after = relay(
                    client,
                    up,
                    &req.head,
                    out,
                    shared,
                    pool,
                    guard,
                    route,
                    Some(&mut capture),
                )
                .await;
                o(exchange(r, Some(first_at), Some(status), capture));
                return after;
            }
        }
    }
    shared.metrics.reject(Rejection::NoLiveReplica);
    let replicas: Vec<_> = (0..shared.backends.len())
        .map(|r| ReplicaState {
            replica: shared.names[r].clone(),
            live: shared.health.is_live(r),
        })
        .collect();
    let msg = if attempts.is_empty() {
        format!(
            "no live replica: all {} are demoted and being probed; retry shortly",
            replicas.len()
        )
    } else {
        format!("no live replica: {} attempt(s) failed before the first byte and no other replica is live", attempts.len())
    };
    let mut body = ErrorBody::new(Rejection::NoLiveReplica.as_str(), msg);
    body.error.replicas = Some(replicas);
    body.error.attempts = Some(attempts);
    let answer = Answer::body(503, body);
    match answer.write(client, out, false).await {
        Ok(()) => After::KeepAlive,
        Err(_) => After::Close,
    }
}

/// A replica's response head and at least its first body byte (or its whole, empty body):
/// until then nothing has been written to the client, so a failure can still be retried.
struct Upstream {
    conn: Conn,
    head: ResponseHead,
    framing: Framing,
}

async fn first_byte(
    pool: &Pool,
    r: usize,
    head: &[u8],
    body: &[u8],
    head_request: bool,
) -> Result<Upstream, String> {
    let (mut conn, resp) = pool.send(r, head, body).await.map_err(|e| e.to_string())?;
    let framing = resp.framing(head_request);
    let waits = !(resp.status == 502 || resp.status == 503 || framing == Framing::Length(0));
    while waits && conn.buf.len() == resp.common.len {
        match conn.buf.read_from(&mut conn.stream, UPSTREAM_BUF).await {
            Ok(0) if framing == Framing::Close => break, // an empty body, ended by the close
            Ok(0) => {
                return Err(
                    "connection closed after the response head, before the first byte".into(),
                )
            }
            Ok(_) => {}
            Err(e) => {
                return Err(format!(
                    "connection closed after the response head, before the first byte: {e}"
                ))
            }
        }
    }
    Ok(Upstream {
        conn,
        head: resp,
        framing,
    })
}

/// How the body reaches the client.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reframe {
    /// Byte for byte (a length, or chunks to an HTTP/1.1 client, or close-delimited to 1.0).
    Pass,
    /// A close-delimited body to an HTTP/1.1 client: each read becomes a chunk.
    Chunk,
    /// A chunked body to an HTTP/1.0 client: the data only, ended by the close.
    Unchunk,
}

/// Writes the response head, then relays the body as it arrives: each read from the replica
/// is written to the client before the next read. A replica failure after this point is never
/// retried: the replica is demoted and the client connection closed, which the client sees as
/// a cut body.
#[allow(clippy::too_many_arguments)]
async fn relay(
    client: &mut TcpStream,
    up: Upstream,
    req: &RequestHead,
    out: &mut Vec<u8>,
    shared: &Shared,
    pool: &Pool,
    guard: InFlight<'_>,
    route: Route,
    mut capture: Option<&mut Capture>,
) -> After {
    let Upstream {
        mut conn,
        mut head,
        framing,
    } = up;
    let old_client = req.common.minor == 0;
    let reframe = match framing {
        Framing::Chunked if old_client => Reframe::Unchunk,
        Framing::Close if !old_client => Reframe::Chunk,
        _ => Reframe::Pass,
    };
    // An HTTP/1.0 client's body may end only by the close (re-framed or not): always close it.
    let close_client = old_client || req.common.close || shared.draining.load(Ordering::Acquire);

    let raw = conn.buf.filled();
    out.clear();
    out.extend_from_slice(b"HTTP/1.1 ");
    h1::push_decimal(out, head.status as u64);
    out.push(b' ');
    if head.reason.is_empty() {
        out.extend_from_slice(h1::reason(head.status).as_bytes());
    } else {
        out.extend_from_slice(&raw[head.reason.clone()]);
    }
    out.extend_from_slice(b"\r\n");
    let keep_length = matches!(framing, Framing::Length(_));
    h1::forward_headers(out, raw, &head.common, false, keep_length);
    if matches!(
        (framing, reframe),
        (Framing::Chunked, Reframe::Pass) | (_, Reframe::Chunk)
    ) {
        out.extend_from_slice(b"transfer-encoding: chunked\r\n");
    }
    mark(
        out,
        shared.backends[guard.replica].name.as_bytes(),
        route.as_str(),
    );
    if close_client {
        out.extend_from_slice(b"connection: close\r\n");
    }
    out.extend_from_slice(b"\r\n");
    conn.buf.consume(head.common.len);

    let mut left = match framing {
        Framing::Length(n) => n,
        _ => 0,
    };
    let mut chunked = Chunked::default();
    let mut data = Vec::new();
    let mut head_sent = false;
    let reusable = loop {
        let have = conn.buf.filled();
        let (used, done) = match framing {
            Framing::Length(_) => {
                let t = left.min(have.len() as u64);
                left -= t;
                (t as usize, left == 0)
            }
            Framing::Chunked => {
                // A captured body is decoded too (the observer reads data, not chunk framing).
                let sink = (reframe == Reframe::Unchunk || capture.is_some()).then_some(&mut data);
                match chunked.feed(have, sink) {
                    Ok(used) => (used, chunked.is_done()),
                    Err(e) => {
                        guard.cut(&e.to_string());
                        return After::Close;
                    }
                }
            }
            Framing::Close => (have.len(), false),
        };
        let piece: &[u8] = match reframe {
            Reframe::Pass => &have[..used],
            Reframe::Unchunk => &data,
            Reframe::Chunk => {
                // Until the head is sent it is in `out`, and the chunk goes after it.
                if head_sent {
                    out.clear();
                }
                if used > 0 {
                    push_hex(out, used);
                    out.extend_from_slice(b"\r\n");
                    out.extend_from_slice(&have[..used]);
                    out.extend_from_slice(b"\r\n");
                }
                &[]
            }
        };
        if let Some(c) = capture.as_deref_mut() {
            c.push(match framing {
                Framing::Chunked => &data,
                _ => &have[..used],
            });
        }
        let written = if !head_sent {
            head_sent = true;
            write_two(client, out, piece).await
        } else if reframe == Reframe::Chunk {
            client.write_all(out).await
        } else {
            client.write_all(piece).await
        };
        if written.is_err() {
            // The client went away; the replica's connection is mid-body and is dropped.
            shared.metrics.client_closed();
            return After::Close;
        }
        data.clear();
        let extra = have.len() > used;
        conn.buf.consume(used);
        if done {
            break !extra;
        }
        let read = tokio::select! {
            biased;
            read = conn.buf.read_from(&mut conn.stream, UPSTREAM_BUF) => read,
            () = client_gone(client) => {
                // The client hung up between two pieces: the replica's connection is dropped
                // mid-body, which cancels the request there.
                shared.metrics.client_closed();
                return After::Close;
            }
        };
        match read {
            Ok(0) if framing == Framing::Close => {
                if reframe == Reframe::Chunk && client.write_all(b"0\r\n\r\n").await.is_err() {
                    return After::Close;
                }
                break false;
            }
            Ok(0) => {
                guard.cut("the replica closed the connection before the body ended");
                return After::Close;
            }
            Ok(_) => {}
            Err(e) => {
                guard.cut(&e.to_string());
                return After::Close;
            }
        }
    };
    if reusable && !head.common.close && framing != Framing::Close {
        conn.spare = std::mem::take(&mut head.common.headers);
        pool.put(guard.replica, conn);
    }
    drop(guard);
    if close_client {
        After::Close
    } else {
        After::KeepAlive
    }
}

/// A URL with its userinfo's password replaced by `***`, for an error message.
pub fn redact_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_string();
    };
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => {
            let user = rest[..at].split(':').next().unwrap_or("");
            format!("{}{user}:***{}", &url[..scheme_end], &rest[at..])
        }
        None => url.to_string(),
    }
}

/// RFC 3986 percent-decoding; `None` for a bad escape.
fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

/// Standard base64 with padding (RFC 4648 §4), as Basic auth takes it.
fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                out.push(A[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Resolves when the client has closed its connection (or half-closed it: a client does not
/// send its end before it has read the answer). Bytes from the client (a pipelined request)
/// are left for the next exchange; the watch then stops, as the close can no longer be seen
/// without reading them.
async fn client_gone(client: &TcpStream) {
    let mut byte = [0u8; 1];
    match client.peek(&mut byte).await {
        Ok(0) | Err(_) => {}
        Ok(_) => std::future::pending().await,
    }
}

fn push_hex(out: &mut Vec<u8>, n: usize) {
    let _ = std::io::Write::write_fmt(out, format_args!("{n:x}"));
}

fn mark(out: &mut Vec<u8>, replica: &[u8], route: &str) {
    out.extend_from_slice(b"x-headroom-replica: ");
    out.extend_from_slice(replica);
    out.extend_from_slice(b"\r\nx-headroom-route: ");
    out.extend_from_slice(route.as_bytes());
    out.extend_from_slice(b"\r\n");
}

fn router_health(shared: &Shared) -> Answer {
    let live = shared.health.live_count();
    let total = shared.backends.len();
    let (status, state) = if shared.draining.load(Ordering::Acquire) {
        (503, "draining")
    } else if live == 0 {
        (503, "no_live_replica")
    } else {
        (200, "ok")
    };
    let body = HealthBody {
        status: state.to_string(),
        live,
        replicas: total,
    };
    let text = serde_json::to_string(&body).unwrap_or_default();
    Answer::local(status, "application/json", text)
}

/// A response the router writes itself.
struct Answer {
    status: u16,
    content_type: &'static str,
    body: String,
    /// The replica it concerns (a 504), sent as x-headroom-replica.
    replica: Option<String>,
    route: &'static str,
}

impl Answer {
    fn local(status: u16, content_type: &'static str, body: String) -> Answer {
        Answer {
            status,
            content_type,
            body,
            replica: None,
            route: "local",
        }
    }

    /// An OpenAI-shaped error body, so clients print the message: see docs/json/route.md.
    fn error(status: u16, code: Rejection, message: String) -> Answer {
        Answer::body(status, ErrorBody::new(code.as_str(), message))
    }

    /// An error body with its extra fields filled in.
    fn body(status: u16, body: ErrorBody) -> Answer {
        let text = serde_json::to_string(&body).unwrap_or_default();
        Answer::local(status, "application/json", text)
    }

    async fn write(
        &self,
        client: &mut TcpStream,
        out: &mut Vec<u8>,
        close: bool,
    ) -> std::io::Result<()> {
        out.clear();
        out.extend_from_slice(b"HTTP/1.1 ");
        h1::push_decimal(out, self.status as u64);
        out.push(b' ');
        out.extend_from_slice(h1::reason(self.status).as_bytes());
        out.extend_from_slice(b"\r\ncontent-type: ");
        out.extend_from_slice(self.content_type.as_bytes());
        out.extend_from_slice(b"\r\ncontent-length: ");
        h1::push_decimal(out, self.body.len() as u64);
        out.extend_from_slice(b"\r\n");
        match &self.replica {
            Some(name) => mark(out, name.as_bytes(), self.route),
            None => {
                out.extend_from_slice(b"x-headroom-route: ");
                out.extend_from_slice(self.route.as_bytes());
                out.extend_from_slice(b"\r\n");
            }
        }
        if close {
            out.extend_from_slice(b"connection: close\r\n");
        }
        out.extend_from_slice(b"\r\n");
        write_two(client, out, self.body.as_bytes()).await
    }
}

/// Holds a replica's in-flight count for as long as its response is open.
struct InFlight<'a> {
    shared: &'a Shared,
    replica: usize,
}

impl<'a> InFlight<'a> {
    fn enter(shared: &'a Shared, replica: usize) -> Self {
        shared.health.enter(replica);
        InFlight { shared, replica }
    }

    /// The upstream stream broke after bytes reached the client: counted, the replica demoted,
    /// and the request NOT retried; the client sees the cut.
    fn cut(&self, why: &str) {
        self.shared.fail(
            self.replica,
            FailureKind::Stream,
            &format!("stream cut after the first byte: {why}"),
        );
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.shared.health.leave(self.replica);
    }
}
async fn probe_loop(shared: Arc<Shared>) {
    let mut tick = tokio::time::interval(shared.config.probe_interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let mut probes = tokio::task::JoinSet::new();
        for r in (0..shared.backends.len()).filter(|r| !shared.health.is_live(*r)) {
            let s = shared.clone();
            probes.spawn(async move { (r, s.probe(r).await) });
        }
        while let Some(done) = probes.join_next().await {
            if let Ok((r, Ok(()))) = done {
                shared.restore(r);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_urls() {
        let target = |b: &Backend, t: &str| {
            let mut out = Vec::new();
            b.target(t.as_bytes(), &mut out);
            String::from_utf8(out).unwrap()
        };
        let b = Backend::parse("http://127.0.0.1:8000/").unwrap();
        assert_eq!(b.name, "http://127.0.0.1:8000");
        assert_eq!(
            (b.addr.as_str(), b.host.as_str()),
            ("127.0.0.1:8000", "127.0.0.1:8000")
        );
        assert_eq!(target(&b, "/v1/models?x=1"), "/v1/models?x=1");
        let p = Backend::parse("http://gpu1/replica-a").unwrap();
        assert_eq!((p.addr.as_str(), p.host.as_str()), ("gpu1:80", "gpu1"));
        assert_eq!(
            target(&p, "/v1/chat/completions"),
            "/replica-a/v1/chat/completions"
        );
        let v6 = Backend::parse("http://[::1]:8001").unwrap();
        assert_eq!(
            (v6.addr.as_str(), v6.host.as_str()),
            ("[::1]:8001", "[::1]:8001")
        );
        let v6 = Backend::parse("http://[::1]").unwrap();
        assert_eq!(v6.addr, "[::1]:80");
        // Userinfo: out of the name, into Basic auth (RFC 7617's example), %-escapes decoded.
        let u = Backend::parse("http://Aladdin:open%20sesame@gpu1:8000/").unwrap();
        assert_eq!(u.name, "http://gpu1:8000");
        assert_eq!(
            (u.addr.as_str(), u.host.as_str()),
            ("gpu1:8000", "gpu1:8000")
        );
        assert_eq!(
            u.auth.as_deref(),
            Some("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        );
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"a"), "YQ==");
        assert_eq!(base64(b""), "");
        // A bad URL's error names it without the password.
        for bad in [
            "http://u:hunter2@a:99999",
            "http://u:hunter2@a b:1",
            "http://u:hunter2%zz@a:1",
        ] {
            let e = Backend::parse(bad).err().unwrap().to_string();
            assert!(!e.contains("hunter2") && e.contains("u:***@"), "{e}");
        }
        assert_eq!(redact_url("http://a:1/x@y"), "http://a:1/x@y");
        for bad in [
            "https://a:1",
            "a:1",
            "http://a:1/?q=1",
            "http://a:1?q=1",
            "not a url",
            "ftp://x",
            "http://",
            "http://:80",
            "http://a:99999",
            "http://a b:1",
        ] {
            assert!(Backend::parse(bad).is_err(), "{bad}");
        }
    }
}
