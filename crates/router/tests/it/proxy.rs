//! The router end to end against small SSE replicas of our own on loopback: deterministic
//! failure timing (kill mid-stream, die after the head, 503, refused connection, restart),
//! which a real engine cannot give on demand. The same checks against real llama-servers are
//! in crates/headroom/tests/route.rs.
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use router::doc::{ErrorBody, HealthBody, RouteError};
use router::{Config, Event, PolicyKind, Router, Summary};
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};
use tokio::task::{AbortHandle, JoinHandle};

// ---------------------------------------------------------------------------------------------
// A replica of our own: streams `chunks` SSE events, the first after `first_delay`.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Stream,
    /// 503 before any byte, like an engine still loading.
    Unavailable,
    /// 200 and headers, then the connection dies before the first body byte.
    DieAfterHead,
}

struct Replica {
    name: String,
    requests: AtomicUsize,
    connections: AtomicUsize,
    /// Close a keep-alive connection idle this long (as llama-server does after 5 s).
    idle_close: Mutex<Option<Duration>>,
    mode: Mutex<Mode>,
    first_delay: Duration,
    chunks: usize,
    gap: Duration,
}

struct Fake {
    addr: SocketAddr,
    state: Arc<Replica>,
    accept: Option<JoinHandle<()>>,
    conns: Arc<Mutex<Vec<AbortHandle>>>,
}

/// A response body fed by a channel, so the replica can pause between events or fail.
struct ChanBody(mpsc::Receiver<Result<Frame<Bytes>, std::io::Error>>);

impl Body for ChanBody {
    type Data = Bytes;
    type Error = std::io::Error;
    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        self.0.poll_recv(cx)
    }
}

async fn replica_answer(state: Arc<Replica>, req: Request<Incoming>) -> Response<ChanBody> {
    let (tx, rx) = mpsc::channel(4);
    let mut resp = Response::new(ChanBody(rx));
    if req.uri().path() == "/health" || req.uri().path() == "/v1/models" {
        let _ = tx.try_send(Ok(Frame::data(Bytes::from_static(b"{\"status\":\"ok\"}"))));
        return resp;
    }
    state.requests.fetch_add(1, Ordering::SeqCst);
    let auth = req.headers().get("authorization").cloned();
    let _ = req.into_body().collect().await;
    let mode = *state.mode.lock().unwrap();
    if let Some(a) = auth {
        resp.headers_mut().insert("x-echo-authorization", a);
    }
    match mode {
        Mode::Unavailable => {
            *resp.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
            let _ = tx.try_send(Ok(Frame::data(Bytes::from_static(
                b"{\"error\":\"loading\"}",
            ))));
        }
        Mode::DieAfterHead => {
            resp.headers_mut()
                .insert("content-type", "text/event-stream".parse().unwrap());
            // Pause first: hyper flushes the head while the body is pending.
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                let _ = tx.send(Err(std::io::Error::other("replica died"))).await;
            });
        }
        Mode::Stream => {
            resp.headers_mut()
                .insert("content-type", "text/event-stream".parse().unwrap());
            let s = state.clone();
            tokio::spawn(async move {
                tokio::time::sleep(s.first_delay).await;
                for i in 0..s.chunks {
                    let event = format!("data: {}\n\n", json!({"replica": s.name, "i": i}));
                    if tx.send(Ok(Frame::data(Bytes::from(event)))).await.is_err() {
                        return;
                    }
                    tokio::time::sleep(s.gap).await;
                }
                let _ = tx
                    .send(Ok(Frame::data(Bytes::from_static(b"data: [DONE]\n\n"))))
                    .await;
            });
        }
    }
    resp
}

impl Fake {
    async fn start(name: &str, first_delay: Duration, chunks: usize, gap: Duration) -> Fake {
        let state = Arc::new(Replica {
            name: name.to_string(),
            requests: AtomicUsize::new(0),
            connections: AtomicUsize::new(0),
            idle_close: Mutex::new(None),
            mode: Mutex::new(Mode::Stream),
            first_delay,
            chunks,
            gap,
        });
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut fake = Fake {
            addr,
            state,
            accept: None,
            conns: Arc::default(),
        };
        fake.serve(listener);
        fake
    }

