//! The proxy: hyper server in front, pooled HTTP/1.1 connections behind (`pool.rs`). It owns what the policy does
//! not: reading the body under a limit, retrying before the first byte, demotion and probing,
//! relaying the response frame by frame, and draining on shutdown.
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_LENGTH, CONTENT_TYPE, HOST};
use hyper::http::uri::PathAndQuery;
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use serde_json::json;
use tokio::net::TcpListener;

use crate::health::{Health, View};
use crate::key::{self, RequestFacts};
use crate::metrics::{FailureKind, Metrics, Rejection, Snapshot};
use crate::policy::{Policy, Route};
use crate::pool::{Lease, Pool, SendError};
use crate::{Config, RouteError};

const PROBE_TIMEOUT: Duration = Duration::from_secs(5);
const REPLICA_HEADER: HeaderName = HeaderName::from_static("x-headroom-replica");
const ROUTE_HEADER: HeaderName = HeaderName::from_static("x-headroom-route");

/// What the router reports while it runs (the binary prints these on stderr).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Demoted { replica: String, reason: String },
    Restored { replica: String },
    Draining { connections: usize },
    DrainTimedOut { connections: usize },
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
    name: String,
    /// `host:port` to connect to.
    addr: String,
    /// The Host header it is sent.
    host: HeaderValue,
    /// Its name as the x-headroom-replica header.
    tag: HeaderValue,
    base_path: String,
}

impl Backend {
    fn parse(url: &str) -> Result<Backend, RouteError> {
        let bad = |reason: &str| RouteError::Backend {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        let uri: Uri = url
            .parse()
            .map_err(|e| bad(&format!("not a URL ({e}); expected http://host:port")))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some("https") => {
                return Err(bad(
                    "https is not supported; run the router beside the replicas over http",
                ))
            }
            _ => return Err(bad("expected http://host:port")),
        }
        let authority = uri.authority().ok_or_else(|| bad("no host"))?;
        if uri.query().is_some() {
            return Err(bad("a backend URL takes no query"));
        }
        let addr = format!(
            "{}:{}",
            authority.host(),
            authority.port_u16().unwrap_or(80)
        );
        let host = HeaderValue::from_str(authority.as_str())
            .map_err(|_| bad("the host is not a valid header value"))?;
        let name = url.trim_end_matches('/').to_string();
        let tag = HeaderValue::from_str(&name).map_err(|_| bad("not usable as a header value"))?;
        Ok(Backend {
            name,
            addr,
            host,
            tag,
            base_path: uri.path().trim_end_matches('/').to_string(),
        })
    }

