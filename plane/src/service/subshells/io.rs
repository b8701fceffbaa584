//! Reading a pane (logs, screen) and typing into it or resizing it.

use super::*;

/// A pane's input and output through the API: its log and screen read, text typed and keys
/// pressed, its grid resized; and what a pane reports about itself (attention, its harness
/// session, that its MCP server still runs).
pub struct PaneIo {
    pub(super) store: Store,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) dispatcher: Arc<Dispatcher>,
    pub(super) lookup: Arc<Lookup>,
    pub(super) publisher: Arc<Publisher>,
    pub(super) pumps: Arc<Pumps>,
    pub(super) typist: Arc<Typist>,
    pub(super) gate: agent::ReportGate,
    pub(in crate::service) marker: Arc<super::Marker>,
}

impl std::fmt::Debug for PaneIo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaneIo").finish_non_exhaustive()
    }
}

/// The bytes of a node's `log_read` (or `timing_read`) answer `d`, from its unpadded base64url.
pub(super) fn read_bytes(d: &serde_json::Value) -> Result<Vec<u8>, ApiError> {
    termplane_proto::key::b64url_decode(
        d.get("data_b64")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default(),
    )
    .map_err(|_| {
        ApiError::new(
            502,
            "NODE_BAD_RESULT",
            "the node answered a log read that is not base64url",
        )
    })
}

