//! The store's pool, timed: every query the store runs on the pool goes through
//! [`TimedPool`]'s `Executor`, which waits for a connection itself (that wait is
//! `termplane_db_acquire_seconds`) and measures the whole call (`termplane_db_query_duration_seconds`,
//! the wait included). Queries inside a transaction run on the transaction's connection and
//! are not measured one by one; the wait for that connection is, in `Store::write_tx`.
//!
//! A query whose rows are streamed (`fetch`, `fetch_all`, `execute`) is read to its end on
//! its connection before the first row is handed on: the store reads every result whole
//! anyway, and the connection goes back to the pool as soon as the query is done.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use futures_lite::{Stream, StreamExt};
use sqlx::any::{AnyQueryResult, AnyRow, AnyStatement, AnyTypeInfo};
use sqlx::{Any, AnyPool, Describe, Either, Execute, Executor, SqlStr};

use crate::metrics::Metrics;

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
type BoxStream<'a, T> = Pin<Box<dyn Stream<Item = T> + Send + 'a>>;

/// The pool and the metrics its queries are measured into.
#[derive(Clone, Debug)]
pub(crate) struct TimedPool {
    pool: AnyPool,
    metrics: Arc<Metrics>,
}

impl TimedPool {
    pub(crate) fn new(pool: AnyPool, metrics: Arc<Metrics>) -> Self {
        Self { pool, metrics }
    }

    /// The metrics.
    pub(crate) fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// A connection, its wait measured.
    async fn acquire(&self) -> Result<sqlx::pool::PoolConnection<Any>, sqlx::Error> {
        let started = Instant::now();
        let conn = self.pool.acquire().await;
        self.metrics.db_acquired(started.elapsed());
        conn
    }

    /// The pool itself (transactions begin on it in `Store::write_tx`, which measures the
    /// wait).
    pub(crate) fn inner(&self) -> &AnyPool {
        &self.pool
    }

    /// Closes the pool.
    pub(crate) async fn close(&self) {
        self.pool.close().await;
    }
}

impl<'p> Executor<'p> for &'_ TimedPool {
    type Database = Any;

    fn fetch_many<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxStream<'e, Result<Either<AnyQueryResult, AnyRow>, sqlx::Error>>
    where
        'p: 'e,
        E: 'q + Execute<'q, Any>,
    {
        let this = self.clone();
        let all = async move {
            let started = Instant::now();
            let mut out = Vec::new();
            match this.acquire().await {
                Err(e) => out.push(Err(e)),
                Ok(mut conn) => {
                    let mut s = conn.fetch_many(query);
                    while let Some(item) = s.next().await {
                        let failed = item.is_err();
                        out.push(item);
                        if failed {
                            break;
                        }
                    }
                }
            }
            let ok = !out.iter().any(Result::is_err);
            this.metrics.db_query("fetch", started.elapsed(), ok);
            futures_lite::stream::iter(out)
        };
        Box::pin(futures_lite::stream::once_future(all).flatten())
    }

    fn fetch_optional<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxFuture<'e, Result<Option<AnyRow>, sqlx::Error>>
    where
        'p: 'e,
        E: 'q + Execute<'q, Any>,
    {
        let this = self.clone();
        Box::pin(async move {
            let started = Instant::now();
            let result = match this.acquire().await {
                Ok(mut conn) => conn.fetch_optional(query).await,
                Err(e) => Err(e),
            };
            this.metrics
                .db_query("fetch_optional", started.elapsed(), result.is_ok());
            result
        })
    }

    fn prepare_with<'e>(
        self,
        sql: SqlStr,
        parameters: &'e [AnyTypeInfo],
    ) -> BoxFuture<'e, Result<AnyStatement, sqlx::Error>>
    where
        'p: 'e,
    {
        let pool = self.pool.clone();
        Box::pin(async move { pool.acquire().await?.prepare_with(sql, parameters).await })
    }

    fn describe<'e>(self, sql: SqlStr) -> BoxFuture<'e, Result<Describe<Any>, sqlx::Error>>
    where
        'p: 'e,
    {
        let pool = self.pool.clone();
        Box::pin(async move { pool.acquire().await?.describe(sql).await })
    }
}
