//! Word between the replicas on one PostgreSQL database: `NOTIFY` on [`WORDS_CHANNEL`] with
//! `<replica> <topic> <id>` as the payload — ids only, never data (a payload holds at most
//! 8,000 bytes, and the rows are the truth: a replica that hears a word reads them again). On
//! SQLite, which one plane holds alone, nothing is said and nothing heard.

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
    /// A channel has a new entry.
    Channel,
    /// A credential or an account changed: open sockets re-check their grants (no id).
    Access,
}

impl Topic {
    fn as_str(self) -> &'static str {
        match self {
            Self::Link => "link",
            Self::Node => "node",
            Self::Subshell => "subshell",
            Self::Channel => "channel",
            Self::Access => "access",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "link" => Self::Link,
            "node" => Self::Node,
            "subshell" => Self::Subshell,
            "channel" => Self::Channel,
            "access" => Self::Access,
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
pub(super) fn payload(replica: &str, topic: Topic, id: &str) -> String {
    format!("{replica} {} {id}", topic.as_str())
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
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(WORDS_CHANNEL)
            .bind(payload(replica, topic, id))
            .execute(&self.pool)
            .await
            .map(|_| ())
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
            (Topic::Channel, "c"),
            (Topic::Access, ""),
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
