//! Noticing a change to a skills folder: a thread compares the folder's fingerprint
//! ([`Folder::fingerprint`]: every entry's path, kind, size and modification time) at a
//! fixed interval, and loads the folder again when it differs.
//!
//! A poll, not the system's file events: it needs no extra crate and works the same on
//! every system, including network and container file systems where events do not come,
//! and it gathers the many events of one edit (an editor's temporary file, a `git
//! checkout`) into one reload. Skill folders are small (at most 512 files each), so a
//! look at their metadata every second costs little.
//!
//! A change is loaded once the folder has settled: once its last change is older than a
//! file system's clock may stand still (two seconds). Two changes of a file
//! within one tick of that clock may keep its size and timestamps, and the second would go
//! unseen if the first were loaded at once; so the load waits, and sees both. On Unix a
//! file's inode and change time count too, so a modification time set back is seen.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use super::{Folder, Loaded};

/// How often a folder is looked at, unless told otherwise.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// A folder being watched: the watching stops when this is dropped.
#[derive(Debug)]
pub struct Watch {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Watches `folder`, looking at it every `interval`: each time it changed, it is loaded
/// again and `changed` gets what it holds now. A folder that cannot be read at all (it was
/// removed) is reported to the log, and looked at again later.
pub fn watch(
    folder: Arc<Folder>,
    interval: Duration,
    changed: impl Fn(Loaded) + Send + 'static,
) -> std::io::Result<Watch> {
    let (stop, stopped) = mpsc::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("mcp-skills-watch".to_owned())
        .spawn(move || {
            // The fingerprint of what is served, when the folder had settled as it was
            // loaded; otherwise it may have changed since, unseen, and is loaded again.
            let first = folder.look_at(SystemTime::now());
            let mut served = first.settled.then_some(first.fingerprint);
            loop {
                match stopped.recv_timeout(interval) {
                    Err(RecvTimeoutError::Timeout) => {}
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
                }
                let look = folder.look_at(SystemTime::now());
                if !look.settled || served == Some(look.fingerprint) {
                    continue;
                }
                served = Some(look.fingerprint);
                match folder.load() {
                    Ok(loaded) => changed(loaded),
                    Err(err) => tracing::warn!(%err, "the skills folder cannot be read"),
                }
            }
        })?;
    Ok(Watch {
        stop: Some(stop),
        thread: Some(thread),
    })
}
