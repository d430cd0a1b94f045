//! What runs tasks on one replica: it creates their records, drives their tools, holds
//! their leases, hears the doorbell for the ones it runs (a cancellation, an answer), and
//! answers `tasks/get`, `tasks/update` and `tasks/cancel` for any task of the store.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use mcp_runtime_core::wire::{INTERNAL_ERROR, INVALID_PARAMS};
use serde_json::{Map, Value, json};
use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::memory::MemoryStore;
use super::store::{
    Change, DEFAULT_LEASE, StoreError, TaskRecord, TaskStatus, TaskStore, iso8601, modify, now_ms,
};
use crate::talk::{AskChannel, AskError, Asking, InputRequest};

/// How tasks are kept and polled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskSettings {
    /// How long a task is kept after its creation (`ttlMs`).
    pub ttl: Duration,
    /// How often clients should poll (`pollIntervalMs`).
    pub poll_interval: Duration,
    /// How long a replica's hold on a task lasts without renewal: a task whose replica
    /// stopped is reported failed this long after its last renewal at the latest.
    pub lease: Duration,
}

impl Default for TaskSettings {
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(3600),
            poll_interval: Duration::from_millis(500),
            lease: DEFAULT_LEASE,
        }
    }
}

/// A task running on this replica.
struct Running {
    /// Cancels the tool's call.
    cancel: CancellationToken,
    /// The asks waiting for an answer, by key.
    waiting: Mutex<HashMap<String, oneshot::Sender<Value>>>,
}

