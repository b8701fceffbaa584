//! The storage layer against SQLite (always) and PostgreSQL (when `TERMPLANE_TEST_POSTGRES_URL`
//! is set; under `CI` its absence is a failure).

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::sync::Arc;

use termplane::secret;
use termplane::store::{
    AddIdentity, AddPasskey, AgentRow, AgentWrite, AppendError, AuditFilter, Backend, Change,
    ChannelRow, Consume, DeviceRow, EntryRow, FileRow, IdentityRow, ListenerRow, NewNode,
    NotificationRow, PasskeyRow, Prefs, SetupKey, Store, Subshell,
};

const NOW: i64 = 1_800_000_000_000;

fn new_node(name: &str, digest: &str) -> NewNode {
    NewNode {
        name: name.into(),
        os: "linux".into(),
        arch: "x86_64".into(),
        hostname: "h".into(),
        agent_version: "0.17.0".into(),
        identity_jwk: "{}".into(),
        encrypt_public_key: Some("pin".into()),
        node_key_digest: digest.into(),
        ws_url: "ws://x/ws/node".into(),
    }
}

async fn exercise(url: &str) {
    let store = Store::open(url, NOW).await.unwrap();
    // Opening twice is idempotent (migrations, seeds).
    let again = Store::open(url, NOW).await.unwrap();
    let locals = again
        .nodes(None)
        .await
        .unwrap()
        .into_iter()
        .filter(|n| n.is_local)
        .count();
    assert_eq!(locals, 1);
    assert!(store.user_by_email("system").await.unwrap().is_some());

    let tag = secret::new_id().unwrap();
    let hash =
        "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g";
    let admin_email = format!("admin-{tag}@example.test");
    let admin = match store
        .create_first_admin(&admin_email, "A", hash, None, NOW)
        .await
        .unwrap()
    {
        Some(u) => u,
        // A shared PostgreSQL database may already be set up by an earlier run.
        None => store
            .create_user("x", &admin_email, "A", "admin", hash, NOW)
            .await
            .unwrap()
            .unwrap(),
    };
    assert!(store.setup_done().await.unwrap());
    assert!(
        store
            .create_first_admin(&format!("b-{tag}@x"), "B", hash, None, NOW)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .create_user(&admin.id, &admin_email, "dup", "user", hash, NOW)
            .await
            .unwrap()
            .is_none()
    );

    // Sessions: rotation deletes the previous one; disabling deletes all.
    let person = store
        .create_user(&admin.id, &format!("p-{tag}@x"), "P", "user", hash, NOW)
        .await
        .unwrap()
        .unwrap();
    let s1 = secret::digest(&format!("s1-{tag}"));
    let s2 = secret::digest(&format!("s2-{tag}"));
    store
        .create_session(&s1, &person.id, None, NOW, NOW + 1000)
        .await
        .unwrap();
    store
        .create_session(&s2, &person.id, Some(&s1), NOW, NOW + 1000)
        .await
        .unwrap();
    assert!(store.session_user(&s1, NOW).await.unwrap().is_none());
    assert!(store.session_user(&s2, NOW).await.unwrap().is_some());
    assert!(
        store.session_user(&s2, NOW + 1000).await.unwrap().is_none(),
        "expired"
    );
    store
        .set_user_disabled("x", &person.id, true, NOW)
        .await
        .unwrap();
    assert_eq!(store.session_count(&person.id).await.unwrap(), 0);
    store
        .set_user_disabled("x", &person.id, false, NOW)
        .await
        .unwrap();

    // System keys.
    let kd = secret::digest(&format!("k-{tag}"));
    let k = store
        .create_system_key(&admin.id, "ci", &kd, "tp_…abcd", NOW)
        .await
        .unwrap();
    assert!(
        store
            .system_key_by_digest(&kd)
            .await
            .unwrap()
            .unwrap()
            .enabled
    );
    assert!(
        store
            .disable_system_key(&admin.id, &k.id, NOW)
            .await
            .unwrap()
    );
    assert!(
        !store
            .system_key_by_digest(&kd)
            .await
            .unwrap()
            .unwrap()
            .enabled
    );
    assert!(
        store
            .delete_system_key(&admin.id, &k.id, NOW)
            .await
            .unwrap()
    );
    assert!(store.system_key_by_digest(&kd).await.unwrap().is_none());

    // Setup keys and the single-winner consume under contention.
    let text = secret::new_token("nsk_").unwrap();
    let sk = SetupKey {
        id: secret::new_id().unwrap(),
        digest: secret::digest(&text),
        key_text: text,
        owner_user_id: admin.id.clone(),
        created_at: NOW,
        expires_at: NOW + 86_400_000,
        used_at: None,
        used_by_node_id: None,
        revoked_at: None,
    };
    store.create_setup_key(&sk).await.unwrap();
    let before = store.node_count().await.unwrap();
    let store = Arc::new(store);
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let s = store.clone();
            let id = sk.id.clone();
            let owner = admin.id.clone();
            let tag = tag.clone();
            smol::spawn(async move {
                s.enroll(
                    &id,
                    &owner,
                    &new_node(&format!("n{i}"), &secret::digest(&format!("nk{i}-{tag}"))),
                    NOW + 1,
                )
                .await
            })
        })
        .collect();
    let mut wins = Vec::new();
    for t in tasks {
        match t.await {
            Ok(Consume::Enrolled(id)) => wins.push(id),
            Ok(Consume::Lost) => {}
            Err(e) => {
                // SQLite may report a busy writer; that is a loss, never a second winner.
                assert_eq!(store.backend(), Backend::Sqlite, "{e}");
            }
        }
    }
    assert_eq!(wins.len(), 1);
    assert_eq!(store.node_count().await.unwrap(), before + 1);
    let node_id = wins.pop().unwrap();
    let used = store.setup_key_by_id(&sk.id).await.unwrap().unwrap();
    assert_eq!(used.used_by_node_id.as_deref(), Some(node_id.as_str()));
    assert!(
        !store
            .revoke_setup_key(&admin.id, &sk.id, NOW)
            .await
            .unwrap()
    );

    // The live link's row writes: liveness, identity (before the gates), conditional pin claim.
    assert!(
        store
            .hold_link(&node_id, "r1", true, NOW + 2)
            .await
            .unwrap()
    );
    assert_eq!(
        store.node(&node_id).await.unwrap().unwrap().liveness,
        "online"
    );
    assert_eq!(
        store.link_holder(&node_id).await.unwrap().as_deref(),
        Some("r1")
    );
    assert!(
        !store.release_link(&node_id, "r2", NOW + 2).await.unwrap(),
        "a replica lets go only of what it holds"
    );
    assert_eq!(
        store.links_held_by("r1").await.unwrap(),
        vec![node_id.clone()]
    );
    let identity = termplane::store::ReportedIdentity {
        os: "darwin".into(),
        arch: "aarch64".into(),
        hostname: "reported".into(),
        agent_version: None,
        runtime: Some("{\"pid\":7}".into()),
        maintenance: None,
    };
    store
        .persist_identity(&node_id, &identity, NOW + 3)
        .await
        .unwrap();
    let row = store.node(&node_id).await.unwrap().unwrap();
    assert_eq!(
        (row.os.as_str(), row.hostname.as_str()),
        ("darwin", "reported")
    );
    assert_eq!(
        row.agent_version, "0.17.0",
        "an absent version keeps the stored one"
    );
    assert_eq!(row.runtime.as_deref(), Some("{\"pid\":7}"));
    assert!(
        !store.claim_pin(&node_id, "other", NOW + 4).await.unwrap(),
        "a pinned row keeps its pin"
    );
    // `r1` has no lease (no replica row): its node is released by any other replica.
    assert_eq!(
        store.release_lapsed_links("r1", NOW + 5).await.unwrap(),
        Vec::<String>::new(),
        "a replica never releases its own links"
    );
    assert_eq!(
        store.release_lapsed_links("r2", NOW + 5).await.unwrap(),
        vec![node_id.clone()]
    );
    assert_eq!(store.link_holder(&node_id).await.unwrap(), None);
    assert_eq!(
        store.node(&node_id).await.unwrap().unwrap().liveness,
        "offline"
    );

    // Seen ephemeral keys refuse a replay.
    assert!(
        store
            .record_ephemeral(&node_id, "eph-1", NOW)
            .await
            .unwrap()
    );
    assert!(
        !store
            .record_ephemeral(&node_id, "eph-1", NOW + 5)
            .await
            .unwrap()
    );

    // Rotation, allowed dirs, deletion (cascades to seen keys).
    let nd = secret::digest(&format!("rot-{tag}"));
    assert!(
        store
            .rotate_node_key(&admin.id, &node_id, &nd, NOW)
            .await
            .unwrap()
    );
    let row = store.node_by_key_digest(&nd).await.unwrap().unwrap();
    assert!(row.encrypt_public_key.is_none());
    // A register's claim lands on the unpinned row once; a second claim loses.
    assert!(store.claim_pin(&node_id, "claim-1", NOW).await.unwrap());
    assert!(!store.claim_pin(&node_id, "claim-2", NOW).await.unwrap());
    assert_eq!(
        store
            .node(&node_id)
            .await
            .unwrap()
            .unwrap()
            .encrypt_public_key
            .as_deref(),
        Some("claim-1")
    );
    assert!(
        store
            .set_allowed_dirs(&admin.id, &node_id, "[\"/srv\"]", NOW)
            .await
            .unwrap()
    );
    assert_eq!(
        store.node(&node_id).await.unwrap().unwrap().allowed_dirs,
        "[\"/srv\"]"
    );
    // Doomed panes: once each, taken once; none for a node that does not exist; they go with
    // their node.
    for id in ["pane-a", "pane-b", "pane-a"] {
        store.doom_pane(&node_id, id, NOW).await.unwrap();
    }
    store
        .doom_pane("no-such-node", "pane-c", NOW)
        .await
        .unwrap();
    let mut doomed = store.take_doomed(&node_id).await.unwrap();
    doomed.sort();
    assert_eq!(doomed, ["pane-a", "pane-b"]);
    assert!(store.take_doomed(&node_id).await.unwrap().is_empty());
    assert!(store.take_doomed("no-such-node").await.unwrap().is_empty());
    store.doom_pane(&node_id, "pane-d", NOW).await.unwrap();
    assert!(store.delete_node(&admin.id, &node_id, NOW).await.unwrap());
    assert!(store.take_doomed(&node_id).await.unwrap().is_empty());
    store.doom_pane(&node_id, "pane-e", NOW).await.unwrap();
    assert!(store.take_doomed(&node_id).await.unwrap().is_empty());
    let refused = store.record_ephemeral(&node_id, "eph-1", NOW).await;
    assert!(
        refused
            .as_ref()
            .is_err_and(termplane::store::is_foreign_key_violation),
        "foreign key to a deleted node, told apart from other errors: {refused:?}"
    );
    let local = store
        .nodes(None)
        .await
        .unwrap()
        .into_iter()
        .find(|n| n.is_local)
        .unwrap();
    assert!(
        !store.delete_node(&admin.id, &local.id, NOW).await.unwrap(),
        "the local node stays"
    );

    // Passkeys: a credential id is registered once across the plane; at most 20 per account;
    // removal only by the owner; a use updates the row.
    let pk = |n: usize, user: &str| PasskeyRow {
        id: secret::new_id().unwrap(),
        user_id: user.to_owned(),
        name: format!("key {n}"),
        credential_id: format!("cred-{tag}-{n}"),
        passkey: "{}".into(),
        created_at: NOW + i64::try_from(n).unwrap(),
        last_used_at: None,
    };
    let first = pk(0, &admin.id);
    assert_eq!(store.add_passkey(&first).await.unwrap(), AddPasskey::Added);
    let mut dup = pk(0, &admin.id);
    dup.id = secret::new_id().unwrap();
    assert_eq!(store.add_passkey(&dup).await.unwrap(), AddPasskey::Exists);
    for n in 1..20 {
        assert_eq!(
            store.add_passkey(&pk(n, &admin.id)).await.unwrap(),
            AddPasskey::Added
        );
    }
    assert_eq!(
        store.add_passkey(&pk(20, &admin.id)).await.unwrap(),
        AddPasskey::Limit
    );
    assert_eq!(store.passkeys_of(&admin.id).await.unwrap().len(), 20);
    assert!(
        !store
            .delete_passkey(&first.id, "someone-else", NOW)
            .await
            .unwrap()
    );
    store
        .passkey_used(&first.id, "{\"n\":1}", NOW + 5)
        .await
        .unwrap();
    let row = store.passkeys_of(&admin.id).await.unwrap().remove(0);
    assert_eq!(
        (row.passkey.as_str(), row.last_used_at),
        ("{\"n\":1}", Some(NOW + 5))
    );
    assert!(
        store
            .delete_passkey(&first.id, &admin.id, NOW)
            .await
            .unwrap()
    );
    assert_eq!(store.passkeys_of(&admin.id).await.unwrap().len(), 19);

    // Kept files: rows only for complete files, one owner, bytes per account, blob references.
    let file = |n: i64, sha: &str| FileRow {
        id: secret::new_id().unwrap(),
        owner_user_id: admin.id.clone(),
        name: format!("f{n}"),
        size: 100 * n,
        sha256: sha.to_owned(),
        created_at: NOW + n,
    };
    let blob = format!("{tag:0>64}");
    let (f1, f2) = (file(1, &blob), file(2, &blob));
    store.add_file(&f1).await.unwrap();
    store.add_file(&f2).await.unwrap();
    assert_eq!(store.file_bytes_of(&admin.id).await.unwrap(), 300);
    assert_eq!(
        store.files_of(&admin.id).await.unwrap()[0].id,
        f2.id,
        "newest first"
    );
    assert!(
        !store
            .delete_file(&f1.id, "someone-else", NOW)
            .await
            .unwrap()
    );
    assert!(store.delete_file(&f1.id, &admin.id, NOW).await.unwrap());
    assert!(store.blob_in_use(&blob).await.unwrap());
    assert!(store.delete_file(&f2.id, &admin.id, NOW).await.unwrap());
    assert!(!store.blob_in_use(&blob).await.unwrap());
    assert_eq!(store.file_bytes_of(&admin.id).await.unwrap(), 0);

    // Push devices (one row per endpoint and account, at most ten), notifications, preferences.
    let device = |endpoint: &str| DeviceRow {
        id: secret::new_id().unwrap(),
        user_id: admin.id.clone(),
        name: "d".into(),
        endpoint: endpoint.to_owned(),
        p256dh: "k".into(),
        auth: "a".into(),
        created_at: NOW,
        last_sent_at: None,
        last_error: None,
    };
    let first_device = store
        .put_device(&device("https://push.example/1"))
        .await
        .unwrap()
        .unwrap();
    let replaced = store
        .put_device(&DeviceRow {
            p256dh: "k2".into(),
            ..device("https://push.example/1")
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (replaced.id.as_str(), replaced.p256dh.as_str()),
        (first_device.id.as_str(), "k2")
    );
    for i in 2..=10 {
        assert!(
            store
                .put_device(&device(&format!("https://push.example/{i}")))
                .await
                .unwrap()
                .is_some()
        );
    }
    assert!(
        store
            .put_device(&device("https://push.example/11"))
            .await
            .unwrap()
            .is_none(),
        "at most ten"
    );
    store
        .device_delivery(&first_device.id, Some("503"), NOW)
        .await
        .unwrap();
    assert!(
        store
            .delete_device(&first_device.id, None, NOW)
            .await
            .unwrap()
    );
    assert_eq!(store.devices_of(&admin.id).await.unwrap().len(), 9);
    assert_eq!(store.prefs_of(&admin.id).await.unwrap(), Prefs::default());
    let quiet = Prefs {
        needs_input: false,
        quiet: Some(termplane::store::Quiet {
            from_min: 22 * 60,
            to_min: 7 * 60,
            zone: "Europe/Berlin".into(),
        }),
        ..Prefs::default()
    };
    store.set_prefs(&admin.id, &quiet).await.unwrap();
    store.set_prefs(&admin.id, &quiet).await.unwrap();
    assert_eq!(store.prefs_of(&admin.id).await.unwrap(), quiet);
    let loud = Prefs {
        needs_input: false,
        ..Prefs::default()
    };
    store.set_prefs(&admin.id, &loud).await.unwrap();
    assert_eq!(store.prefs_of(&admin.id).await.unwrap(), loud);
    for n in 0..3 {
        store
            .add_notification(&NotificationRow {
                id: secret::new_id().unwrap(),
                user_id: admin.id.clone(),
                kind: "exited".into(),
                subject_id: "s".into(),
                title: "t".into(),
                body: "b".into(),
                created_at: NOW + n,
                read_at: None,
            })
            .await
            .unwrap();
    }
    let unread = store
        .notifications_of(&admin.id, true, None, 10)
        .await
        .unwrap();
    assert_eq!(unread.len(), 3);
    let older = store
        .notifications_of(&admin.id, false, Some((NOW + 2, None)), 10)
        .await
        .unwrap();
    assert_eq!(older.len(), 2);
    // Two more in one millisecond: a page edge between them loses neither.
    let mut twins = Vec::new();
    for _ in 0..2 {
        let n = NotificationRow {
            id: secret::new_id().unwrap(),
            user_id: admin.id.clone(),
            kind: "crashed".into(),
            subject_id: "s".into(),
            title: "t".into(),
            body: "b".into(),
            created_at: NOW + 10,
            read_at: None,
        };
        store.add_notification(&n).await.unwrap();
        twins.push(n.id);
    }
    let page1 = store
        .notifications_of(&admin.id, false, None, 1)
        .await
        .unwrap();
    let page2 = store
        .notifications_of(
            &admin.id,
            false,
            Some((page1[0].created_at, Some(page1[0].id.as_str()))),
            1,
        )
        .await
        .unwrap();
    let mut seen = vec![page1[0].id.clone(), page2[0].id.clone()];
    seen.sort();
    twins.sort();
    assert_eq!(seen, twins);
    assert_eq!(
        store
            .mark_read(&admin.id, Some(&unread[0].id), NOW)
            .await
            .unwrap(),
        1
    );
    assert_eq!(store.mark_read(&admin.id, None, NOW).await.unwrap(), 4);
    // A need that left clears what was told of its subject, and only that.
    for subject in ["a", "a", "b"] {
        store
            .add_notification(&NotificationRow {
                id: secret::new_id().unwrap(),
                user_id: admin.id.clone(),
                kind: "needs_input".into(),
                subject_id: subject.into(),
                title: "t".into(),
                body: "b".into(),
                created_at: NOW + 20,
                read_at: None,
            })
            .await
            .unwrap();
    }
    assert_eq!(store.clear_subject(&admin.id, "a", NOW).await.unwrap(), 2);
    assert_eq!(store.clear_subject(&admin.id, "a", NOW).await.unwrap(), 0);
    assert_eq!(store.unread_count(&admin.id).await.unwrap(), 1);
    assert_eq!(store.mark_read(&admin.id, None, NOW).await.unwrap(), 1);
    assert!(
        store
            .notifications_of(&admin.id, true, None, 10)
            .await
            .unwrap()
            .is_empty()
    );

    // Network plugins: one row per address.
    let listener = ListenerRow {
        id: secret::new_id().unwrap(),
        name: "lan".into(),
        address: format!("10.{}.0.1:7420", tag.len()),
        origin: "http://10.0.0.1:7420".into(),
        created_at: NOW,
    };
    let _ = store.delete_listener(&listener.id, &admin.id, NOW).await;
    for l in store.listeners().await.unwrap() {
        if l.address == listener.address {
            store.delete_listener(&l.id, &admin.id, NOW).await.unwrap();
        }
    }
    assert!(store.add_listener(&listener, &admin.id).await.unwrap());
    let twin = ListenerRow {
        id: secret::new_id().unwrap(),
        ..listener.clone()
    };
    assert!(!store.add_listener(&twin, &admin.id).await.unwrap());
    assert!(store.listeners().await.unwrap().contains(&listener));
    assert!(
        store
            .delete_listener(&listener.id, &admin.id, NOW)
            .await
            .unwrap()
    );
    assert!(!store.listeners().await.unwrap().contains(&listener));

    // Audit filters (every kind of parameter) and the cursor.
    let f = AuditFilter {
        actor: Some(admin.id.clone()),
        actor_kind: Some("cookie".into()),
        action: Some("passkey.".into()),
        from: Some(NOW),
        to: Some(NOW + 1000),
        ..AuditFilter::default()
    };
    let page = store.audit_page(&f, 100).await.unwrap();
    assert_eq!(page.len(), 21, "20 added, 1 removed");
    let older = store
        .audit_page(
            &AuditFilter {
                before: Some(page[9].id),
                ..f.clone()
            },
            100,
        )
        .await
        .unwrap();
    assert_eq!(older.len(), 11);
    assert_eq!(older[0].id, page[10].id);
    let exact = AuditFilter {
        action: Some("passkey.removed".into()),
        target: Some(first.id.clone()),
        ..AuditFilter::default()
    };
    assert_eq!(store.audit_page(&exact, 100).await.unwrap().len(), 1);

    // Channels: an identity's key registered once; an append moves the head only from the head
    // it names; members set, changed and removed; a deleted member account leaves its identity
    // (its entries keep their author) and a deleted channel takes its entries.
    let member = store
        .create_user(
            &admin.id,
            &format!("m-{tag}@example.test"),
            "M",
            "user",
            hash,
            NOW,
        )
        .await
        .unwrap()
        .unwrap();
    let ident = |user: &str, n: u8| IdentityRow {
        id: secret::new_id().unwrap(),
        user_id: Some(user.to_owned()),
        subshell_id: None,
        name: format!("i{n}"),
        public_jwk: "{}".into(),
        thumbprint: format!("{tag}-{n}"),
        created_at: NOW,
        revoked_at: None,
    };
    let i1 = ident(&admin.id, 1);
    assert_eq!(
        store.add_identity(&i1, "cookie", 1_000, 8).await.unwrap(),
        AddIdentity::Added
    );
    let dup = IdentityRow {
        id: secret::new_id().unwrap(),
        ..i1.clone()
    };
    assert_eq!(
        store.add_identity(&dup, "cookie", 1_000, 8).await.unwrap(),
        AddIdentity::Taken
    );
    let i2 = ident(&member.id, 2);
    assert_eq!(
        store.add_identity(&i2, "cookie", 1_000, 8).await.unwrap(),
        AddIdentity::Added
    );
    assert_eq!(store.identity_count(&admin.id).await.unwrap(), 1);
    assert!(
        store
            .revoke_identity(&i1.id, &admin.id, "cookie", NOW)
            .await
            .unwrap()
    );
    assert!(
        !store
            .revoke_identity(&i1.id, &admin.id, "cookie", NOW)
            .await
            .unwrap()
    );
    assert_eq!(
        store.identity(&i1.id).await.unwrap().unwrap().revoked_at,
        Some(NOW)
    );
    assert_eq!(
        store.identity_count(&admin.id).await.unwrap(),
        0,
        "a revoked identity holds no place"
    );
    let genesis = "0".repeat(64);
    let chan = ChannelRow {
        id: secret::new_id().unwrap(),
        owner_user_id: admin.id.clone(),
        name: "c".into(),
        description: String::new(),
        sealed_key: "k".into(),
        head_seq: 0,
        head_hash: genesis.clone(),
        created_at: NOW,
    };
    assert!(store.add_channel(&chan, "cookie", 1_000).await.unwrap());
    let e = |seq: i64, prev: &str, hash: &str, by: &str| EntryRow {
        channel_id: chan.id.clone(),
        seq,
        identity_id: by.to_owned(),
        prev_hash: prev.to_owned(),
        hash: hash.to_owned(),
        signature: "s".into(),
        sealed_body: format!("b{seq}"),
        created_at: NOW + seq,
    };
    store
        .append_entry(&e(1, &genesis, "h1", &i1.id))
        .await
        .unwrap();
    store.append_entry(&e(2, "h1", "h2", &i2.id)).await.unwrap();
    match store.append_entry(&e(2, "h1", "other", &i1.id)).await {
        Err(AppendError::HeadMoved { seq, hash }) => assert_eq!((seq, hash.as_str()), (2, "h2")),
        other => panic!("a stale head was accepted: {other:?}"),
    }
    let rows = store.entries(&chan.id, 2, 10).await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].seq, rows[0].sealed_body.as_str()), (2, "b2"));
    assert_eq!(store.entries(&chan.id, 1, 1).await.unwrap()[0].hash, "h1");
    let c = store.channel(&chan.id).await.unwrap().unwrap();
    assert_eq!((c.head_seq, c.head_hash.as_str()), (2, "h2"));
    store
        .set_member(&chan.id, &member.id, "read", &admin.id, "cookie", NOW)
        .await
        .unwrap();
    store
        .set_member(&chan.id, &member.id, "write", &admin.id, "cookie", NOW)
        .await
        .unwrap();
    assert_eq!(
        store
            .member_access(&chan.id, &member.id)
            .await
            .unwrap()
            .as_deref(),
        Some("write")
    );
    let seen = store.channels_of(&member.id).await.unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].1, "write");
    assert_eq!(store.channels_of(&admin.id).await.unwrap()[0].1, "write");
    assert_eq!(store.members(&chan.id).await.unwrap().len(), 1);
    store.delete_user(&admin.id, &member.id, NOW).await.unwrap();
    assert!(
        store
            .member_access(&chan.id, &member.id)
            .await
            .unwrap()
            .is_none()
    );
    let orphan = store.identity(&i2.id).await.unwrap().unwrap();
    assert_eq!(orphan.user_id, None, "the identity outlives its account");
    assert_eq!(store.entries(&chan.id, 1, 10).await.unwrap().len(), 2);
    assert!(
        store
            .remove_member(&chan.id, &member.id, &admin.id, "cookie", NOW)
            .await
            .is_ok_and(|gone| !gone)
    );
    assert!(
        store
            .delete_channel(&chan.id, &admin.id, "cookie", NOW)
            .await
            .unwrap()
    );
    assert!(store.channel(&chan.id).await.unwrap().is_none());
    assert!(store.entries(&chan.id, 1, 10).await.unwrap().is_empty());
    assert!(
        !store
            .delete_channel(&chan.id, &admin.id, "cookie", NOW)
            .await
            .unwrap()
    );

    let audit = store.audit_entries(1000).await.unwrap();
    for a in [
        "passkey.added",
        "passkey.removed",
        "system_key.created",
        "system_key.disabled",
        "system_key.deleted",
        "setup_key.created",
        "node.enrolled",
        "node.key_rotated",
        "node.deleted",
        "user.disabled",
        "identity.registered",
        "identity.revoked",
        "channel.created",
        "channel.member_set",
        "channel.deleted",
    ] {
        assert!(
            audit.iter().any(|e| e.action == a && e.detail.is_object()),
            "{a}"
        );
    }
    store.close().await;
    again.close().await;
}