    fn quick(name: &str) -> impl std::future::Future<Output = Fake> + '_ {
        Fake::start(name, Duration::from_millis(1), 3, Duration::from_millis(1))
    }

    fn serve(&mut self, listener: TcpListener) {
        let state = self.state.clone();
        let conns = self.conns.clone();
        self.accept = Some(tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                state.connections.fetch_add(1, Ordering::SeqCst);
                let idle_close = *state.idle_close.lock().unwrap();
                let s = state.clone();
                let svc = hyper::service::service_fn(move |req| {
                    let s = s.clone();
                    async move { Ok::<_, Infallible>(replica_answer(s, req).await) }
                });
                let task = tokio::spawn(async move {
                    let mut builder = hyper::server::conn::http1::Builder::new();
                    if let Some(idle) = idle_close {
                        builder.timer(TokioTimer::new()).header_read_timeout(idle);
                    }
                    let _ = builder.serve_connection(TokioIo::new(stream), svc).await;
                });
                conns.lock().unwrap().push(task.abort_handle());
            }
        }));
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn set_mode(&self, mode: Mode) {
        *self.state.mode.lock().unwrap() = mode;
    }

    fn requests(&self) -> usize {
        self.state.requests.load(Ordering::SeqCst)
    }

    /// Stops listening and drops every open connection, mid-stream or not.
    fn kill(&mut self) {
        if let Some(a) = self.accept.take() {
            a.abort();
        }
        for c in self.conns.lock().unwrap().drain(..) {
            c.abort();
        }
    }

    async fn restart(&mut self) {
        let listener = TcpListener::bind(self.addr).await.unwrap();
        self.serve(listener);
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.kill();
    }
}

// ---------------------------------------------------------------------------------------------
// The router in process, and a client.

struct Running {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    done: JoinHandle<Summary>,
    events: Arc<Mutex<Vec<Event>>>,
}

fn config(backends: Vec<String>) -> Config {
    Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        backends,
        connect_timeout: Duration::from_millis(500),
        first_byte_timeout: Duration::from_secs(10),
        probe_interval: Duration::from_millis(100),
        drain: Duration::from_secs(5),
        ..Config::default()
    }
}

async fn start_router(config: Config) -> Running {
    let events: Arc<Mutex<Vec<Event>>> = Arc::default();
    let sink = events.clone();
    let router = Router::bind(
        config,
        Arc::new(move |e: &Event| sink.lock().unwrap().push(e.clone())),
    )
    .await
    .unwrap();
    let addr = router.local_addr();
    let (stop, stopped) = oneshot::channel::<()>();
    let done = tokio::spawn(router.serve(async move {
        let _ = stopped.await;
    }));
    Running {
        addr,
        stop: Some(stop),
        done,
        events,
    }
}

impl Running {
    async fn stop(mut self) -> Summary {
        let _ = self.stop.take().unwrap().send(());
        tokio::time::timeout(Duration::from_secs(10), &mut self.done)
            .await
            .expect("router stops")
            .unwrap()
    }
}

#[derive(Debug)]
struct Outcome {
    status: u16,
    replica: Option<String>,
    route: Option<String>,
    headers: hyper::HeaderMap,
    /// Data frames as they arrived, with their arrival time from the request.
    frames: Vec<(Duration, Bytes)>,
    /// The body ended cleanly.
    complete: bool,
    /// Sending failed, or the body broke (the client saw a cut).
    error: Option<String>,
}

impl Outcome {
    fn text(&self) -> String {
        self.frames
            .iter()
            .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
            .collect()
    }
    /// The router's own error body, deserialized (docs/json/route.md § Error bodies).
    fn error(&self) -> RouteError {
        serde_json::from_str::<ErrorBody>(&self.text())
            .unwrap_or_else(|e| panic!("not an error body ({e}): {}", self.text()))
            .error
    }
}

fn client() -> Client<HttpConnector, Full<Bytes>> {
    Client::builder(TokioExecutor::new()).build(HttpConnector::new())
}

