//! The service layer: one module per domain, each domain a type of its own holding only its own
//! state and the services it uses, all built together in [`Services::new`] (the composition
//! root):
//!
//! * [`guard`] — the checks every request meets (admin surfaces, Origin) and who the caller is;
//!   sign-in and sessions (`sessions`), revocations a full disk cannot write yet;
//! * [`backoff`] — the sign-in and enrollment backoff;
//! * [`accounts`] — first run, settings reads, accounts; [`passkeys`]; [`credentials`] — system
//!   keys and setup keys; [`enrollment`] — node enrollment;
//! * [`nodes`] — node rows, downloads and held nodes; [`install`] — how a machine becomes a
//!   node: `/install.sh` and the commands of the "Add a node" dialog;
//! * [`dispatch`] — the node link's authentication and the command dispatcher; [`catalog`] —
//!   harness plugins, detection, the launch gate;
//! * [`subshells`] — looking subshells up, launching them and their lifecycle, a pane's input
//!   and output, what nodes report; [`lifecycle`] — the states and moves, one table;
//! * [`terminals`] — open sockets, attach tokens and grants, output pumps; [`shares`];
//!   [`typist`] — typing into panes; [`live`] — the whole-user live feeds and their publisher;
//! * [`channels`], [`notifications`], [`files`], [`uploads`] and [`transfers`] (files into
//!   panes), [`presets`], [`network`], [`audit`], [`admin`], [`health`].
//!
//! [`Services`] itself holds no rule of any domain: it builds them, hands each the others it
//! uses, and gives the HTTP and link adapters their accessors (`tools/check-service-sizes.py`
//! keeps every type here small).
//!
//! Nothing here names HTTP. A request reaches this layer as a caller resolved by the handler's
//! signature plus a typed, already validated request of [`crate::api`], and leaves it as a
//! typed answer or an [`ApiError`]. The time comes from an injected [`Clock`].

mod accounts;
mod admin;
mod audit;
mod backoff;
mod catalog;
mod channels;
pub mod cluster;
mod credentials;
mod dispatch;
mod enrollment;
mod files;
mod guard;
pub mod health;
mod install;
pub mod lifecycle;
mod link_sink;
pub mod live;
pub mod needs_you;
pub mod network;
mod nodes;
mod notifications;
mod passkeys;
pub mod passwords;
pub mod peers;
mod presets;
mod revocations;
mod sessions;
mod shares;
mod subshells;
pub mod terminals;
mod transfers;
mod typist;
mod uploads;
mod words;

pub use accounts::Accounts;
pub use admin::Admin;
pub use backoff::{
    ACCOUNT, ADDRESS, Backoff, ENROLL_ADDRESS, KNOWN_GOOD_MS, PAIR, Rule, SignInBackoff,
};
pub use catalog::{Catalog, DETECTION_FRESH_MS};
pub use channels::Channels;
pub use credentials::Credentials;
pub use credentials::setup_key_status;
pub use dispatch::Dispatcher;
pub use dispatch::{KeysTyped, LocalNode, MAX_COMMAND_JSON};
pub use files::Files;
pub use guard::Guard;
pub use guard::{ADMIN_WRITE_FAMILIES, canonical_path, is_admin_surface};
pub use install::Installer;
pub use nodes::Nodes;
pub use notifications::Notifications;
pub use passkeys::Passkeys;
pub use presets::Presets;
pub use shares::Shares;
pub use subshells::{
    CastWriter, GONE_GRACE_MS, KeyBatch, Lookup, Marker, NodeReports, PaneIo, Retention, Subshells,
    Swept, Typer,
};
pub use subshells::{INPUT_PIECE_BYTES, TOKEN_LIFETIME_MS};
pub use transfers::Transfers;
pub use uploads::Uploads;

use std::sync::Arc;

use serde_json::json;
use termplane_machines::jws::Es256Signer;

use crate::api;
use crate::clock::Clock;
use crate::error::ApiError;
use crate::keys::PlaneSecrets;
use crate::link::LinkHub;
use crate::secret;
use crate::store::{Node, Store, User};

/// Lifetime of a browser session (server-side).
pub const SESSION_LIFETIME_MS: i64 = 14 * 24 * 60 * 60 * 1000;

