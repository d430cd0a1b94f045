//! Noticing a change to a skills folder: a thread compares the folder's fingerprint
//! ([`Folder::fingerprint`]: every entry's path, kind, size and modification time) at a
//! fixed interval, and loads the folder again when it differs.
//!
//! A poll, not the system's file events: it needs no extra crate and works the same on
//! every system, including network and container file systems where events do not come,
//! and it gathers the many events of one edit (an editor's temporary file, a `git
//! checkout`) into one reload. Skill folders are small (at most 512 files each), so a
//! look at their metadata every second costs little. A change within one interval is
//! seen at the next; one that keeps a file's size and modification time is not seen.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

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
            let mut seen = folder.fingerprint();
            loop {
                match stopped.recv_timeout(interval) {
                    Err(RecvTimeoutError::Timeout) => {}
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
                }
                let now = folder.fingerprint();
                if now == seen {
                    continue;
                }
                seen = now;
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
