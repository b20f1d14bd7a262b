//! The scraper against local TCP servers this test controls: each failure a real deployment
//! produces (nothing listening, an HTML page, a 500, an engine without metrics, a hang) gives the
//! error that names it.

use crate::util::rt;
use engines::{ScrapeError, Scraper};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What the fake server answers for a path: status, content type, body; None = never answer.
type Route = fn(&str) -> Option<(u16, &'static str, String)>;

/// A loopback HTTP/1.1 server, one thread per connection, stopped on drop.
struct FakeServer {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FakeServer {
    fn start(route: Route) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let thread = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            while !stop2.load(Ordering::Relaxed) && Instant::now() < deadline {
                match listener.accept() {
                    Ok((conn, _)) => {
                        let stop3 = stop2.clone();
                        std::thread::spawn(move || serve(conn, route, stop3));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        FakeServer {
            port,
            stop,
            thread: Some(thread),
        }
    }
    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(mut conn: TcpStream, route: Route, stop: Arc<AtomicBool>) {
    conn.set_nonblocking(false).ok();
    conn.set_read_timeout(Some(Duration::from_secs(5))).ok();
    let mut req = Vec::new();
    let mut buf = [0u8; 1024];
    while !req.windows(4).any(|w| w == b"\r\n\r\n") && req.len() < 16384 {
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => req.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&req);
    let path = text.split_whitespace().nth(1).unwrap_or("/").to_string();
    match route(&path) {
        Some((status, ctype, body)) => {
            let head = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = conn.write_all(head.as_bytes());
            let _ = conn.write_all(body.as_bytes());
        }
        None => {
            // Hang: hold the connection open without answering, until the test ends.
            let until = Instant::now() + Duration::from_secs(10);
            while !stop.load(Ordering::Relaxed) && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

fn scraper(url: &str, timeout_ms: u64) -> Scraper {
    Scraper::new(url, Duration::from_millis(timeout_ms)).unwrap()
}

#[test]
fn connection_refused_is_unreachable() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    }; // dropped: nothing listens there now
    let s = scraper(&format!("127.0.0.1:{port}"), 2000);
    let e = rt().block_on(s.fetch_metrics()).unwrap_err();
    eprintln!("{e}");
    match &e {
        ScrapeError::Unreachable { url, cause } => {
            assert_eq!(url, &format!("http://127.0.0.1:{port}/metrics"));
            assert!(cause.contains("connection refused"), "{cause}");
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("is the server running"), "{e}");
}

#[test]
fn unknown_host_is_unreachable() {
    // `.invalid` never resolves (RFC 6761).
    let s = scraper("http://headroom-test.invalid:8000", 3000);
    let r = rt().block_on(s.fetch_metrics());
    if let Err(e) = &r {
        eprintln!("{e}");
    }
    match r {
        Err(ScrapeError::Unreachable { cause, .. }) => assert!(cause.contains("DNS"), "{cause}"),
        // A resolver that cannot answer at all in a sandbox times out instead; still not data.
        Err(ScrapeError::Timeout { .. }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn html_page_is_not_prometheus() {
    let srv = FakeServer::start(|_| {
        Some((
            200,
            "text/html",
            "<!DOCTYPE html>\n<html><head><title>Open WebUI</title></head></html>\n".into(),
        ))
    });
    let e = rt()
        .block_on(scraper(&srv.url(), 2000).scrape_metrics())
        .unwrap_err();
    match &e {
        ScrapeError::NotPrometheus {
            what,
            first_line,
            hint,
            ..
        } => {
            assert!(what.contains("HTML"));
            assert_eq!(first_line, "<!DOCTYPE html>");
            assert!(hint.as_deref().unwrap().contains("web UI"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn http_500_reports_status_and_first_line() {
    let srv = FakeServer::start(|_| {
        Some((
            500,
            "text/plain",
            "Internal Server Error\nTraceback (most recent call last):\n".into(),
        ))
    });
    let e = rt()
        .block_on(scraper(&srv.url(), 2000).fetch_metrics())
        .unwrap_err();
    assert_eq!(
        e,
        ScrapeError::HttpStatus {
            url: format!("{}/metrics", srv.url()),
            status: 500,
            first_line: "Internal Server Error".into(),
            hint: None
        }
    );
    assert!(
        e.to_string().contains("HTTP 500: Internal Server Error"),
        "{e}"
    );
}

#[test]
fn llama_server_without_metrics_says_how_to_fix() {
    // The exact answer of llama-server started without --metrics (server-context.cpp).
    let srv = FakeServer::start(|p| {
        match p {
        "/metrics" => Some((
            501,
            "application/json; charset=utf-8",
            r#"{"error":{"code":501,"message":"This server does not support metrics endpoint. Start it with `--metrics`","type":"not_supported_error"}}"#.into(),
        )),
        "/slots" => Some((
            501,
            "application/json; charset=utf-8",
            r#"{"error":{"code":501,"message":"This server does not support slots endpoint. Start it with `--slots`","type":"not_supported_error"}}"#.into(),
        )),
        _ => Some((404, "text/plain", "File Not Found".into())),
    }
    });
    let s = scraper(&srv.url(), 2000);
    let e = rt().block_on(s.fetch_metrics()).unwrap_err();
    assert!(matches!(&e, ScrapeError::MetricsDisabled { .. }), "{e:?}");
    assert!(
        e.to_string().contains("start llama-server with --metrics"),
        "{e}"
    );
    // /slots disabled is not an error: there is just nothing to read.
    assert_eq!(rt().block_on(s.slots()).unwrap(), None);
    // /props absent: an HTTP error naming the status.
    match rt().block_on(s.props()) {
        Err(ScrapeError::HttpStatus {
            status: 404,
            first_line,
            ..
        }) => assert_eq!(first_line, "File Not Found"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn llama_server_still_loading() {
    // What llama-server answers on every endpoint until its model is loaded.
    let srv = FakeServer::start(|_| {
        Some((
            503,
            "application/json; charset=utf-8",
            r#"{"error":{"message":"Loading model","type":"unavailable_error","code":503}}"#.into(),
        ))
    });
    match rt().block_on(scraper(&srv.url(), 2000).fetch_metrics()) {
        Err(ScrapeError::HttpStatus {
            status: 503,
            hint: Some(h),
            first_line,
            ..
        }) => {
            assert_eq!(h, "the model is still loading");
            assert!(first_line.contains("unavailable_error"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn json_where_metrics_were_expected_and_404_hint() {
    let srv = FakeServer::start(|p| match p {
        "/metrics" => Some((200, "application/json", r#"{"status":"ok"}"#.into())),
        _ => Some((404, "application/json", r#"{"detail":"Not Found"}"#.into())),
    });
    let s = scraper(&srv.url(), 2000);
    match rt().block_on(s.scrape_metrics()) {
        Err(ScrapeError::NotPrometheus { what, .. }) => assert!(what.contains("JSON")),
        other => panic!("{other:?}"),
    }
    let srv404 =
        FakeServer::start(|_| Some((404, "application/json", r#"{"detail":"Not Found"}"#.into())));
    match rt().block_on(scraper(&srv404.url(), 2000).fetch_metrics()) {
        Err(ScrapeError::HttpStatus {
            status: 404,
            hint: Some(h),
            ..
        }) => assert!(h.contains("--enable-metrics")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_hang_times_out_within_the_bound() {
    let srv = FakeServer::start(|_| None);
    let s = scraper(&srv.url(), 400);
    let start = Instant::now();
    let e = rt().block_on(s.fetch_metrics()).unwrap_err();
    let took = start.elapsed();
    match &e {
        ScrapeError::Timeout { after_s, .. } => assert_eq!(*after_s, 0.4),
        other => panic!("{other:?}"),
    }
    assert!(
        took >= Duration::from_millis(350) && took < Duration::from_secs(3),
        "{took:?}"
    );
    assert!(e.to_string().contains("timeout"), "{e}");
}

#[test]
fn a_good_body_and_a_truncated_one_through_http() {
    let srv = FakeServer::start(|p| {
        match p {
        "/metrics" => Some((
            200,
            "text/plain; version=0.0.4",
            "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"m\"} 3.0\n\
# TYPE vllm:e2e_request_latency_seconds histogram\nvllm:e2e_request_latency_seconds_bucket{engine=\"0\",le=\"0.3\",model_name=\"m\"} 1.0\n"
                .into(),
        )),
        "/version" => Some((200, "application/json", r#"{"version":"0.11.0"}"#.into())),
        "/v1/models" => Some((
            200,
            "application/json",
            r#"{"object":"list","data":[{"id":"m","object":"model","max_model_len":8192}]}"#.into(),
        )),
        _ => Some((404, "text/plain", "nope".into())),
    }
    });
    let s = scraper(&format!("{}/metrics", srv.url()), 2000);
    let rt = rt();
    let scrape = rt.block_on(s.scrape_metrics()).unwrap();
    assert_eq!(scrape.parsed.sample.running, Some(3.0));
    assert_eq!(scrape.parsed.sample.e2e, None);
    let cut = scrape.parsed.exposition.truncated.unwrap();
    assert_eq!(
        cut.family.as_deref(),
        Some("vllm:e2e_request_latency_seconds")
    );
    assert!(scrape.raw.t > 1.6e9 && scrape.raw.elapsed_s < 2.0);
    assert_eq!(rt.block_on(s.version()).unwrap(), "0.11.0");
    assert_eq!(
        rt.block_on(s.models()).unwrap().models[0].max_model_len,
        Some(8192)
    );
}