/// The request facts the service needs, framework-free.
#[derive(Clone, Debug, Default)]
pub struct RequestMeta {
    /// Upper-case method.
    pub method: String,
    /// The path as received.
    pub path: String,
    /// Every `Authorization` header value, in order.
    pub authorization: Vec<String>,
    /// The session cookie's value, when present.
    pub session_cookie: Option<String>,
    /// `Origin`, when present.
    pub origin: Option<String>,
    /// `Sec-Fetch-Site`, when present.
    pub sec_fetch_site: Option<String>,
    /// `Host` (checked well-formed by the HTTP layer). Only ever used to choose among the
    /// trusted origins ([`Installer::install_base_url`]), never as an address of its own.
    pub host: Option<String>,
    /// The peer's IP address as text.
    pub peer_ip: String,
}

impl RequestMeta {
    fn is_safe_method(&self) -> bool {
        matches!(self.method.as_str(), "GET" | "HEAD" | "OPTIONS")
    }
}

/// Who is calling.
#[derive(Clone, Debug)]
pub enum Caller {
    /// A browser session.
    Session {
        /// The account.
        user: User,
        /// Digest of the session token.
        session_digest: String,
    },
    /// A system key; acts as the `system` service account.
    SystemKey {
        /// The `system` account.
        user: User,
        /// The key's row id.
        key_id: String,
        /// Digest of the key.
        key_digest: String,
    },
    /// A subshell's own token; acts as the subshell's owner, within the token's permissions, on
    /// the owner's subshells only (never with an administrator's boost, never through a share).
    Pane {
        /// The subshell's owner.
        user: User,
        /// The subshell whose token it is.
        subshell_id: String,
        /// The node that subshell runs on.
        node_id: String,
        /// The token's permission ceiling.
        permissions: api::subshells::Permissions,
        /// Digest of the token.
        token_digest: String,
    },
}

impl Caller {
    /// The acting account.
    #[must_use]
    pub fn user(&self) -> &User {
        match self {
            Self::Session { user, .. } | Self::SystemKey { user, .. } | Self::Pane { user, .. } => {
                user
            }
        }
    }

    fn is_admin_session(&self) -> bool {
        matches!(self, Self::Session { user, .. } if user.role == "admin")
    }

    /// The audit log's name for the kind of actor.
    #[must_use]
    pub fn actor_kind(&self) -> &'static str {
        match self {
            Self::Session { .. } => "cookie",
            Self::SystemKey { .. } => "system_key",
            Self::Pane { .. } => "pane",
        }
    }
}

/// Fixed settings of a running plane.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The address the plane says it lives at, without a trailing slash (`http://127.0.0.1:7420`).
    pub base_url: String,
    /// Extra trusted origins (from `TRUSTED_ORIGINS`).
    pub extra_origins: Vec<String>,
    /// Where node binaries for download are (`TERMPLANE_NODE_DOWNLOADS`): the file for a
    /// platform is `<dir>/termplane-node-<platform>`. Without it, the plane serves the
    /// `termplane-node` next to its own executable, for its own platform only.
    pub downloads_dir: Option<std::path::PathBuf>,
    /// The address the plane listens on, as bound (for the admin's deployment view).
    pub listen: Option<String>,
    /// The data directory (for the admin's deployment view, kept files, the VAPID key).
    pub data_dir: Option<std::path::PathBuf>,
    /// Whether push endpoints may be plain `http://` (`TERMPLANE_PUSH_ALLOW_HTTP=1`).
    pub push_http: bool,
    /// Whether push endpoints may be on loopback, private or reserved addresses
    /// (`TERMPLANE_PUSH_ALLOW_PRIVATE=1`, for a push service on the plane's own network).
    /// Without it a push goes only to addresses of the public internet, so no account can
    /// point the plane at a service of its host or its network.
    pub push_private: bool,
    /// The timing of the "needs you" notifications ([`needs_you`]).
    pub needs_you: needs_you::Rules,
    /// Whether the plane asks nodes (and its own host) for their panes' `activity`, the
    /// screen signal of [`subshells`]'s `screen` module (`TERMPLANE_SCREEN_SIGNAL`).
    pub screen_signal: bool,
    /// Whether panes launched from now on are recorded: their output's timing kept beside
    /// their log on their node, for playback and export (`TERMPLANE_RECORDING`).
    pub recording: bool,
    /// Whether input into panes is marked (who typed, when; never what) beside their
    /// recordings (`TERMPLANE_INPUT_MARKS`; see `subshells::Marker`).
    pub input_marks: bool,
    /// Days recordings are kept where no node or workspace says
    /// (`TERMPLANE_RECORDING_RETENTION_DAYS`; `None`: as long as their pane; see
    /// `subshells::Retention`).
    pub recording_retention_days: Option<u16>,
    /// Where this plane's peers reach it (`TERMPLANE_CLUSTER_ADDRESS`; `None`: its base URL;
    /// see [`cluster`]).
    pub cluster_address: Option<String>,
    /// Whether other planes may be running on this database now. `false` for a plane that
    /// holds its database alone (the binary takes `crate::instance`'s lock): at its start every
    /// other replica's lease is ended (they are planes that are gone), so their nodes read
    /// offline at once. `true`: only the nodes of replicas whose lease lapsed are (see
    /// [`cluster`] and `crate::link`), and this replica forwards to and takes forwards from its
    /// peers ([`peers`]; the binary with `--cluster on`).
    pub shares_database: bool,
    /// Most node sockets (handshaking or linked) the plane holds open at once
    /// (`--max-node-links`; [`crate::link::MAX_NODE_SOCKETS`] by default).
    pub max_node_links: usize,
}

