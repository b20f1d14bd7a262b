//! HTTP/1.1 on the wire, byte for byte: the router speaks HTTP itself (crates/router/src/h1.rs),
//! so the framings real clients and engines use are checked here with raw sockets on both
//! sides: a chunked request body, `Expect: 100-continue`, pipelined requests, an HTTP/1.0
//! client, HEAD, close-delimited and chunked replica bodies, and malformed heads.
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use router::doc::ErrorBody;
use router::{Config, Router};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How the raw replica frames its answer.
#[derive(Clone, Copy)]
enum Framing {
    Length,
    Chunked,
    /// No length, no chunking: the body ends when the replica closes.
    Close,
}

/// Requests a replica received: head text and body.
type Seen = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// A replica that records each request (head and decoded body) and answers `body` in `framing`.
struct Raw {
    addr: SocketAddr,
    seen: Seen,
}

impl Raw {
    async fn start(framing: Framing, body: &'static str) -> Raw {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen: Seen = Arc::default();
        let log = seen.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut s, _)) = listener.accept().await else {
                    return;
                };
                let log = log.clone();
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    loop {
                        let Some((head, req_body, used)) = read_message(&mut s, &mut buf).await
                        else {
                            return;
                        };
                        buf.drain(..used);
                        let probe = head.starts_with("GET /health");
                        if !probe {
                            log.lock().unwrap().push((head.clone(), req_body));
                        }
                        let out = match (framing, probe) {
                            (_, true) => "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok".to_string(),
                            (Framing::Length, _) => format!(
                                "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\n\r\n{body}",
                                body.len()
                            ),
                            (Framing::Chunked, _) => {
                                let (a, b) = body.split_at(body.len() / 2);
                                format!("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x};ext=1\r\n{b}\r\n0\r\nx-trailer: 1\r\n\r\n", a.len(), b.len())
                            }
                            (Framing::Close, _) => format!("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n{body}"),
                        };
                        let head_only = head.starts_with("HEAD ");
                        let out = if head_only {
                            out[..out.find("\r\n\r\n").unwrap() + 4].to_string()
                        } else {
                            out
                        };
                        if s.write_all(out.as_bytes()).await.is_err() {
                            return;
                        }
                        if matches!(framing, Framing::Close) && !probe && !head_only {
                            return;
                        }
                    }
                });
            }
        });
        Raw { addr, seen }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn requests(&self) -> Vec<(String, Vec<u8>)> {
        self.seen.lock().unwrap().clone()
    }
}

/// Reads one request (a replica's view): head text, body (Content-Length only: the router
/// always sends one), bytes used.
async fn read_message(s: &mut TcpStream, buf: &mut Vec<u8>) -> Option<(String, Vec<u8>, usize)> {
    loop {
        if let Some(end) = find(buf, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end + 4]).into_owned();
            let len = header(&head, "content-length").map_or(0, |v| v.parse::<usize>().unwrap());
            if buf.len() >= end + 4 + len {
                let body = buf[end + 4..end + 4 + len].to_vec();
                return Some((head, body, end + 4 + len));
            }
        }
        let mut chunk = [0u8; 4096];
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn header(head: &str, name: &str) -> Option<String> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.trim()
            .eq_ignore_ascii_case(name)
            .then(|| v.trim().to_string())
    })
}

async fn router(backends: Vec<String>) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let config = Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        backends,
        client_timeout: Duration::from_secs(2),
        workers: 1,
        ..Config::default()
    };
    let r = Router::bind(config, Arc::new(|_: &router::Event| {}))
        .await
        .unwrap();
    let addr = r.local_addr();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(r.serve(async move {
        let _ = rx.await;
    }));
    (addr, tx)
}

/// Sends raw bytes and reads everything until the router closes or `until` is seen.
async fn exchange(addr: SocketAddr, send: &[u8], until: Option<&str>) -> String {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(send).await.unwrap();
    read_until(&mut s, until).await
}

