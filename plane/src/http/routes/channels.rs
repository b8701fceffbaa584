//! Routes of channels and identities (see [`crate::api::channels`]).

use std::sync::Arc;

use super::super::callers::{AnyCaller, UserCaller};
use super::super::handler::{Json, NoContent, Path, Query};
use super::RouteDef;
use crate::api::IdParam;
use crate::api::channels::{
    Channel, CreateChannel, EntriesQuery, Entry, EntryPage, Identity, Member, MemberParams,
    PostEntry, RegisterIdentity, SetMember,
};
use crate::error::ApiError;
use crate::service::Services;

/// The routes of this domain, in the order the reference lists them.
pub(super) fn routes() -> Vec<RouteDef> {
    // A pane's token reaches its owner's channels within its `channels` permission; managing a
    // channel's members and deleting it are for people and scripts.
    vec![
        RouteDef::get(
            "/api/identities",
            "listIdentities",
            "Your identities (a pane: the ones its token registered)",
        )
        .handle(list_identities),
        RouteDef::post(
            "/api/identities",
            "registerIdentity",
            "Register a public key you hold as an identity, with a proof that you hold it",
        )
        .ok(201)
        .errors(&[
            "PERMISSION_DENIED",
            "SIGNATURE_INVALID",
            "IDENTITY_EXISTS",
            "IDENTITY_LIMIT",
        ])
        .handle(register_identity),
        RouteDef::get(
            "/api/identities/:id",
            "getIdentity",
            "Any identity: its public key and thumbprint, to verify entries with",
        )
        .errors(&["NOT_FOUND"])
        .handle(get_identity),
        RouteDef::delete(
            "/api/identities/:id",
            "revokeIdentity",
            "Revoke an identity you (or your pane) hold; its entries keep verifying",
        )
        .errors(&["NOT_FOUND", "PERMISSION_DENIED", "IDENTITY_NOT_YOURS"])
        .handle(revoke_identity),
        RouteDef::get(
            "/api/channels",
            "listChannels",
            "The channels you own or are a member of, with your access and their heads",
        )
        .handle(list_channels),
        RouteDef::post(
            "/api/channels",
            "createChannel",
            "Make a channel (a pane makes one for its owner)",
        )
        .ok(201)
        .errors(&["PERMISSION_DENIED", "CHANNEL_LIMIT"])
        .handle(create_channel),
        RouteDef::get("/api/channels/:id", "getChannel", "One channel")
            .errors(&["NOT_FOUND"])
            .handle(get_channel),
        RouteDef::delete(
            "/api/channels/:id",
            "deleteChannel",
            "Delete a channel you own, with its entries",
        )
        .errors(&["NOT_FOUND", "PERMISSION_DENIED"])
        .handle(delete_channel),
        RouteDef::get(
            "/api/channels/:id/members",
            "listChannelMembers",
            "A channel's owner and members",
        )
        .errors(&["NOT_FOUND"])
        .handle(members),
        RouteDef::put(
            "/api/channels/:id/members/:userId",
            "setChannelMember",
            "Give an account read or write access to a channel you own",
        )
        .errors(&["NOT_FOUND", "PERMISSION_DENIED", "REFERENCE_MISMATCH"])
        .handle(set_member),
        RouteDef::delete(
            "/api/channels/:id/members/:userId",
            "removeChannelMember",
            "Remove a member from a channel you own, or leave one",
        )
        .errors(&["NOT_FOUND", "PERMISSION_DENIED"])
        .handle(remove_member),
        RouteDef::get(
            "/api/channels/:id/entries",
            "listChannelEntries",
            "Entries after a cursor, each checked as it is read; optionally wait for new ones",
        )
        .errors(&["NOT_FOUND"])
        .handle(entries),
        RouteDef::post(
            "/api/channels/:id/entries",
            "postChannelEntry",
            "Append a signed entry at the channel's head",
        )
        .ok(201)
        .errors(&[
            "NOT_FOUND",
            "PERMISSION_DENIED",
            "SIGNATURE_INVALID",
            "IDENTITY_NOT_YOURS",
            "IDENTITY_REVOKED",
            "CHANNEL_HEAD_MOVED",
        ])
        .handle(post_entry),
    ]
}

type Res<T> = Result<T, ApiError>;

async fn list_identities(svc: Arc<Services>, AnyCaller(c): AnyCaller) -> Res<Json<Vec<Identity>>> {
    svc.channels().identities(&c).await.map(Json)
}

async fn register_identity(
    svc: Arc<Services>,
    AnyCaller(c): AnyCaller,
    Json(b): Json<RegisterIdentity>,
) -> Res<Json<Identity>> {
    svc.channels().register_identity(&c, b).await.map(Json)
}

async fn get_identity(
    svc: Arc<Services>,
    _: AnyCaller,
    Path(p): Path<IdParam>,
) -> Res<Json<Identity>> {
    svc.channels().identity(p.id.as_str()).await.map(Json)
}

async fn revoke_identity(
    svc: Arc<Services>,
    AnyCaller(c): AnyCaller,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.channels().revoke_identity(&c, p.id.as_str()).await?;
    Ok(NoContent)
}

async fn list_channels(svc: Arc<Services>, AnyCaller(c): AnyCaller) -> Res<Json<Vec<Channel>>> {
    svc.channels().list(&c).await.map(Json)
}

async fn create_channel(
    svc: Arc<Services>,
    AnyCaller(c): AnyCaller,
    Json(b): Json<CreateChannel>,
) -> Res<Json<Channel>> {
    svc.channels().create_channel(&c, b).await.map(Json)
}

async fn get_channel(
    svc: Arc<Services>,
    AnyCaller(c): AnyCaller,
    Path(p): Path<IdParam>,
) -> Res<Json<Channel>> {
    svc.channels().channel(&c, p.id.as_str()).await.map(Json)
}

async fn delete_channel(
    svc: Arc<Services>,
    UserCaller(c): UserCaller,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.channels().delete_channel(&c, p.id.as_str()).await?;
    Ok(NoContent)
}

async fn members(
    svc: Arc<Services>,
    AnyCaller(c): AnyCaller,
    Path(p): Path<IdParam>,
) -> Res<Json<Vec<Member>>> {
    svc.channels()
        .channel_members(&c, p.id.as_str())
        .await
        .map(Json)
}

async fn set_member(
    svc: Arc<Services>,
    UserCaller(c): UserCaller,
    Path(p): Path<MemberParams>,
    Json(b): Json<SetMember>,
) -> Res<Json<Vec<Member>>> {
    svc.channels()
        .set_channel_member(&c, p.id.as_str(), p.user_id.as_str(), b)
        .await
        .map(Json)
}

async fn remove_member(
    svc: Arc<Services>,
    UserCaller(c): UserCaller,
    Path(p): Path<MemberParams>,
) -> Res<NoContent> {
    svc.channels()
        .remove_channel_member(&c, p.id.as_str(), p.user_id.as_str())
        .await?;
    Ok(NoContent)
}

async fn entries(
    svc: Arc<Services>,
    AnyCaller(c): AnyCaller,
    Path(p): Path<IdParam>,
    Query(q): Query<EntriesQuery>,
) -> Res<Json<EntryPage>> {
    svc.channels()
        .channel_entries(&c, p.id.as_str(), q)
        .await
        .map(Json)
}

async fn post_entry(
    svc: Arc<Services>,
    AnyCaller(c): AnyCaller,
    Path(p): Path<IdParam>,
    Json(b): Json<PostEntry>,
) -> Res<Json<Entry>> {
    svc.channels()
        .post_entry(&c, p.id.as_str(), b)
        .await
        .map(Json)
}
