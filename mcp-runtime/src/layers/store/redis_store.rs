//! The Redis side of [`LimitStore`](super::LimitStore).

use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncCommands, Client, Script};
use tokio::sync::{OnceCell, mpsc, oneshot};

use super::{LimitStoreError, Verdict};
use crate::auth::Caller;

/// How long connecting, or an answer, may take before the store counts as unreachable.
const TIMEOUT: Duration = Duration::from_millis(500);

/// GCRA in one atomic step for each of a batch of checks, in microseconds of Redis's own
/// clock, so that replicas whose clocks differ agree. KEYS[i]: the i-th caller's key;
/// ARGV[2i-1]: the interval between its calls; ARGV[2i]: how far ahead of now its
/// theoretical arrival time may be. Returns, for each, 0 when the call may proceed (and
/// records it), else how long to wait. Checks of one key in one batch count in order. A key
/// expires once its arrival time has passed, when it holds nothing back.
const GCRA: &str = r"
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000000 + tonumber(now[2])
local waits = {}
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[2 * i - 1])
  local tolerance = tonumber(ARGV[2 * i])
  local tat = tonumber(redis.call('GET', key))
  if not tat or tat < now then tat = now end
  local wait = tat - tolerance - now
  if wait > 0 then
    waits[i] = wait
  else
    tat = tat + interval
    redis.call('SET', key, string.format('%d', tat), 'PX', math.ceil((tat - now) / 1000) + 1)
    waits[i] = 0
  end
end
return waits
";

/// The most checks one script call makes.
const BATCH: usize = 128;

/// One check waiting for its batch.
struct Check {
    key: String,
    interval_us: u64,
    tolerance_us: u64,
    answer: oneshot::Sender<Result<u64, LimitStoreError>>,
}

/// A Redis, connected on first use.
pub(super) struct RedisLimits {
    client: Client,
    address: String,
    namespace: String,
    connection: OnceCell<ConnectionManager>,
    gcra: Script,
    /// The checks waiting for the next batch, once the first was asked.
    checks: OnceLock<mpsc::UnboundedSender<Check>>,
}

impl RedisLimits {
    pub(super) fn new(url: &str, namespace: &str) -> Result<Self, LimitStoreError> {
        if namespace.is_empty() {
            return Err(LimitStoreError::Namespace);
        }
        let client = Client::open(url).map_err(|err| LimitStoreError::Address {
            url: url.to_owned(),
            reason: err.to_string(),
        })?;
        let info = client.get_connection_info();
        Ok(Self {
            address: info.addr().to_string(),
            client,
            namespace: namespace.to_owned(),
            connection: OnceCell::new(),
            gcra: Script::new(GCRA),
            checks: OnceLock::new(),
        })
    }

    pub(super) fn describe(&self) -> String {
        format!("redis {} (namespace {})", self.address, self.namespace)
    }

    fn unreachable(&self, err: impl std::fmt::Display) -> LimitStoreError {
        LimitStoreError::Unreachable {
            address: self.address.clone(),
            reason: err.to_string(),
        }
    }

    async fn connection(&self) -> Result<ConnectionManager, LimitStoreError> {
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(TIMEOUT))
            .set_response_timeout(Some(TIMEOUT))
            .set_number_of_retries(0);
        self.connection
            .get_or_try_init(|| ConnectionManager::new_with_config(self.client.clone(), config))
            .await
            .cloned()
            .map_err(|err| self.unreachable(err))
    }

    /// One GCRA check of `caller`'s calls of `tool`. Checks asked while a batch is on its way go together in
    /// the next: one script call and one round trip for all of them, in the order asked.
    pub(super) async fn gcra(
        self: &Arc<Self>,
        (tool, caller): (&str, &Caller),
        interval: Duration,
        tolerance: Duration,
    ) -> Result<Verdict, LimitStoreError> {
        let (answer, answered) = oneshot::channel();
        // `{namespace}:limit:{tool}:{caller}`, written once.
        let mut key = String::with_capacity(self.namespace.len() + tool.len() + 48);
        for part in [&*self.namespace, ":limit:", tool, ":"] {
            key.push_str(part);
        }
        caller.push_key(&mut key);
        let check = Check {
            key,
            interval_us: interval.as_micros().max(1) as u64,
            tolerance_us: tolerance.as_micros() as u64,
            answer,
        };
        let checks = self.checks.get_or_init(|| {
            let (checks, waiting) = mpsc::unbounded_channel();
            tokio::spawn(Self::batches(Arc::downgrade(self), waiting));
            checks
        });
        if checks.send(check).is_err() {
            return Err(self.unreachable("the limit store's checks ended"));
        }
        let wait = answered
            .await
            .map_err(|_| self.unreachable("the limit store's checks ended"))??;
        Ok(match wait {
            0 => Verdict::Allowed,
            micros => Verdict::Wait(Duration::from_micros(micros)),
        })
    }

    /// Sends the checks waiting, a batch at a time, until the store is dropped.
    async fn batches(store: Weak<Self>, mut waiting: mpsc::UnboundedReceiver<Check>) {
        let mut batch = Vec::with_capacity(BATCH);
        while waiting.recv_many(&mut batch, BATCH).await > 0 {
            let Some(store) = store.upgrade() else {
                return;
            };
            store.check_batch(std::mem::take(&mut batch)).await;
        }
    }

    /// Makes the checks of `batch` in one script call, and answers each.
    async fn check_batch(&self, batch: Vec<Check>) {
        let mut invocation = self.gcra.prepare_invoke();
        for check in &batch {
            invocation
                .key(&check.key)
                .arg(check.interval_us)
                .arg(check.tolerance_us);
        }
        let waits: Result<Vec<u64>, LimitStoreError> = match self.connection().await {
            Ok(mut connection) => invocation
                .invoke_async(&mut connection)
                .await
                .map_err(|err| self.unreachable(err)),
            Err(err) => Err(err),
        };
        match waits {
            Ok(waits) if waits.len() == batch.len() => {
                for (check, wait) in batch.into_iter().zip(waits) {
                    let _ = check.answer.send(Ok(wait));
                }
            }
            Ok(waits) => {
                let wrong = self.unreachable(format!(
                    "the GCRA script answered {} checks of {}",
                    waits.len(),
                    batch.len()
                ));
                for check in batch {
                    let _ = check.answer.send(Err(wrong.clone()));
                }
            }
            Err(err) => {
                for check in batch {
                    let _ = check.answer.send(Err(err.clone()));
                }
            }
        }
    }

    pub(super) async fn get(&self, key: &str) -> Result<Option<String>, LimitStoreError> {
        let mut connection = self.connection().await?;
        connection
            .get(format!("{}:cache:{key}", self.namespace))
            .await
            .map_err(|err| self.unreachable(err))
    }

    pub(super) async fn set(
        &self,
        key: &str,
        value: String,
        ttl: Duration,
    ) -> Result<(), LimitStoreError> {
        let mut connection = self.connection().await?;
        let millis = ttl.as_millis().max(1) as u64;
        connection
            .pset_ex::<_, _, ()>(format!("{}:cache:{key}", self.namespace), value, millis)
            .await
            .map_err(|err| self.unreachable(err))
    }
}