impl Settings {
    /// Whether cookies must be `Secure` (the base URL is https).
    #[must_use]
    pub fn secure(&self) -> bool {
        self.base_url.starts_with("https://")
    }

    /// The session cookie's name: `__Host-tp_session` over https; browsers refuse a `__Host-`
    /// cookie without `Secure`, so over plain http it is `tp_session`.
    #[must_use]
    pub fn cookie_name(&self) -> &'static str {
        if self.secure() {
            "__Host-tp_session"
        } else {
            "tp_session"
        }
    }

    /// Every origin a browser may send state-changing requests from.
    #[must_use]
    pub fn trusted_origins(&self) -> Vec<String> {
        let mut out = Vec::new();
        for o in std::iter::once(&self.base_url).chain(self.extra_origins.iter()) {
            if let Some(o) = normalize_origin(o)
                && !out.contains(&o)
            {
                out.push(o);
            }
        }
        out
    }

    /// The node WebSocket address handed out at enrollment.
    #[must_use]
    pub fn ws_url(&self) -> String {
        let base = self.base_url.trim_end_matches('/');
        let ws = if let Some(rest) = base.strip_prefix("https://") {
            format!("wss://{rest}")
        } else if let Some(rest) = base.strip_prefix("http://") {
            format!("ws://{rest}")
        } else {
            base.to_owned()
        };
        format!("{ws}/ws/node")
    }
}

/// `scheme://host[:port]` of a URL, lowercased; `None` when it is not http(s).
#[must_use]
pub fn normalize_origin(url: &str) -> Option<String> {
    let url = url.trim();
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let host = rest.split(['/', '?', '#']).next()?.to_ascii_lowercase();
    if host.is_empty() || host.contains('@') {
        return None;
    }
    let host = match (scheme.as_str(), host.rsplit_once(':')) {
        ("http", Some((h, "80"))) | ("https", Some((h, "443"))) => h.to_owned(),
        _ => host,
    };
    Some(format!("{scheme}://{host}"))
}

/// The public halves handed to nodes at enrollment.
///
/// This is the one place that derives them from the secrets: the command-signing public JWK and
/// the X25519 link public key in its wire spelling.
pub fn plane_public_material(
    secrets: &PlaneSecrets,
) -> Result<(api::enrollment::Jwk, api::Key32Text), ApiError> {
    let link = termplane_machines::kx::StaticKeypair::from_secret_bytes(secrets.link);
    // The scalar was validated when the file was loaded (`keys::is_p256_scalar`).
    let public = Es256Signer::from_secret_bytes(&secrets.signing)
        .map_err(|_| ApiError::internal())?
        .public_jwk();
    let coordinate = |c: &str| api::Key32Text::parse(c).map_err(|_| ApiError::internal());
    let jwk = api::enrollment::Jwk {
        kty: api::enrollment::Kty::Ec,
        crv: api::enrollment::Crv::P256,
        x: coordinate(&public.x)?,
        y: coordinate(&public.y)?,
    };
    Ok((jwk, api::Key32Text(link.public().0)))
}

