// Channels: append-only logs that people and their panes write to and read, every entry signed
// by its writer and checked by the plane as it is read. The list of the account's channels and
// a form for a new one; a channel's entries (kept current by the live feed), a composer that
// signs with this browser's own key (identity.ts), its members, leaving and deleting.

import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, ApiError } from "../api";
import { browserIdentity, createIdentity, loadIdentity, MAX_BODY_CHARS, postEntry, revokeIdentity, signingSupported } from "../identity";
import { feedStatus, onChannelEntry } from "../live";
import { defaultDeviceName } from "../push";
import { Link, navigate } from "../router";
import { session } from "../session";
import { useStore } from "../store";
import { Table } from "../table";
import type { Access, Channel, ChannelEntry, ChannelMember, CreateChannel, EntryPage, User } from "../types";
import { Badge, confirmAction, CopyButton, Dialog, Empty, ErrorNote, Note, PageHead, showFailure, TextField, Time, toast, useAction } from "../ui";

/** How many of the newest entries a channel opens with, and how many more "Load earlier" adds. */
const WINDOW = 100;
/** Page size when catching up. */
const PAGE = 200;

const PROBLEMS: Record<string, string> = {
  UNREADABLE: "its text cannot be decrypted",
  HASH: "its hash does not match its contents",
  SIGNATURE: "its signature does not verify with its identity's key",
  CHAIN: "it does not follow the entry before it (an entry may be missing or changed)",
};

function useMe() {
  const s = useStore(session);
  return s.kind === "signed-in" ? s.me : null;
}

function accessText(a: Access): string {
  return a === "write" ? "Read and write" : "Read only";
}

function yourAccess(c: Channel, me: string | undefined): string {
  return c.ownerUserId === me ? "Owner" : accessText(c.access);
}

function byName(list: Channel[]): Channel[] {
  return [...list].sort((a, b) => a.name.localeCompare(b.name));
}

/** Characters as the plane counts them (Unicode scalar values, not UTF-16 units). */
function chars(text: string): number {
  return Array.from(text).length;
}

// ----- the list -----