/// A fresh SQLite file's URL in a directory of its own.
fn sqlite_file(tag: &str) -> String {
    let dir = common::tempdir(tag);
    format!("sqlite://{}?mode=rwc", dir.join("s.db").display())
}

/// The test PostgreSQL database, when one is given (under `CI` its absence is a failure).
fn postgres_url() -> Option<String> {
    match std::env::var("TERMPLANE_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set but TERMPLANE_TEST_POSTGRES_URL is not: run `export TERMPLANE_TEST_POSTGRES_URL=\"$(bash tools/ci/postgres.sh)\"` first"
            );
            None
        }
    }
}

#[test]
fn storage_sqlite_file() {
    smol::block_on(exercise(&sqlite_file("store")));
}

#[test]
fn storage_sqlite_memory() {
    smol::block_on(async {
        let store = Store::open("sqlite::memory:", NOW).await.unwrap();
        assert_eq!(store.node_count().await.unwrap(), 1);
        assert!(!store.setup_done().await.unwrap());
    });
}

#[test]
fn storage_postgres() {
    if let Some(url) = postgres_url() {
        smol::block_on(exercise(&url));
    }
}

/// Writers that read before they write, many at once on one database, all succeed and keep the
/// limit they check: none is refused "database is locked" on SQLite because another wrote
/// between its read and its write (a write transaction takes the write lock when it begins and
/// waits for it under the busy timeout), and on PostgreSQL two cannot both see room for one
/// more passkey, identity or channel and both add it.
async fn concurrent_writers(url: &str) {
    let store = Arc::new(Store::open(url, NOW).await.unwrap());
    let hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA";
    let tag = secret::new_id().unwrap();
    let user = store
        .create_user(
            "x",
            &format!("owner-{tag}@example.test"),
            "O",
            "user",
            hash,
            NOW,
        )
        .await
        .unwrap()
        .unwrap();
    let mut tasks = Vec::new();
    for w in 0..8 {
        let store = Arc::clone(&store);
        let user_id = user.id.clone();
        let tag = tag.clone();
        tasks.push(smol::spawn(async move {
            let mut failures = Vec::new();
            for i in 0..12 {
                let p = PasskeyRow {
                    id: secret::new_id().unwrap(),
                    user_id: user_id.clone(),
                    name: format!("key {w}-{i}"),
                    credential_id: format!("cred-{tag}-{w}-{i}"),
                    passkey: "{}".into(),
                    created_at: NOW,
                    last_used_at: None,
                };
                if let Err(e) = store.add_passkey(&p).await {
                    failures.push(e.to_string());
                }
            }
            failures
        }));
    }
    let mut failures = Vec::new();
    for t in tasks {
        failures.extend(t.await);
    }
    assert!(failures.is_empty(), "writers refused: {failures:?}");
    let held = store.passkeys_of(&user.id).await.unwrap().len();
    let cap = usize::try_from(termplane::store::MAX_PASSKEYS_PER_ACCOUNT).unwrap();
    assert_eq!(
        held, cap,
        "96 attempts fill the account exactly to its limit"
    );

    // Identities, then channels, against a limit of 5: 48 attempts each, all at once.
    for phase in ["identity", "channel"] {
        let mut tasks = Vec::new();
        for w in 0..8 {
            let store = Arc::clone(&store);
            let user_id = user.id.clone();
            let tag = tag.clone();
            tasks.push(smol::spawn(async move {
                let mut out = Vec::new();
                for i in 0..6 {
                    let r = if phase == "identity" {
                        let ident = IdentityRow {
                            id: secret::new_id().unwrap(),
                            user_id: Some(user_id.clone()),
                            subshell_id: None,
                            name: format!("i{w}-{i}"),
                            public_jwk: "{}".into(),
                            thumbprint: format!("{tag}-{w}-{i}"),
                            created_at: NOW,
                            revoked_at: None,
                        };
                        store.add_identity(&ident, "cookie", 5, 8).await.map(|_| ())
                    } else {
                        let chan = ChannelRow {
                            id: secret::new_id().unwrap(),
                            owner_user_id: user_id.clone(),
                            name: format!("c{w}-{i}"),
                            description: String::new(),
                            sealed_key: "k".into(),
                            head_seq: 0,
                            head_hash: "h".into(),
                            created_at: NOW,
                        };
                        store.add_channel(&chan, "cookie", 5).await.map(|_| ())
                    };
                    out.push(r);
                }
                out
            }));
        }
        for t in tasks {
            for r in t.await {
                r.unwrap();
            }
        }
    }
    assert_eq!(store.identity_count(&user.id).await.unwrap(), 5);
    assert_eq!(store.channel_count(&user.id).await.unwrap(), 5);
    store.close().await;
}