impl PaneIo {
    // Called once, by the composition root, with the services a pane's input and output use.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::service) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        dispatcher: Arc<Dispatcher>,
        lookup: Arc<Lookup>,
        publisher: Arc<Publisher>,
        pumps: Arc<Pumps>,
        typist: Arc<Typist>,
        marker: Arc<super::Marker>,
    ) -> Self {
        Self {
            store,
            clock,
            dispatcher,
            lookup,
            publisher,
            pumps,
            typist,
            gate: agent::ReportGate::default(),
            marker,
        }
    }

    pub(super) fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    // ----- reading -----

    /// `GET /api/subshells/:id/recording/inputs`: who put input into the pane, and when.
    pub async fn recording_inputs(
        &self,
        c: &Caller,
        id: &str,
    ) -> Result<crate::api::subshells::InputMarks, ApiError> {
        let row = self.lookup.reach_subshell(c, id, Need::Read).await?;
        self.marker.list(&row.id).await
    }

    /// `GET /api/subshells/:id/recording/events`: the pane's lifecycle and its agent's state
    /// changes, read from the audit trail (who acted is left out: it is the administrators' to
    /// read there), for the recording's timeline.
    pub async fn recording_events(
        &self,
        c: &Caller,
        id: &str,
    ) -> Result<crate::api::subshells::PaneEvents, ApiError> {
        const KINDS: [&str; 6] = [
            "launched",
            "launch_failed",
            "restarted",
            "terminated",
            "killed",
            "agent_state",
        ];
        let row = self.lookup.reach_subshell(c, id, Need::Read).await?;
        let filter = crate::store::AuditFilter {
            action: Some("subshell.".to_owned()),
            target: Some(row.id.clone()),
            ..Default::default()
        };
        let mut entries = self.store.audit_page(&filter, 10_000).await?;
        entries.reverse();
        let text =
            |d: &serde_json::Value, k: &str| d.get(k).and_then(|v| v.as_str()).map(str::to_owned);
        Ok(crate::api::subshells::PaneEvents {
            events: entries
                .into_iter()
                .filter_map(|e| {
                    let kind = e.action.strip_prefix("subshell.")?;
                    KINDS
                        .contains(&kind)
                        .then(|| crate::api::subshells::PaneEvent {
                            at: e.at,
                            kind: kind.to_owned(),
                            state: text(&e.detail, "to").filter(|_| kind == "agent_state"),
                            summary: text(&e.detail, "summary").filter(|_| kind == "agent_state"),
                        })
                })
                .collect(),
        })
    }

    /// `GET /api/subshells/:id/logs`: a byte range of the pane's log.
    pub async fn logs(&self, c: &Caller, id: &str, q: LogsQuery) -> Result<LogChunk, ApiError> {
        let row = self.lookup.reach_subshell(c, id, Need::Read).await?;
        let r = self
            .dispatcher
            .node_command(
                &row.node_id,
                Command::LogRead(LogRead {
                    subshell_id: SubshellId::parse(&row.id).map_err(|_| ApiError::internal())?,
                    from_byte: q.from_byte,
                    max_bytes: q.max_bytes,
                }),
            )
            .await?;
        let d = node_data(r)?;
        let get = |k: &str| d.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
        // The node speaks unpadded base64url; the API answers the standard padded alphabet
        // that `base64 -d` and every language's default decoder read.
        let bytes = read_bytes(&d)?;
        Ok(LogChunk {
            from_byte: get("fromByte"),
            to_byte: get("toByte"),
            size: get("size"),
            data_b64: <base64ct::Base64 as base64ct::Encoding>::encode_string(&bytes),
        })
    }

    /// `GET /api/subshells/:id/screen`: the pane's text as it shows now.
    pub async fn screen(&self, c: &Caller, id: &str, q: ScreenQuery) -> Result<Screen, ApiError> {
        let row = self.lookup.reach_subshell(c, id, Need::Read).await?;
        require_live(&row)?;
        let r = self
            .dispatcher
            .node_command(
                &row.node_id,
                Command::Capture(Capture {
                    subshell_id: SubshellId::parse(&row.id).map_err(|_| ApiError::internal())?,
                    lines: (q.lines > 0).then_some(q.lines),
                    replay: false,
                }),
            )
            .await?;
        let d = node_data(r)?;
        let mut text = String::new();
        for k in ["history", "text"] {
            if let Some(t) = d.get(k).and_then(serde_json::Value::as_str) {
                text.push_str(t);
            }
        }
        Ok(Screen { text })
    }

    // ----- typing and resizing -----

    /// `POST /api/subshells/:id/input`.
    pub async fn input(
        &self,
        c: &Caller,
        id: &str,
        req: InputRequest,
    ) -> Result<InputDone, ApiError> {
        let row = self.lookup.reach_subshell(c, id, Need::Write).await?;
        require_live(&row)?;
        let sid = SubshellId::parse(&row.id).map_err(|_| ApiError::internal())?;
        self.marker.once(
            &row.id,
            &super::Typer::of(c),
            crate::api::subshells::InputKind::Sent,
            None,
        );
        let pieces = self
            .typist
            .type_into(&row.node_id, &sid, req.text.as_str(), &req.keys)
            .await?;
        Ok(InputDone {
            chars: req.text.as_str().chars().count() as u64,
            keys: req.keys.len() as u64,
            pieces,
        })
    }

    /// `POST /api/subshells/:id/resize`.
    pub async fn resize(
        &self,
        c: &Caller,
        id: &str,
        req: ResizeRequest,
    ) -> Result<Subshell, ApiError> {
        let row = self.lookup.reach_subshell(c, id, Need::Write).await?;
        require_live(&row)?;
        // The grid of a pane that people type into follows their windows (the smallest of
        // them, as the terminal socket fits it, at whichever replica of a cluster they are); a
        // grid set here would show them a screen laid out for another size. It is the API's to
        // set while no such viewer is attached.
        if let Some((cols, rows)) = self.pumps.held_grid_of(id).await? {
            return Err(ApiError::new(
                409,
                "GRID_HELD",
                format!(
                    "viewers that take part in sizing are attached: the pane keeps the smallest of their grids ({cols}×{rows})"
                ),
            )
            .with_metadata(serde_json::json!({ "cols": cols, "rows": rows })));
        }
        let r = self
            .dispatcher
            .node_command(
                &row.node_id,
                Command::Resize(Resize {
                    subshell_id: SubshellId::parse(&row.id).map_err(|_| ApiError::internal())?,
                    cols: req.cols.0,
                    rows: req.rows.0,
                }),
            )
            .await?;
        node_data(r)?;
        self.store
            .set_subshell_grid(
                &row.id,
                i64::from(req.cols.0),
                i64::from(req.rows.0),
                self.now(),
            )
            .await?;
        self.publisher.publish_subshell(id).await;
        self.lookup.fresh_view(id).await
    }
}

impl PaneIo {
    /// `GET /api/subshells/{id}/ended`: the subshell once its pane has ended (exited, crashed,
    /// stopped, failed), waiting up to `wait` for that; at the deadline, as it is then. Woken by
    /// each change of a subshell row, never by a timer of its own.
    pub async fn wait_ended(
        &self,
        c: &Caller,
        id: &str,
        wait: std::time::Duration,
    ) -> Result<Subshell, ApiError> {
        let deadline = self.clock.instant() + wait;
        loop {
            let listener = self.publisher.on_subshell_change();
            let row = self.lookup.reach_subshell(c, id, Need::Read).await?;
            let ended = !SubshellState::from_stored(&row.state).is_live();
            if ended || crate::wait::until(deadline, listener).await.is_none() {
                return self.lookup.get(c, id).await;
            }
        }
    }
}

/// A 409 unless the subshell is live (its pane can be read or typed into).
pub(in crate::service) fn require_live(row: &store::Subshell) -> Result<(), ApiError> {
    if SubshellState::from_stored(&row.state).is_live() {
        Ok(())
    } else {
        Err(ApiError::new(
            409,
            "SUBSHELL_NOT_RUNNING",
            format!("the subshell is {}", row.state),
        ))
    }
}
