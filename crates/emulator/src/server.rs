//! The HTTP face of the emulator: an OpenAI-compatible vLLM server on loopback or any address.
//!
//! One engine thread steps the simulation and paces it against the wall clock: simulated time
//! runs `speed` times faster than wall time (sim clock = start + elapsed × speed). While idle
//! the simulated clock follows the wall clock; while busy each step advances it by the step's
//! modelled time and the thread sleeps until the wall clock catches up. When the CPU cannot
//! keep up, simulated time slows down rather than skip: every timestamp stays consistent.
//!
//! HTTP handlers hand requests to the engine (stamped with the simulated clock) and receive
//! tokens through a channel; a client that goes away aborts its request.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full, Limited};
use hyper::body::{Body, Frame, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use loadgen::traffic::LoadShape;
use serde_json::{json, Value};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

use crate::api::{self, BadRequest, GenRequest, Kind, Meta};
use crate::doc::{EmulatorState, StepFigures};
use crate::engine::{Engine, FinishReason, ReqId, Usage};
use crate::hardware::Configured;
use crate::kv::IdMap;
use crate::sim::SimLoad;
use crate::tokenizer::output_token;

/// The vLLM version whose exposition and API the emulator follows.
pub const VLLM_VERSION: &str = "0.11.0";

/// How to run a server.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub configured: Configured,
    /// Simulated seconds per wall second.
    pub speed: f64,
    /// Load replayed inside the engine in simulated time (no HTTP), with its seed.
    pub drive: Option<(LoadShape, u64)>,
    /// The prefix the step ledger is exported under (None: `vllm`).
    pub ledger_prefix: Option<String>,
}

/// What a token channel carries.
#[derive(Debug, Clone, PartialEq)]
enum Event {
    Token { index: u32, word: &'static str },
    Done { reason: FinishReason, usage: Usage },
}

type Sink = UnboundedSender<Event>;

/// Maps simulated time to wall time.
#[derive(Debug, Clone, Copy)]
struct Clock {
    wall_anchor: Instant,
    sim_anchor: f64,
    speed: f64,
}

impl Clock {
    fn mapped(&self) -> f64 {
        self.sim_anchor + self.wall_anchor.elapsed().as_secs_f64() * self.speed
    }

    fn wall_at(&self, sim: f64) -> Instant {
        let d = ((sim - self.sim_anchor) / self.speed).max(0.0);
        self.wall_anchor + Duration::from_secs_f64(d)
    }
}

struct Core {
    engine: Engine,
    load: Option<SimLoad>,
    sinks: IdMap<Sink>,
    clock: Clock,
    /// Times the simulation fell behind the wall clock and was re-anchored.
    lags: u64,
}

impl Core {
    /// The simulated now: the engine's clock while it works, the wall-mapped clock when idle.
    fn now(&self) -> f64 {
        if self.engine.has_work() {
            self.engine.now()
        } else {
            self.engine.now().max(self.clock.mapped())
        }
    }
}

struct Shared {
    core: Mutex<Core>,
    wake: Condvar,
    stop: AtomicBool,
    /// Unix seconds at simulated time 0.
    epoch: f64,
    configured: Configured,
    speed: f64,
    next_response: AtomicU64,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Core> {
        // A panic on the engine thread poisons the lock; the state is still the last good step.
        self.core.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A running emulator.
pub struct EmulatorServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    engine_thread: Option<std::thread::JoinHandle<()>>,
    accept: tokio::task::JoinHandle<()>,
}

/// Engine state at one moment, for progress lines.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Snapshot {
    pub sim_seconds: f64,
    pub running: usize,
    pub waiting: usize,
    pub kv_usage: f64,
    pub finished: f64,
    pub lags: u64,
    /// Requests the driven load sent, and those refused at the door (0 without --drive).
    pub driven_submitted: u64,
    pub driven_rejected: u64,
}

impl EmulatorServer {
    /// Binds `addr` (port 0 picks a free one) and starts the engine thread. Needs a tokio
    /// runtime.
    pub async fn start(cfg: ServerConfig, addr: SocketAddr) -> std::io::Result<EmulatorServer> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let speed = if cfg.speed.is_finite() && cfg.speed > 0.0 {
            cfg.speed
        } else {
            1.0
        };
        let epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        let mut engine = cfg.configured.engine();
        if let Some(p) = &cfg.ledger_prefix {
            engine.set_ledger_prefix(p);
        }
        let load = cfg
            .drive
            .as_ref()
            .map(|(shape, seed)| SimLoad::new(shape, *seed, 0.0));
        let shared = Arc::new(Shared {
            core: Mutex::new(Core {
                engine,
                load,
                sinks: IdMap::default(),
                clock: Clock {
                    wall_anchor: Instant::now(),
                    sim_anchor: 0.0,
                    speed,
                },
                lags: 0,
            }),
            wake: Condvar::new(),
            stop: AtomicBool::new(false),
            epoch,
            configured: cfg.configured.clone(),
            speed,
            next_response: AtomicU64::new(0),
        });
        let s = shared.clone();
        let engine_thread = std::thread::Builder::new()
            .name("emulator-engine".into())
            .spawn(move || engine_loop(&s))?;
        let s = shared.clone();
        let accept = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let s = s.clone();
                tokio::spawn(async move {
                    let svc = hyper::service::service_fn(move |req| {
                        let s = s.clone();
                        async move { Ok::<_, Infallible>(handle(&s, req).await) }
                    });
                    let io = hyper_util::rt::TokioIo::new(stream);
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(io, svc)
                        .await;
                });
            }
        });
        Ok(EmulatorServer {
            addr,
            shared,
            engine_thread: Some(engine_thread),
            accept,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn snapshot(&self) -> Snapshot {
        let c = self.shared.lock();
        let m = c.engine.metrics();
        Snapshot {
            sim_seconds: c.now(),
            running: c.engine.num_running(),
            waiting: c.engine.num_waiting(),
            kv_usage: m.kv_usage,
            finished: m.success.iter().sum(),
            lags: c.lags,
            driven_submitted: c.load.as_ref().map_or(0, |l| l.submitted),
            driven_rejected: c.load.as_ref().map_or(0, |l| l.rejected),
        }
    }

    /// Stops accepting, stops the engine, and ends every open request.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.accept.abort();
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.wake.notify_all();
        if let Some(t) = self.engine_thread.take() {
            let _ = t.join();
        }
        // Dropping the sinks ends every response still waiting for tokens.
        self.shared.lock().sinks.clear();
    }
}