#[test]
fn concurrent_read_then_write_transactions_on_a_sqlite_file_all_succeed() {
    smol::block_on(concurrent_writers(&sqlite_file("store-concurrent")));
}

#[test]
fn concurrent_read_then_write_transactions_on_postgres_keep_their_limits() {
    if let Some(url) = postgres_url() {
        smol::block_on(concurrent_writers(&url));
    }
}

/// A live subshell row of `owner` on the local node, its agent `starting`.
fn running_row(id: &str, owner: &str, node: &str) -> Subshell {
    Subshell {
        id: id.into(),
        owner_user_id: owner.into(),
        node_id: node.into(),
        harness_id: "shell".into(),
        name: "agent".into(),
        cwd: "/".into(),
        preset_id: None,
        workspace_id: None,
        launch_spec: "{}".into(),
        state: "running".into(),
        exit_code: None,
        error: None,
        cols: 80,
        rows: 24,
        prompt: None,
        prompt_state: "none".into(),
        auto_restart: false,
        restarts: 0,
        attention: "none".into(),
        attention_at: None,
        harness_session_id: None,
        token_digest: None,
        token_perms: "{}".into(),
        token_expires_at: None,
        parent_subshell_id: None,
        created_by_kind: "cookie".into(),
        mcp_seen_at: None,
        created_at: NOW,
        updated_at: NOW,
        started_at: Some(NOW),
        ended_at: None,
        warning: None,
        agent: AgentRow::starting(NOW),
    }
}