async fn send(addr: SocketAddr, path: &str, body: Vec<u8>, headers: &[(&str, &str)]) -> Outcome {
    let mut req =
        Request::post(format!("http://{addr}{path}")).header("content-type", "application/json");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let req = req.body(Full::new(Bytes::from(body))).unwrap();
    let t0 = Instant::now();
    let resp = match client().request(req).await {
        Ok(r) => r,
        Err(e) => {
            return Outcome {
                status: 0,
                replica: None,
                route: None,
                headers: Default::default(),
                frames: vec![],
                complete: false,
                error: Some(e.to_string()),
            }
        }
    };
    let header = |n: &str| {
        resp.headers()
            .get(n)
            .map(|v| v.to_str().unwrap().to_string())
    };
    let mut out = Outcome {
        status: resp.status().as_u16(),
        replica: header("x-headroom-replica"),
        route: header("x-headroom-route"),
        headers: resp.headers().clone(),
        frames: vec![],
        complete: false,
        error: None,
    };
    let mut body = resp.into_body();
    loop {
        match body.frame().await {
            None => {
                out.complete = true;
                break;
            }
            Some(Ok(f)) => {
                if let Ok(d) = f.into_data() {
                    out.frames.push((t0.elapsed(), d));
                }
            }
            Some(Err(e)) => {
                out.error = Some(e.to_string());
                break;
            }
        }
    }
    out
}

fn chat(messages: &Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"model": "fake", "stream": true, "messages": messages})).unwrap()
}

async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let req = Request::get(format!("http://{addr}{path}"))
        .body(Full::new(Bytes::new()))
        .unwrap();
    let resp = client().request(req).await.unwrap();
    let status = resp.status().as_u16();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

fn metric(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| {
            l.strip_prefix(series)
                .and_then(|rest| rest.strip_prefix(' '))
        })
        .unwrap_or_else(|| panic!("{series} missing from /metrics:\n{text}"))
        .parse()
        .unwrap()
}

const FULL_STREAM: usize = 4; // 3 events + [DONE] from Fake::quick

// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continuations_stay_pinned_and_new_conversations_spread() {
    let (a, b) = (Fake::quick("a").await, Fake::quick("b").await);
    let router = start_router(config(vec![a.url(), b.url()])).await;
    let openings = [
        json!([{"role": "user", "content": "hi"}]),
        json!([{"role": "system", "content": "You are terse. ".repeat(600)}, {"role": "user", "content": "go"}]),
        json!([{"role": "user", "content": [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}]),
        json!([{"role": "user", "content": "hello"}]),
    ];
    let mut convs: Vec<Vec<Value>> = openings
        .iter()
        .map(|o| o.as_array().unwrap().clone())
        .collect();
    let mut homes: Vec<String> = Vec::new();
    for turn in 0..3 {
        for (i, msgs) in convs.iter_mut().enumerate() {
            if turn > 0 {
                msgs.push(json!({"role": "assistant", "content": format!("reply {turn}")}));
                msgs.push(json!({"role": "user", "content": format!("conv {i} turn {turn}")}));
            }
            let out = send(
                router.addr,
                "/v1/chat/completions",
                chat(&json!(msgs)),
                &[("authorization", "Bearer sk-test")],
            )
            .await;
            assert_eq!(out.status, 200, "{out:?}");
            assert!(out.complete && out.frames.len() >= FULL_STREAM, "{out:?}");
            assert_eq!(
                out.headers.get("x-echo-authorization").unwrap(),
                "Bearer sk-test",
                "Authorization passes through"
            );
            let replica = out.replica.clone().unwrap();
            assert!(out.text().contains(&format!(
                "\"replica\":\"{}\"",
                if replica == a.url() { "a" } else { "b" }
            )));
            if turn == 0 {
                assert_eq!(out.route.as_deref(), Some("spread"));
                homes.push(replica);
            } else {
                assert_eq!(
                    out.route.as_deref(),
                    Some("pinned"),
                    "conversation {i} turn {turn}"
                );
                assert_eq!(replica, homes[i], "conversation {i} turn {turn} stays home");
            }
        }
    }
    assert_eq!(
        homes.iter().filter(|h| **h == a.url()).count(),
        2,
        "new conversations spread: {homes:?}"
    );
    let (status, text) = get(router.addr, "/headroom/metrics").await;
    assert_eq!(status, 200);
    let pins = metric(
        &text,
        &format!("headroom_route_pins_total{{replica=\"{}\"}}", a.url()),
    ) + metric(
        &text,
        &format!("headroom_route_pins_total{{replica=\"{}\"}}", b.url()),
    );
    assert_eq!(pins, 8.0);
    assert_eq!(
        metric(&text, "headroom_route_responses_total{route=\"spread\"}"),
        4.0
    );
    assert_eq!(metric(&text, "headroom_route_overhead_seconds_count"), 12.0);
    let summary = router.stop().await;
    assert_eq!(
        (summary.pinned, summary.spread, summary.failover),
        (8, 4, 0)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_a_replica_mid_run_fails_only_started_streams() {
    // Head at once, first event after 300 ms, then 10 events 30 ms apart.
    let slow = |n| Fake::start(n, Duration::from_millis(300), 10, Duration::from_millis(30));
    let (mut a, b) = (slow("a").await, slow("b").await);
    let router = start_router(config(vec![a.url(), b.url()])).await;
    let addr = router.addr;
    let mut runs = Vec::new();
    for i in 0..16 {
        runs.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(40 * i)).await;
            send(
                addr,
                "/v1/chat/completions",
                chat(&json!([{"role": "user", "content": format!("q{i}")}])),
                &[],
            )
            .await
        }));
    }
    tokio::time::sleep(Duration::from_millis(450)).await;
    a.kill();
    let mut outs = Vec::new();
    for r in runs {
        outs.push(
            tokio::time::timeout(Duration::from_secs(20), r)
                .await
                .expect("bounded")
                .unwrap(),
        );
    }
    let mut cut = 0;
    let mut failed_over = 0;
    for out in &outs {
        if out.complete {
            assert_eq!(out.status, 200, "{out:?}");
            assert_eq!(out.frames.len(), 11, "a complete stream: {out:?}");
            if out.route.as_deref() == Some("failover") {
                assert_eq!(out.replica.as_deref(), Some(b.url().as_str()));
                failed_over += 1;
            }
        } else {
            // The only failures allowed: streams already under way on the killed replica.
            assert!(
                !out.frames.is_empty(),
                "a request that had not started streaming failed: {out:?}"
            );
            assert_eq!(out.replica.as_deref(), Some(a.url().as_str()), "{out:?}");
            assert_ne!(out.route.as_deref(), Some("failover"));
            cut += 1;
        }
    }
    assert!(
        cut >= 1,
        "the kill cut no stream; timing too loose: {outs:#?}"
    );
    assert!(
        failed_over >= 1,
        "no request was waiting on the killed replica: {outs:#?}"
    );
    // Not retried: b saw exactly the requests whose responses came from b.
    let served_by_b = outs
        .iter()
        .filter(|o| o.replica.as_deref() == Some(b.url().as_str()))
        .count();
    assert_eq!(b.requests(), served_by_b, "a cut stream was replayed on b");
    let (_, text) = get(addr, "/headroom/metrics").await;
    assert_eq!(
        metric(
            &text,
            &format!(
                "headroom_route_failures_total{{replica=\"{}\",kind=\"stream\"}}",
                a.url()
            )
        ),
        cut as f64
    );
    assert_eq!(
        metric(
            &text,
            &format!("headroom_route_demotions_total{{replica=\"{}\"}}", a.url())
        ),
        1.0
    );
    assert_eq!(
        metric(
            &text,
            &format!("headroom_route_live{{replica=\"{}\"}}", a.url())
        ),
        0.0
    );
    assert_eq!(
        metric(
            &text,
            &format!("headroom_route_in_flight{{replica=\"{}\"}}", a.url())
        ),
        0.0
    );
    router.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_connection_fails_over_and_the_replica_comes_back() {
    let (mut a, b) = (Fake::quick("a").await, Fake::quick("b").await);
    let router = start_router(config(vec![a.url(), b.url()])).await;
    let msgs = json!([{"role": "user", "content": "first"}]);
    // The counter starts at replica 0, a: kill it while idle so the router finds out by trying.
    a.kill();
    let out = send(router.addr, "/v1/chat/completions", chat(&msgs), &[]).await;
    assert_eq!(
        (out.status, out.route.as_deref(), out.replica.as_deref()),
        (200, Some("failover"), Some(b.url().as_str())),
        "{out:?}"
    );
    assert!(out.complete && out.frames.len() == FULL_STREAM);
    // The continuation follows the failover.
    let next = json!([{"role": "user", "content": "first"}, {"role": "assistant", "content": "x"}, {"role": "user", "content": "y"}]);
    let out = send(router.addr, "/v1/chat/completions", chat(&next), &[]).await;
    assert_eq!(
        (out.route.as_deref(), out.replica.as_deref()),
        (Some("pinned"), Some(b.url().as_str()))
    );
    assert!(router
        .events
        .lock()
        .unwrap()
        .iter()
        .any(|e| matches!(e, Event::Demoted { replica, .. } if *replica == a.url())));
    // Restart it: the prober brings it back without help, and new conversations reach it.
    a.restart().await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, text) = get(router.addr, "/headroom/metrics").await;
        if metric(
            &text,
            &format!("headroom_route_live{{replica=\"{}\"}}", a.url()),
        ) == 1.0
        {
            assert_eq!(
                metric(
                    &text,
                    &format!("headroom_route_restores_total{{replica=\"{}\"}}", a.url())
                ),
                1.0
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the restarted replica never came back"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut on_a = 0;
    for i in 0..4 {
        let out = send(
            router.addr,
            "/v1/chat/completions",
            chat(&json!([{"role": "user", "content": format!("new {i}")}])),
            &[],
        )
        .await;
        assert!(out.complete);
        on_a += usize::from(out.replica.as_deref() == Some(a.url().as_str()));
    }
    assert_eq!(
        on_a, 2,
        "new conversations spread onto the restored replica"
    );
    assert!(router
        .events
        .lock()
        .unwrap()
        .iter()
        .any(|e| matches!(e, Event::Restored { replica } if *replica == a.url())));
    router.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_503_or_a_death_before_the_first_byte_fails_over() {
    for mode in [Mode::Unavailable, Mode::DieAfterHead] {
        let (a, b) = (Fake::quick("a").await, Fake::quick("b").await);
        let router = start_router(config(vec![a.url(), b.url()])).await;
        a.set_mode(mode);
        let out = send(
            router.addr,
            "/v1/chat/completions",
            chat(&json!([{"role": "user", "content": "x"}])),
            &[],
        )
        .await;
        assert_eq!(out.status, 200, "{mode:?}: {out:?}");
        assert_eq!(out.route.as_deref(), Some("failover"), "{mode:?}");
        assert_eq!(out.replica.as_deref(), Some(b.url().as_str()), "{mode:?}");
        assert!(
            out.complete && out.frames.len() == FULL_STREAM,
            "{mode:?}: {out:?}"
        );
        assert_eq!(a.requests(), 1, "{mode:?}: a was tried once");
        let (_, text) = get(router.addr, "/headroom/metrics").await;
        let kind = if mode == Mode::Unavailable {
            "status"
        } else {
            "connection"
        };
        assert_eq!(
            metric(
                &text,
                &format!(
                    "headroom_route_failures_total{{replica=\"{}\",kind=\"{kind}\"}}",
                    a.url()
                )
            ),
            1.0
        );
        router.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_bodies_get_a_413_with_a_json_message() {
    let a = Fake::quick("a").await;
    let router = start_router(Config {
        max_body: 1024,
        ..config(vec![a.url()])
    })
    .await;
    let big = chat(&json!([{"role": "user", "content": "x".repeat(2000)}]));
    let out = send(router.addr, "/v1/chat/completions", big, &[]).await;
    assert_eq!(out.status, 413);
    assert_eq!(out.route.as_deref(), Some("local"));
    let err = out.error();
    assert_eq!(err.code, "body_too_large");
    assert_eq!(err.kind, "headroom_route");
    assert_eq!(err.max_body, Some(1024));
    assert!(err.message.contains("--max-body"), "{err:?}");
    assert_eq!(a.requests(), 0, "nothing forwarded");
    let small = send(
        router.addr,
        "/v1/chat/completions",
        chat(&json!([{"role": "user", "content": "ok"}])),
        &[],
    )
    .await;
    assert_eq!(small.status, 200);
    let (_, text) = get(router.addr, "/headroom/metrics").await;
    assert_eq!(
        metric(
            &text,
            "headroom_route_rejected_total{reason=\"body_too_large\"}"
        ),
        1.0
    );
    // Every path is forwarded (the replica answers it); only /headroom/ is the router's own.
    let before = a.requests();
    let (status, _) = get(router.addr, "/not-v1").await;
    assert_eq!((status, a.requests()), (200, before + 1));
    let (status, body) = get(router.addr, "/headroom/nothing").await;
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("/headroom/metrics"), "{body}");
    router.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_live_replica_gives_a_503_with_a_json_body() {
    let dead: Vec<String> = {
        let mut urls = Vec::new();
        for _ in 0..2 {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            urls.push(format!("http://{}", l.local_addr().unwrap()));
        } // both listeners dropped: nothing listens there
        urls
    };
    let router = start_router(config(dead.clone())).await;
    let out = send(
        router.addr,
        "/v1/chat/completions",
        chat(&json!([{"role": "user", "content": "x"}])),
        &[],
    )
    .await;
    assert_eq!(out.status, 503);
    assert_eq!(out.headers.get("content-type").unwrap(), "application/json");
    let err = out.error();
    assert_eq!(err.code, "no_live_replica");
    let replicas = err.replicas.expect("a 503 lists the replicas");
    assert_eq!(replicas.len(), 2);
    assert!(replicas.iter().all(|r| !r.live), "{replicas:?}");
    // /health is forwarded to a live replica; with none, the router's 503 says so.
    let (status, forwarded) = get(router.addr, "/health").await;
    assert_eq!(status, 503, "{forwarded}");
    let forwarded: ErrorBody = serde_json::from_str(&forwarded).unwrap();
    assert_eq!(forwarded.error.code, "no_live_replica");
    let (status, health) = get(router.addr, "/headroom/health").await;
    assert_eq!(status, 503);
    let health: HealthBody =
        serde_json::from_str(&health).unwrap_or_else(|e| panic!("/health body ({e}): {health}"));
    assert_eq!(
        (health.status.as_str(), health.live, health.replicas),
        ("no_live_replica", 0, 2)
    );
    let startup_demotions = router
        .events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| matches!(e, Event::Demoted { .. }))
        .count();
    assert_eq!(startup_demotions, 2, "the startup probe demotes both");
    router.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_are_relayed_as_they_arrive_and_shutdown_lets_them_finish() {
    // 8 events 100 ms apart: the first must reach the client long before the last is written.
    let a = Fake::start("a", Duration::from_millis(1), 8, Duration::from_millis(100)).await;
    let mut router = start_router(Config {
        drain: Duration::from_secs(10),
        ..config(vec![a.url()])
    })
    .await;
    let addr = router.addr;
    let stream = tokio::spawn(async move {
        send(
            addr,
            "/v1/chat/completions",
            chat(&json!([{"role": "user", "content": "x"}])),
            &[],
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(250)).await;
    let _ = router.stop.take().unwrap().send(()); // SIGTERM, in effect, mid-stream
    let out = tokio::time::timeout(Duration::from_secs(10), stream)
        .await
        .unwrap()
        .unwrap();
    assert!(out.complete, "the drain cut the stream: {out:?}");
    assert_eq!(out.frames.len(), 9);
    let first = out.frames[0].0;
    let last = out.frames.last().unwrap().0;
    assert!(
        last - first >= Duration::from_millis(600),
        "frames were buffered: first {first:?}, last {last:?}"
    );
    let summary = tokio::time::timeout(Duration::from_secs(10), &mut router.done)
        .await
        .unwrap()
        .unwrap();
    assert!(summary.drained);
    assert!(router
        .events
        .lock()
        .unwrap()
        .iter()
        .any(|e| matches!(e, Event::Draining { connections } if *connections >= 1)));
    let refused = send(
        addr,
        "/v1/chat/completions",
        chat(&json!([{"role": "user", "content": "late"}])),
        &[],
    )
    .await;
    assert!(
        refused.error.is_some(),
        "the router still accepts after shutdown: {refused:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policies_differ_only_in_choice() {
    let (a, b) = (Fake::quick("a").await, Fake::quick("b").await);
    for (policy, want) in [
        (PolicyKind::RoundRobin, ["spread", "spread"]),
        (PolicyKind::Pin, ["spread", "pinned"]),
    ] {
        let router = start_router(Config {
            policy,
            ..config(vec![a.url(), b.url()])
        })
        .await;
        let one = json!([{"role": "user", "content": "same prompt"}]);
        let r1 = send(router.addr, "/v1/chat/completions", chat(&one), &[]).await;
        let r2 = send(router.addr, "/v1/chat/completions", chat(&one), &[]).await;
        assert_eq!(
            [r1.route.as_deref().unwrap(), r2.route.as_deref().unwrap()],
            want,
            "{policy:?}"
        );
        let same = r1.replica == r2.replica;
        assert_eq!(same, policy == PolicyKind::Pin, "{policy:?}");
        router.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_reused_and_one_closed_while_idle_is_no_failure() {
    let a = Fake::quick("a").await;
    *a.state.idle_close.lock().unwrap() = Some(Duration::from_secs(1));
    // Two workers, a pool each: sequential requests keep at most one connection per worker.
    let router = start_router(Config {
        workers: 2,
        ..config(vec![a.url()])
    })
    .await;
    let before = a.state.connections.load(Ordering::SeqCst); // the startup probe's
    for i in 0..10 {
        let out = send(
            router.addr,
            "/v1/chat/completions",
            chat(&json!([{"role": "user", "content": format!("q{i}")}])),
            &[],
        )
        .await;
        assert!(out.complete && out.status == 200, "{out:?}");
    }
    let used = a.state.connections.load(Ordering::SeqCst) - before;
    assert!(
        used <= 2,
        "10 sequential requests over 2 workers opened {used} connections: not pooled"
    );
    // The replica closes the pooled connection while it idles: the next request takes a new
    // one, and that is no failure of the replica.
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let out = send(
        router.addr,
        "/v1/chat/completions",
        chat(&json!([{"role": "user", "content": "after idle"}])),
        &[],
    )
    .await;
    assert!(out.complete && out.status == 200, "{out:?}");
    assert_eq!(out.route.as_deref(), Some("spread"));
    let reopened = a.state.connections.load(Ordering::SeqCst) - before - used;
    assert_eq!(
        reopened, 1,
        "the idle connection was not closed: the test proves nothing"
    );
    let (_, text) = get(router.addr, "/headroom/metrics").await;
    for kind in ["connection", "status", "stream"] {
        assert_eq!(
            metric(
                &text,
                &format!(
                    "headroom_route_failures_total{{replica=\"{}\",kind=\"{kind}\"}}",
                    a.url()
                )
            ),
            0.0
        );
    }
    assert_eq!(
        metric(
            &text,
            &format!("headroom_route_demotions_total{{replica=\"{}\"}}", a.url())
        ),
        0.0
    );
    router.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_port_in_use_is_an_error_not_a_shared_port() {
    let a = Fake::quick("a").await;
    let first = start_router(config(vec![a.url()])).await;
    let second = Router::bind(
        Config {
            listen: first.addr,
            ..config(vec![a.url()])
        },
        Arc::new(|_: &Event| {}),
    )
    .await;
    let err = second
        .err()
        .expect("a second router on the same port must fail");
    assert!(err.to_string().contains(&first.addr.to_string()), "{err}");
    first.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_urls_userinfo_is_sent_as_basic_auth_and_named_nowhere() {
    let a = Fake::quick("a").await;
    let with_creds = format!("http://user:s3cret@{}", a.addr);
    let router = start_router(config(vec![with_creds])).await;
    let body = || chat(&json!([{"role": "user", "content": "hi"}]));
    let out = send(router.addr, "/v1/chat/completions", body(), &[]).await;
    assert_eq!(out.status, 200);
    // base64("user:s3cret")
    assert_eq!(
        out.headers.get("x-echo-authorization").unwrap(),
        "Basic dXNlcjpzM2NyZXQ="
    );
    assert_eq!(out.headers.get("x-headroom-replica").unwrap(), &a.url());
    // The client's own Authorization (an engine's API key) wins.
    let own = [("authorization", "Bearer key-1")];
    let out = send(router.addr, "/v1/chat/completions", body(), &own).await;
    assert_eq!(
        out.headers.get("x-echo-authorization").unwrap(),
        "Bearer key-1"
    );
    let (_, text) = get(router.addr, "/headroom/metrics").await;
    assert!(
        !text.contains("s3cret") && !text.contains("user:"),
        "{text}"
    );
    router.stop().await;
}
