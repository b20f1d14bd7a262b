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