    /// The origin-form request target on this replica.
    fn target(&self, path_and_query: &PathAndQuery) -> Result<Uri, hyper::http::uri::InvalidUri> {
        if self.base_path.is_empty() {
            Ok(Uri::from(path_and_query.clone()))
        } else {
            format!("{}{}", self.base_path, path_and_query.as_str()).parse()
        }
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
            let backend = &self.backends[r];
            let uri = backend
                .target(&PathAndQuery::from_static(path))
                .map_err(|e| e.to_string())?;
            let build = || {
                let mut req = Request::new(Full::new(Bytes::new()));
                *req.uri_mut() = uri.clone();
                req.headers_mut().insert(HOST, backend.host.clone());
                req
            };
            let (resp, mut lease) =
                match tokio::time::timeout(PROBE_TIMEOUT, self.probe_pool.send(r, &build)).await {
                    Err(_) => return Err(format!("probe {path}: no answer in {PROBE_TIMEOUT:?}")),
                    Ok(Err(e)) => return Err(format!("probe {path}: {e}")),
                    Ok(Ok(sent)) => sent,
                };
            let status = resp.status();
            // Read the small body so the connection can go back to the pool.
            if let Ok(Ok(_)) = tokio::time::timeout(PROBE_TIMEOUT, resp.into_body().collect()).await
            {
                lease.reusable();
            }
            if status.is_success() {
                return Ok(());
            }
            if status != StatusCode::NOT_FOUND && status != StatusCode::METHOD_NOT_ALLOWED {
                return Err(format!("probe {path}: answered {status}"));
            }
        }
        Err("probe: neither /health nor /v1/models answered 2xx".to_string())
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
        });
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
    mut stop: tokio::sync::watch::Receiver<bool>,
    open: Arc<AtomicUsize>,
) -> usize {
    let addrs = shared.backends.iter().map(|b| b.addr.clone()).collect();
    let pool = Arc::new(Pool::new(addrs, shared.config.connect_timeout));
    let graceful = GracefulShutdown::new();
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
                let (s, p) = (shared.clone(), pool.clone());
                let svc = hyper::service::service_fn(move |req| {
                    let (s, p) = (s.clone(), p.clone());
                    async move { Ok::<_, Infallible>(handle(s, p, req).await) }
                });
                let conn = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(shared.config.client_timeout)
                    .serve_connection(TokioIo::new(stream), svc);
                let watched = graceful.watch(conn);
                let open = open.clone();
                open.fetch_add(1, Ordering::Relaxed);
                tokio::spawn(async move {
                    let _ = watched.await;
                    open.fetch_sub(1, Ordering::Relaxed);
                });
            }
            _ = stop.changed() => break,
        }
    }
    drop(listener);
    let left = graceful.count();
    match tokio::time::timeout(shared.config.drain, graceful.shutdown()).await {
        Ok(()) => 0,
        Err(_) => left,
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

async fn handle(
    shared: Arc<Shared>,
    pool: Arc<Pool>,
    req: Request<Incoming>,
) -> Response<RelayBody> {
    let path = req.uri().path();
    if path == "/metrics" && req.method() == Method::GET {
        return local(
            StatusCode::OK,
            "text/plain; version=0.0.4",
            shared.metrics_text(),
        );
    }
    if path == "/health" {
        return router_health(&shared);
    }
    if !path.starts_with("/v1/") {
        shared.metrics.reject(Rejection::NotFound);
        let msg = format!("headroom route forwards /v1/* to the replicas; {path} is not routed (the router itself serves /metrics and /health)");
        return json_error(StatusCode::NOT_FOUND, Rejection::NotFound, msg, None);
    }
    let (mut parts, body) = req.into_parts();
    let body = match read_body(&shared, &parts.headers, body).await {
        Ok(body) => body,
        Err(resp) => return resp,
    };
    let started = Instant::now();
    let facts = if body.is_empty() {
        RequestFacts::default()
    } else {
        key::facts(&body, shared.config.prefix_bytes)
    };
    strip_hop_by_hop(&mut parts.headers, true);
    let headers = &parts.headers;
    let path_and_query = parts
        .uri
        .path_and_query()
        .cloned()
        .unwrap_or_else(|| PathAndQuery::from_static("/"));
    let mut excluded: Vec<usize> = Vec::new();
    let mut attempts: Vec<serde_json::Value> = Vec::new();
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
        let target = match backend.target(&path_and_query) {
            Ok(uri) => uri,
            Err(e) => {
                shared.metrics.reject(Rejection::BodyUnreadable);
                let msg = format!(
                    "cannot forward {path_and_query} to {}: {e}",
                    shared.names[r]
                );
                return json_error(
                    StatusCode::BAD_REQUEST,
                    Rejection::BodyUnreadable,
                    msg,
                    None,
                );
            }
        };
        if excluded.is_empty() {
            shared.metrics.overhead.observe(started.elapsed());
        }
        shared.metrics.replicas[r]
            .requests
            .fetch_add(1, Ordering::Relaxed);
        let guard = InFlight::enter(shared.clone(), r);
        let build = || build_request(&parts.method, &target, headers, &body, backend);
        let first = tokio::time::timeout(
            shared.config.first_byte_timeout,
            first_byte(pool.send(r, &build)),
        );
        match first.await {
            Err(_) => {
                shared.fail(r, FailureKind::Timeout, "no first byte in time");
                shared.metrics.reject(Rejection::UpstreamTimeout);
                let msg = format!(
                    "{} sent no first byte within --first-byte-timeout ({:?}); not retried, the replica may still be working on it",
                    shared.names[r], shared.config.first_byte_timeout
                );
                let mut resp = json_error(
                    StatusCode::GATEWAY_TIMEOUT,
                    Rejection::UpstreamTimeout,
                    msg,
                    None,
                );
                mark(resp.headers_mut(), &shared.backends[r].tag, route.as_str());
                return resp;
            }
            Ok(Err(why)) => {
                shared.fail(r, FailureKind::Connection, &why);
                attempts.push(json!({"replica": shared.names[r], "failure": why}));
                excluded.push(r);
            }
            Ok(Ok(up))
                if up.parts.status == StatusCode::BAD_GATEWAY
                    || up.parts.status == StatusCode::SERVICE_UNAVAILABLE =>
            {
                let why = format!("answered {} before the first byte", up.parts.status);
                shared.fail(r, FailureKind::Status, &why);
                attempts.push(json!({"replica": shared.names[r], "failure": why}));
                excluded.push(r);
            }
            Ok(Ok(up)) => {
                shared.metrics.route(route);
                if route == Route::Pinned {
                    shared.metrics.replicas[r]
                        .pins
                        .fetch_add(1, Ordering::Relaxed);
                }
                return relay(up, guard, &shared.backends[r].tag, route);
            }
        }
    }
    shared.metrics.reject(Rejection::NoLiveReplica);
    let replicas: Vec<_> = (0..shared.backends.len())
        .map(|r| json!({"replica": shared.names[r], "live": shared.health.is_live(r)}))
        .collect();
    let msg = if attempts.is_empty() {
        format!(
            "no live replica: all {} are demoted and being probed; retry shortly",
            replicas.len()
        )
    } else {
        format!("no live replica: {} attempt(s) failed before the first byte and no other replica is live", attempts.len())
    };
    json_error(
        StatusCode::SERVICE_UNAVAILABLE,
        Rejection::NoLiveReplica,
        msg,
        Some(json!({"replicas": replicas, "attempts": attempts})),
    )
}

