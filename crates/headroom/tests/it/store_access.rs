//! `fleet` and `census` against a real Prometheus (Debian's, started by testpeers) behind its own
//! `--web.config.file`: TLS with a private CA and basic auth, a certificate that has expired,
//! and mutual TLS. The TLS material is fixtures/tls (test-only keys, SOURCES.md). Each way in
//! works with the right credentials, each refusal is named, and no secret appears in any
//! output, document or saved file.

use crate::util::{Headroom, Run};
use fleet::FleetDoc;
use std::path::{Path, PathBuf};
use testpeers::prometheus::{Prometheus, Tls, WebConfig};

const USER: &str = "ops";
const PASSWORD: &str = "c0rrect horse";
/// bcrypt (cost 4) of PASSWORD, made with PyPI's `bcrypt`: Prometheus' web config takes hashes.
const PASSWORD_HASH: &str = "$2b$04$fCVKgtGVaD8IGU6l1EY1SuYNK4fyO9U/SGgBmmhQA/VTSkj2WsjM.";

fn tls(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/tls")
        .join(name)
}

fn arg(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// headroom with `args` and `env` (the store's secrets in the environment only as `env` puts
/// them): (exit code, stdout, stderr), every one checked for the secrets first.
fn run(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Headroom::cmd(args);
    cmd.env_remove("HEADROOM_STORE_TOKEN")
        .env_remove("HEADROOM_STORE_PASSWORD");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let Run {
        code,
        stdout: o,
        stderr: e,
        ..
    } = cmd.run();
    for secret in [PASSWORD, "wrong-password", "tok-3e1b"] {
        assert!(
            !o.contains(secret) && !e.contains(secret),
            "{args:?} printed a secret: {o}{e}"
        );
    }
    (code, o, e)
}

#[test]
fn a_store_behind_tls_and_basic_auth() {
    // No engine: a backfilled store behind its web config, so no serial() (it runs beside the
    // live test of the moment) and nothing asserted depends on the machine's load.
    if testpeers::prometheus::binary().is_none() || testpeers::prometheus::promtool().is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let (om, end) = crate::util::census_history(dir.path(), 3600);
    let web = WebConfig {
        tls: Some(Tls {
            cert: tls("server.pem"),
            key: tls("server.key"),
            client_ca: None,
        }),
        users: vec![(USER.into(), PASSWORD_HASH.into())],
    };
    let Some(p) = Prometheus::start_protected(&web, Some(&om)) else {
        return;
    };
    assert!(p.url.starts_with("https://"), "{}", p.url);
    let ca = tls("ca.pem");
    let end = end.to_string();
    let fleet = |extra: &[&str], env: &[(&str, &str)]| {
        let mut a = vec!["fleet", "--prometheus", &p.url, "--at", &end, "--json"];
        a.extend_from_slice(extra);
        run(&a, env)
    };
    let user_pass = format!("{USER}:{PASSWORD}");

    // The way in: the CA and the credentials, as a flag, from a file, from the environment.
    let (code, out, err) = fleet(&["--ca-file", arg(&ca), "--user", &user_pass], &[]);
    assert_eq!(code, 0, "{err}");
    let doc: FleetDoc = serde_json::from_str(&out).expect("headroom.fleet/1");
    assert_eq!(
        doc.replicas.len(),
        4,
        "the generator's four engines: {doc:#?}"
    );
    assert!(
        !doc.prometheus.contains('@'),
        "the document names the bare store: {}",
        doc.prometheus
    );
    // dashboard takes the same flags to the same store (its label-values request, a GET).
    let dash = |extra: &[&str]| {
        let mut a = vec!["dashboard", "--prometheus", &p.url, "--ca-file", arg(&ca)];
        a.extend_from_slice(extra);
        run(&a, &[])
    };
    let (code, out, err) = dash(&["--user", &user_pass]);
    assert_eq!(code, 0, "dashboard: {err}");
    assert!(err.contains("engines found in the store: vLLM"), "{err}");
    serde_json::from_str::<fleet::dashboard::Dashboard>(&out).expect("the dashboard's model");
    let (code, _, err) = dash(&[]);
    assert!(
        code != 0 && err.contains("HTTP 401") && err.contains("requires credentials"),
        "{err}"
    );
    let pw = dir.path().join("pw");
    std::fs::write(&pw, format!("{PASSWORD}\n")).unwrap();
    let (code, _, err) = fleet(
        &[
            "--ca-file",
            arg(&ca),
            "--user",
            USER,
            "--password-file",
            arg(&pw),
        ],
        &[],
    );
    assert_eq!(code, 0, "--password-file: {err}");
    let (code, _, err) = fleet(
        &["--ca-file", arg(&ca), "--user", USER],
        &[("HEADROOM_STORE_PASSWORD", PASSWORD)],
    );
    assert_eq!(code, 0, "$HEADROOM_STORE_PASSWORD: {err}");
    // Census by the URL's userinfo (percent-encoded, as a URL must carry a space).
    let with_userinfo = p.url.replace(
        "https://",
        &format!("https://{USER}:{}@", PASSWORD.replace(' ', "%20")),
    );
    let (code, out, err) = run(
        &[
            "census",
            "--prometheus",
            &with_userinfo,
            "--ca-file",
            arg(&ca),
            "--selector",
            r#"{instance="10.1.0.3:8000"}"#,
            "--since",
            "1h",
            "--at",
            &end,
            "--json",
        ],
        &[],
    );
    assert_eq!(code, 0, "census: {err}");
    let doc: census::CensusDoc = serde_json::from_str(&out).expect("headroom.census/1");
    assert_eq!(doc.engine, Some(engines::Engine::Vllm), "{out}");
    // Saved windows name the bare store.
    let saved = dir.path().join("windows");
    let (code, _, err) = fleet(
        &["--ca-file", arg(&ca), "--save-windows", arg(&saved)],
        &[("HEADROOM_STORE_PASSWORD", PASSWORD)],
    );
    assert_ne!(
        code, 0,
        "no --user: the environment's password alone is not sent"
    );
    assert!(err.contains("HTTP 401"), "{err}");
    let (code, _, err) = run(
        &[
            "fleet",
            "--prometheus",
            &with_userinfo,
            "--at",
            &end,
            "--ca-file",
            arg(&ca),
            "--save-windows",
            arg(&saved),
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    for f in std::fs::read_dir(&saved).unwrap() {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        assert!(
            !text.contains(PASSWORD.replace(' ', "%20").as_str()) && !text.contains(USER),
            "a saved window holds the credentials"
        );
    }

    // Refusals, each named, each exit 1.
    let (code, _, err) = fleet(&["--ca-file", arg(&ca)], &[]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("HTTP 401") && err.contains("requires credentials") && err.contains("--user"),
        "{err}"
    );
    let (code, _, err) = fleet(
        &["--ca-file", arg(&ca), "--user", "ops:wrong-password"],
        &[],
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("HTTP 401") && err.contains("basic auth as \"ops\""),
        "{err}"
    );
    let (code, _, err) = fleet(&["--user", &user_pass], &[]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("not trust") && err.contains("--ca-file"),
        "no CA: {err}"
    );
    let (code, _, err) = fleet(
        &["--ca-file", arg(&tls("other-ca.pem")), "--user", &user_pass],
        &[],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("not trust"), "the wrong CA: {err}");
    let (code, _, err) = run(
        &[
            "fleet",
            "--prometheus",
            &p.url.replace("https://", "http://"),
            "--user",
            &user_pass,
        ],
        &[],
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("HTTP 400") && err.contains("try https://"),
        "plain HTTP to a TLS port: {err}"
    );
    // Skipping the check works, and says so.
    let (code, _, err) = fleet(&["--insecure-skip-verify", "--user", &user_pass], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning: --insecure-skip-verify"), "{err}");
}

#[test]
fn an_expired_certificate_and_mutual_tls() {
    // No engine: a backfilled store behind its web config, so no serial() (it runs beside the
    // live test of the moment) and nothing asserted depends on the machine's load.
    if testpeers::prometheus::binary().is_none() || testpeers::prometheus::promtool().is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let (om, end) = crate::util::census_history(dir.path(), 3600);
    let ca = tls("ca.pem");
    let end = end.to_string();
    let expired = WebConfig {
        tls: Some(Tls {
            cert: tls("expired.pem"),
            key: tls("expired.key"),
            client_ca: None,
        }),
        users: vec![],
    };
    let Some(p) = Prometheus::start_protected(&expired, None) else {
        return;
    };
    let (code, _, err) = run(
        &["fleet", "--prometheus", &p.url, "--ca-file", arg(&ca)],
        &[],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("has expired"), "{err}");
    drop(p);

    let mutual = WebConfig {
        tls: Some(Tls {
            cert: tls("server.pem"),
            key: tls("server.key"),
            client_ca: Some(ca.clone()),
        }),
        users: vec![],
    };
    let Some(p) = Prometheus::start_protected(&mutual, Some(&om)) else {
        return;
    };
    let base = [
        "fleet",
        "--prometheus",
        &p.url,
        "--ca-file",
        arg(&ca),
        "--at",
        &end,
    ];
    let (code, _, err) = run(&base, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("--client-cert"),
        "no client certificate: {err}"
    );
    let mut with_cert = base.to_vec();
    let (cert, key) = (tls("client.pem"), tls("client.key"));
    with_cert.extend_from_slice(&[
        "--client-cert",
        arg(&cert),
        "--client-key",
        arg(&key),
        "--json",
    ]);
    let (code, out, err) = run(&with_cert, &[]);
    assert_eq!(code, 0, "{err}");
    let doc: FleetDoc = serde_json::from_str(&out).expect("headroom.fleet/1");
    assert_eq!(doc.replicas.len(), 4);
    // A bearer token and a tenant header go along (this store ignores them), never shown.
    let mut with_token = with_cert.clone();
    with_token.extend_from_slice(&["--header", "X-Scope-OrgID: team-a"]);
    let (code, _, err) = run(&with_token, &[("HEADROOM_STORE_TOKEN", "tok-3e1b")]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn bad_access_flags_are_clear_errors() {
    for (args, want) in [
        (vec!["--user", "ops"], "has no password"),
        (
            vec!["--user", "ops:x", "--bearer-token", "tok-3e1b"],
            "give one",
        ),
        (vec!["--header", "tok-3e1b"], "no colon"),
        (
            vec!["--ca-file", "/nonexistent/ca.pem"],
            "--ca-file /nonexistent/ca.pem",
        ),
        (vec!["--client-cert", "c.pem"], "--client-key"),
    ] {
        let mut a = vec!["fleet", "--prometheus", "http://127.0.0.1:9"];
        a.extend_from_slice(&args);
        let (code, _, err) = run(&a, &[]);
        assert_ne!(code, 0, "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let (code, _, err) = run(
        &["census", "--url", "http://127.0.0.1:9", "--user", "ops:x"],
        &[],
    );
    assert_eq!(code, 1);
    assert!(err.contains("go with --prometheus"), "{err}");
}