/// The control plane's services, built together: each domain's service and the accessors the
/// HTTP and link adapters reach them through. No domain rule lives here.
pub struct Services {
    store: Store,
    clock: Arc<dyn Clock>,
    settings: Settings,
    secrets: Arc<PlaneSecrets>,
    /// Node enrollment.
    enrollment: enrollment::Enrollment,
    /// People's accounts.
    accounts: Accounts,
    links: Arc<LinkHub>,
    /// Node commands: the signed link, or the plane's own executor.
    dispatcher: Arc<Dispatcher>,
    /// Node rows, their settings and updates.
    nodes: Arc<Nodes>,
    /// Harness plugins and detection.
    catalog: Arc<Catalog>,
    /// Live terminals: pending attach tokens, open sockets and output pumps.
    terminals: Arc<terminals::Terminals>,
    /// Attach tokens minted and redeemed, open sockets' grants re-checked.
    grants: terminals::Grants,
    /// Sharing panes.
    shares: Shares,
    /// Files into panes.
    transfers: Transfers,
    /// Install scripts and commands.
    installer: Arc<Installer>,
    /// The administrator's views.
    admin: Admin,
    /// The whole-user live feeds: who is subscribed, and what goes to whom.
    publisher: Arc<live::Publisher>,
    /// Uploads into panes in progress.
    uploads: Arc<Uploads>,
    /// The passkey verifier and its pending ceremonies.
    passkeys: Arc<Passkeys>,
    /// The request guard, credentials and sessions.
    guard: Arc<Guard>,
    /// Files kept on the plane.
    files: Arc<Files>,
    /// Devices, the inbox and Web Push.
    notifications: Arc<Notifications>,
    /// Reading the audit trail.
    audit: audit::Audit,
    /// Network plugins: extra listen addresses.
    network: Arc<network::Network>,
    /// The channel key and new-entry signal.
    channels: channels::Channels,
    /// Presets and workspaces.
    presets: Arc<Presets>,
    /// Looking subshells up: who may see and act on which.
    lookup: Arc<subshells::Lookup>,
    /// Subshells: launching them and moving them through their lifecycle.
    subshells: Arc<subshells::Subshells>,
    /// A pane's input and output through the API, and what it reports about itself.
    pane_io: subshells::PaneIo,
    /// What nodes report, applied to the subshells' rows.
    node_reports: Arc<subshells::NodeReports>,
    /// How long recordings are kept, and the sweep that deletes what is older.
    retention: Arc<subshells::Retention>,
    /// Revocations a full disk could not write yet, in force meanwhile.
    /// System keys and setup keys.
    credentials: Arc<Credentials>,
    /// What readiness reads that nothing else keeps.
    health: Arc<health::Health>,
    /// The other replicas of the cluster: commands and output forwarded to and from them.
    peers: Arc<peers::Peers>,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

fn too_many(wait_ms: i64) -> ApiError {
    ApiError::new(
        429,
        "TOO_MANY_ATTEMPTS",
        "too many failed attempts; wait before trying again",
    )
    .with_metadata(json!({ "retryAfterMs": wait_ms }))
}

/// An account as the API shows it.
fn user_view(u: &User) -> api::accounts::User {
    api::accounts::User {
        id: u.id.clone(),
        email: u.email.clone(),
        display_name: u.display_name.clone(),
        role: api::accounts::Role::from_stored(&u.role),
        disabled: u.disabled,
    }
}

/// A 409 refusing a delete while subshells are live, naming them (`metadata.live`: how many;
/// `metadata.subshells`: their `id` and `name`).
fn live_subshells_refusal(
    code: &'static str,
    message: String,
    live: &[(String, String)],
) -> ApiError {
    ApiError::new(409, code, message).with_metadata(serde_json::json!({
        "live": live.len(),
        "subshells": live
            .iter()
            .map(|(id, name)| serde_json::json!({ "id": id, "name": name }))
            .collect::<Vec<_>>(),
    }))
}

/// A node row as the API shows it. Stored JSON that does not parse reads as absent.
fn node_view(n: &Node) -> api::nodes::Node {
    fn parse<T: serde::de::DeserializeOwned>(s: &Option<String>) -> Option<T> {
        s.as_deref().and_then(|t| serde_json::from_str(t).ok())
    }
    api::nodes::Node {
        node_id: n.id.clone(),
        name: n.name.clone(),
        os: n.os.clone(),
        arch: n.arch.clone(),
        hostname: n.hostname.clone(),
        agent_version: n.agent_version.clone(),
        identity_jwk: parse(&n.identity_jwk),
        encrypt_public_key: n.encrypt_public_key.clone(),
        liveness: if n.liveness == "online" {
            api::nodes::Liveness::Online
        } else {
            api::nodes::Liveness::Offline
        },
        runtime: parse(&n.runtime),
        maintenance: parse(&n.maintenance),
        allowed_dirs: serde_json::from_str(&n.allowed_dirs).unwrap_or_default(),
        is_local: n.is_local,
        system_access: n.system_access || n.is_local,
        recording: n.recording,
        recording_retention_days: n.recording_retention_days,
        can_launch: false,
        created_at: n.created_at,
        updated_at: n.updated_at,
    }
}

/// Where the pumps' news goes: the live feeds of everyone who sees the pane, published on a
/// task of its own (a pump never waits for the feed).
fn pump_news(publisher: Arc<live::Publisher>) -> terminals::pump::PumpSink {
    use terminals::pump::PumpNews;
    Box::new(move |news| {
        let publisher = publisher.clone();
        smol::spawn(async move {
            match news {
                PumpNews::Presence {
                    subshell_id,
                    viewers,
                } => publisher.publish_presence(&subshell_id, viewers).await,
                PumpNews::Grid { subshell_id } => publisher.publish_subshell(&subshell_id).await,
            }
        })
        .detach();
    })
}

impl Services {
    /// A service over `store`.
    pub async fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        settings: Settings,
        secrets: PlaneSecrets,
    ) -> Result<Arc<Self>, ApiError> {
        let base_url = settings.base_url.clone();
        let filler = secret::new_token("")?;
        let dummy_hash = passwords::hash(filler).await?;
        let signer = Es256Signer::from_secret_bytes(&secrets.signing).map_err(|e| {
            tracing::error!(error = %e, "the signing key is unusable");
            ApiError::internal()
        })?;
        let added_origins = store.added_origins().await?;
        let started_at = clock.now_ms();
        let replica = secret::new_id()?;
        // No link survives a restart: the nodes no live replica holds start offline (with the
        // database held alone, that is every remote node).
        if !settings.shares_database {
            store.end_other_leases(&replica, started_at).await?;
        }
        store.release_lapsed_links(&replica, started_at).await?;
        let links = Arc::new(LinkHub::with_cap(replica.clone(), settings.max_node_links));
        let words = words::Words::new(store.clone(), replica.clone());
        let dispatcher = Arc::new(Dispatcher::new(
            store.clone(),
            clock.clone(),
            links.clone(),
            Arc::new(signer),
            store.local_node_id().await?,
        ));
        let marker = Arc::new(subshells::Marker::new(
            store.clone(),
            clock.clone(),
            settings.input_marks,
        ));
        let uploads = Uploads::new(
            clock.clone(),
            store.clone(),
            dispatcher.clone(),
            marker.clone(),
        );
        let events = Arc::new(crate::link::events::EventLog::default());
        let nodes = Arc::new(Nodes::new(
            store.clone(),
            clock.clone(),
            links.clone(),
            dispatcher.clone(),
            events.clone(),
            settings.base_url.clone(),
            settings.downloads_dir.clone(),
        ));
        let catalog = Arc::new(Catalog::new(
            store.clone(),
            clock.clone(),
            dispatcher.clone(),
            nodes.clone(),
        ));
        let live_bus = Arc::new(live::LiveBus::default());
        let audit = audit::Audit::new(store.clone());
        let secrets = Arc::new(secrets);
        let enrollment = enrollment::Enrollment::new(
            store.clone(),
            clock.clone(),
            secrets.clone(),
            settings.ws_url(),
        );
        let network = Arc::new(network::Network::new(store.clone(), clock.clone()));
        let presets = Arc::new(Presets::new(store.clone(), clock.clone()));
        let files = Arc::new(Files::new(
            store.clone(),
            clock.clone(),
            settings.data_dir.as_deref(),
        ));
        let sign_in_backoff = Arc::new(SignInBackoff::new(store.clone()));
        let access_changed = Arc::new(words::AccessSignal::new(words.clone()));
        let passkeys = Arc::new(Passkeys::new(
            &base_url,
            store.clone(),
            clock.clone(),
            &secrets.signing,
        ));
        let revocations = Arc::new(revocations::Revocations::new(store.clone(), clock.clone()));
        let credentials = Arc::new(Credentials::new(
            store.clone(),
            clock.clone(),
            revocations.clone(),
            access_changed.clone(),
        ));
        let accounts = Accounts::new(
            store.clone(),
            clock.clone(),
            sign_in_backoff.clone(),
            dummy_hash.clone(),
            access_changed.clone(),
            files.clone(),
        );
        let guard = Arc::new(Guard::new(
            store.clone(),
            clock.clone(),
            settings.trusted_origins(),
            added_origins,
            network.clone(),
            revocations,
            sign_in_backoff,
            dummy_hash,
            passkeys.clone(),
            access_changed.clone(),
        ));
        let channels = channels::Channels::new(
            store.clone(),
            clock.clone(),
            live_bus.clone(),
            settings.data_dir.clone(),
            words.clone(),
        );
        let notifications =
            Notifications::new(store.clone(), clock.clone(), live_bus.clone(), &settings);
        let publisher = Arc::new(live::Publisher::new(
            store.clone(),
            dispatcher.clone(),
            live_bus,
            notifications.clone(),
            words,
            clock.clone(),
        ));
        let typist = Arc::new(typist::Typist::new(dispatcher.clone(), clock.clone()));
        let pumps = Arc::new(terminals::pump::Pumps::new(
            store.clone(),
            clock.clone(),
            dispatcher.clone(),
            pump_news(publisher.clone()),
        ));
        let cluster = Arc::new(cluster::Cluster::new(
            store.clone(),
            clock.clone(),
            replica,
            settings
                .cluster_address
                .clone()
                .unwrap_or_else(|| settings.base_url.clone()),
        ));
        // Registered now; a database that cannot take the row yet (a full disk) fails the
        // readiness's `cluster` check until a renewal gets through, and stops nothing else.
        if let Err(e) = cluster.heartbeat().await {
            tracing::warn!(
                code = e.code,
                "this replica could not register in the cluster's membership yet"
            );
        }
        let health = Arc::new(health::Health::new(
            store.clone(),
            clock.clone(),
            secrets.clone(),
            settings.data_dir.clone(),
            links.clone(),
            pumps.clone(),
            cluster,
        ));
        let lookup = Arc::new(subshells::Lookup::new(store.clone(), dispatcher.clone()));
        let subshells = subshells::Subshells::new(
            store.clone(),
            clock.clone(),
            settings.base_url.clone(),
            settings.recording,
            dispatcher.clone(),
            lookup.clone(),
            publisher.clone(),
            pumps.clone(),
            typist.clone(),
            presets.clone(),
            catalog.clone(),
        );
        let pane_io = subshells::PaneIo::new(
            store.clone(),
            clock.clone(),
            dispatcher.clone(),
            lookup.clone(),
            publisher.clone(),
            pumps.clone(),
            typist.clone(),
            marker.clone(),
        );
        let retention = subshells::Retention::new(
            store.clone(),
            clock.clone(),
            dispatcher.clone(),
            settings.recording_retention_days,
        );
        let node_reports = Arc::new(subshells::NodeReports::new(
            store.clone(),
            clock.clone(),
            dispatcher.clone(),
            pumps.clone(),
            uploads.clone(),
            subshells.clone(),
        ));
        let shares = Shares::new(
            store.clone(),
            clock.clone(),
            pumps.clone(),
            publisher.clone(),
            access_changed.clone(),
        );
        let terminals = Arc::new(terminals::Terminals::new(
            access_changed,
            pumps,
            dispatcher.clone(),
            links.clone(),
            typist.clone(),
        ));
        let transfers = Transfers::new(lookup.clone(), files.clone(), uploads.clone());
        let grants = terminals::Grants::new(
            store.clone(),
            clock.clone(),
            terminals.clone(),
            guard.clone(),
            lookup.clone(),
        );
        let installer = Arc::new(Installer::new(
            settings.base_url.clone(),
            settings.downloads_dir.clone(),
            guard.clone(),
            nodes.clone(),
            credentials.clone(),
        ));
        let admin = Admin::new(
            store.clone(),
            clock.clone(),
            settings.clone(),
            started_at,
            links.clone(),
            dispatcher.clone(),
            guard.clone(),
            installer.clone(),
        );
        let peers = Arc::new(peers::Peers::new(
            links.replica().to_owned(),
            &secrets.link,
            settings.shares_database,
            store.clone(),
            clock.clone(),
            dispatcher.clone(),
            terminals.clone(),
        ));
        if settings.shares_database {
            dispatcher.attach_forwarder(Arc::new(peers::PeersForwarder(peers.clone())));
        }
        let svc = Arc::new(Self {
            peers,
            terminals,
            grants,
            shares,
            transfers,
            installer,
            admin,
            store,
            clock,
            settings,
            secrets,
            enrollment,
            accounts,
            links,
            nodes,
            catalog,
            dispatcher,
            publisher,
            uploads,
            passkeys,
            guard,
            files,
            notifications,
            audit,
            network,
            channels,
            presets,
            lookup,
            subshells,
            pane_io,
            node_reports,
            retention,
            credentials,
            health,
        });
        svc.spawn_hearing().await;
        Ok(svc)
    }

