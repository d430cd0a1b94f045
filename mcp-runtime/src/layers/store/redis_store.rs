//! The Redis side of [`LimitStore`](super::LimitStore).

use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncCommands, Client, Script};
use rustc_hash::FxHashMap;
use tokio::sync::{OnceCell, mpsc, oneshot};

use super::{Ask, GcraKey, Grant, LimitStoreError};

/// How long connecting, or an answer, may take before the store counts as unreachable.
const TIMEOUT: Duration = Duration::from_millis(500);

/// GCRA in one atomic step for each key of a batch of checks, in microseconds of Redis's
/// own clock, so that replicas whose clocks differ agree. KEYS[i]: a limit's key for one
/// caller; ARGV[4i-3]: the interval between its calls; ARGV[4i-2]: how far ahead of now its
/// theoretical arrival time may be; ARGV[4i-1]: how many calls the batch asks of it, in the
/// order asked; ARGV[4i]: how many calls granted before it gives back, which move the
/// arrival time back as if never granted (never before now). Returns, for each key, how
/// many of its calls may proceed (the first ones, which it records), then how long the
/// others must wait. A key is read and written once however many checks it has: the checks
/// of one caller arriving together cost Redis no more than one. A key expires once its
/// arrival time has passed, when it holds nothing back.
const GCRA: &str = r"
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000000 + tonumber(now[2])
local answers = {}
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[4 * i - 3])
  local tolerance = tonumber(ARGV[4 * i - 2])
  local count = tonumber(ARGV[4 * i - 1])
  local returned = tonumber(ARGV[4 * i])
  local tat = tonumber(redis.call('GET', key))
  if not tat or tat < now then tat = now end
  local moved = false
  if returned > 0 and tat > now then
    tat = math.max(tat - returned * interval, now)
    moved = true
  end
  local room = now + tolerance - tat
  local allowed = 0
  if room >= 0 then allowed = math.min(count, math.floor(room / interval) + 1) end
  if allowed > 0 then
    tat = tat + allowed * interval
    moved = true
  end
  if moved then
    redis.call('SET', key, string.format('%d', tat), 'PX', math.ceil((tat - now) / 1000) + 1)
  end
  answers[2 * i - 1] = allowed
  answers[2 * i] = math.max(tat - tolerance - now, 1)
end
return answers
";

/// The most checks one script call makes.
const BATCH: usize = 128;

/// One check waiting for its batch.
struct Check {
    key: String,
    interval_us: u64,
    tolerance_us: u64,
    ask: Ask,
    answer: oneshot::Sender<Result<Grant, LimitStoreError>>,
}

/// The keys of a batch, each once: a batch of one caller's checks reads and writes one
/// key. Kept between batches, so that its lists are made once.
#[derive(Default)]
struct Keys {
    /// The place of each key's first check in the batch, in the order of the keys.
    firsts: Vec<usize>,
    /// Each key's count of calls asked for.
    counts: Vec<u64>,
    /// Each key's count of calls given back.
    returned: Vec<u64>,
    /// Each check's key, by its place in `firsts`.
    of: Vec<usize>,
    /// Each key's calls granted so far, to its first checks.
    answered: Vec<u64>,
}

impl Keys {
    /// Groups the checks of `batch` by key and limit.
    fn group(&mut self, batch: &[Check]) {
        self.firsts.clear();
        self.counts.clear();
        self.returned.clear();
        self.of.clear();
        let mut places = FxHashMap::default();
        for (at, check) in batch.iter().enumerate() {
            let limit = (check.key.as_str(), check.interval_us, check.tolerance_us);
            let next = self.firsts.len();
            let place = *places.entry(limit).or_insert(next);
            if place == next {
                self.firsts.push(at);
                self.counts.push(0);
                self.returned.push(0);
            }
            self.counts[place] += check.ask.want;
            self.returned[place] += check.ask.returned;
            self.of.push(place);
        }
        self.answered.clear();
        self.answered.resize(self.firsts.len(), 0);
    }
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

    /// One GCRA check of `caller`'s calls of `tool` under `limit`, for the calls `ask`
    /// wants. Checks asked while a batch is on its way go together in the next: one
    /// script call and one round trip for all of them, granted in the order asked.
    pub(super) async fn gcra(
        self: &Arc<Self>,
        GcraKey {
            tool,
            limit,
            caller,
        }: GcraKey<'_>,
        interval: Duration,
        tolerance: Duration,
        ask: Ask,
    ) -> Result<Grant, LimitStoreError> {
        let (answer, answered) = oneshot::channel();
        // `{namespace}:limit:{tool}:{limit}:{caller}`, written once.
        let mut key = String::with_capacity(self.namespace.len() + tool.len() + 64);
        for part in [&*self.namespace, ":limit:", tool, ":", limit, ":"] {
            key.push_str(part);
        }
        caller.push_key(&mut key);
        let check = Check {
            key,
            interval_us: interval.as_micros().max(1) as u64,
            tolerance_us: tolerance.as_micros() as u64,
            ask,
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
        answered
            .await
            .map_err(|_| self.unreachable("the limit store's checks ended"))?
    }

    /// Sends the checks waiting, a batch at a time, until the store is dropped.
    async fn batches(store: Weak<Self>, mut waiting: mpsc::UnboundedReceiver<Check>) {
        let mut batch = Vec::with_capacity(BATCH);
        let mut keys = Keys::default();
        while waiting.recv_many(&mut batch, BATCH).await > 0 {
            let Some(store) = store.upgrade() else {
                return;
            };
            store.check_batch(&mut batch, &mut keys).await;
        }
    }

    /// Makes the checks of `batch` in one script call, each key once, and answers each
    /// check; `batch` is left empty, and `keys` is the scratch it groups them in.
    async fn check_batch(&self, batch: &mut Vec<Check>, keys: &mut Keys) {
        keys.group(batch);
        let mut invocation = self.gcra.prepare_invoke();
        for ((&first, &count), &returned) in
            keys.firsts.iter().zip(&keys.counts).zip(&keys.returned)
        {
            let check = &batch[first];
            invocation
                .key(&check.key)
                .arg(check.interval_us)
                .arg(check.tolerance_us)
                .arg(count)
                .arg(returned);
        }
        let answers: Result<Vec<u64>, LimitStoreError> = match self.connection().await {
            Ok(mut connection) => invocation
                .invoke_async(&mut connection)
                .await
                .map_err(|err| self.unreachable(err)),
            Err(err) => Err(err),
        };
        let answers = answers.and_then(|answers| {
            if answers.len() == 2 * keys.firsts.len() {
                Ok(answers)
            } else {
                Err(self.unreachable(format!(
                    "the GCRA script answered {} numbers for {} keys",
                    answers.len(),
                    keys.firsts.len()
                )))
            }
        });
        // Each key's first calls, in the order asked, as many as Redis allowed.
        for (check, key) in batch.drain(..).zip(&keys.of) {
            let answer = match &answers {
                Ok(answers) => {
                    let (allowed, wait) = (answers[2 * key], answers[2 * key + 1]);
                    let answered = &mut keys.answered[*key];
                    let granted = check.ask.want.min(allowed.saturating_sub(*answered));
                    *answered += granted;
                    Ok(Grant {
                        granted,
                        wait: Duration::from_micros(wait),
                    })
                }
                Err(err) => Err(err.clone()),
            };
            let _ = check.answer.send(answer);
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
