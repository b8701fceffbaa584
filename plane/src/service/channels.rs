//! Channels and identities (the shapes, the rules and the threat model are in
//! [`crate::api::channels`]; the signed text in [`termplane_machines::channel`]).
//!
//! Sealing: a channel's key is 32 random bytes, stored sealed under the plane's channel key
//! (`<data dir>/channels.key`, made at the plane's first start; a plane without a data
//! directory keeps one in memory) with the channel id as associated data. A body is sealed
//! under its channel's key with `<channel id>\n<seq>\n<entry hash>` as associated data, so a
//! sealed body read back anywhere but its own row does not open. Both use AES-256-GCM with a
//! random 96-bit nonce; the stored text is standard base64 of `nonce || ciphertext || tag`.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Duration;

use aes_gcm::aead::{Aead, Payload};
use aes_gcm::{Aes256Gcm, KeyInit};
use base64ct::{Base64, Encoding as _};
use termplane_machines::channel as signed;
use termplane_machines::jws::PublicJwk;

use super::live::Audience;
use std::path::PathBuf;
use std::sync::Arc;

use super::Caller;
use super::live::LiveBus;
use crate::api::channels::{
    Author, Channel, CreateChannel, EntriesQuery, Entry, EntryPage, Head, Identity, IdentityOwner,
    MAX_CHANNELS_PER_ACCOUNT, MAX_IDENTITIES_PER_ACCOUNT, MAX_IDENTITIES_PER_PANE, MAX_PAGE,
    MAX_WAIT_MS, Member, PostEntry, RegisterIdentity, SetMember,
};
use crate::api::enrollment::Jwk;
use crate::api::subshells::Access;
use crate::api::terminals::FeedFrame;
use crate::clock::Clock;
use crate::error::ApiError;
use crate::secret;
use crate::store::{AddIdentity, AppendError, ChannelRow, EntryRow, IdentityRow, Store};

/// The plane's channel key file in the data directory.
use crate::keys::CHANNEL_KEY_FILE;

/// The channels and identities domain: channels, their members and sealed entries, the
/// identities that sign them, the long polls waiting for a new entry. It holds the store, the
/// clock, the live feed it announces entries on and the data directory its key lives in.
pub struct Channels {
    store: Store,
    clock: Arc<dyn Clock>,
    live: Arc<LiveBus>,
    /// Where `channels.key` is kept (`None`: a key in memory).
    data_dir: Option<PathBuf>,
    key: OnceLock<[u8; 32]>,
    appended: event_listener::Event,
    /// What this replica tells the others (a new entry).
    words: super::words::Words,
    /// Reads parked in a long poll now (the `termplane_channel_reads_waiting` gauge).
    waiting: std::sync::atomic::AtomicUsize,
}

/// One read parked in a long poll, counted while it lives.
struct Parked<'a>(&'a Channels);

impl<'a> Parked<'a> {
    fn new(svc: &'a Channels) -> Self {
        let n = svc
            .waiting
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            + 1;
        Self::report(svc, n);
        Self(svc)
    }

    #[allow(clippy::cast_precision_loss)]
    fn report(svc: &Channels, n: usize) {
        svc.store
            .metrics()
            .set_gauge("termplane_channel_reads_waiting", n as f64);
    }
}

impl Drop for Parked<'_> {
    fn drop(&mut self) {
        let n = self
            .0
            .waiting
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst)
            .saturating_sub(1);
        Self::report(self.0, n);
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Need {
    Read,
    Write,
}

fn seal(key: &[u8; 32], aad: &[u8], plaintext: &[u8]) -> Result<String, ApiError> {
    let cipher = Aes256Gcm::new_from_slice(key).map_err(|_| ApiError::internal())?;
    let nonce = secret::random_bytes::<12>().map_err(|_| ApiError::internal())?;
    let ct = cipher
        .encrypt(
            &nonce.into(),
            Payload {
                msg: plaintext,
                aad,
            },
        )
        .map_err(|_| ApiError::internal())?;
    let mut all = nonce.to_vec();
    all.extend_from_slice(&ct);
    Ok(Base64::encode_string(&all))
}