    /// Renews this replica's lease every [`cluster::HEARTBEAT`] and, after each renewal,
    /// squares its node links with the rows ([`Self::reconcile_links`]), until it leaves.
    pub fn spawn_cluster_upkeep(self: &Arc<Self>) {
        let svc = Arc::downgrade(self);
        self.cluster().spawn_heartbeat(move || {
            let svc = svc.clone();
            async move {
                if let Some(svc) = svc.upgrade() {
                    svc.reconcile_links().await;
                }
            }
        });
    }

    /// Squares this replica's node links with the rows (see `crate::link::reconcile`): the
    /// nodes of replicas whose lease lapsed turn offline (and their viewers are removed from
    /// every pane's presence), a node another replica took has its socket here superseded.
    pub async fn reconcile_links(&self) {
        if let Err(e) = crate::link::reconcile(self).await {
            tracing::warn!(error = %e, "could not square the node links with the rows");
        }
        self.peers.refresh_all().await;
        // The viewers of replicas that died go with them; this replica's rows match its viewers.
        self.terminals.pumps().square_viewers().await;
    }

    /// The connections to the other replicas of the cluster.
    #[must_use]
    pub fn peers(&self) -> &Arc<peers::Peers> {
        &self.peers
    }

    /// Attaches the plane's own executor: from now on commands for the local node run on it.
    /// Only the first call takes effect.
    pub fn attach_local_node(&self, local: Arc<dyn LocalNode>, data_dir: &str, home_dir: &str) {
        self.subshells.set_local_dirs(data_dir, home_dir);
        self.dispatcher.attach_local(local);
    }

