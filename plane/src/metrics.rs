//! The plane's Prometheus metrics.
//!
//! Recorded with the `metrics` crate's types into a `metrics-exporter-prometheus` recorder that
//! this plane owns (it is never installed as the process's global recorder, so two planes in
//! one process — the in-process tests — keep their figures apart), and rendered in
//! Prometheus's text exposition format by its handle. That crate is used without its default
//! features: no HTTP listener or push gateway, so no tokio runtime (`tools/check-invariants.sh`);
//! the plane's HTTP server answers `/metrics`. It was chosen over `prometheus-client` because
//! that one writes OpenMetrics text only, which `promtool check metrics` (and the classic
//! text parsers many scrapers still use) refuse: its counter families carry no `_total` in
//! their `# TYPE` line.
//!
//! Every label has a bounded set of values: HTTP routes are the router's templates (never the
//! raw path), statuses are the server's, close codes the protocol's (a peer's code outside
//! them reads `other`), command types the protocol's 28.
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `termplane_build_info` | gauge (1) | `version` |
//! | `termplane_http_requests_total` | counter | `method`, `route`, `status` |
//! | `termplane_http_request_duration_seconds` | histogram | `method`, `route` |
//! | `termplane_http_connections` | gauge | `class` (`unproven`, `trial`, `proven`: the not-upgraded connections holding a place, see `termplane::http`) |
//! | `termplane_nodes_online` | gauge | — |
//! | `termplane_cluster_replicas` | gauge | `state` (`live`: the planes on this database whose lease holds; `lapsed`: kept a day) |
//! | `termplane_nodes_held` | gauge | — |
//! | `termplane_node_sockets_open` | gauge | — |
//! | `termplane_link_established_total` | counter | — |
//! | `termplane_link_closed_total` | counter | `by` (`plane`, `node`, `transport`), `code` |
//! | `termplane_commands_total` | counter | `type`, `result` (`ok`, `refused`, or the error code) |
//! | `termplane_command_duration_seconds` | histogram | `type` |
//! | `termplane_panes` | gauge | `state` |
//! | `termplane_terminal_viewers` | gauge | — |
//! | `termplane_channel_reads_waiting` | gauge | — |
//! | `termplane_terminal_output_bytes_total` | counter | — |
//! | `termplane_sign_in_failures_total` | counter | `method` (`password`, `passkey`) |
//! | `termplane_backoffs_total` | counter | `route` |
//! | `termplane_db_acquire_seconds` | histogram | — |
//! | `termplane_db_query_duration_seconds` | histogram | `op` |
//! | `termplane_db_errors_total` | counter | — |
//!
//! Histograms of seconds share one set of buckets, from 0.5 ms to 30 s. Samples wait in the
//! recorder until the next scrape or upkeep; [`Metrics::upkeep`] runs every few seconds (see
//! `Services::spawn_metrics_upkeep`) so a plane nobody scrapes keeps no growing backlog.

use std::time::Duration;

use metrics::{Counter, Histogram, Key, KeyName, Label, Metadata, Recorder, SharedString, Unit};
use metrics_exporter_prometheus::{
    Matcher, PrometheusBuilder, PrometheusHandle, PrometheusRecorder,
};

/// The buckets of every histogram of seconds.
const SECONDS_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

static META: Metadata<'static> =
    Metadata::new(module_path!(), metrics::Level::INFO, Some(module_path!()));

/// The plane's metrics: a recorder of its own and the handles of its busiest series.
pub struct Metrics {
    recorder: PrometheusRecorder,
    handle: PrometheusHandle,
    terminal_bytes: Counter,
    link_established: Counter,
    db_acquire: Histogram,
    db_errors: Counter,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics { .. }")
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

fn key(name: &'static str, labels: Vec<Label>) -> Key {
    Key::from_parts(name, labels)
}

fn label(k: &'static str, v: impl Into<SharedString>) -> Label {
    Label::new(k, v)
}

/// A status code as a label value, without allocating for the common ones.
fn status_label(status: u16) -> SharedString {
    let known: &'static str = match status {
        101 => "101",
        200 => "200",
        201 => "201",
        204 => "204",
        206 => "206",
        304 => "304",
        400 => "400",
        401 => "401",
        403 => "403",
        404 => "404",
        405 => "405",
        409 => "409",
        413 => "413",
        429 => "429",
        500 => "500",
        502 => "502",
        503 => "503",
        504 => "504",
        507 => "507",
        other => return SharedString::from(other.to_string()),
    };
    SharedString::const_str(known)
}

