//! Error paths and SSE edge cases against a loopback listener this test controls byte by byte.

use std::sync::Arc;
use std::time::Duration;

use loadgen::{
    discover, Client, ClientConfig, CountBasis, Error, ServerInfo, StreamRequest, TokenCounter,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What the listener does with one request: write these pieces, pausing before each.
type Script = Vec<(Duration, Vec<u8>)>;

async fn listen(route: impl Fn(&str, &str) -> Script + Send + Sync + 'static) -> String {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    let route = Arc::new(route);
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = l.accept().await {
            let route = route.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut tmp = [0u8; 4096];
                // Headers, then Content-Length bytes of body.
                let (head_end, len) = loop {
                    let n = match sock.read(&mut tmp).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => n,
                    };
                    buf.extend_from_slice(&tmp[..n]);
                    if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&buf[..i]).to_ascii_lowercase();
                        let len = head
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .map(|v| v.trim().parse::<usize>().unwrap())
                            .unwrap_or(0);
                        break (i + 4, len);
                    }
                };
                while buf.len() < head_end + len {
                    match sock.read(&mut tmp).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&tmp[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
                let mut first = head.lines().next().unwrap_or("").split(' ');
                let (method, path) = (first.next().unwrap_or(""), first.next().unwrap_or(""));
                for (pause, bytes) in route(method, path) {
                    tokio::time::sleep(pause).await;
                    if sock.write_all(&bytes).await.is_err() {
                        return;
                    }
                    let _ = sock.flush().await;
                }
                let _ = sock.shutdown().await;
            });
        }
    });
    format!("http://{addr}")
}

fn now(b: impl Into<Vec<u8>>) -> (Duration, Vec<u8>) {
    (Duration::ZERO, b.into())
}

fn after(ms: u64, b: impl Into<Vec<u8>>) -> (Duration, Vec<u8>) {
    (Duration::from_millis(ms), b.into())
}

fn response(status: &str, content_type: &str, body: &str) -> Script {
    vec![now(format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    ))]
}

const SSE_HEAD: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

fn client(url: &str) -> Client {
    Client::new(
        url,
        ClientConfig {
            first_token_timeout: Duration::from_millis(800),
            idle_timeout: Duration::from_millis(800),
            ..ClientConfig::default()
        },
    )
    .unwrap()
}

fn req() -> StreamRequest {
    StreamRequest::text("hello", 4)
}