    /// Tells the local node the plane stops (its uploads under way are abandoned, leaving no
    /// partial file).
    pub fn local_node_stopping(&self) {
        if let Some(l) = self.dispatcher.local_node() {
            l.stopping();
        }
    }

    /// The local node's row id.
    #[must_use]
    pub fn local_node_id(&self) -> Option<&str> {
        self.dispatcher.local_node_id()
    }

    /// The store (tests inspect rows through it).
    #[must_use]
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The settings.
    #[must_use]
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The audit trail.
    #[must_use]
    pub fn audit(&self) -> &audit::Audit {
        &self.audit
    }

    /// The enrollment domain.
    #[must_use]
    pub fn enrollment(&self) -> &enrollment::Enrollment {
        &self.enrollment
    }

    /// The network domain (extra listen addresses).
    #[must_use]
    pub fn network(&self) -> &network::Network {
        &self.network
    }

    /// The channels and identities domain.
    #[must_use]
    pub fn channels(&self) -> &channels::Channels {
        &self.channels
    }

    /// The accounts domain.
    #[must_use]
    pub fn accounts(&self) -> &Accounts {
        &self.accounts
    }

    /// The credentials domain (system keys; setup keys with their install commands are the
    /// installer's [`Installer::setup_keys`]).
    #[must_use]
    pub fn credentials(&self) -> &Credentials {
        &self.credentials
    }