impl Metrics {
    /// A fresh set of metrics, every family described.
    #[must_use]
    pub fn new() -> Self {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS_BUCKETS)
            .unwrap_or_else(|_| PrometheusBuilder::new())
            .build_recorder();
        let handle = recorder.handle();
        let counter = |name: &'static str, help: &'static str| {
            recorder.describe_counter(KeyName::from_const_str(name), None, help.into());
        };
        let gauge = |name: &'static str, help: &'static str| {
            recorder.describe_gauge(KeyName::from_const_str(name), None, help.into());
        };
        let histogram = |name: &'static str, help: &'static str| {
            recorder.describe_histogram(
                KeyName::from_const_str(name),
                Some(Unit::Seconds),
                help.into(),
            );
        };
        gauge("termplane_build_info", "The plane's version (always 1).");
        counter(
            "termplane_http_requests_total",
            "HTTP requests answered, by route template and status.",
        );
        histogram(
            "termplane_http_request_duration_seconds",
            "Time from a request's head to its answer, by route template.",
        );
        gauge(
            "termplane_http_connections",
            "Not-upgraded HTTP connections holding a place, by class (unproven, on trial, proven).",
        );
        gauge("termplane_nodes_online", "Nodes whose link is online.");
        gauge(
            "termplane_cluster_replicas",
            "Planes registered on this database, by whether their lease holds.",
        );
        gauge(
            "termplane_channel_reads_waiting",
            "Channel reads parked in a long poll (waitMs) for a new entry.",
        );
        gauge(
            "termplane_nodes_held",
            "Nodes linked but held for an update (their version is too old).",
        );
        gauge(
            "termplane_node_sockets_open",
            "Open node sockets, authenticated or not.",
        );
        counter(
            "termplane_link_established_total",
            "Node links that completed their handshake.",
        );
        counter(
            "termplane_link_closed_total",
            "Node sockets that ended, by who ended them and the close code.",
        );
        counter(
            "termplane_commands_total",
            "Node commands sent, by type and result.",
        );
        histogram(
            "termplane_command_duration_seconds",
            "Time from sending a node command to its result, by type.",
        );
        gauge("termplane_panes", "Subshells (panes) by state.");
        gauge(
            "termplane_terminal_viewers",
            "Terminal viewers attached to panes.",
        );
        counter(
            "termplane_terminal_output_bytes_total",
            "Bytes of pane output handed to terminal viewers.",
        );
        counter(
            "termplane_sign_in_failures_total",
            "Refused sign-ins, by method.",
        );
        counter(
            "termplane_backoffs_total",
            "Requests refused by a backoff (429 TOO_MANY_ATTEMPTS), by route template.",
        );
        histogram(
            "termplane_db_acquire_seconds",
            "Time spent waiting for a database connection from the pool.",
        );
        histogram(
            "termplane_db_query_duration_seconds",
            "Time a store query took, its connection's wait included.",
        );
        counter("termplane_db_errors_total", "Store queries that failed.");
        let terminal_bytes = recorder.register_counter(
            &Key::from_static_name("termplane_terminal_output_bytes_total"),
            &META,
        );
        let link_established = recorder.register_counter(
            &Key::from_static_name("termplane_link_established_total"),
            &META,
        );
        let db_acquire = recorder.register_histogram(
            &Key::from_static_name("termplane_db_acquire_seconds"),
            &META,
        );
        let db_errors =
            recorder.register_counter(&Key::from_static_name("termplane_db_errors_total"), &META);
        recorder
            .register_gauge(
                &key(
                    "termplane_build_info",
                    vec![label("version", env!("CARGO_PKG_VERSION"))],
                ),
                &META,
            )
            .set(1.0);
        Self {
            recorder,
            handle,
            terminal_bytes,
            link_established,
            db_acquire,
            db_errors,
        }
    }

    /// One answered HTTP request.
    pub fn http_request(
        &self,
        method: &'static str,
        route: &'static str,
        status: u16,
        took: Duration,
    ) {
        self.recorder
            .register_counter(
                &key(
                    "termplane_http_requests_total",
                    vec![
                        label("method", method),
                        label("route", route),
                        label("status", status_label(status)),
                    ],
                ),
                &META,
            )
            .increment(1);
        self.recorder
            .register_histogram(
                &key(
                    "termplane_http_request_duration_seconds",
                    vec![label("method", method), label("route", route)],
                ),
                &META,
            )
            .record(took.as_secs_f64());
        if status == 429 {
            self.recorder
                .register_counter(
                    &key("termplane_backoffs_total", vec![label("route", route)]),
                    &META,
                )
                .increment(1);
        }
    }

    /// A node link completed its handshake.
    pub fn link_established(&self) {
        self.link_established.increment(1);
    }

    /// A node socket ended: `by` the plane, the node or the transport, with `code`.
    pub fn link_closed(&self, by: &'static str, code: Option<u16>) {
        let code: SharedString = match code {
            None => SharedString::const_str("none"),
            Some(c) if termplane_proto::close::CloseCode::from_u16(c).is_some() || c < 1016 => {
                SharedString::from(c.to_string())
            }
            Some(_) => SharedString::const_str("other"),
        };
        self.recorder
            .register_counter(
                &key(
                    "termplane_link_closed_total",
                    vec![label("by", by), label("code", code)],
                ),
                &META,
            )
            .increment(1);
    }

    /// A node command's outcome (`result`: `ok`, `refused` or an error code) and how long it
    /// took.
    pub fn command(&self, kind: &'static str, result: &'static str, took: Duration) {
        self.recorder
            .register_counter(
                &key(
                    "termplane_commands_total",
                    vec![label("type", kind), label("result", result)],
                ),
                &META,
            )
            .increment(1);
        self.recorder
            .register_histogram(
                &key(
                    "termplane_command_duration_seconds",
                    vec![label("type", kind)],
                ),
                &META,
            )
            .record(took.as_secs_f64());
    }

    /// Pane output handed to viewers.
    pub fn terminal_bytes(&self, n: usize) {
        self.terminal_bytes.increment(n as u64);
    }

    /// A refused sign-in (`password` or `passkey`).
    pub fn sign_in_failed(&self, method: &'static str) {
        self.recorder
            .register_counter(
                &key(
                    "termplane_sign_in_failures_total",
                    vec![label("method", method)],
                ),
                &META,
            )
            .increment(1);
    }

    /// A wait for a database connection.
    pub fn db_acquired(&self, waited: Duration) {
        self.db_acquire.record(waited.as_secs_f64());
    }

    /// A store query (`op`: `fetch`, `fetch_optional`, `execute`, `begin`), its wait included.
    pub fn db_query(&self, op: &'static str, took: Duration, ok: bool) {
        self.recorder
            .register_histogram(
                &key("termplane_db_query_duration_seconds", vec![label("op", op)]),
                &META,
            )
            .record(took.as_secs_f64());
        if !ok {
            self.db_errors.increment(1);
        }
    }

    /// Sets a gauge without labels.
    pub fn set_gauge(&self, name: &'static str, value: f64) {
        self.recorder
            .register_gauge(&Key::from_static_name(name), &META)
            .set(value);
    }

    /// Sets a gauge with one label.
    pub fn set_gauge_with(&self, name: &'static str, k: &'static str, v: &'static str, value: f64) {
        self.recorder
            .register_gauge(&key(name, vec![label(k, v)]), &META)
            .set(value);
    }

    /// Drains recorded samples into the histograms (bounded memory between scrapes).
    pub fn upkeep(&self) {
        self.handle.run_upkeep();
    }

    /// The text exposition of every metric.
    #[must_use]
    pub fn render(&self) -> String {
        self.handle.render()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_exposition_names_routes_by_template_and_describes_every_family() {
        let m = Metrics::new();
        m.http_request("GET", "/api/subshells/:id", 200, Duration::from_millis(3));
        m.http_request("GET", "/api/subshells/:id", 200, Duration::from_millis(4));
        m.http_request("POST", "/api/auth/sign-in", 429, Duration::from_millis(1));
        m.link_closed("node", Some(4999));
        m.link_closed("plane", Some(4409));
        m.command("ping", "ok", Duration::from_millis(2));
        let text = m.render();
        assert!(
            text.contains(
                "termplane_http_requests_total{method=\"GET\",route=\"/api/subshells/:id\",status=\"200\"} 2"
            ),
            "{text}"
        );
        assert!(text.contains("# TYPE termplane_http_request_duration_seconds histogram"));
        assert!(text.contains("termplane_backoffs_total{route=\"/api/auth/sign-in\"} 1"));
        assert!(text.contains("termplane_link_closed_total{by=\"node\",code=\"other\"} 1"));
        assert!(text.contains("termplane_link_closed_total{by=\"plane\",code=\"4409\"} 1"));
        assert!(text.contains("termplane_build_info{version=\""));
        assert!(text.contains("# HELP termplane_commands_total"));
    }
}