fn open(key: &[u8; 32], aad: &[u8], sealed: &str) -> Option<Vec<u8>> {
    let all = Base64::decode_vec(sealed).ok()?;
    let (nonce, ct) = all.split_at_checked(12)?;
    let nonce: [u8; 12] = nonce.try_into().ok()?;
    Aes256Gcm::new_from_slice(key)
        .ok()?
        .decrypt(&nonce.into(), Payload { msg: ct, aad })
        .ok()
}

fn body_aad(channel_id: &str, seq: i64, hash: &str) -> Vec<u8> {
    format!("{channel_id}\n{seq}\n{hash}").into_bytes()
}

fn to_public(jwk: &Jwk) -> Option<PublicJwk> {
    serde_json::to_value(jwk)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
}

/// An identity as the API shows it. Its thumbprint is computed from the key it serves, never
/// read from the row, so a key changed in the database shows a thumbprint its pinners do not know.
fn identity_view(r: &IdentityRow) -> Option<Identity> {
    let public_key: Jwk = serde_json::from_str(&r.public_jwk).ok()?;
    Some(Identity {
        id: r.id.clone(),
        name: r.name.clone(),
        thumbprint: signed::thumbprint(&to_public(&public_key)?),
        public_key,
        owner: IdentityOwner {
            user_id: r.user_id.clone(),
            subshell_id: r.subshell_id.clone(),
        },
        created_at: r.created_at,
        revoked_at: r.revoked_at,
    })
}

fn access_of(stored: &str) -> Access {
    if stored == "write" {
        Access::Write
    } else {
        Access::Read
    }
}

fn access_str(a: Access) -> &'static str {
    match a {
        Access::Read => "read",
        Access::Write => "write",
    }
}

fn channel_view(c: &ChannelRow, access: Access) -> Channel {
    Channel {
        id: c.id.clone(),
        name: c.name.clone(),
        description: c.description.clone(),
        owner_user_id: c.owner_user_id.clone(),
        access,
        head: Head {
            seq: c.head_seq,
            hash: c.head_hash.clone(),
        },
        created_at: c.created_at,
    }
}

fn denied(msg: &str) -> ApiError {
    ApiError::new(403, "PERMISSION_DENIED", msg)
}

/// A pane's token reaches channels only within its `channels` permission.
fn pane_ceiling(c: &Caller, need: Need) -> Result<Access, ApiError> {
    match c {
        Caller::Pane { permissions, .. } => {
            if need == Need::Write && permissions.channels != Access::Write {
                return Err(denied(
                    "the pane's token allows reading channels, not writing them",
                ));
            }
            Ok(permissions.channels)
        }
        _ => Ok(Access::Write),
    }
}