/// The whole request body, under --max-body. A declared Content-Length over the limit is
/// refused before reading.
async fn read_body(
    shared: &Shared,
    headers: &HeaderMap,
    body: Incoming,
) -> Result<Bytes, Response<RelayBody>> {
    let max = shared.config.max_body;
    let too_large = |size: String| {
        shared.metrics.reject(Rejection::BodyTooLarge);
        let msg = format!(
            "request body is {size}; the router accepts at most {max} bytes (--max-body). Raise --max-body to accept it."
        );
        json_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            Rejection::BodyTooLarge,
            msg,
            Some(json!({"max_body": max})),
        )
    };
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if let Some(len) = declared.filter(|len| *len > max as u64) {
        return Err(too_large(format!("{len} bytes")));
    }
    match tokio::time::timeout(
        shared.config.client_timeout,
        Limited::new(body, max).collect(),
    )
    .await
    {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => {
            Err(too_large("larger than that".to_string()))
        }
        Ok(Err(e)) => {
            shared.metrics.reject(Rejection::BodyUnreadable);
            Err(json_error(
                StatusCode::BAD_REQUEST,
                Rejection::BodyUnreadable,
                format!("could not read the request body: {e}"),
                None,
            ))
        }
        Err(_) => {
            shared.metrics.reject(Rejection::BodyUnreadable);
            let msg = format!(
                "request body not received within {:?} (--client-timeout)",
                shared.config.client_timeout
            );
            Err(json_error(
                StatusCode::REQUEST_TIMEOUT,
                Rejection::BodyUnreadable,
                msg,
                None,
            ))
        }
    }
}

fn router_health(shared: &Shared) -> Response<RelayBody> {
    let live = shared.health.live_count();
    let total = shared.backends.len();
    let (status, state) = if shared.draining.load(Ordering::Acquire) {
        (StatusCode::SERVICE_UNAVAILABLE, "draining")
    } else if live == 0 {
        (StatusCode::SERVICE_UNAVAILABLE, "no_live_replica")
    } else {
        (StatusCode::OK, "ok")
    };
    let body = json!({"status": state, "live": live, "replicas": total});
    local(status, "application/json", body.to_string())
}

/// The upstream response head and its first body frame: until that frame arrives nothing has
/// been written to the client, so a failure here can still be retried elsewhere.
struct Upstream {
    parts: hyper::http::response::Parts,
    first: Option<Frame<Bytes>>,
    body: Incoming,
    lease: Lease,
}

