//! Channels and identities: append-only logs that people and their panes write to and read
//! from — agents coordinating work, reporting progress, leaving notes for each other across
//! machines — with every entry signed by its writer and kept encrypted at rest.
//!
//! # Identities
//! An identity is a named P-256 key pair. Its private key stays with whoever holds it — a
//! person's program, or a pane's MCP server (which makes one for its pane the first time the
//! pane posts, kept in a mode-0600 file on the pane's host) — and the plane stores only the
//! public key. `POST /api/identities` registers one with a proof that the caller holds the key
//! (the signed text is in [`termplane_machines::channel`]). An identity belongs to the account
//! that registered it, or, when a pane's token registered it, to that pane alone: a person
//! cannot post as their pane's identity, nor a pane as its owner's or another pane's. A public
//! key is registered once in all. `DELETE` revokes an identity: it posts nothing more, and the
//! entries it signed keep verifying. Deleting a subshell revokes its pane's identities.
//!
//! An account holds at most [`MAX_IDENTITIES_PER_ACCOUNT`] live identities (revoked ones do not
//! count), and a pane's token registers at most [`MAX_IDENTITIES_PER_PANE`] in the pane's life
//! (revoked ones count): past either, 409 `IDENTITY_LIMIT`, and nothing is registered.
//!
//! # Channels
//! A channel has an owner (the account that made it; a pane makes channels for its owner) and
//! members, each with `read` or `write` access, which the owner grants and takes back. The owner
//! has `write`. A pane reaches the channels its owner reaches, within its token's `channels`
//! permission: `read` reads them, `write` also creates channels and posts. Nobody else — an
//! administrator included — sees a channel at all (404).
//!
//! Entries form a hash chain: entry `n` names the hash of entry `n-1`, and its signature covers
//! the channel, `n`, that hash, the identity and the body's SHA-256. To post, read the channel's
//! `head` (`seq`, `hash`), sign entry `head.seq + 1` with `prev = head.hash`, and send it; when
//! another writer got there first the answer is 409 `CHANNEL_HEAD_MOVED` with the new head in
//! `metadata`, and the writer signs again. Reading pages forward from a cursor (`after`, the
//! last `seq` seen) and can wait for new entries (`waitMs`, at most 25 s); a person's live feed
//! (`GET /api/live`) also gets a `channel_entry` frame for each new entry of a channel they can
//! read.
//!
//! Every entry the plane answers with is checked again as it is read: its body decrypts, its
//! hash is its signing input's, its signature verifies with its identity's key, and its `prev`
//! is the hash of the entry before it. `verified` says whether all of that held; `problem` says
//! what did not. A reader that distrusts the plane can repeat every check itself from the
//! fields of the answer and the identity's public key (`GET /api/identities/{id}`), pinning
//! keys by their thumbprint.
//!
//! # Threat model
//! Bodies are encrypted with a key per channel (AES-256-GCM, a random 96-bit nonce per entry,
//! the channel id, `seq` and entry hash as associated data); each channel key is wrapped by the
//! plane's channel key, the file `<data dir>/channels.key` (mode 0600), which is never in the
//! database. Names, descriptions, membership, authors, times, sizes and the signatures are
//! not encrypted.
//!
//! * **Someone with a copy of the database** (a stolen backup, a leaked PostgreSQL dump) but not
//!   the data directory reads no entry body. Changing the database — editing a body, moving one
//!   between entries or channels, inserting an entry signed with a key of their own, deleting
//!   an entry in the middle — shows as `verified: false` on the entries it touches, because
//!   they cannot encrypt under a channel key, sign as another identity, or rebuild the chain
//!   past a signature they cannot make. Removing the newest entries and the head together
//!   cannot be told from their never having been written.
//! * **The plane's operator** (the data directory, the database and the running process) reads
//!   every body: the encryption protects data at rest, not from the plane. The operator cannot
//!   forge an entry of an identity whose private key it does not hold: the plane refuses such a
//!   post, and substituting a writer's public key in the database turns that writer's earlier
//!   entries `verified: false` and changes the key's thumbprint for anyone who pinned it.
//! * **Another user**, administrators included, reads, lists and posts to no channel they are
//!   not a member of (404), and a `read` member does not post (403).
//! * **A pane** reads only within its token's `channels` permission and its owner's channels,
//!   posts only with `write`, signs only as an identity its own token registered, and its
//!   identity is useless to anyone without the pane's key file, its owner included.
//!
//! Each claim is tested in `plane/tests/suite/channels.rs`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::enrollment::Jwk;
use super::subshells::Access;
use super::{RowId, Text};

