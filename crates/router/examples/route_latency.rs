//! Latency added by a proxy, measured in one run: one keep-alive connection per target,
//! requests sent one at a time, the targets interleaved request by request so that they share
//! the machine's noise. Used by scripts/bench/route.
//!
//!   route_latency --body req.json --requests 5000 \
//!       --target direct=http://127.0.0.1:8001/v1/chat/completions \
//!       --target router=http://127.0.0.1:9000/v1/chat/completions
//!
//! The first target is the reference: "added" is each target's percentile minus the
//! reference's percentile (a difference of percentiles, not a percentile of differences).
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

struct Target {
    name: String,
    uri: Uri,
    conn: SendRequest<Full<Bytes>>,
    samples: Vec<Duration>,
    errors: usize,
}

fn usage() -> ! {
    eprintln!("usage: route_latency --body FILE [--requests N] [--warmup N] [--json] --target NAME=URL [--target NAME=URL ...]");
    std::process::exit(2)
}

async fn connect(uri: &Uri) -> Result<SendRequest<Full<Bytes>>, String> {
    let host = uri.host().ok_or("URL without host")?;
    let port = uri.port_u16().unwrap_or(80);
    let stream = TcpStream::connect((host, port))
        .await
        .map_err(|e| format!("connect {uri}: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let (send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("handshake {uri}: {e}"))?;
    tokio::spawn(conn);
    Ok(send)
}

async fn once(t: &mut Target, body: &Bytes) -> Result<Duration, String> {
    if t.conn.ready().await.is_err() {
        t.conn = connect(&t.uri).await?;
    }
    let authority = t
        .uri
        .authority()
        .map(|a| a.as_str())
        .unwrap_or("localhost")
        .to_string();
    let req = Request::post(t.uri.path())
        .header("host", authority)
        .header("content-type", "application/json")
        .body(Full::new(body.clone()))
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    let resp = t.conn.send_request(req).await.map_err(|e| e.to_string())?;
    let status = resp.status();
    resp.into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?;
    let took = start.elapsed();
    if !status.is_success() {
        return Err(format!("{} answered {status}", t.name));
    }
    Ok(took)
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let (mut body_path, mut requests, mut warmup, mut json) = (None, 5000usize, 500usize, false);
    let mut specs = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--body" => body_path = args.next(),
            "--requests" => {
                requests = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--warmup" => {
                warmup = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--json" => json = true,
            "--target" => specs.push(args.next().unwrap_or_else(|| usage())),
            _ => usage(),
        }
    }
    let body =
        Bytes::from(std::fs::read(body_path.unwrap_or_else(|| usage())).expect("read --body"));
    if specs.is_empty() {
        usage();
    }
    let mut targets = Vec::new();
    for spec in specs {
        let (name, url) = spec.split_once('=').unwrap_or_else(|| usage());
        let uri: Uri = url.parse().expect("target URL");
        let conn = connect(&uri).await.unwrap_or_else(|e| panic!("{e}"));
        targets.push(Target {
            name: name.to_string(),
            uri,
            conn,
            samples: Vec::with_capacity(requests),
            errors: 0,
        });
    }
    for i in 0..warmup + requests {
        // Rotate the starting target so no target always runs first after an idle gap.
        let n = targets.len();
        for k in 0..n {
            let t = &mut targets[(i + k) % n];
            match once(t, &body).await {
                Ok(d) if i >= warmup => t.samples.push(d),
                Ok(_) => {}
                Err(_) => t.errors += 1,
            }
        }
    }
    for t in &mut targets {
        t.samples.sort();
    }
    let reference = (
        pct(&targets[0].samples, 50.0),
        pct(&targets[0].samples, 99.0),
    );
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    if json {
        let rows: Vec<String> = targets
            .iter()
            .map(|t| {
                let (p50, p99) = (pct(&t.samples, 50.0), pct(&t.samples, 99.0));
                format!(
                    "{{\"target\":\"{}\",\"n\":{},\"errors\":{},\"p50_us\":{:.1},\"p90_us\":{:.1},\"p99_us\":{:.1},\"added_p50_us\":{:.1},\"added_p99_us\":{:.1}}}",
                    t.name,
                    t.samples.len(),
                    t.errors,
                    us(p50),
                    us(pct(&t.samples, 90.0)),
                    us(p99),
                    us(p50) - us(reference.0),
                    us(p99) - us(reference.1)
                )
            })
            .collect();
        println!("[{}]", rows.join(","));
        return;
    }
    println!(
        "{:<10} {:>6} {:>6} {:>9} {:>9} {:>9} {:>11} {:>11}",
        "target", "n", "errors", "p50 µs", "p90 µs", "p99 µs", "+p50 µs", "+p99 µs"
    );
    for t in &targets {
        let (p50, p99) = (pct(&t.samples, 50.0), pct(&t.samples, 99.0));
        println!(
            "{:<10} {:>6} {:>6} {:>9.1} {:>9.1} {:>9.1} {:>11.1} {:>11.1}",
            t.name,
            t.samples.len(),
            t.errors,
            us(p50),
            us(pct(&t.samples, 90.0)),
            us(p99),
            us(p50) - us(reference.0),
            us(p99) - us(reference.1)
        );
    }
    println!(
        "(+ = this target's percentile minus {}'s, same run, requests interleaved)",
        targets[0].name
    );
}