impl Drop for EmulatorServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Steps the engine, paced to `speed` × wall time.
fn engine_loop(s: &Shared) {
    while !s.stop.load(Ordering::SeqCst) {
        let mut c = s.lock();
        if !c.engine.has_work() {
            // Idle time passes with the wall clock, but a driven arrival that fell due while
            // asleep is taken at its own time, so a driven run steps exactly as its virtual
            // replay does.
            let mapped = c.clock.mapped();
            let t = match c.load.as_ref().and_then(SimLoad::next_time) {
                Some(next) if next <= mapped => next,
                _ => mapped,
            };
            c.engine.advance_to(t);
        }
        let now = c.engine.now();
        let Core { engine, load, .. } = &mut *c;
        if let Some(l) = load.as_mut() {
            l.submit_due(engine, now);
        }
        if !c.engine.has_work() {
            // Idle: sleep until the next internal arrival, a new request, or 50 ms.
            let mut wait = Duration::from_millis(50);
            if let Some(t) = c.load.as_ref().and_then(SimLoad::next_time) {
                wait = wait.min(c.clock.wall_at(t).saturating_duration_since(Instant::now()));
            }
            let _ = s.wake.wait_timeout(c, wait);
            continue;
        }
        let out = c.engine.step();
        let mut deliveries: Vec<(ReqId, Sink, Event)> = Vec::new();
        for t in &out.tokens {
            if let Some(sink) = c.sinks.get(&t.id) {
                let (_, word) = output_token(c.engine.args().seed, t.id, t.index);
                deliveries.push((
                    t.id,
                    sink.clone(),
                    Event::Token {
                        index: t.index,
                        word,
                    },
                ));
            }
        }
        for f in &out.finished {
            let now = c.engine.now();
            if let Some(sink) = c.sinks.remove(&f.id) {
                deliveries.push((
                    f.id,
                    sink,
                    Event::Done {
                        reason: f.reason,
                        usage: f.usage,
                    },
                ));
            } else if let Some(l) = c.load.as_mut() {
                l.on_finished(f.id, now);
            }
        }
        let target = c.clock.wall_at(c.engine.now());
        drop(c);
        let now = Instant::now();
        if target > now + Duration::from_micros(500) {
            // In slices, so a stop is seen within 50 ms even during a long step.
            while !s.stop.load(Ordering::SeqCst) {
                let left = target.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                std::thread::sleep(left.min(Duration::from_millis(50)));
            }
        } else if now > target + Duration::from_millis(250) {
            // Behind the wall clock: slow simulated time down rather than skip it.
            let mut c = s.lock();
            let sim = c.engine.now();
            c.clock = Clock {
                wall_anchor: Instant::now(),
                sim_anchor: sim,
                speed: c.clock.speed,
            };
            c.lags += 1;
        }
        let mut gone: Vec<ReqId> = Vec::new();
        for (id, sink, ev) in deliveries {
            if sink.send(ev).is_err() && !gone.contains(&id) {
                gone.push(id);
            }
        }
        if !gone.is_empty() {
            let mut c = s.lock();
            for id in gone {
                if c.sinks.remove(&id).is_some() {
                    c.engine.abort(id);
                }
            }
        }
    }
}