/// The tasks of one server: its store, and the ones this replica runs.
pub(crate) struct Tasks {
    store: Arc<dyn TaskStore>,
    settings: TaskSettings,
    /// This replica's name in leases: 64 random bits.
    replica: String,
    running: Mutex<HashMap<String, Arc<Running>>>,
    /// The ended tasks this replica has read: an ended task's record never changes again,
    /// so a poll of one is answered from here, without asking the store, until it expires.
    ended: Mutex<HashMap<String, Arc<TaskRecord>>>,
    /// Whether the keeper (leases, doorbell) runs.
    keeper: tokio::sync::OnceCell<()>,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("store", &self.store.describe())
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// Why `tasks/get`, `tasks/update` or `tasks/cancel` is refused; [`TaskFault::code`] is
/// its JSON-RPC error code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TaskFault {
    /// No task of that id, or not the caller's, who is told the same.
    #[error("no task `{0}`: it does not exist, or it expired")]
    Unknown(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl TaskFault {
    /// Its JSON-RPC error code: invalid params for a task that is not there (or not the
    /// caller's), an internal error for a store that failed.
    pub(crate) fn code(&self) -> i64 {
        match self {
            Self::Unknown(_) => INVALID_PARAMS,
            Self::Store(_) => INTERNAL_ERROR,
        }
    }
}

impl Tasks {
    pub(crate) fn new(store: Arc<dyn TaskStore>, settings: TaskSettings) -> Self {
        Self {
            store,
            settings,
            // Only told apart from the other replicas': a clock's worth is enough when the
            // system has no randomness.
            replica: random_hex::<8>().unwrap_or_else(|_| format!("{:016x}", now_ms())),
            running: Mutex::new(HashMap::new()),
            ended: Mutex::new(HashMap::new()),
            keeper: tokio::sync::OnceCell::new(),
        }
    }

    /// Tasks in this process's memory.
    pub(crate) fn in_memory() -> Self {
        Self::new(Arc::new(MemoryStore::new()), TaskSettings::default())
    }

    pub(crate) fn store(&self) -> &dyn TaskStore {
        &*self.store
    }

    fn lock_running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Running>>> {
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts the keeper once: it renews this replica's leases, and reads again the
    /// records of its tasks whose doorbell rang (or at every renewal, for a lost ring).
    async fn keep(self: &Arc<Self>) -> Result<(), StoreError> {
        self.keeper
            .get_or_try_init(|| async {
                let mut doorbell = self.store.doorbell().await?;
                let tasks = Arc::downgrade(self);
                let every = self.settings.lease / 3;
                tokio::spawn(async move {
                    let mut renew = tokio::time::interval(every);
                    renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                    loop {
                        tokio::select! {
                            rung = doorbell.next() => {
                                let Some(tasks) = tasks.upgrade() else { return };
                                match rung {
                                    Some(id) => tasks.heard(&id).await,
                                    None => {
                                        tracing::warn!("the task store's doorbell closed: tasks of this replica hear of changes at lease renewals only");
                                        // Renewals go on; the store may be back later.
                                        doorbell = Box::pin(futures_util::stream::pending());
                                    }
                                }
                            }
                            _ = renew.tick() => {
                                let Some(tasks) = tasks.upgrade() else { return };
                                tasks.renew().await;
                            }
                        }
                    }
                });
                Ok(())
            })
            .await
            .map(|_| ())
    }

    /// Renews the lease of every task this replica runs, and acts on their records.
    ///
    /// The renewals go out together (a few at a time), not one after another: a replica
    /// running hundreds of tasks against a loaded store would otherwise take longer than
    /// the lease to reach its last task, which another replica would then report failed.
    /// Each lease runs from the moment its own record is written.
    async fn renew(&self) {
        use futures_util::StreamExt as _;
        /// How many renewals are in flight at once.
        const AT_ONCE: usize = 32;
        let ids: Vec<String> = self.lock_running().keys().cloned().collect();
        let lease = millis(self.settings.lease);
        futures_util::stream::iter(ids)
            .for_each_concurrent(AT_ONCE, |id| async move {
                let renewed = modify(&*self.store, &id, |record| {
                    if record.status.is_terminal() {
                        return Change::Keep;
                    }
                    record.lease_until = Some(now_ms() + lease);
                    Change::Store
                })
                .await;
                match renewed {
                    Ok(Some(record)) => self.act(&record),
                    Ok(None) => {}
                    Err(err) => tracing::warn!(task = %id, "a task's lease was not renewed: {err}"),
                }
            })
            .await;
    }

    /// The doorbell rang for `id`: if this replica runs it, reads its record again.
    async fn heard(&self, id: &str) {
        if !self.lock_running().contains_key(id) {
            return;
        }
        match self.store.load(id).await {
            Ok(Some(kept)) => self.act(&kept.record),
            Ok(None) => {}
            Err(err) => tracing::warn!(task = %id, "a task's record could not be read: {err}"),
        }
    }

    /// Acts on the record of a task this replica runs: cancels it when it was cancelled,
    /// hands its asks the answers given.
    fn act(&self, record: &TaskRecord) {
        let Some(running) = self.lock_running().get(&record.id).cloned() else {
            return;
        };
        if record.status == TaskStatus::Cancelled {
            running.cancel.cancel();
        }
        let mut waiting = running
            .waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let answered: Vec<String> = waiting
            .keys()
            .filter(|key| record.answers.contains_key(*key))
            .cloned()
            .collect();
        for key in answered {
            if let (Some(sender), Some(answer)) = (waiting.remove(&key), record.answers.get(&key)) {
                let _ = sender.send(answer.clone());
            }
        }
    }

    /// A new task for a call of `tool`, by `owner`: recorded (durably, so that any replica
    /// finds it from now on) and marked as run by this replica.
    pub(crate) async fn create(
        self: &Arc<Self>,
        tool: &str,
        owner: Option<String>,
        cancel: CancellationToken,
    ) -> Result<(TaskRecord, Arc<TaskLink>), StoreError> {
        self.keep().await?;
        let now = now_ms();
        let record = TaskRecord {
            id: random_hex::<16>()?,
            owner,
            tool: tool.to_owned(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: now,
            last_updated_at: now,
            ttl_ms: Some(millis(self.settings.ttl)),
            poll_interval_ms: Some(millis(self.settings.poll_interval).max(1)),
            input_requests: std::collections::BTreeMap::new(),
            answers: Map::new(),
            runner: Some(self.replica.clone()),
            lease_until: Some(now + millis(self.settings.lease)),
            result: None,
            error: None,
        };
        let running = Arc::new(Running {
            cancel,
            waiting: Mutex::new(HashMap::new()),
        });
        self.lock_running()
            .insert(record.id.clone(), Arc::clone(&running));
        if let Err(err) = self.store.create(&record).await {
            self.lock_running().remove(&record.id);
            return Err(err);
        }
        let link = Arc::new(TaskLink {
            tasks: Arc::clone(self),
            id: record.id.clone(),
            running,
        });
        Ok((record, link))
    }

    /// Runs `work`, the tool's call, in the background and records how it ended.
    pub(crate) fn drive(
        self: &Arc<Self>,
        link: Arc<TaskLink>,
        work: Pin<Box<dyn Future<Output = Ending> + Send>>,
        mut progress: watch::Receiver<Option<String>>,
    ) {
        let tasks = Arc::clone(self);
        tokio::spawn(async move {
            let id = link.id.clone();
            let mut work = work;
            let ending = loop {
                tokio::select! {
                    ending = &mut work => break ending,
                    changed = progress.changed() => {
                        if changed.is_err() {
                            break work.await;
                        }
                        let message = progress.borrow_and_update().clone();
                        let written = modify(&*tasks.store, &id, |record| {
                            if record.status.is_terminal() || record.status_message == message {
                                return Change::Keep;
                            }
                            record.status_message.clone_from(&message);
                            Change::Store
                        })
                        .await;
                        if let Err(err) = written {
                            tracing::warn!(task = %id, "a task's progress was not recorded: {err}");
                        }
                    }
                }
            };
            tasks.end(&id, ending).await;
            tasks.lock_running().remove(&id);
        });
    }

    /// Records how a task ended, unless it already had (a cancellation comes first). A
    /// store that fails is tried again for a while: until it answers, the task stays as
    /// it was, and once the lease lapses any replica reports it failed.
    async fn end(&self, id: &str, ending: Ending) {
        let mut pause = Duration::from_millis(50);
        for _ in 0..8 {
            let written = modify(&*self.store, id, |record| {
                if record.status.is_terminal() {
                    return Change::Keep;
                }
                record.input_requests.clear();
                record.lease_until = None;
                match &ending {
                    Ending::Completed(result) => {
                        record.status = TaskStatus::Completed;
                        record.result = Some(result.clone());
                    }
                    Ending::Failed(code, message) => {
                        record.status = TaskStatus::Failed;
                        record.status_message = Some(message.clone());
                        record.error = Some(json!({ "code": code, "message": message }));
                    }
                    Ending::Cancelled => {
                        record.status = TaskStatus::Cancelled;
                        record.status_message = Some("the task was cancelled".to_owned());
                    }
                }
                Change::Store
            })
            .await;
            match written {
                Ok(_) => return,
                Err(err) => {
                    tracing::warn!(task = %id, "a task's end was not recorded, trying again: {err}");
                    tokio::time::sleep(pause).await;
                    pause *= 2;
                }
            }
        }
        tracing::error!(task = %id, "a task's end could not be recorded: its lease will lapse and it will be reported failed");
    }

    /// The record of task `id` for `owner`: `tasks/get`. A task whose runner's lease
    /// lapsed is reported failed here, by whichever replica is asked.
    pub(crate) async fn get(
        &self,
        id: &str,
        owner: Option<&str>,
    ) -> Result<Arc<TaskRecord>, TaskFault> {
        let record = self.owned(id, owner).await?;
        // A task this replica runs is alive, however late its renewal: only another
        // replica's lapsed hold means that its runner stopped.
        let runs_here = self.lock_running().contains_key(id);
        let lapsed = |record: &TaskRecord| {
            !runs_here
                && !record.status.is_terminal()
                && record.lease_until.is_some_and(|until| until < now_ms())
        };
        if !lapsed(&record) {
            return Ok(record);
        }
        let failed = modify(&*self.store, id, |record| {
            if !lapsed(record) {
                return Change::Keep;
            }
            let message = format!(
                "the server running this task stopped: its hold on the task lapsed at {} without renewal",
                iso8601(record.lease_until.unwrap_or_default())
            );
            record.status = TaskStatus::Failed;
            record.input_requests.clear();
            record.error = Some(json!({ "code": INTERNAL_ERROR, "message": message }));
            record.status_message = Some(message);
            record.lease_until = None;
            Change::Store
        })
        .await
        .map_err(TaskFault::from)?;
        let failed = Arc::new(failed.ok_or_else(|| unknown(id))?);
        self.keep_ended(&failed);
        Ok(failed)
    }

    /// Hands the answers in `responses` to the asks of task `id` still waiting for them:
    /// `tasks/update`. Keys not waiting are ignored.
    pub(crate) async fn update(
        &self,
        id: &str,
        owner: Option<&str>,
        responses: &Map<String, Value>,
    ) -> Result<(), TaskFault> {
        self.steer(id, owner, |record| {
            let mut taken = false;
            for (key, answer) in responses {
                if record.input_requests.remove(key).is_some() {
                    record.answers.insert(key.clone(), answer.clone());
                    taken = true;
                }
            }
            if taken && record.input_requests.is_empty() {
                record.status = TaskStatus::Working;
            }
            taken
        })
        .await
    }

    /// Cancels task `id` unless it ended: `tasks/cancel`.
    pub(crate) async fn cancel(&self, id: &str, owner: Option<&str>) -> Result<(), TaskFault> {
        self.steer(id, owner, |record| {
            record.status = TaskStatus::Cancelled;
            record.status_message = Some("the client cancelled the task".to_owned());
            record.input_requests.clear();
            record.lease_until = None;
            true
        })
        .await
    }

    /// Changes task `id` for `owner` with `change` (which says whether it changed
    /// anything), unless the task ended, and rings the doorbell when it did: the replica
    /// running the task acts on it. The owner is checked on the record `change` sees, so
    /// that it takes no read of its own; an ended task this replica knows takes none at all.
    async fn steer(
        &self,
        id: &str,
        owner: Option<&str>,
        mut change: impl FnMut(&mut TaskRecord) -> bool + Send,
    ) -> Result<(), TaskFault> {
        if let Some(ended) = self.ended(id) {
            return if ended.owner.as_deref() == owner {
                Ok(())
            } else {
                Err(unknown(id))
            };
        }
        let (mut foreign, mut changed) = (false, false);
        let kept = modify(&*self.store, id, |record| {
            foreign = record.owner.as_deref() != owner;
            changed = !foreign && !record.status.is_terminal() && change(record);
            if changed { Change::Store } else { Change::Keep }
        })
        .await
        .map_err(TaskFault::from)?;
        match kept {
            None => Err(unknown(id)),
            Some(_) if foreign => Err(unknown(id)),
            Some(_) if changed => self.store.notify(id).await.map_err(TaskFault::from),
            Some(_) => Ok(()),
        }
    }

    /// The record of task `id` if `owner` may see it: a task of another owner is, to
    /// them, no task at all.
    async fn owned(&self, id: &str, owner: Option<&str>) -> Result<Arc<TaskRecord>, TaskFault> {
        let record = match self.ended(id) {
            Some(record) => record,
            None => match self.store.load(id).await.map_err(TaskFault::from)? {
                Some(kept) => {
                    let record = Arc::new(kept.record);
                    self.keep_ended(&record);
                    record
                }
                None => return Err(unknown(id)),
            },
        };
        if record.owner.as_deref() == owner {
            Ok(record)
        } else {
            Err(unknown(id))
        }
    }

    /// The record of ended task `id`, if this replica has read it and it has not expired.
    fn ended(&self, id: &str) -> Option<Arc<TaskRecord>> {
        let ended = self
            .ended
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let record = ended.get(id)?;
        record
            .expires_at()
            .is_none_or(|at| at > now_ms())
            .then(|| Arc::clone(record))
    }

    /// Keeps `record` if its task ended, for the polls to come: at most
    /// [`ENDED_KEPT`] records, the expired ones dropped first, then all at once.
    fn keep_ended(&self, record: &Arc<TaskRecord>) {
        if !record.status.is_terminal() {
            return;
        }
        let mut ended = self
            .ended
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if ended.len() >= ENDED_KEPT {
            let now = now_ms();
            ended.retain(|_, kept| kept.expires_at().is_none_or(|at| at > now));
            if ended.len() >= ENDED_KEPT {
                ended.clear();
            }
        }
        ended.insert(record.id.clone(), Arc::clone(record));
    }
}

/// How many ended tasks' records a replica keeps for the polls to come.
const ENDED_KEPT: usize = 4096;

/// How a task's call ended.
#[derive(Debug, Clone)]
pub(crate) enum Ending {
    /// With a result (a `CallToolResult`, an error result included).
    Completed(Value),
    /// With a protocol-level error.
    Failed(i64, String),
    /// Cancelled.
    Cancelled,
}

/// What a task's asks go through: its record, and the answers its replica hears of.
pub(crate) struct TaskLink {
    tasks: Arc<Tasks>,
    id: String,
    running: Arc<Running>,
}

impl std::fmt::Debug for TaskLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskLink").field("id", &self.id).finish()
    }
}

impl TaskLink {
    /// Asks the client `request` under `key`: the task waits in `input_required` until
    /// `tasks/update` answers. An answer given before (the same key asked again) is
    /// answered at once.
    pub(crate) async fn ask(&self, key: &str, request: InputRequest) -> Result<Value, AskError> {
        let (sender, answer) = oneshot::channel();
        self.running
            .waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key.to_owned(), sender);
        let mut given = None;
        let mut ended = false;
        let written = modify(self.tasks.store(), &self.id, |record| {
            if record.status.is_terminal() {
                ended = true;
                return Change::Keep;
            }
            if let Some(answer) = record.answers.get(key) {
                given = Some(answer.clone());
                return Change::Keep;
            }
            record
                .input_requests
                .insert(key.to_owned(), request.clone());
            record.status = TaskStatus::InputRequired;
            Change::Store
        })
        .await;
        let forget = || {
            self.running
                .waiting
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(key);
        };
        match written {
            Err(err) => {
                forget();
                return Err(AskError::NoClient(leak_reason(&err)));
            }
            Ok(None) => {
                forget();
                return Err(AskError::NoClient("the task is no longer kept"));
            }
            Ok(Some(_)) if ended => {
                forget();
                return Err(AskError::NoClient("the task ended"));
            }
            Ok(Some(_)) => {}
        }
        if let Some(answer) = given {
            forget();
            return Ok(answer);
        }
        answer
            .await
            .map_err(|_| AskError::NoClient("the task ended before the client answered"))
    }
}

impl AskChannel for TaskLink {
    fn ask<'a>(&'a self, key: &'a str, request: InputRequest) -> Asking<'a> {
        Box::pin(TaskLink::ask(self, key, request))
    }