/// How a client signs and checks what it sends and reads, for the API reference (the same
/// texts as [`termplane_machines::channel`], which computes them).
pub const SIGNING_GUIDE: &str = "Channels are append-only logs of signed entries; identities are \
the P-256 keys that sign them, held by the writer (the plane stores public keys only).\n\n\
**Thumbprint** (RFC 7638): unpadded base64url of SHA-256 of \
`{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"<x>\",\"y\":\"<y>\"}`.\n\n\
**Registering an identity**: `proof` is the ES256 signature of the UTF-8 text \
`termplane-identity/1\\nname=<name>\\nthumbprint=<thumbprint>` (lines joined by a newline, \
none at the end).\n\n\
**Posting**: read the channel's `head`; sign the text \
`termplane-channel-entry/1\\nchannel=<channel id>\\nseq=<head.seq + 1>\\nprev=<head.hash>\\n\
identity=<identity id>\\nsha256=<lowercase hex SHA-256 of the body's UTF-8 bytes>`; send \
`{identityId, seq, prev, body, signature}`. On 409 `CHANNEL_HEAD_MOVED`, sign again for \
`metadata.head`. A channel's first entry has `prev` = 64 zeros.\n\n\
**Signatures**: ECDSA P-256 over SHA-256 of the text, the raw 64-byte `r || s` (as WebCrypto \
gives it), unpadded base64url.\n\n\
**Checking an entry**: rebuild its text from its fields; its `hash` is the lowercase hex \
SHA-256 of that text; its `signature` verifies with the identity's `publicKey` \
(`GET /api/identities/{id}`; pin its thumbprint); its `prev` is the `hash` of the entry before \
it. The plane does all of this as it answers (`verified`, `problem`).";

/// Most characters of an entry's body (so at most 64 KiB of UTF-8).
pub const MAX_BODY_CHARS: usize = 16_384;
/// Most entries in one page.
pub const MAX_PAGE: u32 = 200;
/// Longest wait for new entries.
pub const MAX_WAIT_MS: u32 = 25_000;
/// Most live (not revoked) identities one account holds, its panes' included. Revoked ones do
/// not count: deleting a pane revokes its identity, and an account keeps posting however many
/// panes it has had.
pub const MAX_IDENTITIES_PER_ACCOUNT: i64 = 1_000;
/// Most identities one pane's token registers in the pane's life, revoked ones included. A
/// pane needs one (its MCP server keeps the key and registers it once); the few more allow
/// for a key file lost or an identity its owner revoked. So no pane, however it loops, takes
/// more than this of its account's places, nor grows the table without bound.
pub const MAX_IDENTITIES_PER_PANE: i64 = 8;
/// Most channels one account owns.
pub const MAX_CHANNELS_PER_ACCOUNT: i64 = 1_000;

/// An ES256 signature: the 64-byte `r || s` in unpadded base64url.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct SignatureText(
    #[schemars(regex(pattern = r"^[A-Za-z0-9_-]{85}[AQgw]$"))]
    #[serde(deserialize_with = "de_signature")]
    pub String,
);

fn de_signature<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s = String::deserialize(d)?;
    let ok = s.len() == 86
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && matches!(s.as_bytes().last(), Some(b'A' | b'Q' | b'g' | b'w'));
    if ok {
        Ok(s)
    } else {
        Err(serde::de::Error::custom(
            "must be 64 bytes in unpadded base64url (86 characters)",
        ))
    }
}

/// A SHA-256 in lowercase hex.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct HashText(
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    #[serde(deserialize_with = "de_hash")]
    pub String,
);

fn de_hash<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s = String::deserialize(d)?;
    if s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        Ok(s)
    } else {
        Err(serde::de::Error::custom(
            "must be a SHA-256 in lowercase hex (64 digits)",
        ))
    }
}

/// An entry's body: any Unicode text of 1 to 16,384 characters (newlines and all).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct EntryBody(
    #[schemars(length(min = 1, max = 16384))]
    #[serde(deserialize_with = "de_body")]
    pub String,
);

fn de_body<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s = String::deserialize(d)?;
    let n = s.chars().count();
    if (1..=MAX_BODY_CHARS).contains(&n) {
        Ok(s)
    } else {
        Err(serde::de::Error::custom("must be 1 to 16384 characters"))
    }
}

/// `POST /api/identities`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RegisterIdentity {
    /// A name people recognise it by (`alice's laptop`, `reviewer pane`).
    pub name: super::Name<1, 64>,
    /// Its public key.
    pub public_key: Jwk,
    /// ES256 signature of the identity proof text by the key's private half.
    pub proof: SignatureText,
}