fn json_response<T: serde::Serialize>(
    status: StatusCode,
    v: &T,
) -> Response<BoxBody<Bytes, Infallible>> {
    let body = serde_json::to_string(v).unwrap_or_default();
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .header("server", "headroom-emulator")
        .body(Full::new(Bytes::from(body)).boxed())
        .expect("static response parts")
}

fn text_response(
    status: StatusCode,
    ctype: &str,
    body: String,
) -> Response<BoxBody<Bytes, Infallible>> {
    Response::builder()
        .status(status)
        .header("content-type", ctype)
        .header("server", "headroom-emulator")
        .body(Full::new(Bytes::from(body)).boxed())
        .expect("static response parts")
}

fn error(status: StatusCode, kind: &str, message: &str) -> Response<BoxBody<Bytes, Infallible>> {
    json_response(status, &api::error_body(message, kind, status.as_u16()))
}

async fn read_body(req: Request<Incoming>) -> Result<Bytes, Response<BoxBody<Bytes, Infallible>>> {
    match Limited::new(req.into_body(), api::MAX_BODY_BYTES)
        .collect()
        .await
    {
        Ok(b) => Ok(b.to_bytes()),
        Err(e) => Err(error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "BadRequestError",
            &format!(
                "request body unreadable or over {} bytes: {e}",
                api::MAX_BODY_BYTES
            ),
        )),
    }
}

async fn handle(s: &Arc<Shared>, req: Request<Incoming>) -> Response<BoxBody<Bytes, Infallible>> {
    let path = req.uri().path().to_string();
    match (req.method().clone(), path.as_str()) {
        (Method::GET, "/health") => text_response(StatusCode::OK, "text/plain", String::new()),
        (Method::GET, "/version") => json_response(
            StatusCode::OK,
            &json!({"version": VLLM_VERSION, "simulated": true, "emulator": format!("headroom-emulator {}", env!("CARGO_PKG_VERSION"))}),
        ),
        (Method::GET, "/v1/models") => {
            let a = &s.configured.args;
            json_response(
                StatusCode::OK,
                &json!({"object": "list", "data": [{
                    "id": a.served_model_name, "object": "model", "created": s.epoch as u64,
                    "owned_by": "vllm", "root": s.configured.hardware.model_id, "parent": null,
                    "max_model_len": a.max_model_len, "permission": [],
                }]}),
            )
        }
        (Method::GET, "/metrics") => {
            let body = {
                let c = s.lock();
                c.engine.render_metrics_at(s.epoch, c.now())
            };
            text_response(
                StatusCode::OK,
                "text/plain; version=0.0.4; charset=utf-8",
                body,
            )
        }
        (Method::GET, "/emulator") => json_response(StatusCode::OK, &info(s)),
        (Method::POST, "/tokenize") => match read_body(req).await {
            Err(r) => r,
            Ok(b) => tokenize(s, &b),
        },
        (Method::POST, "/v1/completions") => generate(s, req, Kind::Completion).await,
        (Method::POST, "/v1/chat/completions") => generate(s, req, Kind::Chat).await,
        (
            _,
            "/health"
            | "/version"
            | "/v1/models"
            | "/metrics"
            | "/emulator"
            | "/tokenize"
            | "/v1/completions"
            | "/v1/chat/completions",
        ) => error(
            StatusCode::METHOD_NOT_ALLOWED,
            "MethodNotAllowed",
            "method not allowed",
        ),
        _ => error(
            StatusCode::NOT_FOUND,
            "NotFoundError",
            &format!("no route {path}"),
        ),
    }
}

/// The deployment as the emulator models it, and its clock (`GET /emulator`).
fn info(s: &Shared) -> EmulatorState {
    let c = s.lock();
    let f = &s.configured.hardware.figures;
    EmulatorState {
        simulated: true,
        speed: s.speed,
        epoch_unix_s: s.epoch,
        sim_seconds: c.now(),
        lags: c.lags,
        drive: c.load.is_some(),
        gpu: f.gpu.clone(),
        model: f.model.clone(),
        command_line: s.configured.command_line(),
        args: s.configured.args.clone(),
        layout: c.engine.layout().clone(),
        figures: StepFigures::of(f),
    }
}

fn tokenize(s: &Shared, body: &[u8]) -> Response<BoxBody<Bytes, Infallible>> {
    let v: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                "BadRequestError",
                &format!("not JSON: {e}"),
            )
        }
    };
    let kind = if v.get("messages").is_some() {
        Kind::Chat
    } else {
        Kind::Completion
    };
    match api::parse(kind, body) {
        Ok(r) => json_response(
            StatusCode::OK,
            &json!({"count": r.tokens.len(), "max_model_len": s.configured.args.max_model_len, "tokens": r.tokens}),
        ),
        Err(BadRequest(m)) => error(StatusCode::BAD_REQUEST, "BadRequestError", &m),
    }
}

