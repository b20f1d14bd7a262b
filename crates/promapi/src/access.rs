//! How a protected store is reached: basic auth, a bearer token, extra headers (a Mimir or
//! Thanos tenant, an API key), a CA to trust, a client certificate, or no certificate check at
//! all. Every secret is a [`Secret`]: it reaches the wire and nothing else (no message, no
//! document, no history row, no `Debug` output names it).

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, AUTHORIZATION};
use std::path::PathBuf;

/// A credential. Its `Debug` shows neither the value nor its length.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value, for the one place that sends it.
    fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(hidden)")
    }
}

/// Everything a store may ask of a client. The default asks nothing (a `user:password@` in the
/// store's URL still goes as basic auth).
#[derive(Debug, Clone, Default)]
pub struct Access {
    /// Basic auth: user and password.
    pub basic: Option<(String, Secret)>,
    /// `Authorization: Bearer …`.
    pub bearer: Option<Secret>,
    /// Extra headers, name and value (`X-Scope-OrgID: team-a`). Values count as secrets: an
    /// API key travels this way as often as a tenant name.
    pub headers: Vec<(String, Secret)>,
    /// PEM file of CA certificates trusted beside the built-in roots.
    pub ca_file: Option<PathBuf>,
    /// PEM client certificate (chain) and its private key, for a store that requires one.
    pub client_cert: Option<(PathBuf, PathBuf)>,
    /// Accept any server certificate (expired, self-signed, another host's). The caller says
    /// so loudly.
    pub insecure_skip_verify: bool,
}

/// What was wrong with an [`Access`] before any request left.
#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    #[error("{what} {path}: {msg}")]
    File {
        what: &'static str,
        path: String,
        msg: String,
    },
    #[error("header {0:?}: give it as 'Name: value', with a name of letters, digits and dashes")]
    Header(String),
    #[error("a header is 'Name: value'; this one has no colon (its text is not repeated here: it may be a key)")]
    HeaderColon,
    #[error("{0}")]
    Conflict(&'static str),
    #[error("building the HTTP client: {0}")]
    Client(String),
}

impl Access {
    /// What the store is sent, in words without the secrets (`basic auth as "ops", header
    /// X-Scope-OrgID`),
    /// for a refusal to name.
    pub fn describe(&self, url_userinfo: Option<&str>) -> String {
        let mut parts = Vec::new();
        if let Some((user, _)) = &self.basic {
            parts.push(format!("basic auth as {user:?}"));
        } else if let Some(user) = url_userinfo {
            parts.push(format!("basic auth as {user:?} (from the URL)"));
        }
        if self.bearer.is_some() {
            parts.push("a bearer token".to_string());
        }
        if !self.headers.is_empty() {
            let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
            parts.push(format!("header {}", names.join(", ")));
        }
        if self.client_cert.is_some() {
            parts.push("a client certificate".to_string());
        }
        if parts.is_empty() {
            "no credentials".to_string()
        } else {
            parts.join(", ")
        }
    }

