//! Word between the replicas on one PostgreSQL database: `NOTIFY` on [`WORDS_CHANNEL`] with
//! `<replica> <topic> <id>` as the payload — ids only, never data (a payload holds at most
//! 8,000 bytes, and the rows are the truth: a replica that hears a word reads them again). On
//! SQLite, which one plane holds alone, nothing is said and nothing heard.

use sqlx::Row;

use super::{Backend, Store};

/// The PostgreSQL channel the replicas speak on.
pub const WORDS_CHANNEL: &str = "termplane_words";

/// What a word is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topic {
    /// A replica took a node's link (the id: the node).
    Link,
    /// A node's row changed (its liveness).
    Node,
    /// A subshell's row changed.
    Subshell,
    /// A subshell is gone for some accounts (see [`Store::put_gone`]).
    Gone,
    /// A channel has a new entry.
    Channel,
    /// A credential or an account changed: open sockets re-check their grants (no id).
    Access,
    /// The viewers of a pane changed (the id: the subshell; see [`Store::viewers_of`]).
    Viewers,
}

impl Topic {
    fn as_str(self) -> &'static str {
        match self {
            Self::Link => "link",
            Self::Node => "node",
            Self::Subshell => "subshell",
            Self::Gone => "gone",
            Self::Channel => "channel",
            Self::Access => "access",
            Self::Viewers => "viewers",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "link" => Self::Link,
            "node" => Self::Node,
            "subshell" => Self::Subshell,
            "gone" => Self::Gone,
            "channel" => Self::Channel,
            "access" => Self::Access,
            "viewers" => Self::Viewers,
            _ => return None,
        })
    }
}

/// One word heard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// The replica that said it.
    pub replica: String,
    /// What about.
    pub topic: Topic,
    /// Which row (empty for [`Topic::Access`]).
    pub id: String,
}

/// What a [`WordListener`] heard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heard {
    /// A word.
    Word(Word),
    /// The listening connection was lost and is made again: whatever was said meanwhile is
    /// lost, so the listener's owner reads the rows again.
    Lost,
}

/// The payload of a word.
fn payload(replica: &str, topic: Topic, id: &str) -> String {
    format!("{replica} {} {id}", topic.as_str())
}

/// The statement that says a word (PostgreSQL), to run on the pool or inside a transaction
/// (then the word is sent only if the transaction commits).
pub(super) fn notify<'q>(
    replica: &str,
    topic: Topic,
    id: &str,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(WORDS_CHANNEL)
        .bind(payload(replica, topic, id))
}

/// A word from its payload; `None` for a payload not of this shape (not said by a plane).
#[must_use]
fn parse_word(payload: &str) -> Option<Word> {
    let mut parts = payload.splitn(3, ' ');
    let replica = parts.next().filter(|r| !r.is_empty())?;
    let topic = Topic::parse(parts.next()?)?;
    let id = parts.next().unwrap_or_default();
    Some(Word {
        replica: replica.to_owned(),
        topic,
        id: id.to_owned(),
    })
}

/// The other replicas' words, as [`Store::word_listener`] hears them.
pub struct WordListener(sqlx::postgres::PgListener);

impl std::fmt::Debug for WordListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WordListener").finish_non_exhaustive()
    }
}

impl WordListener {
    /// The next word (waits for it).
    pub async fn next(&mut self) -> Result<Heard, sqlx::Error> {
        loop {
            let Some(n) = self.0.try_recv().await? else {
                return Ok(Heard::Lost);
            };
            if let Some(w) = parse_word(n.payload()) {
                return Ok(Heard::Word(w));
            }
        }
    }
}

impl Store {
    /// Says a word to the other replicas (PostgreSQL; nothing on SQLite).
    pub async fn say(&self, replica: &str, topic: Topic, id: &str) -> Result<(), sqlx::Error> {
        if self.backend != Backend::Postgres {
            return Ok(());
        }
        notify(replica, topic, id)
            .execute(&self.pool)
            .await
            .map(|_| ())
    }

    /// Keeps who was told that subshell `id` is gone (`users`, and administrators when
    /// `admins`), for the other replicas to tell the same (a `gone` word names only the
    /// subshell); forgets what was kept before `before`.
    pub async fn put_gone(
        &self,
        id: &str,
        users: &[String],
        admins: bool,
        now: i64,
        before: i64,
    ) -> Result<(), sqlx::Error> {
        let audience =
            serde_json::to_string(users).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
        let mut tx = self.write_tx().await?;
        sqlx::query("DELETE FROM subshells_gone WHERE gone_at < $1")
            .bind(before)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO subshells_gone (subshell_id, audience, admins, gone_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (subshell_id) DO UPDATE SET \
             audience = $2, admins = $3, gone_at = $4",
        )
        .bind(id)
        .bind(audience)
        .bind(i64::from(admins))
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await
    }

    /// Who was told that subshell `id` is gone ([`Self::put_gone`]): the accounts and whether
    /// administrators were.
    pub async fn gone(&self, id: &str) -> Result<Option<(Vec<String>, bool)>, sqlx::Error> {
        let Some(row) =
            sqlx::query("SELECT audience, admins FROM subshells_gone WHERE subshell_id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?
        else {
            return Ok(None);
        };
        let audience: String = row.try_get("audience")?;
        let admins: i64 = row.try_get("admins")?;
        Ok(Some((
            serde_json::from_str(&audience).unwrap_or_default(),
            admins != 0,
        )))
    }

    /// A listener for the other replicas' words: on PostgreSQL, a connection of its own
    /// listening on [`WORDS_CHANNEL`]; `None` on SQLite.
    pub async fn word_listener(&self) -> Result<Option<WordListener>, sqlx::Error> {
        let Some(url) = self.postgres_url.as_deref() else {
            return Ok(None);
        };
        let mut l = sqlx::postgres::PgListener::connect(url).await?;
        // A lost connection is made again at once, so that no word is missed for longer than
        // the reconnection takes (the owner reads the rows again on `Lost`).
        l.eager_reconnect(true);
        l.listen(WORDS_CHANNEL).await?;
        Ok(Some(WordListener(l)))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_word_reads_back_as_it_was_said_and_a_stranger_payload_is_no_word() {
        for (topic, id) in [
            (Topic::Link, "n1"),
            (Topic::Node, "n2"),
            (Topic::Subshell, "s 1"),
            (Topic::Gone, "s2"),
            (Topic::Channel, "c"),
            (Topic::Access, ""),
            (Topic::Viewers, "s3"),
        ] {
            let w = parse_word(&payload("r1", topic, id)).unwrap();
            assert_eq!(
                (w.replica.as_str(), w.topic, w.id.as_str()),
                ("r1", topic, id)
            );
        }
        for stranger in ["", " link n1", "r1", "r1 shout n1", "r1 Link n1"] {
            assert_eq!(parse_word(stranger), None, "{stranger:?}");
        }
    }
}