    /// The passkeys domain (registering and listing them; signing in with one is a session's).
    #[must_use]
    pub fn passkeys(&self) -> &Passkeys {
        &self.passkeys
    }

    /// The command dispatcher (every node command goes through it).
    #[must_use]
    pub fn dispatcher(&self) -> &Dispatcher {
        &self.dispatcher
    }

    /// Readiness and the metrics' upkeep.
    #[must_use]
    pub fn health(&self) -> &Arc<health::Health> {
        &self.health
    }

    /// This plane in the cluster: its registration and lease.
    #[must_use]
    pub fn cluster(&self) -> &Arc<cluster::Cluster> {
        self.health.cluster()
    }

    /// The uploads-into-panes domain (starting one is [`Transfers::start_upload`], which checks the
    /// pane).
    #[must_use]
    pub fn uploads(&self) -> &Uploads {
        &self.uploads
    }

    /// The catalog domain (plugins and detection).
    #[must_use]
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The request guard: who the caller is, signing in and out, trusted origins.
    #[must_use]
    pub fn guard(&self) -> &Guard {
        &self.guard
    }

    /// The nodes domain.
    #[must_use]
    pub fn nodes(&self) -> &Nodes {
        &self.nodes
    }

    /// The kept-files domain.
    #[must_use]
    pub fn files(&self) -> &Files {
        &self.files
    }