    /// The HTTP client this access asks for, every header marked sensitive (left out of
    /// reqwest's own debug output).
    pub(crate) fn client(
        &self,
        timeout: std::time::Duration,
    ) -> Result<reqwest::Client, AccessError> {
        if self.basic.is_some() && self.bearer.is_some() {
            return Err(AccessError::Conflict(
                "basic auth and a bearer token both go in the Authorization header: give one",
            ));
        }
        let mut headers = HeaderMap::new();
        if let Some(t) = &self.bearer {
            let mut v =
                HeaderValue::from_str(&format!("Bearer {}", t.expose().trim())).map_err(|_| {
                    AccessError::Conflict("the bearer token holds characters a header cannot")
                })?;
            v.set_sensitive(true);
            headers.insert(AUTHORIZATION, v);
        }
        for (name, value) in &self.headers {
            let n = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| AccessError::Header(name.clone()))?;
            let mut v = HeaderValue::from_str(value.expose())
                .map_err(|_| AccessError::Header(name.clone()))?;
            v.set_sensitive(true);
            headers.insert(n, v);
        }
        let mut b = reqwest::Client::builder()
            .timeout(timeout)
            .default_headers(headers);
        if let Some(path) = &self.ca_file {
            let pem = read("--ca-file", path)?;
            let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
                file_error("--ca-file", path, format!("not PEM certificates ({e})"))
            })?;
            if certs.is_empty() {
                return Err(file_error(
                    "--ca-file",
                    path,
                    "holds no PEM certificate (-----BEGIN CERTIFICATE-----)".into(),
                ));
            }
            for c in certs {
                b = b.add_root_certificate(c);
            }
        }
        if let Some((cert, key)) = &self.client_cert {
            let mut pem = read("--client-cert", cert)?;
            pem.push(b'\n');
            pem.extend(read("--client-key", key)?);
            let id = reqwest::Identity::from_pem(&pem).map_err(|e| {
                file_error(
                    "--client-cert",
                    cert,
                    format!("with its --client-key, not a PEM certificate and private key ({e})"),
                )
            })?;
            b = b.identity(id);
        }
        if self.insecure_skip_verify {
            b = b.danger_accept_invalid_certs(true);
        }
        b.build().map_err(|e| AccessError::Client(e.to_string()))
    }

    /// Basic auth for one request.
    pub(crate) fn apply(&self, req: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.basic {
            Some((user, password)) => req.basic_auth(user, Some(password.expose())),
            None => req,
        }
    }
}

fn file_error(what: &'static str, path: &std::path::Path, msg: String) -> AccessError {
    AccessError::File {
        what,
        path: path.display().to_string(),
        msg,
    }
}

fn read(what: &'static str, path: &std::path::Path) -> Result<Vec<u8>, AccessError> {
    std::fs::read(path).map_err(|e| file_error(what, path, e.to_string()))
}

/// A `Name: value` header as a user writes it (curl's `-H`).
pub fn parse_header(s: &str) -> Result<(String, Secret), AccessError> {
    let (name, value) = s.split_once(':').ok_or(AccessError::HeaderColon)?;
    let name = name.trim();
    if name.is_empty() || HeaderName::from_bytes(name.as_bytes()).is_err() {
        return Err(AccessError::Header(name.to_string()));
    }
    Ok((name.to_string(), Secret::new(value.trim())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_stay_out_of_debug_and_descriptions() {
        let a = Access {
            basic: Some(("ops".into(), Secret::new("hunter2"))),
            headers: vec![parse_header("X-Scope-OrgID: tenant-7").unwrap()],
            ..Access::default()
        };
        let shown = format!("{a:?} {}", a.describe(None));
        assert!(
            !shown.contains("hunter2") && !shown.contains("tenant-7"),
            "{shown}"
        );
        assert!(shown.contains("basic auth as \"ops\"") && shown.contains("X-Scope-OrgID"));
        assert_eq!(Access::default().describe(None), "no credentials");
    }

    #[test]
    fn headers_parse_as_curl_writes_them() {
        let (n, v) = parse_header("X-Scope-OrgID:  team-a ").unwrap();
        assert_eq!((n.as_str(), v.expose()), ("X-Scope-OrgID", "team-a"));
        assert!(parse_header("no colon here").is_err());
        assert!(parse_header("bad name: x").is_err());
        assert!(parse_header(": x").is_err());
    }

    #[test]
    fn bad_files_and_conflicts_are_named() {
        let a = Access {
            ca_file: Some("/nonexistent/ca.pem".into()),
            ..Access::default()
        };
        let e = a
            .client(std::time::Duration::from_secs(1))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("--ca-file /nonexistent/ca.pem: "), "{e}");
        let dir = std::env::temp_dir().join(format!("promapi-access-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let junk = dir.join("junk.pem");
        std::fs::write(&junk, "not a certificate").unwrap();
        let a = Access {
            ca_file: Some(junk.clone()),
            ..Access::default()
        };
        let e = a
            .client(std::time::Duration::from_secs(1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("holds no PEM certificate"), "{e}");
        let a = Access {
            basic: Some(("u".into(), Secret::new("p"))),
            bearer: Some(Secret::new("t")),
            ..Access::default()
        };
        assert!(matches!(
            a.client(std::time::Duration::from_secs(1)),
            Err(AccessError::Conflict(_))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