/// Agent state reports: applied, kept words on a same-state report that has none, refused when
/// out of order or for a pane that is not live, and — eight racing at once — one audited
/// transition.
async fn agent_reports(url: &str) {
    let store = Arc::new(Store::open(url, NOW).await.unwrap());
    let tag = secret::new_id().unwrap();
    let hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA";
    let user = store
        .create_user(
            "x",
            &format!("agent-{tag}@example.test"),
            "O",
            "user",
            hash,
            NOW,
        )
        .await
        .unwrap()
        .unwrap();
    let node = store
        .nodes(None)
        .await
        .unwrap()
        .into_iter()
        .find(|n| n.is_local)
        .unwrap()
        .id;
    let id = tag.clone();
    store
        .insert_subshell(&running_row(&id, &user.id, &node), &user.id, "cookie")
        .await
        .unwrap();
    let said = |state: &str, summary: Option<&str>, observed: Option<i64>| AgentRow {
        state: state.into(),
        since: Some(NOW),
        summary: summary.map(str::to_owned),
        link: None,
        source: "hook".into(),
        observed_at: observed,
    };
    let actor = (Some(user.id.as_str()), "pane");
    let w = store
        .report_agent(
            &id,
            &said("working", Some("a"), Some(10)),
            false,
            None,
            actor,
            NOW + 1,
        )
        .await
        .unwrap();
    assert_eq!(
        w,
        AgentWrite::Applied {
            from: "starting".into()
        }
    );
    let w = store
        .report_agent(
            &id,
            &said("working", None, None),
            true,
            None,
            actor,
            NOW + 2,
        )
        .await
        .unwrap();
    assert_eq!(
        w,
        AgentWrite::Applied {
            from: "working".into()
        }
    );
    let row = store.subshell(&id).await.unwrap().unwrap();
    assert_eq!(row.agent.summary.as_deref(), Some("a"), "kept");
    assert_eq!(
        row.agent.since,
        Some(NOW + 1),
        "same state, same time entered"
    );
    assert_eq!(
        row.agent.observed_at,
        Some(10),
        "no time of its own keeps the last"
    );
    let w = store
        .report_agent(
            &id,
            &said("idle", None, Some(5)),
            false,
            None,
            actor,
            NOW + 3,
        )
        .await
        .unwrap();
    assert_eq!(w, AgentWrite::Stale { latest: 10 });
    assert_eq!(
        store.subshell(&id).await.unwrap().unwrap().agent.state,
        "working"
    );

    let mut tasks = Vec::new();
    for i in 0..8 {
        let store = Arc::clone(&store);
        let (id, user) = (id.clone(), user.id.clone());
        tasks.push(smol::spawn(async move {
            let r = AgentRow {
                state: "needs_input".into(),
                since: Some(NOW),
                summary: Some(format!("racer {i}")),
                link: None,
                source: "self_report".into(),
                observed_at: None,
            };
            store
                .report_agent(&id, &r, false, None, (Some(&user), "pane"), NOW + 10 + i)
                .await
                .unwrap()
        }));
    }
    let mut froms = Vec::new();
    for t in tasks {
        match t.await {
            AgentWrite::Applied { from } => froms.push(from),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        froms.iter().filter(|f| *f == "working").count(),
        1,
        "{froms:?}"
    );
    let audited = store
        .audit_page(
            &AuditFilter {
                action: Some("subshell.agent_state".into()),
                target: Some(id.clone()),
                ..AuditFilter::default()
            },
            100,
        )
        .await
        .unwrap();
    let tos: Vec<&str> = audited
        .iter()
        .rev()
        .map(|e| e.detail["to"].as_str().unwrap())
        .collect();
    assert_eq!(tos, ["working", "needs_input"]);

    // A report decided on a state the row no longer has (the screen read before a hook's word
    // landed) is not written, and nothing is audited.
    let screen = AgentRow {
        source: "screen".into(),
        ..said("idle", Some("waits for a prompt"), None)
    };
    let w = store
        .report_agent(
            &id,
            &screen,
            false,
            Some(("working", "hook")),
            (None, "plane"),
            NOW + 19,
        )
        .await
        .unwrap();
    assert_eq!(w, AgentWrite::Moved);
    let row = store.subshell(&id).await.unwrap().unwrap();
    assert_eq!(
        (row.agent.state.as_str(), row.agent.source.as_str()),
        ("needs_input", "self_report")
    );
    let w = store
        .report_agent(
            &id,
            &screen,
            false,
            Some(("needs_input", "self_report")),
            (None, "plane"),
            NOW + 19,
        )
        .await
        .unwrap();
    assert_eq!(
        w,
        AgentWrite::Applied {
            from: "needs_input".into()
        }
    );
    let last = store
        .audit_page(
            &AuditFilter {
                action: Some("subshell.agent_state".into()),
                target: Some(id.clone()),
                ..AuditFilter::default()
            },
            1,
        )
        .await
        .unwrap();
    assert_eq!(last[0].detail["source"], "screen");
    assert_eq!(last[0].actor_kind.as_str(), "plane");
    assert!(last[0].actor_user_id.is_none());

    // Ended: nothing more is recorded.
    let ended = Change {
        state: "exited",
        ended: true,
        ..Change::default()
    };
    assert!(
        store
            .change_subshell(&id, "running", &ended, NOW + 20)
            .await
            .unwrap()
    );
    let w = store
        .report_agent(&id, &said("idle", None, None), false, None, actor, NOW + 30)
        .await
        .unwrap();
    assert_eq!(w, AgentWrite::NotLive);
    assert_eq!(
        store
            .report_agent(
                "no-such-row",
                &said("idle", None, None),
                false,
                None,
                actor,
                NOW
            )
            .await
            .unwrap(),
        AgentWrite::NotLive
    );
}

#[test]
fn agent_reports_on_sqlite() {
    smol::block_on(agent_reports(&sqlite_file("agent")));
}

#[test]
fn agent_reports_on_postgres() {
    if let Some(url) = postgres_url() {
        smol::block_on(agent_reports(&url));
    }
}

/// A plane's key files and its database go together: the first start records their
/// fingerprints; a data directory given the same files (a replica, a restored host) starts; one
/// lacking a file or holding another is refused, naming it, and nothing is made anew.
async fn key_files_are_checked_against_their_database(url: &str) {
    use termplane::keys::{KEY_FILES, KeyCheckError, load_checked};
    let store = Store::open(url, NOW).await.unwrap();
    let a = common::tempdir("keys-a");
    let first = load_checked(&store, &a, NOW).await.unwrap();
    let recorded = store.plane_key_fingerprints().await.unwrap();
    assert_eq!(recorded.len(), 4, "{recorded:?}");
    for (name, _) in KEY_FILES {
        assert!(a.join(name).exists(), "{name} made on the first start");
        // The fingerprint is not the secret.
        let secret = std::fs::read(a.join(name)).unwrap();
        assert!(!recorded[name].contains(&termplane::secret::hex_lower(&secret)));
    }
    let again = load_checked(&store, &a, NOW).await.unwrap();
    assert_eq!((again.link, again.signing), (first.link, first.signing));
    let copy_into = |tag: &str, leave_out: Option<&str>| {
        let d = common::tempdir(tag);
        for (name, _) in KEY_FILES {
            if Some(name) != leave_out {
                std::fs::copy(a.join(name), d.join(name)).unwrap();
            }
        }
        d
    };
    // The same files in another data directory: the same keys.
    let replica = copy_into("keys-replica", None);
    let r = load_checked(&store, &replica, NOW).await.unwrap();
    assert_eq!((r.link, r.signing), (first.link, first.signing));
    // No files at all: refused, and none is made.
    let empty = common::tempdir("keys-empty");
    let e = load_checked(&store, &empty, NOW).await.unwrap_err();
    assert!(matches!(e, KeyCheckError::Missing { .. }), "{e}");
    assert!(e.to_string().contains("refusing to start"), "{e}");
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
    // One file left out: refused naming it, and it is not made.
    let partial = copy_into("keys-partial", Some("vapid.key"));
    let e = load_checked(&store, &partial, NOW).await.unwrap_err();
    assert!(
        matches!(
            e,
            KeyCheckError::Missing {
                name: "vapid.key",
                ..
            }
        ),
        "{e}"
    );
    assert!(!partial.join("vapid.key").exists());
    // One file another plane's: refused naming it.
    let other = copy_into("keys-other", None);
    let foreign = common::tempdir("keys-foreign");
    let made = load_checked(
        &Store::open("sqlite::memory:", NOW).await.unwrap(),
        &foreign,
        NOW,
    )
    .await
    .unwrap();
    assert_ne!(made.link, first.link);
    std::fs::remove_file(other.join("channels.key")).unwrap();
    std::fs::copy(foreign.join("channels.key"), other.join("channels.key")).unwrap();
    let e = load_checked(&store, &other, NOW).await.unwrap_err();
    match e {
        KeyCheckError::Differs { path } => assert_eq!(path, other.join("channels.key")),
        e => panic!("{e}"),
    }
}

#[test]
fn key_files_are_checked_against_their_sqlite_database() {
    smol::block_on(key_files_are_checked_against_their_database(&sqlite_file(
        "keys-db",
    )));
}

#[test]
fn key_files_are_checked_against_their_postgres_database() {
    if postgres_url().is_some() {
        let name = format!("tp_{}", termplane::secret::new_id().unwrap());
        common::run_sql_on_server(&format!("CREATE DATABASE {name}"));
        let base = std::env::var("TERMPLANE_TEST_POSTGRES_URL").unwrap();
        let (server, _) = base.rsplit_once('/').unwrap();
        smol::block_on(key_files_are_checked_against_their_database(&format!(
            "{server}/{name}"
        )));
    }
}
