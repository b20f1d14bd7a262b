//! `headroom rules`: Prometheus alerting rules on the series `fleet --serve` exposes
//! ([`crate::serve`]), so a primary that holds, a replica far below its ceiling, an outlier, an
//! imbalance, or headroom itself going blind pages whoever is on call. The YAML is Prometheus'
//! rule-file format (https://prometheus.io/docs/prometheus/latest/configuration/alerting_rules/);
//! the tests check it with `promtool check rules` and `promtool test rules`.

/// What the rules are tuned by.
#[derive(Debug, Clone)]
pub struct Options {
    /// How long a finding must hold before its alert fires (Prometheus' `for`), as Prometheus
    /// writes a duration (`15m`).
    pub hold: String,
    /// A replica below this share of its ceiling is named (0-1).
    pub efficiency_below: f64,
    /// headroom's last successful evaluation older than this many seconds is itself an alert.
    pub stale_after_s: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            hold: "15m".into(),
            efficiency_below: 0.3,
            stale_after_s: 600.0,
        }
    }
}

/// The alert names, in the order they are written.
pub const ALERTS: [&str; 6] = [
    "HeadroomPrimaryHeld",
    "HeadroomBelowCeiling",
    "HeadroomOutlierReplica",
    "HeadroomFleetImbalance",
    "HeadroomEvaluationsFailing",
    "HeadroomVerdictsStale",
];

/// A YAML double-quoted scalar.
fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// The rule file.
pub fn rules(o: &Options) -> String {
    let pct = (o.efficiency_below * 100.0).round();
    let rules: [(&str, String, &str, &str, String, String); 6] = [
        (
            ALERTS[0],
            r#"headroom_fleet_primary{rule!="none"} == 1"#.into(),
            &o.hold,
            "warning",
            "{{ $labels.replica }}: {{ $labels.rule }} {{ $labels.title }} held".into(),
            format!(
                "headroom names {{{{ $labels.rule }}}} ({{{{ $labels.title }}}}) the primary bottleneck of {{{{ $labels.replica }}}} ({{{{ $labels.engine }}}}), held for {}. Fix: {{{{ $labels.fix }}}}. The evidence: headroom fleet on this store.",
                o.hold
            ),
        ),
        (
            ALERTS[1],
            format!("headroom_fleet_efficiency_ratio < {}", o.efficiency_below),
            &o.hold,
            "warning",
            format!("{{{{ $labels.replica }}}} below {pct} % of its ceiling"),
            "{{ $labels.replica }} generates {{ $value | humanizePercentage }} of its hardware ceiling at the ridge batch; headroom_fleet_primary names why.".into(),
        ),
        (
            ALERTS[2],
            "headroom_fleet_outlier == 1".into(),
            &o.hold,
            "warning",
            "{{ $labels.replica }} is an outlier of its fleet".into(),
            "Its primary differs from most replicas', or it generates under half its peers' median per running sequence.".into(),
        ),
        (
            ALERTS[3],
            "headroom_fleet_imbalance == 1".into(),
            &o.hold,
            "warning",
            "The fleet's load is imbalanced".into(),
            "The busiest replica carries at least twice the others' median load (headroom_fleet_load_share_ratio); a prefix-cache-aware router (headroom route) spreads it.".into(),
        ),
        (
            ALERTS[4],
            "headroom_fleet_last_evaluation_success == 0 and headroom_fleet_evaluations_total > 0".into(),
            &o.hold,
            "warning",
            "headroom cannot read the fleet".into(),
            "Its evaluations fail (the store away, credentials refused, no replica under the selector): its log line says why. No verdict series exist meanwhile.".into(),
        ),
        (
            ALERTS[5],
            format!(
                "time() - headroom_fleet_last_success_timestamp_seconds > {}",
                o.stale_after_s
            ),
            "0s",
            "warning",
            "headroom's verdicts are stale".into(),
            format!(
                "No evaluation has succeeded for more than {} s.",
                o.stale_after_s
            ),
        ),
    ];
    let mut y = String::from(
        "# Alerting rules on `headroom fleet --serve`'s series, written by `headroom rules`.\n\
         # Check: promtool check rules FILE\ngroups:\n  - name: headroom\n    rules:\n",
    );
    for (alert, expr, hold, severity, summary, description) in rules {
        y.push_str(&format!(
            "      - alert: {alert}\n        expr: {}\n        for: {hold}\n        labels:\n          severity: {severity}\n        annotations:\n          summary: {}\n          description: {}\n",
            q(&expr),
            q(&summary),
            q(&description)
        ));
    }
    y
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_alert_is_written_with_its_hold() {
        let y = super::rules(&super::Options {
            hold: "5m".into(),
            efficiency_below: 0.25,
            stale_after_s: 120.0,
        });
        for a in super::ALERTS {
            assert!(y.contains(&format!("alert: {a}\n")), "{a}: {y}");
        }
        assert!(y.contains("headroom_fleet_efficiency_ratio < 0.25"), "{y}");
        assert!(y.contains("below 25 % of its ceiling"), "{y}");
        assert_eq!(y.matches("for: 5m").count(), 5, "{y}");
    }
}
