//! A Prometheus HTTP API client (`/api/v1/query`, `/api/v1/query_range`), the one thing in this
//! crate that touches the network. Anything that speaks the API (Thanos, Mimir,
//! VictoriaMetrics) answers the same.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum PromError {
    #[error("{url}: {msg}")]
    Http { url: String, msg: String },
    #[error("{url}: HTTP {code}: {body}")]
    Status {
        url: String,
        code: u16,
        body: String,
    },
    #[error("{url}: the query was refused ({kind}: {msg}); query: {query}")]
    Refused {
        url: String,
        kind: String,
        msg: String,
        query: String,
    },
    #[error("{url}: not a Prometheus API answer: {msg}")]
    Decode { url: String, msg: String },
}

/// One series of an answer: its labels and its points (one for an instant query).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub labels: BTreeMap<String, String>,
    /// (unix seconds, value). NaN and ±Inf as Prometheus writes them.
    pub points: Vec<(f64, f64)>,
}

#[derive(Deserialize)]
struct Answer {
    status: String,
    #[serde(default)]
    data: Option<Data>,
    #[serde(default, rename = "errorType")]
    error_type: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Deserialize)]
struct Data {
    #[serde(rename = "resultType")]
    result_type: String,
    result: serde_json::Value,
}

#[derive(Deserialize)]
struct RawSeries {
    metric: BTreeMap<String, String>,
    #[serde(default)]
    value: Option<(f64, String)>,
    #[serde(default)]
    values: Option<Vec<(f64, String)>>,
}

/// A client of one Prometheus server; counts the queries it sent.
pub struct Prometheus {
    /// The API root without credentials: what every message and document names.
    base: String,
    /// The API root as given. A `user:password@` in it reaches the store as Basic auth: reqwest
    /// takes it out of each request's URL (so out of its errors too) and sends it as the
    /// `Authorization` header.
    given: String,
    http: reqwest::Client,
    sent: AtomicUsize,
}

/// `url` without its userinfo, for naming it.
pub fn without_credentials(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) if !u.username().is_empty() || u.password().is_some() => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.to_string()
        }
        _ => url.to_string(),
    }
}

impl Prometheus {
    /// A client of the store at `base`; a `user:password@` in it is sent as Basic auth and
    /// left out of every message.
    pub fn new(base: &str, timeout: Duration) -> Result<Prometheus, PromError> {
        let bare = without_credentials(base);
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| PromError::Http {
                url: bare.clone(),
                msg: e.to_string(),
            })?;
        Ok(Prometheus {
            base: bare.trim_end_matches('/').to_string(),
            given: base.trim_end_matches('/').to_string(),
            http,
            sent: AtomicUsize::new(0),
        })
    }

    /// The API root, without credentials.
    pub fn url(&self) -> &str {
        &self.base
    }

    /// Queries sent so far.
    pub fn queries(&self) -> usize {
        self.sent.load(Ordering::Relaxed)
    }

    /// An instant query at `time` (unix seconds).
    pub async fn query(&self, query: &str, time: f64) -> Result<Vec<Series>, PromError> {
        self.post(
            "/api/v1/query",
            &[("query", query.to_string()), ("time", fmt_t(time))],
            query,
        )
        .await
    }

    /// A range query over [start, end] every `step` seconds.
    pub async fn query_range(
        &self,
        query: &str,
        start: f64,
        end: f64,
        step: f64,
    ) -> Result<Vec<Series>, PromError> {
        self.post(
            "/api/v1/query_range",
            &[
                ("query", query.to_string()),
                ("start", fmt_t(start)),
                ("end", fmt_t(end)),
                ("step", fmt_t(step)),
            ],
            query,
        )
        .await
    }

    /// POST form (queries get long; GET URLs have limits).
    async fn post(
        &self,
        path: &str,
        form: &[(&str, String)],
        query: &str,
    ) -> Result<Vec<Series>, PromError> {
        let url = format!("{}{path}", self.base);
        self.sent.fetch_add(1, Ordering::Relaxed);
        let resp = self
            .http
            .post(format!("{}{path}", self.given))
            .form(form)
            .send()
            .await
            .map_err(|e| PromError::Http {
                url: url.clone(),
                msg: error_chain(&e),
            })?;
        let code = resp.status().as_u16();
        let body = resp.text().await.map_err(|e| PromError::Http {
            url: url.clone(),
            msg: error_chain(&e),
        })?;
        parse_answer(&url, code, &body, query)
    }
}