/// Who holds an identity.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IdentityOwner {
    /// The account (absent once the account is deleted).
    pub user_id: Option<String>,
    /// The pane, when a pane's token registered it.
    pub subshell_id: Option<String>,
}

/// An identity.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Identity {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its public key.
    pub public_key: Jwk,
    /// RFC 7638 thumbprint of the public key (pin this).
    pub thumbprint: String,
    /// Who holds it.
    pub owner: IdentityOwner,
    /// When it was registered (ms since the Unix epoch).
    pub created_at: i64,
    /// When it was revoked, if it was.
    pub revoked_at: Option<i64>,
}

/// `POST /api/channels`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateChannel {
    /// Its name (`release-1.4`, `db-migration notes`).
    pub name: super::Name<1, 64>,
    /// What it is for.
    #[serde(default)]
    pub description: Option<Text<0, 500>>,
}

/// The newest entry of a channel.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Head {
    /// Its `seq` (0 when the channel is empty).
    pub seq: i64,
    /// Its hash (64 zeros when the channel is empty).
    pub hash: String,
}

/// A channel.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Channel {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// The account that owns it.
    pub owner_user_id: String,
    /// What the caller may do: `read`, or `write` (read and post).
    pub access: Access,
    /// Its newest entry.
    pub head: Head,
    /// When it was made (ms since the Unix epoch).
    pub created_at: i64,
}

/// A member of a channel.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    /// The account.
    pub user_id: String,
    /// Its email.
    pub email: String,
    /// Its access (`write` for the owner).
    pub access: Access,
    /// Whether it is the owner.
    pub owner: bool,
}

/// `PUT /api/channels/{id}/members/{userId}`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SetMember {
    /// `read`, or `write` (read and post).
    pub access: Access,
}

/// The path parameters of one member.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MemberParams {
    /// The channel.
    pub id: RowId,
    /// The account.
    pub user_id: RowId,
}

/// `GET /api/channels/{id}/entries`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EntriesQuery {
    /// Entries after this `seq` (default 0: from the first). A cursor past the channel's head
    /// reads as the head: no entries, and `next` is the head's `seq`.
    #[serde(default)]
    #[schemars(range(max = 9_007_199_254_740_991_u64))]
    pub after: Option<u64>,
    /// Page size: 1 to 200 (default 50).
    #[serde(default)]
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<u32>,
    /// When there is no entry after `after`, wait up to this long for one (ms, at most 25,000;
    /// default 0: answer at once).
    #[serde(default)]
    #[schemars(range(max = 25000))]
    pub wait_ms: Option<u32>,
}

/// `POST /api/channels/{id}/entries`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PostEntry {
    /// The identity that signed it (the caller's own).
    pub identity_id: RowId,
    /// Its `seq`: the channel's `head.seq + 1`.
    #[schemars(range(min = 1, max = 9_007_199_254_740_991_u64))]
    pub seq: u64,
    /// The channel's `head.hash`.
    pub prev: HashText,
    /// The text.
    pub body: EntryBody,
    /// ES256 signature of the entry signing input.
    pub signature: SignatureText,
}

/// Who wrote an entry.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Author {
    /// The identity's name.
    pub name: String,
    /// Its account, if it still exists.
    pub user_id: Option<String>,
    /// Its pane, when a pane wrote it.
    pub subshell_id: Option<String>,
    /// The identity's thumbprint.
    pub thumbprint: String,
}

/// One entry, as read (see the module documentation for `verified`).
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// The channel.
    pub channel_id: String,
    /// Its position: 1, 2, 3…
    pub seq: i64,
    /// The identity that signed it.
    pub identity_id: String,
    /// The hash of the entry before it.
    pub prev: String,
    /// Its hash.
    pub hash: String,
    /// Its ES256 signature.
    pub signature: String,
    /// The text (absent when it could not be decrypted).
    pub body: Option<String>,
    /// Who wrote it.
    pub author: Author,
    /// When the plane took it (ms since the Unix epoch).
    pub created_at: i64,
    /// Whether every check held.
    pub verified: bool,
    /// The first check that failed: `UNREADABLE` (the body does not decrypt), `HASH` (the hash
    /// is not the signing input's), `SIGNATURE`, or `CHAIN` (`prev` is not the previous entry's
    /// hash, or an entry before it is missing).
    pub problem: Option<String>,
}

/// A page of entries.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntryPage {
    /// The entries, oldest first.
    pub entries: Vec<Entry>,
    /// The cursor for the next page (`after`): the last `seq` here, or the `after` asked for.
    pub next: i64,
    /// The channel's newest entry.
    pub head: Head,
}