    /// A task's asks were checked against what the client declared before it began.
    fn capabilities(&self) -> Option<Arc<Map<String, Value>>> {
        None
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
        self
    }
}

/// A store failure as an ask's reason; the details go to the log.
fn leak_reason(err: &StoreError) -> &'static str {
    tracing::warn!("a task's ask was not recorded: {err}");
    "the task store failed"
}

/// `tasks/*` on a task that is not there (or not the caller's).
fn unknown(id: &str) -> TaskFault {
    TaskFault::Unknown(id.to_owned())
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// `N` random bytes as hex; an error where the system has no randomness, since an id
/// that could be guessed would let anyone steer the task.
fn random_hex<const N: usize>() -> Result<String, StoreError> {
    crate::base::ids::random_hex::<N>()
        .map_err(|err| StoreError::new(format!("no randomness for a task id: {err}")))
}

/// The task as `tasks/get` and `CreateTaskResult` show it, written in one pass: the `Task`
/// fields, and, for `tasks/get` (`detailed`), what its status carries: `inputRequests`,
/// `result` or `error`. `result_type` is `complete` for `tasks/get`, `task` for the
/// `CreateTaskResult`; `meta` the result's `_meta`, if any.
pub(crate) fn wire(
    record: &TaskRecord,
    detailed: bool,
    result_type: &'static str,
    meta: Option<&Value>,
) -> Result<Box<serde_json::value::RawValue>, serde_json::Error> {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Wire<'a> {
        result_type: &'static str,
        task_id: &'a str,
        status: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        status_message: Option<&'a str>,
        created_at: String,
        last_updated_at: String,
        ttl_ms: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        poll_interval_ms: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        input_requests: Option<&'a std::collections::BTreeMap<String, InputRequest>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<&'a Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<&'a Value>,
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<&'a Value>,
    }
    let shows = |status: TaskStatus| detailed && record.status == status;
    serde_json::value::to_raw_value(&Wire {
        result_type,
        task_id: &record.id,
        status: record.status.as_str(),
        status_message: record.status_message.as_deref(),
        created_at: iso8601(record.created_at),
        last_updated_at: iso8601(record.last_updated_at),
        ttl_ms: record.ttl_ms,
        poll_interval_ms: record.poll_interval_ms,
        input_requests: shows(TaskStatus::InputRequired).then_some(&record.input_requests),
        result: record
            .result
            .as_ref()
            .filter(|_| shows(TaskStatus::Completed)),
        error: record.error.as_ref().filter(|_| shows(TaskStatus::Failed)),
        meta,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_task_is_no_task_to_anyone_but_its_owner() {
        let tasks = Arc::new(Tasks::in_memory());
        let (record, _link) = tasks
            .create(
                "a.tool",
                Some("alice client".to_owned()),
                CancellationToken::new(),
            )
            .await
            .expect("created");
        let id = record.id.as_str();
        assert_eq!(
            tasks
                .get(id, Some("alice client"))
                .await
                .map(|r| r.id.clone()),
            Ok(record.id.clone())
        );
        for stranger in [Some("bob client"), Some(""), None] {
            let refused = tasks.get(id, stranger).await.expect_err("refused");
            assert_eq!(refused.code(), INVALID_PARAMS, "{stranger:?}");
            assert!(tasks.cancel(id, stranger).await.is_err(), "{stranger:?}");
            assert!(
                tasks.update(id, stranger, &Map::new()).await.is_err(),
                "{stranger:?}"
            );
        }
        // Still working: nobody else cancelled it.
        let kept = tasks.get(id, Some("alice client")).await.expect("kept");
        assert_eq!(kept.status, TaskStatus::Working);
    }

    #[tokio::test]
    async fn answers_are_taken_for_the_asks_still_waiting_only() {
        let tasks = Arc::new(Tasks::in_memory());
        let (record, link) = tasks
            .create("a.tool", None, CancellationToken::new())
            .await
            .expect("created");
        let id = record.id.clone();
        let asking = tokio::spawn(async move {
            let first = link.ask("first", InputRequest::roots()).await;
            let again = link.ask("first", InputRequest::roots()).await;
            (first, again)
        });
        loop {
            let got = tasks.get(&id, None).await.expect("kept");
            if got.status == TaskStatus::InputRequired {
                assert_eq!(got.input_requests.keys().collect::<Vec<_>>(), ["first"]);
                break;
            }
            tokio::task::yield_now().await;
        }
        let mut answers = Map::new();
        answers.insert("never-asked".into(), json!({ "roots": [] }));
        answers.insert("first".into(), json!({ "roots": [{ "uri": "file:///a" }] }));
        tasks.update(&id, None, &answers).await.expect("updated");
        let (first, again) = asking.await.expect("asked");
        assert_eq!(first, Ok(json!({ "roots": [{ "uri": "file:///a" }] })));
        // The same key asked again is answered from the answer given.
        assert_eq!(again, first);
        let got = tasks.get(&id, None).await.expect("kept");
        assert_eq!(got.status, TaskStatus::Working);
        assert!(!got.answers.contains_key("never-asked"), "{got:?}");
    }

    /// Sets the stored lease of task `id` to have lapsed a second ago.
    async fn lapse(store: &dyn TaskStore, id: &str) {
        modify(store, id, |record| {
            record.lease_until = Some(now_ms() - 1000);
            Change::Store
        })
        .await
        .expect("stored")
        .expect("kept");
    }

    #[tokio::test]
    async fn a_late_renewal_never_makes_a_replica_fail_its_own_running_task() {
        let store: Arc<dyn TaskStore> = Arc::new(MemoryStore::new());
        let settings = TaskSettings::default();
        let runner = Arc::new(Tasks::new(Arc::clone(&store), settings));
        let other = Arc::new(Tasks::new(Arc::clone(&store), settings));
        let (record, _link) = runner
            .create("a.tool", None, CancellationToken::new())
            .await
            .expect("created");
        // The runner's renewal is late (a loaded store): its own poll still sees it work.
        lapse(&*store, &record.id).await;
        let own = runner.get(&record.id, None).await.expect("kept");
        assert_eq!(own.status, TaskStatus::Working, "{own:?}");
        // Another replica, which cannot tell a late runner from a dead one, reports it failed.
        let seen = other.get(&record.id, None).await.expect("kept");
        assert_eq!(seen.status, TaskStatus::Failed, "{seen:?}");
        assert!(
            seen.status_message
                .as_deref()
                .is_some_and(|message| message.contains("lapsed")),
            "{seen:?}"
        );
    }
}