fn fmt_t(t: f64) -> String {
    format!("{t:.3}")
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(x) = src {
        s.push_str(": ");
        s.push_str(&x.to_string());
        src = x.source();
    }
    s
}

/// Decodes an API answer (success or error envelope) into series.
pub fn parse_answer(
    url: &str,
    code: u16,
    body: &str,
    query: &str,
) -> Result<Vec<Series>, PromError> {
    let a: Answer = match serde_json::from_str(body) {
        Ok(a) => a,
        Err(e) if (200..300).contains(&code) => {
            return Err(PromError::Decode {
                url: url.to_string(),
                msg: e.to_string(),
            })
        }
        Err(_) => {
            return Err(PromError::Status {
                url: url.to_string(),
                code,
                body: body.chars().take(300).collect(),
            })
        }
    };
    if a.status != "success" {
        return Err(PromError::Refused {
            url: url.to_string(),
            kind: a.error_type.unwrap_or_else(|| format!("HTTP {code}")),
            msg: a.error.unwrap_or_default(),
            query: query.chars().take(300).collect(),
        });
    }
    let data = a.data.ok_or_else(|| PromError::Decode {
        url: url.to_string(),
        msg: "status success without data".into(),
    })?;
    let decode = |msg: String| PromError::Decode {
        url: url.to_string(),
        msg,
    };
    match data.result_type.as_str() {
        "vector" | "matrix" => {
            let raw: Vec<RawSeries> =
                serde_json::from_value(data.result).map_err(|e| decode(e.to_string()))?;
            raw.into_iter()
                .map(|r| {
                    let pts = r.values.or(r.value.map(|v| vec![v])).unwrap_or_default();
                    let points = pts
                        .into_iter()
                        .map(|(t, v)| {
                            engines::prom::parse_value(&v)
                                .map(|v| (t, v))
                                .ok_or_else(|| decode(format!("value {v:?} is not a number")))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(Series {
                        labels: r.metric,
                        points,
                    })
                })
                .collect()
        }
        other => Err(decode(format!(
            "result type {other:?} (a vector or matrix was expected)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn credentials_leave_the_url_and_are_decoded() {
        assert_eq!(
            super::without_credentials("http://ops:s3cr%40t@prom.internal:9090/"),
            "http://prom.internal:9090/"
        );
        assert_eq!(
            super::without_credentials("http://prom:9090"),
            "http://prom:9090"
        );
        let p =
            super::Prometheus::new("https://u:hunter2@h:9090/", Duration::from_secs(1)).unwrap();
        assert_eq!(p.url(), "https://h:9090");
        // The store receives them decoded, as Basic auth ("ops:s3cr@t").
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = std::thread::spawn(move || {
            use std::io::{Read, Write};
            let (mut c, _) = listener.accept().unwrap();
            let mut buf = vec![0u8; 8192];
            let n = c.read(&mut buf).unwrap();
            let body = r#"{"status":"success","data":{"resultType":"vector","result":[]}}"#;
            let _ = write!(
                c,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            String::from_utf8_lossy(&buf[..n]).into_owned()
        });
        let p = super::Prometheus::new(
            &format!("http://ops:s3cr%40t@127.0.0.1:{port}"),
            Duration::from_secs(10),
        )
        .unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(p.query("up", 0.0)).unwrap();
        let request = seen.join().unwrap();
        assert!(
            request.lines().any(
                |l| l.to_ascii_lowercase().starts_with("authorization: basic ")
                    && l.ends_with("b3BzOnMzY3JAdA==")
            ), // base64("ops:s3cr@t")
            "{request}"
        );
    }

    use super::*;

    #[test]
    fn answers_and_errors() {
        let ok = r#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"instance":"a"},"values":[[1.5,"2"],[2.5,"NaN"]]}]}}"#;
        let s = parse_answer("u", 200, ok, "q").unwrap();
        assert_eq!(s[0].labels["instance"], "a");
        assert_eq!(s[0].points[0], (1.5, 2.0));
        assert!(s[0].points[1].1.is_nan());
        let bad = r#"{"status":"error","errorType":"bad_data","error":"parse error at char 3"}"#;
        let e = parse_answer("u", 400, bad, "sum(").unwrap_err().to_string();
        assert!(
            e.contains("bad_data") && e.contains("char 3") && e.contains("sum("),
            "{e}"
        );
        let e = parse_answer("u", 502, "<html>gateway</html>", "q")
            .unwrap_err()
            .to_string();
        assert!(e.contains("HTTP 502") && e.contains("gateway"), "{e}");
        let scalar = r#"{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}"#;
        assert!(parse_answer("u", 200, scalar, "q").is_err());
    }
}
