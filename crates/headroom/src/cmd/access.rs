//! The flags that reach a protected Prometheus-compatible store, shared by `fleet` and
//! `census`: read here into a [`promapi::Access`], whose secrets nothing prints or saves.

use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use promapi::{Access, Secret};
use std::path::PathBuf;

/// Environment variables read when the flags leave a secret out (a flag's value is visible to
/// every user of the machine in `ps`; a file or the environment is not).
pub const TOKEN_ENV: &str = "HEADROOM_STORE_TOKEN";
pub const PASSWORD_ENV: &str = "HEADROOM_STORE_PASSWORD";

#[derive(ClapArgs, Debug, Default)]
#[command(next_help_heading = "Store access (a store behind authentication or TLS)")]
pub struct StoreAccess {
    /// Basic auth, as curl takes it: USER:PASSWORD, or USER with the password from
    /// --password-file or $HEADROOM_STORE_PASSWORD. A user:password@ in the URL works too.
    #[arg(long, value_name = "USER[:PASSWORD]")]
    pub user: Option<String>,
    /// The basic-auth password, from the first line of this file.
    #[arg(long, value_name = "FILE", requires = "user")]
    pub password_file: Option<PathBuf>,
    /// A bearer token (Grafana Cloud, an OAuth proxy). Prefer --bearer-token-file or
    /// $HEADROOM_STORE_TOKEN: a flag's value shows in `ps`.
    #[arg(long, value_name = "TOKEN", conflicts_with = "bearer_token_file")]
    pub bearer_token: Option<String>,
    /// The bearer token, from the first line of this file (a Kubernetes service-account token,
    /// for one).
    #[arg(long, value_name = "FILE")]
    pub bearer_token_file: Option<PathBuf>,
    /// An extra header on every query, 'Name: value' (repeat for more): Mimir's or Cortex's
    /// 'X-Scope-OrgID: tenant', Thanos' 'THANOS-TENANT: tenant', an API key.
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// CA certificates (PEM) to trust beside the built-in roots: a store with a private CA.
    #[arg(long, value_name = "FILE", alias = "cacert")]
    pub ca_file: Option<PathBuf>,
    /// A client certificate (PEM) for a store that requires one (mutual TLS); needs
    /// --client-key.
    #[arg(long, value_name = "FILE", requires = "client_key")]
    pub client_cert: Option<PathBuf>,
    /// The client certificate's private key (PEM: PKCS#8, SEC1 or RSA).
    #[arg(long, value_name = "FILE", requires = "client_cert")]
    pub client_key: Option<PathBuf>,
    /// Accept the store's certificate whatever it is (expired, self-signed, another host's).
    /// Anyone on the path can then read the queries and the credentials: for a test store only.
    #[arg(long, alias = "insecure")]
    pub insecure_skip_verify: bool,
}

impl StoreAccess {
    /// Whether any of these flags was given.
    pub fn is_set(&self) -> bool {
        self.user.is_some()
            || self.bearer_token.is_some()
            || self.bearer_token_file.is_some()
            || !self.headers.is_empty()
            || self.ca_file.is_some()
            || self.client_cert.is_some()
            || self.insecure_skip_verify
    }

    /// The access these flags and the environment ask for. Warns on stderr when certificate
    /// checks are off.
    pub fn access(&self) -> Result<Access> {
        let basic = match &self.user {
            None => None,
            Some(u) => {
                let (user, password) = match u.split_once(':') {
                    Some((user, pw)) => {
                        if self.password_file.is_some() {
                            bail!("--user carries a password and --password-file gives one too: give one");
                        }
                        (user.to_string(), pw.to_string())
                    }
                    None => {
                        let pw = match &self.password_file {
                            Some(f) => first_line(f, "--password-file")?,
                            None => std::env::var(PASSWORD_ENV).map_err(|_| {
                                anyhow::anyhow!(
                                    "--user {u:?} has no password: give --user {u}:PASSWORD, \
                                     --password-file FILE, or set {PASSWORD_ENV}"
                                )
                            })?,
                        };
                        (u.clone(), pw)
                    }
                };
                if user.is_empty() {
                    bail!("--user: the user name is empty (give USER:PASSWORD)");
                }
                Some((user, Secret::new(password)))
            }
        };
        let bearer = match (&self.bearer_token, &self.bearer_token_file) {
            (Some(t), _) => Some(t.clone()),
            (None, Some(f)) => Some(first_line(f, "--bearer-token-file")?),
            // The environment counts only where basic auth is not asked for: one
            // Authorization header.
            (None, None) if basic.is_none() => std::env::var(TOKEN_ENV).ok(),
            (None, None) => None,
        }
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .map(Secret::new);
        let headers = self
            .headers
            .iter()
            .map(|h| promapi::parse_header(h).with_context(|| format!("--header {:?}", name_of(h))))
            .collect::<Result<Vec<_>>>()?;
        if self.insecure_skip_verify {
            eprintln!(
                "warning: --insecure-skip-verify: the store's certificate is not checked; anyone \
                 on the path can read the queries and any credentials sent"
            );
        }
        Ok(Access {
            basic,
            bearer,
            headers,
            ca_file: self.ca_file.clone(),
            client_cert: self.client_cert.clone().zip(self.client_key.clone()),
            insecure_skip_verify: self.insecure_skip_verify,
        })
    }
}

/// A header as typed, its value left out (it may be a key).
fn name_of(h: &str) -> String {
    match h.split_once(':') {
        Some((n, _)) => format!("{}: …", n.trim()),
        None => "(no colon)".to_string(),
    }
}

fn first_line(path: &std::path::Path, flag: &str) -> Result<String> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("{flag} {}", path.display()))?;
    let line = text.lines().next().unwrap_or("").trim().to_string();
    if line.is_empty() {
        bail!("{flag} {}: the file is empty", path.display());
    }
    Ok(line)
}
