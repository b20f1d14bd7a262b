//! A Prometheus HTTP API client (`/api/v1/query`, `/api/v1/query_range`) for fleet and census:
//! the queries, the series selector a user gives, counters differenced the way `increase`
//! counts them, and every way a store is protected ([`Access`]). Anything that speaks the API
//! (Thanos, Mimir, VictoriaMetrics, Grafana Cloud) answers the same.

mod access;
mod counters;
mod selector;

pub use access::{parse_header, Access, AccessError, Secret};
pub use counters::deltas;
use engines::scrape::without_credentials;
pub use selector::{check_label, Selector, SelectorError};

use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// What a 400 over plain HTTP most likely means.
const TLS_HINT: &str = "the store may speak TLS: try https:// instead of http://";

#[derive(Debug, thiserror::Error)]
pub enum PromError {
    #[error("{url}: {msg}{}", hint.map(|h| format!("\n  {h}")).unwrap_or_default())]
    Http {
        url: String,
        msg: String,
        /// What the failure means and what to give, where the error says (a TLS refusal).
        hint: Option<&'static str>,
    },
    #[error("{url}: HTTP {code}: {}", refusal(*code, sent))]
    Unauthorized {
        url: String,
        code: u16,
        sent: String,
    },
    #[error(transparent)]
    Access(#[from] AccessError),
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
#[serde(bound = "T: serde::de::DeserializeOwned")]
struct Answer<T> {
    status: String,
    #[serde(default = "none")]
    data: Option<T>,
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
    /// What is sent, in words: for a refusal to name.
    sent: String,
    access: Access,
    http: reqwest::Client,
    sent_queries: AtomicUsize,
}

impl Prometheus {
    /// A client of the store at `base`, reached as `access` says; a `user:password@` in `base`
    /// is sent as basic auth and left out of every message.
    pub fn new(base: &str, timeout: Duration, access: &Access) -> Result<Prometheus, PromError> {
        let bare = without_credentials(base);
        let userinfo = reqwest::Url::parse(base)
            .ok()
            .filter(|u| !u.username().is_empty())
            .map(|u| u.username().to_string());
        if userinfo.is_some() && (access.basic.is_some() || access.bearer.is_some()) {
            return Err(AccessError::Conflict(
                "the URL carries user:password@ and credentials were also given: give one",
            )
            .into());
        }
        let http = access.client(timeout)?;
        Ok(Prometheus {
            base: bare.trim_end_matches('/').to_string(),
            given: base.trim_end_matches('/').to_string(),
            sent: access.describe(userinfo.as_deref()),
            access: access.clone(),
            http,
            sent_queries: AtomicUsize::new(0),
        })
    }

    /// The API root, without credentials.
    pub fn url(&self) -> &str {
        &self.base
    }

    /// Queries sent so far.
    pub fn queries(&self) -> usize {
        self.sent_queries.load(Ordering::Relaxed)
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

    /// The values of `label` on the series matching any of `matches` over [start, end]
    /// (`/api/v1/label/<label>/values`): answered from the index, no sample read, so the
    /// cheapest way to ask which metric names a store holds.
    pub async fn label_values(
        &self,
        label: &str,
        matches: &[String],
        start: f64,
        end: f64,
    ) -> Result<Vec<String>, PromError> {
        let path = format!("/api/v1/label/{label}/values");
        let mut params: Vec<(&str, String)> =
            matches.iter().map(|m| ("match[]", m.clone())).collect();
        params.push(("start", fmt_t(start)));
        params.push(("end", fmt_t(end)));
        // GET: Prometheus takes this endpoint's parameters in the URL only.
        let req = self
            .http
            .get(format!("{}{path}", self.given))
            .query(&params);
        let url = format!("{}{path}", self.base);
        let (code, body) = self.send(req, &url).await?;
        parse_values(&url, code, &body, &matches.join(" "))
    }

    /// POST form (queries get long; GET URLs have limits).
    async fn post(
        &self,
        path: &str,
        form: &[(&str, String)],
        query: &str,
    ) -> Result<Vec<Series>, PromError> {
        let url = format!("{}{path}", self.base);
        let req = self.http.post(format!("{}{path}", self.given)).form(form);
        let (code, body) = self.send(req, &url).await?;
        parse_answer(&url, code, &body, query)
    }

    /// Sends one request with the store's access; its status and body, a refusal as its error.
    async fn send(
        &self,
        req: reqwest::RequestBuilder,
        url: &str,
    ) -> Result<(u16, String), PromError> {
        let url = url.to_string();
        self.sent_queries.fetch_add(1, Ordering::Relaxed);
        let resp = self
            .access
            .apply(req)
            .send()
            .await
            // Without reqwest's copy of the URL: a label-values request carries its whole
            // matcher in it, and the message names the endpoint already.
            .map_err(|e| http_error(&url, &e.without_url()))?;
        let code = resp.status().as_u16();
        if code == 401 || code == 403 {
            return Err(PromError::Unauthorized {
                url,
                code,
                sent: self.sent.clone(),
            });
        }
        let body = resp.text().await.map_err(|e| {
            let mut err = http_error(&url, &e.without_url());
            if let PromError::Http { msg, hint, .. } = &mut err {
                *msg = format!("HTTP {code}, then {msg}");
                // Go's TLS servers answer a plain-HTTP request with 400 and drop the connection.
                if code == 400 && url.starts_with("http://") {
                    *hint = Some(TLS_HINT);
                }
            }
            err
        })?;
        Ok((code, body))
    }
}

fn none<T>() -> Option<T> {
    None
}

fn fmt_t(t: f64) -> String {
    format!("{t:.3}")
}

/// A 401 or 403 in words: what was sent, and what to give.
fn refusal(code: u16, sent: &str) -> String {
    const GIVE: &str =
        "--user USER:PASSWORD, --bearer-token-file FILE or --header 'Name: value' (see --help)";
    match (code, sent) {
        (401, "no credentials") => format!("the store requires credentials; give them with {GIVE}"),
        (401, _) => format!("the store refused the credentials sent ({sent}): check them, or give others with {GIVE}"),
        _ => format!(
            "the credentials sent ({sent}) lack the right to query: check the user's or token's permissions, or the tenant header"
        ),
    }
}

fn http_error(url: &str, e: &reqwest::Error) -> PromError {
    let msg = error_chain(e);
    PromError::Http {
        url: url.to_string(),
        hint: tls_hint(&msg),
        msg,
    }
}

/// What a TLS refusal means, from rustls' own words in the error chain.
fn tls_hint(msg: &str) -> Option<&'static str> {
    // rustls' wording has changed between releases ("UnknownIssuer", "unknown issuer"): matched
    // without case or spaces.
    let m: String = msg
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    let has = |w: &str| m.contains(w);
    Some(if has("unknownissuer") {
        "the store's certificate is signed by a CA this machine does not trust: give that CA \
         with --ca-file FILE (PEM), or --insecure-skip-verify to skip the check (not in production)"
    } else if has("expired") {
        "the store's certificate has expired: renew it on the store, or give \
         --insecure-skip-verify to skip the check (not in production)"
    } else if has("notvalidforname") {
        "the store's certificate does not name this host: use the host name it was issued for, \
         or --insecure-skip-verify to skip the check (not in production)"
    } else if has("certificaterequired") || has("badcertificate") {
        "the store requires a client certificate it trusts: give --client-cert FILE and \
         --client-key FILE (PEM)"
    } else if has("invalidcontenttype") || has("corruptmessage") {
        "the store did not answer in TLS: try http:// instead of https://"
    } else {
        return None;
    })
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

/// The API's envelope: its data where the status is success, else what refused the query.
fn envelope<T: serde::de::DeserializeOwned>(
    url: &str,
    code: u16,
    body: &str,
    query: &str,
) -> Result<T, PromError> {
    let a: Answer<T> = match serde_json::from_str(body) {
        Ok(a) => a,
        Err(e) if (200..300).contains(&code) => {
            return Err(PromError::Decode {
                url: url.to_string(),
                msg: e.to_string(),
            })
        }
        // Go's TLS servers answer a plain-HTTP request with 400 (and a body, when the
        // connection lasts long enough to read it).
        Err(_) if code == 400 && url.starts_with("http://") => {
            return Err(PromError::Http {
                url: url.to_string(),
                msg: format!("HTTP 400: {}", body.chars().take(300).collect::<String>()),
                hint: Some(TLS_HINT),
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
    a.data.ok_or_else(|| PromError::Decode {
        url: url.to_string(),
        msg: "status success without data".into(),
    })
}

/// Decodes a label-values answer (success or error envelope) into its values.
pub fn parse_values(
    url: &str,
    code: u16,
    body: &str,
    query: &str,
) -> Result<Vec<String>, PromError> {
    let data: serde_json::Value = envelope(url, code, body, query)?;
    serde_json::from_value(data).map_err(|e| PromError::Decode {
        url: url.to_string(),
        msg: format!("label values: {e}"),
    })
}

/// Decodes an API answer (success or error envelope) into series.
pub fn parse_answer(
    url: &str,
    code: u16,
    body: &str,
    query: &str,
) -> Result<Vec<Series>, PromError> {
    let data: Data = envelope(url, code, body, query)?;
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
    use super::*;

    /// One request to a loopback listener that answers an empty vector with `code`; the
    /// request as the store received it.
    fn one_request(
        access: &Access,
        userinfo: &str,
        code: u16,
    ) -> (Result<Vec<Series>, PromError>, String) {
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
                "HTTP/1.1 {code} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            String::from_utf8_lossy(&buf[..n]).into_owned()
        });
        let p = Prometheus::new(
            &format!("http://{userinfo}127.0.0.1:{port}"),
            Duration::from_secs(10),
            access,
        )
        .unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let answer = rt.block_on(p.query("up", 0.0));
        (answer, seen.join().unwrap())
    }

    fn header<'a>(request: &'a str, name: &str) -> Option<&'a str> {
        request.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    #[test]
    fn credentials_leave_the_url_and_are_decoded() {
        assert_eq!(
            without_credentials("http://ops:s3cr%40t@prom.internal:9090/"),
            "http://prom.internal:9090/"
        );
        assert_eq!(without_credentials("http://prom:9090"), "http://prom:9090");
        let p = Prometheus::new(
            "https://u:hunter2@h:9090/",
            Duration::from_secs(1),
            &Access::default(),
        )
        .unwrap();
        assert_eq!(p.url(), "https://h:9090");
        // The store receives them decoded, as Basic auth: base64("ops:s3cr@t").
        let (answer, request) = one_request(&Access::default(), "ops:s3cr%40t@", 200);
        answer.unwrap();
        assert_eq!(
            header(&request, "authorization"),
            Some("Basic b3BzOnMzY3JAdA=="),
            "{request}"
        );
    }

    #[test]
    fn each_credential_reaches_the_store_as_its_header() {
        let basic = Access {
            basic: Some(("ops".into(), Secret::new("s3cr@t"))),
            ..Access::default()
        };
        let (_, request) = one_request(&basic, "", 200);
        assert_eq!(
            header(&request, "authorization"),
            Some("Basic b3BzOnMzY3JAdA==")
        );
        let bearer = Access {
            bearer: Some(Secret::new("tok-123\n")),
            headers: vec![
                parse_header("X-Scope-OrgID: team-a").unwrap(),
                parse_header("THANOS-TENANT: t1").unwrap(),
            ],
            ..Access::default()
        };
        let (_, request) = one_request(&bearer, "", 200);
        assert_eq!(
            header(&request, "authorization"),
            Some("Bearer tok-123"),
            "{request}"
        );
        assert_eq!(header(&request, "x-scope-orgid"), Some("team-a"));
        assert_eq!(header(&request, "thanos-tenant"), Some("t1"));
        // Credentials in the URL and as flags: refused before anything is sent.
        let e = Prometheus::new("http://u:p@h:1", Duration::from_secs(1), &basic)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("give one"), "{e}");
    }

    #[test]
    fn a_refusal_names_what_was_sent_and_never_the_secret() {
        let bearer = Access {
            bearer: Some(Secret::new("tok-123")),
            ..Access::default()
        };
        let (answer, _) = one_request(&bearer, "", 401);
        let e = answer.unwrap_err().to_string();
        assert!(
            e.contains("HTTP 401") && e.contains("(a bearer token)"),
            "{e}"
        );
        assert!(!e.contains("tok-123"), "{e}");
        let (answer, _) = one_request(&Access::default(), "ops:hunter2@", 403);
        let e = answer.unwrap_err().to_string();
        assert!(
            e.contains("HTTP 403") && e.contains("basic auth as \"ops\""),
            "{e}"
        );
        assert!(!e.contains("hunter2"), "{e}");
    }

    #[test]
    fn tls_refusals_are_named() {
        assert!(tls_hint("invalid peer certificate: UnknownIssuer")
            .unwrap()
            .contains("--ca-file"));
        assert!(tls_hint("invalid peer certificate: Expired")
            .unwrap()
            .contains("expired"));
        // rustls 0.23's wording, from a real expired certificate.
        assert!(tls_hint(
            "invalid peer certificate: certificate expired: verification time 1796405238 (UNIX)"
        )
        .unwrap()
        .contains("has expired"));
        assert_eq!(tls_hint("connection refused"), None);
    }
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
        // A label-values answer: its data is the list itself.
        let vals = r#"{"status":"success","data":["a_total","b"]}"#;
        assert_eq!(parse_values("u", 200, vals, "q").unwrap(), ["a_total", "b"]);
        let e = parse_values("u", 400, bad, "{x}").unwrap_err().to_string();
        assert!(e.contains("bad_data") && e.contains("{x}"), "{e}");
        assert!(parse_values("u", 200, ok, "q").is_err());
    }
}