impl Channels {
    /// The service over `store`; its key is read (or made) at first use.
    pub(super) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        live: Arc<LiveBus>,
        data_dir: Option<PathBuf>,
        words: super::words::Words,
    ) -> Self {
        Self {
            words,
            store,
            clock,
            live,
            data_dir,
            key: OnceLock::new(),
            appended: event_listener::Event::new(),
            waiting: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    /// Announces channel `id`'s entry `seq` (hash `hash`) on the live feeds of its owner
    /// `owner` and its members.
    async fn announce(&self, id: &str, owner: &str, seq: i64, hash: &str) {
        let mut users: std::collections::HashSet<String> = self
            .store
            .members(id)
            .await
            .unwrap_or_default()
            .into_iter()
            .map(|(u, _, _)| u)
            .collect();
        users.insert(owner.to_owned());
        self.live.publish(
            &FeedFrame::ChannelEntry {
                channel_id: id.to_owned(),
                seq,
                hash: hash.to_owned(),
            },
            &Audience {
                users,
                admins: false,
                everyone: false,
            },
        );
    }

    /// Another replica appended to channel `id`: the long polls here wake, and its head is
    /// announced on the live feeds here.
    pub(super) async fn appended_elsewhere(&self, id: &str) {
        self.appended.notify(usize::MAX);
        if let Ok(Some(row)) = self.store.channel(id).await {
            self.announce(id, &row.owner_user_id, row.head_seq, &row.head_hash)
                .await;
        }
    }

    /// Every long poll here looks again (what another replica said may have been lost).
    pub(super) fn wake_readers(&self) {
        self.appended.notify(usize::MAX);
    }

    /// The plane's channel key (see the module documentation).
    fn channel_master(&self) -> Result<[u8; 32], ApiError> {
        if let Some(k) = self.key.get() {
            return Ok(*k);
        }
        let key = match &self.data_dir {
            Some(dir) => crate::keys::load_or_create_file(&dir.join(CHANNEL_KEY_FILE), |_| true)
                .map_err(|e| {
                    tracing::error!(error = %e, "the channel key is unusable");
                    ApiError::internal()
                })?,
            None => secret::random_bytes::<32>().map_err(|_| ApiError::internal())?,
        };
        Ok(*self.key.get_or_init(|| key))
    }

    fn channel_key(&self, c: &ChannelRow) -> Result<[u8; 32], ApiError> {
        let raw = open(&self.channel_master()?, c.id.as_bytes(), &c.sealed_key).ok_or_else(|| {
            tracing::error!(channel = %c.id, "a channel's key does not open with the channel key file");
            ApiError::internal()
        })?;
        raw.try_into().map_err(|_| ApiError::internal())
    }

    /// The channel `id` and the caller's access to it: 404 when the caller cannot see it, 403
    /// when it needs `write` and has `read`.
    async fn reach_channel(
        &self,
        c: &Caller,
        id: &str,
        need: Need,
    ) -> Result<(ChannelRow, Access), ApiError> {
        let ceiling = pane_ceiling(c, need)?;
        let row = self
            .store
            .channel(id)
            .await?
            .ok_or_else(|| ApiError::not_found("channel"))?;
        let me = &c.user().id;
        let access = if &row.owner_user_id == me {
            Access::Write
        } else {
            match self.store.member_access(id, me).await? {
                Some(a) => access_of(&a),
                None => return Err(ApiError::not_found("channel")),
            }
        };
        let access = access.min(ceiling);
        if need == Need::Write && access != Access::Write {
            return Err(denied("a read member of a channel does not post to it"));
        }
        Ok((row, access))
    }

    /// `POST /api/identities`.
    pub async fn register_identity(
        &self,
        c: &Caller,
        b: RegisterIdentity,
    ) -> Result<Identity, ApiError> {
        pane_ceiling(c, Need::Write)?;
        if !b.public_key.is_on_curve() {
            return Err(ApiError::validation(
                "publicKey",
                "the point is not on P-256",
            ));
        }
        let jwk = to_public(&b.public_key).ok_or_else(ApiError::internal)?;
        let proof = signed::identity_proof_input(b.name.as_str(), &jwk);
        if signed::verify(&jwk, &proof, &b.proof.0).is_err() {
            return Err(ApiError::new(
                400,
                "SIGNATURE_INVALID",
                "the proof does not verify with the public key",
            ));
        }
        let user = c.user().id.clone();
        let row = IdentityRow {
            id: secret::new_id().map_err(|_| ApiError::internal())?,
            user_id: Some(user),
            subshell_id: match &c {
                Caller::Pane { subshell_id, .. } => Some(subshell_id.clone()),
                _ => None,
            },
            name: b.name.as_str().to_owned(),
            public_jwk: serde_json::to_string(&b.public_key).map_err(|_| ApiError::internal())?,
            thumbprint: signed::thumbprint(&jwk),
            created_at: self.now(),
            revoked_at: None,
        };
        match self
            .store
            .add_identity(
                &row,
                c.actor_kind(),
                MAX_IDENTITIES_PER_ACCOUNT,
                MAX_IDENTITIES_PER_PANE,
            )
            .await?
        {
            AddIdentity::Added => {}
            AddIdentity::Taken => {
                return Err(ApiError::new(
                    409,
                    "IDENTITY_EXISTS",
                    "that public key is registered already",
                ));
            }
            AddIdentity::AccountLimit => {
                return Err(identity_limit(format!(
                    "an account holds at most {MAX_IDENTITIES_PER_ACCOUNT} live identities: \
                     revoke one it no longer uses (DELETE /api/identities/{{id}})"
                )));
            }
            AddIdentity::PaneLimit => {
                return Err(identity_limit(format!(
                    "a pane registers at most {MAX_IDENTITIES_PER_PANE} identities in its life \
                     (revoked ones count): it needs one, kept by its MCP server"
                )));
            }
        }
        identity_view(&row).ok_or_else(ApiError::internal)
    }

    /// `GET /api/identities`: the caller's own (a person's or a script's: theirs and their
    /// panes'; a pane's: the ones its token registered).
    pub async fn identities(&self, c: &Caller) -> Result<Vec<Identity>, ApiError> {
        let pane = match &c {
            Caller::Pane { subshell_id, .. } => Some(subshell_id.clone()),
            _ => None,
        };
        Ok(self
            .store
            .identities_of(&c.user().id)
            .await?
            .iter()
            .filter(|r| pane.is_none() || r.subshell_id == pane)
            .filter_map(identity_view)
            .collect())
    }

    /// `GET /api/identities/{id}`: any identity (public keys are for every reader).
    pub async fn identity(&self, id: &str) -> Result<Identity, ApiError> {
        self.store
            .identity(id)
            .await?
            .as_ref()
            .and_then(identity_view)
            .ok_or_else(|| ApiError::not_found("identity"))
    }

    /// Whether `c` holds identity `r`: a pane the ones its token registered, a person or a
    /// script its own (for revoking: its panes' too).
    fn holds(c: &Caller, r: &IdentityRow, panes_too: bool) -> bool {
        let mine = r.user_id.as_deref() == Some(c.user().id.as_str());
        match c {
            Caller::Pane { subshell_id, .. } => {
                mine && r.subshell_id.as_deref() == Some(subshell_id.as_str())
            }
            _ => mine && (panes_too || r.subshell_id.is_none()),
        }
    }

    /// Identity `id` when `c` holds it ([`Self::holds`]): 404 when there is none, 403
    /// `IDENTITY_NOT_YOURS` (saying `why`) when it is another's.
    async fn held_identity(
        &self,
        c: &Caller,
        id: &str,
        panes_too: bool,
        why: &str,
    ) -> Result<IdentityRow, ApiError> {
        let r = self
            .store
            .identity(id)
            .await?
            .ok_or_else(|| ApiError::not_found("identity"))?;
        if Self::holds(c, &r, panes_too) {
            Ok(r)
        } else {
            Err(ApiError::new(403, "IDENTITY_NOT_YOURS", why))
        }
    }

    /// `DELETE /api/identities/{id}`: revokes it (again: nothing changes).
    pub async fn revoke_identity(&self, c: &Caller, id: &str) -> Result<(), ApiError> {
        pane_ceiling(c, Need::Write)?;
        self.held_identity(
            c,
            id,
            true,
            "only its holder (or the account of the pane that holds it) revokes an identity",
        )
        .await?;
        self.store
            .revoke_identity(id, &c.user().id, c.actor_kind(), self.now())
            .await?;
        Ok(())
    }

    /// `GET /api/channels`.
    pub async fn list(&self, c: &Caller) -> Result<Vec<Channel>, ApiError> {
        let ceiling = pane_ceiling(c, Need::Read)?;
        Ok(self
            .store
            .channels_of(&c.user().id)
            .await?
            .iter()
            .map(|(row, a)| channel_view(row, access_of(a).min(ceiling)))
            .collect())
    }

    /// `POST /api/channels`.
    pub async fn create_channel(&self, c: &Caller, b: CreateChannel) -> Result<Channel, ApiError> {
        pane_ceiling(c, Need::Write)?;
        let owner = c.user().id.clone();
        if self.store.channel_count(&owner).await? >= MAX_CHANNELS_PER_ACCOUNT {
            return Err(channel_limit());
        }
        let id = secret::new_id().map_err(|_| ApiError::internal())?;
        let key = secret::random_bytes::<32>().map_err(|_| ApiError::internal())?;
        let row = ChannelRow {
            sealed_key: seal(&self.channel_master()?, id.as_bytes(), &key)?,
            id,
            owner_user_id: owner,
            name: b.name.as_str().to_owned(),
            description: b
                .description
                .map(|d| d.as_str().to_owned())
                .unwrap_or_default(),
            head_seq: 0,
            head_hash: signed::GENESIS.to_owned(),
            created_at: self.now(),
        };
        // The store counts again under the account's lock: another creation may have taken
        // the last place since the check above.
        if !self
            .store
            .add_channel(&row, c.actor_kind(), MAX_CHANNELS_PER_ACCOUNT)
            .await?
        {
            return Err(channel_limit());
        }
        Ok(channel_view(&row, Access::Write))
    }

    /// `GET /api/channels/{id}`.
    pub async fn channel(&self, c: &Caller, id: &str) -> Result<Channel, ApiError> {
        let (row, access) = self.reach_channel(c, id, Need::Read).await?;
        Ok(channel_view(&row, access))
    }

    /// `DELETE /api/channels/{id}`: its owner only.
    pub async fn delete_channel(&self, c: &Caller, id: &str) -> Result<(), ApiError> {
        let (row, _) = self.reach_channel(c, id, Need::Read).await?;
        if row.owner_user_id != c.user().id {
            return Err(denied("only a channel's owner deletes it"));
        }
        self.store
            .delete_channel(id, &c.user().id, c.actor_kind(), self.now())
            .await?;
        Ok(())
    }

    /// `GET /api/channels/{id}/members`: its owner first, then the members.
    pub async fn channel_members(&self, c: &Caller, id: &str) -> Result<Vec<Member>, ApiError> {
        let (row, _) = self.reach_channel(c, id, Need::Read).await?;
        let owner = self
            .store
            .user_by_id(&row.owner_user_id)
            .await?
            .ok_or_else(ApiError::internal)?;
        let mut all = vec![Member {
            user_id: owner.id,
            email: owner.email,
            access: Access::Write,
            owner: true,
        }];
        for (user_id, email, access) in self.store.members(id).await? {
            all.push(Member {
                user_id,
                email,
                access: access_of(&access),
                owner: false,
            });
        }
        Ok(all)
    }

    /// `PUT /api/channels/{id}/members/{userId}`: its owner grants or changes access.
    pub async fn set_channel_member(
        &self,
        c: &Caller,
        id: &str,
        user_id: &str,
        b: SetMember,
    ) -> Result<Vec<Member>, ApiError> {
        let (row, _) = self.reach_channel(c, id, Need::Read).await?;
        if row.owner_user_id != c.user().id {
            return Err(denied("only a channel's owner changes its members"));
        }
        if user_id == row.owner_user_id {
            return Err(ApiError::new(
                409,
                "REFERENCE_MISMATCH",
                "the channel's owner has write access already",
            )
            .with_metadata(serde_json::json!({ "field": "userId" })));
        }
        if self.store.user_by_id(user_id).await?.is_none() {
            return Err(ApiError::not_found("user"));
        }
        self.store
            .set_member(
                id,
                user_id,
                access_str(b.access),
                &c.user().id,
                c.actor_kind(),
                self.now(),
            )
            .await?;
        self.channel_members(c, id).await
    }

    /// `DELETE /api/channels/{id}/members/{userId}`: its owner removes a member, or a member
    /// leaves.
    pub async fn remove_channel_member(
        &self,
        c: &Caller,
        id: &str,
        user_id: &str,
    ) -> Result<(), ApiError> {
        let (row, _) = self.reach_channel(c, id, Need::Read).await?;
        let me = &c.user().id;
        if &row.owner_user_id != me && me != user_id {
            return Err(denied("only a channel's owner removes other members"));
        }
        if !self
            .store
            .remove_member(id, user_id, me, c.actor_kind(), self.now())
            .await?
        {
            return Err(ApiError::not_found("member"));
        }
        Ok(())
    }

    /// `POST /api/channels/{id}/entries`.
    pub async fn post_entry(&self, c: &Caller, id: &str, b: PostEntry) -> Result<Entry, ApiError> {
        let (row, _) = self.reach_channel(c, id, Need::Write).await?;
        let ident = self
            .held_identity(
                c,
                b.identity_id.as_str(),
                false,
                "an entry is signed with one of the caller's own identities",
            )
            .await?;
        if ident.revoked_at.is_some() {
            return Err(ApiError::new(
                409,
                "IDENTITY_REVOKED",
                "the identity is revoked",
            ));
        }
        let jwk: PublicJwk =
            serde_json::from_str(&ident.public_jwk).map_err(|_| ApiError::internal())?;
        let seq = i64::try_from(b.seq).map_err(|_| ApiError::validation("seq", "too large"))?;
        let input = signed::entry_signing_input(id, b.seq, &b.prev.0, &ident.id, &b.body.0);
        if signed::verify(&jwk, &input, &b.signature.0).is_err() {
            return Err(ApiError::new(
                400,
                "SIGNATURE_INVALID",
                "the signature does not verify with the identity's key",
            ));
        }
        let hash = signed::entry_hash(&input);
        let key = self.channel_key(&row)?;
        let e = EntryRow {
            channel_id: id.to_owned(),
            seq,
            identity_id: ident.id.clone(),
            prev_hash: b.prev.0.clone(),
            sealed_body: seal(&key, &body_aad(id, seq, &hash), b.body.0.as_bytes())?,
            hash,
            signature: b.signature.0.clone(),
            created_at: self.now(),
        };
        match self.store.append_entry(&e).await {
            Ok(()) => {}
            Err(AppendError::HeadMoved { seq, hash }) => {
                return Err(ApiError::new(
                    409,
                    "CHANNEL_HEAD_MOVED",
                    "the channel's head is not the one this entry follows: sign it again",
                )
                .with_metadata(serde_json::json!({ "head": { "seq": seq, "hash": hash } })));
            }
            Err(AppendError::Gone) => return Err(ApiError::not_found("channel")),
            Err(AppendError::Db(e)) => return Err(e.into()),
        }
        self.appended.notify(usize::MAX);
        self.words.say(crate::store::Topic::Channel, id);
        self.announce(id, &row.owner_user_id, e.seq, &e.hash).await;
        Ok(Entry {
            channel_id: e.channel_id,
            seq: e.seq,
            identity_id: e.identity_id,
            prev: e.prev_hash,
            hash: e.hash,
            signature: e.signature,
            body: Some(b.body.0),
            author: Author {
                name: ident.name,
                user_id: ident.user_id,
                subshell_id: ident.subshell_id,
                thumbprint: ident.thumbprint,
            },
            created_at: e.created_at,
            verified: true,
            problem: None,
        })
    }

    /// `GET /api/channels/{id}/entries`.
    pub async fn channel_entries(
        &self,
        c: &Caller,
        id: &str,
        q: EntriesQuery,
    ) -> Result<EntryPage, ApiError> {
        let limit = q.limit.unwrap_or(50);
        if !(1..=MAX_PAGE).contains(&limit) {
            return Err(ApiError::validation("limit", "must be 1 to 200"));
        }
        let wait = q.wait_ms.unwrap_or(0);
        if wait > MAX_WAIT_MS {
            return Err(ApiError::validation("waitMs", "must be at most 25000"));
        }
        let after = i64::try_from(q.after.unwrap_or(0)).unwrap_or(i64::MAX);
        let (mut row, _) = self.reach_channel(c, id, Need::Read).await?;
        // A cursor past the newest entry reads as the newest entry: echoed back as `next`, it
        // would have the reader skip every entry written up to it.
        let after = after.min(row.head_seq);
        if row.head_seq <= after && wait > 0 {
            let until = self.clock.instant() + Duration::from_millis(u64::from(wait));
            let _parked = Parked::new(self);
            loop {
                let listener = self.appended.listen();
                row = self.reach_channel(c, id, Need::Read).await?.0;
                let left = until.saturating_duration_since(self.clock.instant());
                if row.head_seq > after || left.is_zero() {
                    break;
                }
                if crate::wait::within(left, listener).await.is_none() {
                    row = self.reach_channel(c, id, Need::Read).await?.0;
                    break;
                }
            }
        }
        let key = self.channel_key(&row)?;
        // The entry at `after` too, to check the first one's link.
        let from = after.max(1);
        let anchor = i64::from(after >= 1);
        let rows = self
            .store
            .entries(id, from, i64::from(limit) + anchor)
            .await?;
        let mut idents: HashMap<String, Option<(IdentityRow, PublicJwk)>> = HashMap::new();
        let mut prev: Option<(i64, String)> = if after == 0 {
            Some((0, signed::GENESIS.to_owned()))
        } else {
            None
        };
        let mut entries = Vec::new();
        for e in rows {
            if e.seq <= after {
                prev = Some((e.seq, e.hash.clone()));
                continue;
            }
            if !idents.contains_key(&e.identity_id) {
                let found = self.store.identity(&e.identity_id).await?.and_then(|r| {
                    let jwk = serde_json::from_str::<PublicJwk>(&r.public_jwk).ok()?;
                    Some((r, jwk))
                });
                idents.insert(e.identity_id.clone(), found);
            }
            let ident = idents.get(&e.identity_id).and_then(Option::as_ref);
            let body = open(&key, &body_aad(id, e.seq, &e.hash), &e.sealed_body)
                .and_then(|b| String::from_utf8(b).ok());
            let problem = match (&body, ident) {
                (None, _) => Some("UNREADABLE"),
                (Some(_), None) => Some("SIGNATURE"),
                (Some(text), Some((_, jwk))) => {
                    let input = u64::try_from(e.seq).ok().map(|seq| {
                        signed::entry_signing_input(id, seq, &e.prev_hash, &e.identity_id, text)
                    });
                    match input {
                        None => Some("HASH"),
                        Some(input) if signed::entry_hash(&input) != e.hash => Some("HASH"),
                        Some(input) if signed::verify(jwk, &input, &e.signature).is_err() => {
                            Some("SIGNATURE")
                        }
                        Some(_) => match &prev {
                            Some((s, h)) if *s == e.seq - 1 && *h == e.prev_hash => None,
                            _ => Some("CHAIN"),
                        },
                    }
                }
            };
            prev = Some((e.seq, e.hash.clone()));
            let author = match ident {
                Some((r, jwk)) => Author {
                    name: r.name.clone(),
                    user_id: r.user_id.clone(),
                    subshell_id: r.subshell_id.clone(),
                    thumbprint: signed::thumbprint(jwk),
                },
                None => Author {
                    name: String::new(),
                    user_id: None,
                    subshell_id: None,
                    thumbprint: String::new(),
                },
            };
            entries.push(Entry {
                channel_id: e.channel_id,
                seq: e.seq,
                identity_id: e.identity_id,
                prev: e.prev_hash,
                hash: e.hash,
                signature: e.signature,
                body,
                author,
                created_at: e.created_at,
                verified: problem.is_none(),
                problem: problem.map(str::to_owned),
            });
        }
        Ok(EntryPage {
            next: entries.last().map_or(after, |e| e.seq),
            entries,
            head: Head {
                seq: row.head_seq,
                hash: row.head_hash,
            },
        })
    }
}

fn identity_limit(why: String) -> ApiError {
    ApiError::new(409, "IDENTITY_LIMIT", why)
}

fn channel_limit() -> ApiError {
    ApiError::new(
        409,
        "CHANNEL_LIMIT",
        "an account owns at most 1,000 channels",
    )
}