#[tokio::test]
async fn unreachable_endpoint_is_named() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    }; // dropped: nothing listens there now
    let url = format!("http://127.0.0.1:{port}");
    let e = client(&url).stream(&req()).await.unwrap_err();
    assert!(matches!(e, Error::Unreachable { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains(&format!("cannot reach {url}/v1/completions")),
        "{msg}"
    );
    assert!(matches!(
        discover(&client(&url)).await.unwrap_err(),
        Error::Unreachable { .. }
    ));
}

#[tokio::test]
async fn http_error_carries_the_servers_message() {
    let url = listen(|_, _| {
        response(
            "400 Bad Request",
            "application/json",
            r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}"#,
        )
    })
    .await;
    let e = client(&url).stream(&req()).await.unwrap_err();
    match &e {
        Error::Http {
            status, message, ..
        } => {
            assert_eq!(*status, 400);
            assert_eq!(
                message,
                "the request exceeds the available context size, try increasing it"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("answered HTTP 400"));
}

#[tokio::test]
async fn a_server_that_cannot_stream_is_named() {
    let url = listen(|_, _| {
        response(
            "200 OK",
            "application/json",
            r#"{"choices":[{"text":"whole answer at once"}]}"#,
        )
    })
    .await;
    let e = client(&url).stream(&req()).await.unwrap_err();
    assert!(matches!(e, Error::NotStreaming { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("cannot stream") && msg.contains("application/json"),
        "{msg}"
    );
}

#[tokio::test]
async fn silence_times_out_before_and_after_the_first_token() {
    let url = listen(|_, _| vec![now(SSE_HEAD), after(3000, "data: [DONE]\n\n")]).await;
    let e = client(&url).stream(&req()).await.unwrap_err();
    assert!(
        matches!(
            e,
            Error::Timeout {
                what: "waiting for the first token",
                ..
            }
        ),
        "{e:?}"
    );
    let url = listen(|_, _| {
        vec![
            now(SSE_HEAD),
            now("data: {\"choices\":[{\"text\":\"a\"}]}\n\n"),
            after(3000, "data: [DONE]\n\n"),
        ]
    })
    .await;
    let e = client(&url).stream(&req()).await.unwrap_err();
    assert!(
        matches!(
            e,
            Error::Timeout {
                what: "stream silent between tokens",
                ..
            }
        ),
        "{e:?}"
    );
}

#[tokio::test]
async fn split_crlf_stream_with_comments_is_timed_per_token() {
    // Five tokens 60 ms apart; events split mid-line and mid-CRLF; pings between them.
    let url = listen(|_, _| {
        let mut s = vec![now(SSE_HEAD), after(100, ": ping\r\n\r\n")];
        for i in 0..5 {
            let ev = format!("data: {{\"choices\":[{{\"text\":\"t{i}\",\"finish_reason\":null}}]}}\r\n\r\n");
            let (a, b) = ev.split_at(ev.len() - 3); // leaves "\n\r\n" for the next write
            s.push(after(if i == 0 { 0 } else { 60 }, a));
            s.push(after(1, b));
            s.push(now(": keep-alive\r\n\r\n"));
        }
        s.push(now("data: {\"choices\":[{\"text\":\"\",\"finish_reason\":\"length\"}],\"usage\":{\"completion_tokens\":5,\"prompt_tokens\":3,\"prompt_tokens_details\":{\"cached_tokens\":2}},\"timings\":{\"cache_n\":2,\"predicted_n\":5}}\r\n\r\n"));
        s.push(now("data: [DONE]\r\n\r\n"));
        s
    })
    .await;
    let r = client(&url).stream(&req()).await.unwrap();
    assert_eq!(r.text, "t0t1t2t3t4");
    assert_eq!(r.token_times.len(), 5);
    assert_eq!(r.completion_tokens, 5);
    assert_eq!(r.finish_reason.as_deref(), Some("length"));
    assert_eq!(r.cached_tokens.as_ref().unwrap().n, 2);
    assert!(r.ttft_ms().unwrap() >= 95.0, "{:?}", r.ttft());
    // 4 tokens over ~4 × 61 ms ≈ 16 tok/s; loopback scheduling adds a little.
    let tps = r.decode_tps().unwrap();
    assert!(tps > 10.0 && tps < 17.5, "{tps}");
}

#[tokio::test]
async fn malformed_truncated_and_error_streams() {
    let url = listen(|_, _| vec![now(SSE_HEAD), now("data: {\"choices\": [\n\n")]).await;
    let e = client(&url).stream(&req()).await.unwrap_err();
    match &e {
        Error::Protocol { at, detail, .. } => {
            assert!(at.contains("event ending at stream byte 21"), "{at}");
            assert!(detail.contains("not JSON"), "{detail}");
        }
        other => panic!("{other:?}"),
    }

    let url = listen(|_, _| {
        vec![
            now(SSE_HEAD),
            now("data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choi"),
        ]
    })
    .await;
    let e = client(&url).stream(&req()).await.unwrap_err();
    assert!(
        e.to_string().contains("stream ended inside an event"),
        "{e}"
    );

    let url = listen(|_, _| {
        vec![
            now(SSE_HEAD),
            now("error: {\"code\":500,\"message\":\"slot unavailable\"}\n\ndata: {\"error\":{\"message\":\"slot unavailable\"}}\n\n"),
        ]
    })
    .await;
    let e = client(&url).stream(&req()).await.unwrap_err();
    assert!(
        e.to_string()
            .contains("error inside the stream: slot unavailable"),
        "{e}"
    );

    let url = listen(|_, _| vec![now(SSE_HEAD), now("data: [DONE]\n\n")]).await;
    let e = client(&url).stream(&req()).await.unwrap_err();
    assert!(e.to_string().contains("carried no tokens"), "{e}");
}

#[tokio::test]
async fn calibrates_through_usage_when_no_tokenizer_answers() {
    let url = listen(|method, path| match (method, path) {
        ("POST", "/v1/completions") => vec![
            now(SSE_HEAD),
            now("data: {\"choices\":[{\"text\":\"x\"}]}\n\n"),
            now("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":500,\"completion_tokens\":1}}\n\n"),
            now("data: [DONE]\n\n"),
        ],
        _ => response("404 Not Found", "text/plain", "not found"),
    })
    .await;
    let c = client(&url);
    let info = discover(&c).await.unwrap();
    assert_eq!(info.engine, None);
    let counter = TokenCounter::detect(&c, &info).await.unwrap();
    match counter.basis() {
        CountBasis::Calibrated {
            chars_per_token,
            sample_tokens,
            sample_chars,
            ..
        } => {
            assert_eq!(*sample_tokens, 500);
            assert!((chars_per_token - *sample_chars as f64 / 500.0).abs() < 1e-12);
        }
        other => panic!("{other:?}"),
    }
    assert!(!counter.is_exact());

    // Nothing answers usage either: the stated default.
    let url = listen(|_, _| response("404 Not Found", "text/plain", "nope")).await;
    let c = client(&url);
    let info = ServerInfo {
        engine: None,
        model: None,
        context: None,
        slots: None,
    };
    let counter = TokenCounter::detect(&c, &info).await.unwrap();
    assert_eq!(
        counter.basis(),
        &CountBasis::Default {
            chars_per_token: 4.0
        }
    );
}

#[tokio::test]
async fn in_flight_limit_is_respected() {
    // Six 100 ms requests through a client allowed 2 at a time take at least three rounds.
    let url = listen(|_, _| {
        vec![
            now(SSE_HEAD),
            after(
                100,
                "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: [DONE]\n\n",
            ),
        ]
    })
    .await;
    let c = Client::new(
        &url,
        ClientConfig {
            max_in_flight: 2,
            ..ClientConfig::default()
        },
    )
    .unwrap();
    let t0 = std::time::Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..6 {
        let c = c.clone();
        set.spawn(async move { c.stream(&req()).await });
    }
    while let Some(r) = set.join_next().await {
        r.unwrap().unwrap();
    }
    let took = t0.elapsed();
    assert!(took >= Duration::from_millis(290), "{took:?}");
}