    /// The terminals (open sockets, pending tokens, replays, typed keys).
    #[must_use]
    pub fn terminals(&self) -> &terminals::Terminals {
        &self.terminals
    }

    /// Attach tokens: minting, redeeming, and re-checking an open socket's grant.
    #[must_use]
    pub fn grants(&self) -> &terminals::Grants {
        &self.grants
    }

    /// Files into panes: uploads started, kept files sent.
    #[must_use]
    pub fn transfers(&self) -> &Transfers {
        &self.transfers
    }

    /// Sharing panes with other people.
    #[must_use]
    pub fn shares(&self) -> &Shares {
        &self.shares
    }

    /// The install script and the commands shown with setup keys.
    #[must_use]
    pub fn installer(&self) -> &Installer {
        &self.installer
    }

    /// The administrator's views (status, deployment).
    #[must_use]
    pub fn admin(&self) -> &Admin {
        &self.admin
    }

    /// The subshells domain: launching and lifecycle moves.
    #[must_use]
    pub fn subshells(&self) -> &Arc<subshells::Subshells> {
        &self.subshells
    }

    /// Looking subshells up: listing them and reading one, as the caller may see them.
    #[must_use]
    pub fn lookup(&self) -> &subshells::Lookup {
        &self.lookup
    }

    /// A pane's input and output through the API, and what it reports about itself.
    #[must_use]
    pub fn pane_io(&self) -> &subshells::PaneIo {
        &self.pane_io
    }

    /// Marks of who put input into panes.
    #[must_use]
    pub fn input_marks(&self) -> &subshells::Marker {
        &self.pane_io.marker
    }

    /// What nodes report (their events, the reconcile sweep), applied to the subshells' rows.
    #[must_use]
    pub fn node_reports(&self) -> &Arc<subshells::NodeReports> {
        &self.node_reports
    }

    /// How long recordings are kept (the retention sweep).
    #[must_use]
    pub fn retention(&self) -> &Arc<subshells::Retention> {
        &self.retention
    }

    /// The presets and workspaces domain.
    #[must_use]
    pub fn presets(&self) -> &Presets {
        &self.presets
    }

    /// Publishing to the live feeds.
    #[must_use]
    pub fn publisher(&self) -> &live::Publisher {
        &self.publisher
    }

    /// The notifications domain.
    #[must_use]
    pub fn notifications(&self) -> &Notifications {
        &self.notifications
    }

    /// Now, in Unix milliseconds, from the injected clock.
    #[must_use]
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// The live node sockets.
    #[must_use]
    pub fn links(&self) -> &LinkHub {
        &self.links
    }

    /// The plane's X25519 link secret (for building a socket's handshake responder).
    #[must_use]
    pub fn link_secret(&self) -> [u8; 32] {
        self.secrets.link
    }
}

/// `ms` (Unix milliseconds) as an ISO 8601 UTC timestamp with millisecond precision.
#[must_use]
pub fn iso8601_utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (proleptic Gregorian calendar).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

#[cfg(test)]
mod iso_tests {
    use super::iso8601_utc;

    #[test]
    fn milliseconds_format_as_iso8601_utc() {
        assert_eq!(iso8601_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso8601_utc(1_795_353_911_123), "2026-11-22T13:25:11.123Z");
        assert_eq!(iso8601_utc(4_107_542_399_999), "2100-02-28T23:59:59.999Z");
        assert_eq!(iso8601_utc(-1), "1969-12-31T23:59:59.999Z");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn origins_normalize() {
        assert_eq!(
            normalize_origin("HTTPS://Plane.Example:443/x").as_deref(),
            Some("https://plane.example")
        );
        assert_eq!(
            normalize_origin("http://127.0.0.1:7420").as_deref(),
            Some("http://127.0.0.1:7420")
        );
        assert_eq!(normalize_origin("null"), None);
        assert_eq!(normalize_origin("ftp://x"), None);
    }
}