async fn generate(
    s: &Arc<Shared>,
    req: Request<Incoming>,
    kind: Kind,
) -> Response<BoxBody<Bytes, Infallible>> {
    let body = match read_body(req).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let g: GenRequest = match api::parse(kind, &body) {
        Ok(g) => g,
        Err(BadRequest(m)) => return error(StatusCode::BAD_REQUEST, "BadRequestError", &m),
    };
    let served = &s.configured.args.served_model_name;
    if let Some(m) = &g.model {
        if m != served && *m != s.configured.hardware.model_id {
            return error(
                StatusCode::NOT_FOUND,
                "NotFoundError",
                &format!("The model `{m}` does not exist."),
            );
        }
    }
    let (tx, rx) = unbounded_channel();
    let id = {
        let mut c = s.lock();
        let now = c.now();
        c.engine.advance_to(now);
        match c.engine.add_request(g.tokens, g.max_tokens, now) {
            Ok(id) => {
                c.sinks.insert(id, tx);
                id
            }
            Err(e) => return error(StatusCode::BAD_REQUEST, "BadRequestError", &e.to_string()),
        }
    };
    s.wake.notify_all();
    let created = (s.epoch + s.lock().now()) as u64;
    let meta = Meta::new(
        kind,
        s.next_response.fetch_add(1, Ordering::Relaxed),
        created,
        served,
    );
    let guard = AbortOnDrop {
        shared: s.clone(),
        id,
        armed: true,
    };
    if g.stream {
        let body = SseBody {
            rx,
            meta,
            include_usage: g.include_usage,
            started: false,
            done: false,
            guard,
        };
        return Response::builder()
            .status(StatusCode::OK)
            .header("content-type", "text/event-stream; charset=utf-8")
            .header("cache-control", "no-cache")
            .header("server", "headroom-emulator")
            .body(body.boxed())
            .expect("static response parts");
    }
    collect(rx, meta, guard).await
}

/// Ends the request in the engine when its response is dropped early (client gone).
struct AbortOnDrop {
    shared: Arc<Shared>,
    id: ReqId,
    armed: bool,
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if self.armed {
            let mut c = self.shared.lock();
            if c.sinks.remove(&self.id).is_some() {
                c.engine.abort(self.id);
            }
        }
    }
}

async fn collect(
    mut rx: UnboundedReceiver<Event>,
    meta: Meta,
    mut guard: AbortOnDrop,
) -> Response<BoxBody<Bytes, Infallible>> {
    let mut text = String::new();
    while let Some(ev) = rx.recv().await {
        match ev {
            Event::Token { word, .. } => text.push_str(&api::piece(word)),
            Event::Done { reason, usage } => {
                guard.armed = false;
                return json_response(
                    StatusCode::OK,
                    &api::full_response(&meta, &text, reason, &usage),
                );
            }
        }
    }
    guard.armed = false;
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        "ServiceUnavailable",
        "the emulator shut down",
    )
}

/// A server-sent-events body fed by the engine's token channel.
struct SseBody {
    rx: UnboundedReceiver<Event>,
    meta: Meta,
    include_usage: bool,
    started: bool,
    done: bool,
    guard: AbortOnDrop,
}

impl Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.done {
            return Poll::Ready(None);
        }
        let mut out = String::new();
        if !self.started && self.meta.kind == Kind::Chat {
            out += &api::sse_role(&self.meta, self.include_usage);
        }
        self.started = true;
        // Drain what is ready so a step's tokens go out in one frame.
        loop {
            match self.rx.poll_recv(cx) {
                Poll::Ready(Some(Event::Token { word, .. })) => {
                    out += &api::sse_token(&self.meta, &api::piece(word), None, self.include_usage);
                }
                Poll::Ready(Some(Event::Done { reason, usage })) => {
                    // The finish reason rides on an empty last chunk, as vLLM sends it.
                    out += &api::sse_token(&self.meta, "", Some(reason), self.include_usage);
                    out += &api::sse_end(&self.meta, &usage, self.include_usage);
                    self.done = true;
                    self.guard.armed = false;
                    break;
                }
                Poll::Ready(None) => {
                    self.done = true;
                    self.guard.armed = false;
                    out += "data: {\"error\": {\"message\": \"the emulator shut down\"}}\n\n";
                    break;
                }
                Poll::Pending => break,
            }
        }
        if out.is_empty() {
            Poll::Pending
        } else {
            Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))))
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done
    }
}