async fn first_byte(
    pending: impl Future<Output = Result<(Response<Incoming>, Lease), SendError>>,
) -> Result<Upstream, String> {
    let (resp, lease) = pending.await.map_err(|e| e.to_string())?;
    let (parts, mut body) = resp.into_parts();
    if parts.status == StatusCode::BAD_GATEWAY || parts.status == StatusCode::SERVICE_UNAVAILABLE {
        return Ok(Upstream {
            parts,
            first: None,
            body,
            lease,
        });
    }
    let first = match body.frame().await {
        None => None,
        Some(Ok(frame)) => Some(frame),
        Some(Err(e)) => {
            return Err(format!(
                "connection closed after the response head, before the first byte: {e}"
            ))
        }
    };
    Ok(Upstream {
        parts,
        first,
        body,
        lease,
    })
}

fn describe(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

// Hop-by-hop headers (RFC 9110 §7.6.1) and the ones the router sets itself.
const DROPPED: [&str; 11] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

fn connection_listed(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(hyper::header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().to_ascii_lowercase())
        .filter(|t| !t.is_empty())
        .collect()
}

/// Removes hop-by-hop headers in place: every other header (Authorization ...) passes through.
/// A request also loses Expect (the body is already read) and Content-Length (recomputed); a
/// response keeps Content-Length (its body is relayed unchanged).
fn strip_hop_by_hop(headers: &mut HeaderMap, request: bool) {
    for name in connection_listed(headers) {
        headers.remove(name.as_str());
    }
    for name in DROPPED {
        if request || name != "content-length" {
            headers.remove(name);
        }
    }
    if request {
        headers.remove("expect");
    }
}

fn build_request(
    method: &Method,
    target: &Uri,
    headers: &HeaderMap,
    body: &Bytes,
    backend: &Backend,
) -> Request<Full<Bytes>> {
    let mut req = Request::new(Full::new(body.clone()));
    *req.method_mut() = method.clone();
    *req.uri_mut() = target.clone();
    *req.headers_mut() = headers.clone();
    req.headers_mut().insert(HOST, backend.host.clone());
    if !body.is_empty() || method == Method::POST || method == Method::PUT {
        req.headers_mut()
            .insert(CONTENT_LENGTH, HeaderValue::from(body.len()));
    }
    req
}

fn relay(
    up: Upstream,
    guard: InFlight,
    replica: &HeaderValue,
    route: Route,
) -> Response<RelayBody> {
    let Upstream {
        parts,
        first,
        body,
        mut lease,
    } = up;
    if first.is_none() && body.is_end_stream() {
        lease.reusable();
    }
    let mut resp = Response::new(RelayBody {
        kind: Kind::Upstream {
            first,
            inner: body,
            guard: Some(guard),
            lease,
        },
    });
    *resp.status_mut() = parts.status;
    *resp.headers_mut() = parts.headers;
    strip_hop_by_hop(resp.headers_mut(), false);
    mark(resp.headers_mut(), replica, route.as_str());
    resp
}

fn mark(headers: &mut HeaderMap, replica: &HeaderValue, route: &'static str) {
    headers.insert(REPLICA_HEADER, replica.clone());
    headers.insert(ROUTE_HEADER, HeaderValue::from_static(route));
}

fn local(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response<RelayBody> {
    let mut resp = Response::new(RelayBody {
        kind: Kind::Local(Some(body.into())),
    });
    *resp.status_mut() = status;
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    resp.headers_mut()
        .insert(ROUTE_HEADER, HeaderValue::from_static("local"));
    resp
}

/// An OpenAI-shaped error body, so clients print the message: see docs/json/route.md.
fn json_error(
    status: StatusCode,
    code: Rejection,
    message: String,
    extra: Option<serde_json::Value>,
) -> Response<RelayBody> {
    let mut error = json!({"message": message, "type": "headroom_route", "code": code.as_str()});
    if let (Some(serde_json::Value::Object(extra)), Some(obj)) = (extra, error.as_object_mut()) {
        obj.extend(extra);
    }
    local(
        status,
        "application/json",
        json!({"error": error}).to_string(),
    )
}

/// Holds a replica's in-flight count for as long as its response is open.
struct InFlight {
    shared: Arc<Shared>,
    replica: usize,
}

impl InFlight {
    fn enter(shared: Arc<Shared>, replica: usize) -> Self {
        shared.health.enter(replica);
        InFlight { shared, replica }
    }

    /// The upstream stream broke after bytes reached the client: counted, the replica demoted,
    /// and the request NOT retried; the client sees the cut.
    fn cut(&self, e: &hyper::Error) {
        self.shared.fail(
            self.replica,
            FailureKind::Stream,
            &format!("stream cut after the first byte: {}", describe(e)),
        );
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.shared.health.leave(self.replica);
    }
}

/// The response body: either the router's own bytes, or the replica's frames relayed as they
/// arrive (no buffering: each frame is handed to hyper when it comes).
pub struct RelayBody {
    kind: Kind,
}

enum Kind {
    Local(Option<Bytes>),
    Upstream {
        first: Option<Frame<Bytes>>,
        inner: Incoming,
        guard: Option<InFlight>,
        /// Back to the pool once the body has ended cleanly.
        lease: Lease,
    },
}

impl Body for RelayBody {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        match &mut self.get_mut().kind {
            Kind::Local(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Kind::Upstream {
                first,
                inner,
                guard,
                lease,
            } => {
                if let Some(frame) = first.take() {
                    // A body sent whole (Content-Length) may end with its first frame; hyper
                    // then stops polling, so mark the connection reusable now.
                    if inner.is_end_stream() {
                        lease.reusable();
                        guard.take();
                    }
                    return Poll::Ready(Some(Ok(frame)));
                }
                match Pin::new(inner).poll_frame(cx) {
                    Poll::Ready(None) => {
                        lease.reusable();
                        guard.take();
                        Poll::Ready(None)
                    }
                    Poll::Ready(Some(Err(e))) => {
                        if let Some(g) = guard.take() {
                            g.cut(&e);
                        }
                        Poll::Ready(Some(Err(e)))
                    }
                    other => other,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Local(bytes) => bytes.is_none(),
            Kind::Upstream { first, inner, .. } => first.is_none() && inner.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Local(bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            Kind::Upstream { first, inner, .. } => {
                let pending = first
                    .as_ref()
                    .and_then(|f| f.data_ref())
                    .map_or(0, |d| d.len() as u64);
                let inner = inner.size_hint();
                let mut hint = SizeHint::new();
                hint.set_lower(inner.lower() + pending);
                if let Some(upper) = inner.upper() {
                    hint.set_upper(upper + pending);
                }
                hint
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_urls() {
        let pq = |s: &'static str| PathAndQuery::from_static(s);
        let b = Backend::parse("http://127.0.0.1:8000/").unwrap();
        assert_eq!(b.name, "http://127.0.0.1:8000");
        assert_eq!(
            (b.addr.as_str(), b.host.to_str().unwrap()),
            ("127.0.0.1:8000", "127.0.0.1:8000")
        );
        assert_eq!(
            b.target(&pq("/v1/models?x=1")).unwrap().to_string(),
            "/v1/models?x=1"
        );
        let p = Backend::parse("http://gpu1/replica-a").unwrap();
        assert_eq!(
            (p.addr.as_str(), p.host.to_str().unwrap()),
            ("gpu1:80", "gpu1")
        );
        assert_eq!(
            p.target(&pq("/v1/chat/completions")).unwrap().to_string(),
            "/replica-a/v1/chat/completions"
        );
        for bad in [
            "https://a:1",
            "a:1",
            "http://a:1/?q=1",
            "not a url",
            "ftp://x",
        ] {
            assert!(Backend::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hop_by_hop_headers_stay_behind() {
        let mut h = HeaderMap::new();
        h.insert("authorization", HeaderValue::from_static("Bearer sk-1"));
        h.insert(
            "connection",
            HeaderValue::from_static("keep-alive, x-secret-hop"),
        );
        h.insert("x-secret-hop", HeaderValue::from_static("1"));
        h.insert("transfer-encoding", HeaderValue::from_static("chunked"));
        h.insert("host", HeaderValue::from_static("router:9000"));
        h.insert("x-request-id", HeaderValue::from_static("abc"));
        h.insert("content-length", HeaderValue::from_static("12"));
        let mut response = h.clone();
        strip_hop_by_hop(&mut h, true);
        let names: Vec<&str> = h.keys().map(|k| k.as_str()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        assert_eq!(h["authorization"], "Bearer sk-1");
        assert_eq!(h["x-request-id"], "abc");
        strip_hop_by_hop(&mut response, false);
        assert_eq!(
            response["content-length"], "12",
            "a relayed body keeps its length"
        );
        assert_eq!(response.len(), 3);
    }
}
