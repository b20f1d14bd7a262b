//! The engine's process on this machine: is a URL local, which port, and which process
//! listens on it (Linux `/proc`). Reading a local engine's command line recovers the flags it
//! does not report over HTTP.

/// Whether a base URL names this machine (loopback or the unspecified address).
pub fn is_local(base_url: &str) -> bool {
    host_of(base_url).is_some_and(|h| {
        matches!(
            h.as_str(),
            "localhost" | "127.0.0.1" | "::1" | "[::1]" | "0.0.0.0"
        ) || h.starts_with("127.")
    })
}

/// The host of a base URL, lower-cased; IPv6 in brackets.
pub fn host_of(base_url: &str) -> Option<String> {
    let rest = base_url.split_once("://")?.1;
    let hostport = rest.split('/').next()?;
    if let Some(v6) = hostport.strip_prefix('[') {
        return Some(format!("[{}]", v6.split(']').next()?));
    }
    Some(hostport.split(':').next()?.to_ascii_lowercase())
}

/// The TCP port of a base URL (the scheme's default when none is written).
pub fn port_of(base_url: &str) -> Option<u16> {
    let rest = base_url.split_once("://")?.1;
    let hostport = rest.split('/').next()?;
    match hostport.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || hostport.starts_with('[') => p.parse().ok(),
        _ => Some(if base_url.starts_with("https") {
            443
        } else {
            80
        }),
    }
}

/// The process listening on this TCP port (Linux: the socket inode from /proc/net/tcp{,6},
/// then the process holding it among those whose fds this user may read).
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

/// Socket inodes in LISTEN state (st 0A) on `port` in a /proc/net/tcp table.
pub fn listening_inodes(table: &str, port: u16) -> Vec<u64> {
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

    #[test]
    fn urls_and_locality() {
        assert!(is_local("http://127.0.0.1:8080"));
        assert!(is_local("http://localhost:8080/v1"));
        assert!(is_local("http://[::1]:8080"));
        assert!(!is_local("http://gpu-box:8000"));
        assert_eq!(port_of("http://127.0.0.1:8080"), Some(8080));
        assert_eq!(port_of("http://[::1]:9000/x"), Some(9000));
        assert_eq!(port_of("https://host"), Some(443));
        assert_eq!(port_of("http://host/x"), Some(80));
    }
}