async fn read_until(s: &mut TcpStream, until: Option<&str>) -> String {
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(u) = until {
            if String::from_utf8_lossy(&got).contains(u) {
                break;
            }
        }
        let mut chunk = [0u8; 8192];
        match tokio::time::timeout_at(deadline, s.read(&mut chunk)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => got.extend_from_slice(&chunk[..n]),
            Err(_) => panic!("no end in 5 s; got {:?}", String::from_utf8_lossy(&got)),
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

fn chat(turns: usize) -> String {
    let mut messages = vec![json!({"role": "user", "content": "open"})];
    for t in 1..turns {
        messages.push(json!({"role": "assistant", "content": format!("a{t}")}));
        messages.push(json!({"role": "user", "content": format!("u{t}")}));
    }
    json!({"model": "m", "stream": true, "messages": messages}).to_string()
}

fn post(body: &str, extra: &str) -> String {
    format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: r\r\ncontent-type: application/json\r\n{extra}content-length: {}\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test]
async fn a_chunked_request_body_is_decoded_and_sent_with_a_length() {
    let replica = Raw::start(Framing::Length, "fine").await;
    let (addr, _stop) = router(vec![replica.url()]).await;
    let body = chat(2);
    let (a, b) = body.split_at(10);
    let req = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: r\r\ntransfer-encoding: chunked\r\nx-keep: yes\r\n\r\n{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n",
        a.len(),
        b.len()
    );
    let got = exchange(addr, req.as_bytes(), Some("fine")).await;
    assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "{got}");
    let seen = replica.requests();
    assert_eq!(seen.len(), 1);
    let (head, sent) = &seen[0];
    assert_eq!(sent, body.as_bytes(), "the replica gets the decoded body");
    assert_eq!(header(head, "content-length"), Some(body.len().to_string()));
    assert_eq!(header(head, "transfer-encoding"), None);
    assert_eq!(header(head, "x-keep").as_deref(), Some("yes"));
    assert_eq!(header(head, "host"), Some(replica.addr.to_string()));
}

#[tokio::test]
async fn expect_100_continue_is_answered_before_the_body() {
    let replica = Raw::start(Framing::Length, "go on").await;
    let (addr, _stop) = router(vec![replica.url()]).await;
    let body = chat(1);
    let mut s = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: r\r\nexpect: 100-continue\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let interim = read_until(&mut s, Some("\r\n\r\n")).await;
    assert_eq!(interim, "HTTP/1.1 100 Continue\r\n\r\n");
    s.write_all(body.as_bytes()).await.unwrap();
    let got = read_until(&mut s, Some("go on")).await;
    assert!(got.starts_with("HTTP/1.1 200 OK"), "{got}");
    assert_eq!(
        header(&replica.requests()[0].0, "expect"),
        None,
        "Expect stays behind"
    );
}

#[tokio::test]
async fn pipelined_requests_are_answered_in_order_on_one_connection() {
    let replica = Raw::start(Framing::Chunked, "abcdefgh").await;
    let (addr, _stop) = router(vec![replica.url()]).await;
    let mut reqs = String::new();
    for turns in 1..=3 {
        reqs.push_str(&post(&chat(turns), ""));
    }
    reqs.push_str("GET /headroom/health HTTP/1.1\r\nhost: r\r\n\r\n");
    let got = exchange(addr, reqs.as_bytes(), Some("\"replicas\":1}")).await;
    assert_eq!(got.matches("HTTP/1.1 200 OK").count(), 4, "{got}");
    // The replica's chunks pass through unchanged, trailer included.
    assert_eq!(
        got.matches("4\r\nabcd\r\n4;ext=1\r\nefgh\r\n0\r\nx-trailer: 1\r\n\r\n")
            .count(),
        3,
        "{got}"
    );
    assert_eq!(got.matches("transfer-encoding: chunked").count(), 3);
    let routes: Vec<_> = got
        .lines()
        .filter_map(|l| l.strip_prefix("x-headroom-route: "))
        .collect();
    assert_eq!(routes, ["spread", "pinned", "pinned", "local"]);
    assert_eq!(replica.requests().len(), 3);
}

#[tokio::test]
async fn a_close_delimited_body_is_rechunked_for_http11_and_passed_to_http10() {
    let replica = Raw::start(Framing::Close, "until the end").await;
    let (addr, _stop) = router(vec![replica.url()]).await;
    let body = chat(1);
    // HTTP/1.1: the router chunks it, so the client connection stays usable.
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(post(&body, "").as_bytes()).await.unwrap();
    let got = read_until(&mut s, Some("0\r\n\r\n")).await;
    assert!(got.contains("transfer-encoding: chunked\r\n"), "{got}");
    assert!(
        got.ends_with("\r\n\r\nd\r\nuntil the end\r\n0\r\n\r\n"),
        "{got}"
    );
    s.write_all(b"GET /health HTTP/1.1\r\nhost: r\r\n\r\n")
        .await
        .unwrap();
    let again = read_until(&mut s, Some("\"replicas\":1}")).await;
    assert!(again.starts_with("HTTP/1.1 200 OK"), "{again}");
    // HTTP/1.0: the bytes as they came, and the close ends them.
    let req10 = post(&body, "").replacen("HTTP/1.1", "HTTP/1.0", 1);
    let got = exchange(addr, req10.as_bytes(), None).await;
    assert!(got.contains("connection: close\r\n"), "{got}");
    assert!(got.ends_with("\r\n\r\nuntil the end"), "{got}");
}

#[tokio::test]
async fn a_chunked_body_reaches_an_http10_client_unchunked() {
    let replica = Raw::start(Framing::Chunked, "abcdefgh").await;
    let (addr, _stop) = router(vec![replica.url()]).await;
    let req10 = post(&chat(1), "").replacen("HTTP/1.1", "HTTP/1.0", 1);
    let got = exchange(addr, req10.as_bytes(), None).await;
    assert!(!got.contains("transfer-encoding"), "{got}");
    assert!(got.ends_with("\r\n\r\nabcdefgh"), "{got}");
}

#[tokio::test]
async fn head_requests_get_no_body() {
    let replica = Raw::start(Framing::Length, "a body").await;
    let (addr, _stop) = router(vec![replica.url()]).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(
        b"HEAD /v1/models HTTP/1.1\r\nhost: r\r\n\r\nGET /health HTTP/1.1\r\nhost: r\r\n\r\n",
    )
    .await
    .unwrap();
    let got = read_until(&mut s, Some("\"replicas\":1}")).await;
    let first = &got[..got.find("\r\n\r\n").unwrap() + 4];
    assert!(first.contains("content-length: 6\r\n"), "{got}");
    assert!(
        got[first.len()..].starts_with("HTTP/1.1 200 OK"),
        "the next response follows the head at once: {got}"
    );
}

#[tokio::test]
async fn malformed_heads_get_a_json_error_and_a_close() {
    let replica = Raw::start(Framing::Length, "x").await;
    let (addr, _stop) = router(vec![replica.url()]).await;
    let body_of = |got: &str| -> ErrorBody {
        serde_json::from_str(&got[got.find("\r\n\r\n").unwrap() + 4..]).unwrap()
    };
    let cases: [(&[u8], &str); 4] = [
        (b"NOT HTTP AT ALL\r\n\r\n", "HTTP/1.1 400 "),
        (
            b"POST /v1/x HTTP/1.1\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n",
            "HTTP/1.1 400 ",
        ),
        (
            b"POST /v1/x HTTP/1.1\r\ntransfer-encoding: gzip\r\n\r\n",
            "HTTP/1.1 501 ",
        ),
        (
            &[
                b"GET /v1/models HTTP/1.1\r\nx: ".as_slice(),
                &[b'a'; 70_000],
                b"\r\n\r\n",
            ]
            .concat(),
            "HTTP/1.1 431 ",
        ),
    ];
    for (raw, status) in cases {
        let got = exchange(addr, raw, None).await;
        assert!(got.starts_with(status), "{status}: {got}");
        assert!(got.contains("connection: close\r\n"), "{got}");
        assert_eq!(body_of(&got).error.code, "bad_request", "{got}");
    }
    assert!(
        replica.requests().is_empty(),
        "nothing malformed is forwarded"
    );
    let metrics = exchange(
        addr,
        b"GET /headroom/metrics HTTP/1.1\r\nconnection: close\r\n\r\n",
        None,
    )
    .await;
    assert!(
        metrics.contains("headroom_route_rejected_total{reason=\"bad_request\"} 4"),
        "{metrics}"
    );
}

#[tokio::test]
async fn a_body_that_stops_arriving_gets_a_408() {
    let replica = Raw::start(Framing::Length, "x").await;
    let (addr, _stop) = router(vec![replica.url()]).await;
    // Declares 100 bytes, sends 5, then waits past --client-timeout (2 s here).
    let got = exchange(
        addr,
        b"POST /v1/chat/completions HTTP/1.1\r\ncontent-length: 100\r\n\r\n{\"a\":",
        None,
    )
    .await;
    assert!(got.starts_with("HTTP/1.1 408 "), "{got}");
    assert!(got.contains("\"code\":\"body_unreadable\""), "{got}");
    assert!(replica.requests().is_empty());
}