export function ChannelsPage() {
  const me = useMe();
  const [channels, setChannels] = useState<Channel[] | null>(null);
  const [creating, setCreating] = useState(false);
  const shown = useRef<Channel[] | null>(null);
  shown.current = channels;
  const act = useAction();

  const load = async () => setChannels(byName(await api.GET("/api/channels")));
  useEffect(() => {
    void act.run(load);
  }, []);

  // Entry counts follow the live feed; a channel not listed yet (just joined) lists them again.
  useEffect(
    () =>
      onChannelEntry((f) => {
        if (!shown.current) return;
        if (!shown.current.some((c) => c.id === f.channelId)) {
          load().catch((e: unknown) => showFailure("The channels could not be listed again", e));
          return;
        }
        setChannels((list) =>
          (list ?? []).map((c) => (c.id === f.channelId && f.seq > c.head.seq ? { ...c, head: { seq: f.seq, hash: f.hash } } : c)),
        );
      }),
    [],
  );

  return (
    <div class="page">
      <PageHead title="Channels">
        <button type="button" class="btn btn-primary" onClick={() => setCreating(true)}>
          New channel
        </button>
      </PageHead>
      <p class="muted">
        Append-only logs that you, the people you add and your panes write to: agents coordinating work, progress reports,
        notes left for each other. Every entry is signed by its writer and checked as it is read.
      </p>
      <ErrorNote error={act.error} />
      <section class="section">
        <h2>Your channels</h2>
        {channels && channels.length === 0 ? <Empty>No channels yet. Make one, or ask a channel's owner to add you.</Empty> : null}
        {channels && channels.length ? (
          <Table
            testId="channels"
            rows={channels}
            rowKey={(c) => c.id}
            rowAttrs={(c) => ({ "data-id": c.id, "data-name": c.name, "data-entries": c.head.seq })}
            columns={[
              { label: "Name", cell: (c) => <Link href={`/channels/${c.id}`}>{c.name}</Link> },
              { label: "Description", class: "channel-desc", cell: (c) => c.description || <span class="muted">—</span> },
              { label: "Your access", cell: (c) => yourAccess(c, me?.id) },
              { label: "Entries", cell: (c) => c.head.seq },
              { label: "Made", cell: (c) => <Time ms={c.createdAt} /> },
            ]}
          />
        ) : null}
      </section>
      {me ? <IdentitySection userId={me.id} /> : null}
      <NewChannelDialog open={creating} onClose={() => setCreating(false)} />
    </div>
  );
}

function NewChannelDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const act = useAction();
  useEffect(() => {
    if (!open) return;
    setName("");
    setDescription("");
    act.setError(null);
  }, [open]);

  const submit = async (e: Event) => {
    e.preventDefault();
    const body: CreateChannel = { name: name.trim() };
    if (description.trim()) body.description = description.trim();
    const c = await act.run(() => api.POST("/api/channels", { body }));
    if (c) {
      toast(`Channel “${c.name}” made.`);
      onClose();
      navigate(`/channels/${c.id}`);
    }
  };

  return (
    <Dialog title="New channel" open={open} onClose={onClose}>
      <form class="stack" onSubmit={submit}>
        <TextField label="Name" value={name} onValue={setName} required maxLength={64} placeholder="release-1.4" id="channel-name" />
        <TextField
          label="Description"
          value={description}
          onValue={setDescription}
          maxLength={500}
          hint="Optional: what it is for, in a line."
          id="channel-description"
        />
        <ErrorNote error={act.error} />
        <div class="actions">
          <button type="button" class="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="btn btn-primary" disabled={act.busy || !name.trim()}>
            {act.busy ? "Creating…" : "Create channel"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

// ----- this browser's signing identity -----

function useIdentity(userId: string) {
  const s = useStore(browserIdentity);
  useEffect(() => {
    if (signingSupported()) loadIdentity(userId).catch((e: unknown) => showFailure("This browser's signing key could not be checked", e));
  }, [userId]);
  return s && s.userId === userId ? s : null;
}

const SECURE_NOTE =
  "Posting needs a secure address: open this plane over https:// (or at localhost on this computer). Reading works either way.";

function IdentitySection({ userId }: { userId: string }) {
  const state = useIdentity(userId);
  const [name, setName] = useState(defaultDeviceName);
  const act = useAction();
  const identity = state?.identity ?? null;

  useEffect(() => {
    if (state && location.hash === "#identity") document.getElementById("identity")?.scrollIntoView();
  }, [!!state]);

  const create = async (e: Event) => {
    e.preventDefault();
    const r = await act.run(() => createIdentity(userId, name.trim() || defaultDeviceName()));
    if (r) toast(`This browser now signs as “${r.name}”.`);
  };

  const revoke = async () => {
    if (!identity) return;
    const ok = await confirmAction(
      `Revoke “${identity.name}”?`,
      "This browser forgets its key and the identity posts nothing more; the entries it signed keep verifying. Your next post makes a new identity.",
      "Revoke",
    );
    if (!ok) return;
    const done = await act.run(async () => {
      await revokeIdentity(userId, identity);
      return true;
    });
    if (done) toast("Identity revoked.");
  };

  let body;
  if (!signingSupported()) body = <Note tone="muted">{SECURE_NOTE}</Note>;
  else if (!state) body = <p class="muted">Looking for this browser's identity…</p>;
  else if (identity) {
    body = (
      <>
        <dl class="facts" data-testid="identity" data-identity={identity.identityId} data-thumbprint={identity.thumbprint}>
          <dt>Name</dt>
          <dd>{identity.name}</dd>
          <dt>Key thumbprint</dt>
          <dd>
            <span class="mono hash">{identity.thumbprint}</span> <CopyButton text={identity.thumbprint} what="key thumbprint" />
          </dd>
        </dl>
        {identity.kept ? null : (
          <Note tone="warn">This browser would not store the key: it lasts until this page closes, then a new identity is made.</Note>
        )}
        <div class="actions actions-left">
          <button type="button" class="btn btn-danger" disabled={act.busy} onClick={revoke}>
            Revoke this identity
          </button>
        </div>
      </>
    );
  } else {
    body = (
      <>
        <p>This browser has no signing identity yet. Your first post makes one, or make it now.</p>
        <form class="row-form" onSubmit={create}>
          <TextField label="Identity name" value={name} onValue={setName} required maxLength={64} id="identity-name" />
          <button type="submit" class="btn" disabled={act.busy}>
            Create my signing identity
          </button>
        </form>
      </>
    );
  }

  return (
    <section class="section" id="identity">
      <h2>This browser's signing identity</h2>
      <p class="muted">
        Your entries are signed with a key made by this browser. Its private half never leaves the browser; the plane knows only the
        public key. Compare the thumbprint with the one shown on your entries.
      </p>
      {body}
      <ErrorNote error={act.error} />
    </section>
  );
}

function SigningAs({ userId }: { userId: string }) {
  const state = useIdentity(userId);
  if (!state) return <p class="hint">Looking for this browser's signing identity…</p>;
  if (!state.identity) {
    return (
      <p class="hint" data-testid="signing-as">
        Your first post makes a signing identity for this browser, “{defaultDeviceName()}”; its private key stays here.
      </p>
    );
  }
  const id = state.identity;
  return (
    <p class="hint" data-testid="signing-as" data-identity={id.identityId} data-thumbprint={id.thumbprint}>
      Signing as <strong>{id.name}</strong>, key thumbprint <span class="mono hash">{id.thumbprint}</span> (
      <Link href="/channels#identity">manage</Link>)
    </p>
  );
}

// ----- one channel -----

function EntryItem({ entry, email }: { entry: ChannelEntry; email: string | undefined }) {
  const a = entry.author;
  return (
    <li class="entry" data-seq={entry.seq} data-verified={entry.verified ? "yes" : "no"} data-identity={entry.identityId} data-thumbprint={a.thumbprint}>
      <div class="entry-head">
        <span class="entry-author">
          <strong>{a.name}</strong>
          {a.subshellId ? (
            <>
              {" · "}
              <Link href={`/subshells/${a.subshellId}`}>pane {a.subshellId.slice(0, 8)}</Link>
            </>
          ) : null}
          {email ? <span class="muted"> · {email}</span> : null}
        </span>
        <Time ms={entry.createdAt} />
        {entry.verified ? (
          <Badge tone="ok" title="The plane checked its text, hash, signature and place in the chain">
            <span aria-hidden="true">✓</span> Verified
          </Badge>
        ) : (
          <Badge tone="bad">
            <span aria-hidden="true">⚠</span> Not verified
          </Badge>
        )}
        <span class="muted small mono" title={`Entry ${entry.seq}, hash ${entry.hash}`}>
          #{entry.seq}
        </span>
      </div>
      {entry.verified ? null : (
        <p class="entry-warn" data-problem={entry.problem ?? ""}>
          Warning: {entry.problem ? PROBLEMS[entry.problem] ?? entry.problem : "a check failed"}. Do not trust this entry.
        </p>
      )}
      {entry.body === null ? <p class="muted">(The text cannot be read.)</p> : <pre class="entry-body">{entry.body}</pre>}
      <div class="entry-meta muted small">
        key <span class="mono hash" title={`Key thumbprint of ${a.name}`}>{a.thumbprint}</span>
      </div>
    </li>
  );
}

export function ChannelPage({ id }: { id: string }) {
  const me = useMe();
  const [channel, setChannel] = useState<Channel | null>(null);
  const [gone, setGone] = useState(false);
  const [entries, setEntries] = useState<ChannelEntry[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [firstAfter, setFirstAfter] = useState(0);
  const [members, setMembers] = useState<ChannelMember[] | null>(null);
  const [users, setUsers] = useState<User[]>([]);
  const [text, setText] = useState("");
  const act = useAction(); // loading, leaving, deleting
  const feed = useAction(); // catching up
  const posting = useAction();
  const status = useStore(feedStatus);

  const last = useRef(0); // the newest seq shown
  const ready = useRef(false);
  const running = useRef(false);
  const again = useRef(false);
  const alive = useRef(true);
  const log = useRef<HTMLDivElement>(null);
  const stick = useRef(false);
  const keepFromBottom = useRef<number | null>(null);
  const composer = useRef<HTMLTextAreaElement>(null);

  const isOwner = !!channel && !!me && channel.ownerUserId === me.id;
  const canWrite = channel?.access === "write";

  const atBottom = () => {
    const el = log.current;
    return !el || el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  };

  /** Reads the entries after the newest shown, page by page; one reader at a time. */
  const catchUp = async (): Promise<void> => {
    if (running.current) {
      again.current = true;
      return;
    }
    running.current = true;
    try {
      do {
        again.current = false;
        for (;;) {
          let page: EntryPage;
          try {
            page = await api.GET("/api/channels/{id}/entries", { params: { path: { id }, query: { after: last.current, limit: PAGE } } });
          } catch (e) {
            if (e instanceof ApiError && e.status === 404) {
              setGone(true);
              return;
            }
            throw e;
          }
          if (!alive.current) return;
          const fresh = page.entries.filter((x) => x.seq > last.current);
          if (fresh.length) {
            last.current = fresh[fresh.length - 1]!.seq;
            if (atBottom()) stick.current = true;
            setEntries((list) => [...list, ...fresh]);
          }
          setChannel((c) => (c && c.head.seq !== page.head.seq ? { ...c, head: page.head } : c));
          if (page.entries.length < PAGE) break;
        }
      } while (again.current);
    } finally {
      running.current = false;
    }
  };

  const loadMembers = async (owner: boolean) => {
    const [list, roster] = await Promise.all([
      api.GET("/api/channels/{id}/members", { params: { path: { id } } }),
      owner ? api.GET("/api/users") : Promise.resolve<User[]>([]),
    ]);
    setMembers(list);
    setUsers(roster);
  };

  useEffect(() => {
    alive.current = true;
    void act.run(async () => {
      let c: Channel;
      try {
        c = await api.GET("/api/channels/{id}", { params: { path: { id } } });
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) {
          setGone(true);
          return;
        }
        throw e;
      }
      setChannel(c);
      const from = Math.max(0, c.head.seq - WINDOW);
      setFirstAfter(from);
      last.current = from;
      ready.current = true;
      stick.current = true;
      await Promise.all([catchUp(), loadMembers(c.ownerUserId === me?.id)]);
      setLoaded(true);
    });
    return () => {
      alive.current = false;
    };
  }, [id]);

  // New entries, told by the live feed; and whatever passed while the feed was down.
  useEffect(
    () =>
      onChannelEntry((f) => {
        if (f.channelId === id && ready.current && f.seq > last.current) void feed.run(catchUp);
      }),
    [id],
  );
  useEffect(() => {
    if (status === "live" && ready.current) void feed.run(catchUp);
  }, [status]);

  // Follow the newest entry when the reader was at the bottom; keep the place when older ones
  // are added above.
  useLayoutEffect(() => {
    const el = log.current;
    if (!el) return;
    if (keepFromBottom.current !== null) {
      el.scrollTop = el.scrollHeight - keepFromBottom.current;
      keepFromBottom.current = null;
    } else if (stick.current) {
      el.scrollTop = el.scrollHeight;
    }
    stick.current = false;
  }, [entries]);

  const earlier = async () => {
    if (firstAfter <= 0) return;
    const from = Math.max(0, firstAfter - WINDOW);
    const page = await act.run(() =>
      api.GET("/api/channels/{id}/entries", { params: { path: { id }, query: { after: from, limit: firstAfter - from } } }),
    );
    if (!page) return;
    const older = page.entries.filter((x) => x.seq <= firstAfter);
    const el = log.current;
    keepFromBottom.current = el ? el.scrollHeight - el.scrollTop : null;
    setEntries((list) => [...older, ...list.filter((x) => x.seq > firstAfter)]);
    setFirstAfter(from);
  };

  const post = async (e?: Event) => {
    e?.preventDefault();
    if (!channel || !me || posting.busy || !text.trim()) return;
    const n = chars(text);
    if (n > MAX_BODY_CHARS) {
      posting.setError(new Error(`An entry is at most 16,384 characters; this one has ${n.toLocaleString()}.`));
      return;
    }
    const body = text;
    const r = await posting.run(() => postEntry(me.id, channel.id, channel.head, body, defaultDeviceName()));
    if (!r) return;
    setText("");
    stick.current = true;
    await feed.run(catchUp);
    // The new entry may have come with the live feed already: show the bottom either way.
    window.setTimeout(() => {
      const el = log.current;
      if (el) el.scrollTop = el.scrollHeight;
    }, 0);
    composer.current?.focus();
  };

  const leave = async () => {
    if (!channel || !me) return;
    if (!(await confirmAction(`Leave ${channel.name}?`, "You stop seeing it. Its owner can add you again.", "Leave"))) return;
    const done = await act.run(async () => {
      await api.DELETE("/api/channels/{id}/members/{userId}", { params: { path: { id, userId: me.id } } });
      return true;
    });
    if (done) {
      toast(`You left ${channel.name}.`);
      navigate("/channels");
    }
  };

  const remove = async () => {
    if (!channel) return;
    const ok = await confirmAction(
      `Delete ${channel.name}?`,
      `Its ${channel.head.seq === 1 ? "entry is" : `${channel.head.seq} entries are`} deleted for every member. This cannot be undone.`,
      "Delete channel",
    );
    if (!ok) return;
    const done = await act.run(async () => {
      await api.DELETE("/api/channels/{id}", { params: { path: { id } } });
      return true;
    });
    if (done) {
      toast(`${channel.name} deleted.`);
      navigate("/channels");
    }
  };

  const emails = useMemo(() => new Map((members ?? []).map((m) => [m.userId, m.email])), [members]);

  if (gone) {
    return (
      <div class="page">
        <PageHead title="Channel not found" />
        <p>
          No channel lives here, or you are not a member of it (any more). <Link href="/channels">Go to channels</Link>.
        </p>
      </div>
    );
  }

  return (
    <div class="page">
      <p class="back">
        <Link href="/channels">
          <span aria-hidden="true">←</span> Channels
        </Link>
      </p>
      <PageHead title={channel?.name ?? "Channel"}>
        {channel && !isOwner ? (
          <button type="button" class="btn" disabled={act.busy} onClick={leave}>
            Leave
          </button>
        ) : null}
        {isOwner ? (
          <button type="button" class="btn btn-danger" disabled={act.busy} onClick={remove}>
            Delete channel
          </button>
        ) : null}
      </PageHead>
      {channel ? (
        <p class="muted">
          {channel.description ? <>{channel.description} · </> : null}
          {isOwner ? "You own it" : `Your access: ${accessText(channel.access).toLowerCase()}`} ·{" "}
          <span data-testid="entry-count">{channel.head.seq === 1 ? "1 entry" : `${channel.head.seq} entries`}</span>
        </p>
      ) : null}
      <ErrorNote error={act.error} />
      <div class="channel-grid">
        <section class="channel-main" aria-label="Entries">
          {firstAfter > 0 ? (
            <div class="pager">
              <button type="button" class="btn btn-small" disabled={act.busy} onClick={earlier}>
                Load earlier entries ({firstAfter} before these)
              </button>
            </div>
          ) : null}
          {loaded && entries.length === 0 ? <Empty>No entries yet.{canWrite ? " Write the first one below." : ""}</Empty> : null}
          {entries.length ? (
            <div class="entries" ref={log} role="log" tabIndex={0} aria-label={`Entries of ${channel?.name ?? "the channel"}`} data-testid="entries">
              <ol class="entry-list">
                {entries.map((x) => (
                  <EntryItem key={x.seq} entry={x} email={x.author.userId ? emails.get(x.author.userId) : undefined} />
                ))}
              </ol>
            </div>
          ) : null}
          <ErrorNote error={feed.error} />
          {channel && me ? (
            canWrite ? (
              signingSupported() ? (
                <form class="composer stack" onSubmit={post} data-testid="composer">
                  <div class="field">
                    <label for="entry-body">Message</label>
                    <textarea
                      id="entry-body"
                      ref={composer}
                      rows={3}
                      value={text}
                      aria-describedby="entry-body-hint"
                      onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
                      onKeyDown={(e) => {
                        if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
                          e.preventDefault();
                          void post();
                        }
                      }}
                    />
                    <div class="hint" id="entry-body-hint">
                      Ctrl+Enter (⌘+Enter on a Mac) posts. Any text, up to 16,384 characters; shown exactly as written.
                    </div>
                  </div>
                  <ErrorNote error={posting.error} />
                  <div class="composer-foot">
                    <SigningAs userId={me.id} />
                    <button type="submit" class="btn btn-primary" disabled={posting.busy || !text.trim()}>
                      {posting.busy ? "Signing and posting…" : "Post"}
                    </button>
                  </div>
                </form>
              ) : (
                <Note tone="muted">{SECURE_NOTE}</Note>
              )
            ) : (
              <div class="note note-info" data-testid="channel-readonly">
                You have read access to this channel: you can read it but not post to it.
              </div>
            )
          ) : null}
        </section>
        {channel && me ? (
          <MembersPanel
            channel={channel}
            me={me.id}
            isOwner={isOwner}
            members={members}
            users={users}
            onMembers={setMembers}
            reload={() => loadMembers(isOwner)}
          />
        ) : null}
      </div>
    </div>
  );
}

function MembersPanel({
  channel,
  me,
  isOwner,
  members,
  users,
  onMembers,
  reload,
}: {
  channel: Channel;
  me: string;
  isOwner: boolean;
  members: ChannelMember[] | null;
  users: User[];
  onMembers: (m: ChannelMember[]) => void;
  reload: () => Promise<void>;
}) {
  const [userId, setUserId] = useState("");
  const [access, setAccess] = useState<Access>("read");
  const act = useAction();

  const byId = useMemo(() => new Map(users.map((u) => [u.id, u])), [users]);
  const candidates = users.filter(
    (u) => u.role !== "service" && !u.disabled && u.id !== channel.ownerUserId && !(members ?? []).some((m) => m.userId === u.id),
  );
  const who = (m: { userId: string; email?: string }) => byId.get(m.userId)?.displayName ?? m.email ?? "the account";

  const put = async (uid: string, a: Access, added: boolean) => {
    const r = await act.run(() =>
      api.PUT("/api/channels/{id}/members/{userId}", { params: { path: { id: channel.id, userId: uid } }, body: { access: a } }),
    );
    if (!r) return;
    onMembers(r);
    const name = who({ userId: uid, email: r.find((m) => m.userId === uid)?.email });
    toast(added ? `${name} added (${accessText(a).toLowerCase()}).` : `${name} now has ${accessText(a).toLowerCase()} access.`);
    if (added) setUserId("");
  };

  const remove = async (m: ChannelMember) => {
    if (!(await confirmAction(`Remove ${who(m)}?`, `They stop seeing ${channel.name}. You can add them again.`, "Remove"))) return;
    const done = await act.run(async () => {
      await api.DELETE("/api/channels/{id}/members/{userId}", { params: { path: { id: channel.id, userId: m.userId } } });
      return true;
    });
    if (done) {
      toast(`${who(m)} removed.`);
      await act.run(reload);
    }
  };

  return (
    <section class="channel-side" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <ErrorNote error={act.error} />
      {isOwner ? (
        <form
          class="stack member-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (userId) void put(userId, access, true);
          }}
        >
          <div class="field">
            <label for="member-user">Account</label>
            <select id="member-user" value={userId} onChange={(e) => setUserId((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">{candidates.length ? "Choose an account…" : "Everyone is a member"}</option>
              {candidates.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.displayName} ({u.email})
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="member-access">Access</label>
            <select id="member-access" value={access} onChange={(e) => setAccess((e.currentTarget as HTMLSelectElement).value as Access)}>
              <option value="read">Read only</option>
              <option value="write">Read and write (post)</option>
            </select>
          </div>
          <div>
            <button type="submit" class="btn" disabled={!userId || act.busy}>
              Add member
            </button>
          </div>
        </form>
      ) : null}
      {members ? (
        <ul class="list" data-testid="members">
          {members.map((m) => (
            <li key={m.userId} class="list-row" data-email={m.email} data-access={m.access}>
              <span class="member-name">
                {byId.get(m.userId)?.displayName ?? m.email}
                {m.userId === me ? <span class="muted"> (you)</span> : null}
                {byId.get(m.userId) ? <span class="muted small"> {m.email}</span> : null}
              </span>
              {m.owner ? (
                <Badge tone="info">Owner</Badge>
              ) : isOwner ? (
                <span class="list-actions">
                  <label class="sr-only" for={`member-access-${m.userId}`}>
                    Access of {who(m)}
                  </label>
                  <select
                    id={`member-access-${m.userId}`}
                    value={m.access}
                    disabled={act.busy}
                    onChange={(e) => void put(m.userId, (e.currentTarget as HTMLSelectElement).value as Access, false)}
                  >
                    <option value="read">Read only</option>
                    <option value="write">Read and write</option>
                  </select>
                  <button type="button" class="btn btn-small btn-danger" disabled={act.busy} onClick={() => remove(m)}>
                    Remove<span class="sr-only"> {who(m)}</span>
                  </button>
                </span>
              ) : (
                <Badge tone="muted">{accessText(m.access)}</Badge>
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
