//! The way out of the stdio transport: the output the reading thread writes its quick
//! answers to, and, for everything else (answers of awaited calls, notifications, the
//! server's own requests), the writer thread, or the task that has the answer when the
//! output is free and nothing is queued before it.

use std::io::{self, BufWriter, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use super::lock;

/// The output, shared by the reading thread (immediate answers) and the writer thread.
pub(super) type Output<W> = Arc<Mutex<BufWriter<W>>>;

/// The way out for what is not written by the reading thread: answers of awaited calls,
/// notifications and the server's own requests.
pub(super) struct Outbox<W: Write> {
    output: Output<W>,
    /// To the writer thread.
    sender: mpsc::Sender<Outgoing>,
    /// Messages given to the writer thread and not yet written.
    queued: Arc<AtomicUsize>,
    /// Whether a notification was dropped since the writer last caught up.
    behind: Arc<AtomicBool>,
}

impl<W: Write> Clone for Outbox<W> {
    fn clone(&self) -> Self {
        Self {
            output: Arc::clone(&self.output),
            sender: self.sender.clone(),
            queued: Arc::clone(&self.queued),
            behind: Arc::clone(&self.behind),
        }
    }
}

impl<W: Write> Outbox<W> {
    /// The way out through `output`, or through the writer thread behind `sender`.
    pub(super) fn new(output: Output<W>, sender: mpsc::Sender<Outgoing>) -> Self {
        Self {
            output,
            sender,
            queued: Arc::new(AtomicUsize::new(0)),
            behind: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Whether a notification was dropped since the writer last caught up.
    pub(super) fn behind(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.behind)
    }

    /// How many messages the writer thread has been given and not yet written.
    pub(super) fn queued(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.queued)
    }

    /// Writes an awaited call's answer. When the output is free and the writer thread has
    /// nothing left to write (so the answer overtakes nothing, such as the call's own
    /// progress), the task that has it writes it at once; a quick call then costs no wake-up
    /// of the writer. Otherwise the writer thread writes it with the others.
    pub(super) async fn answer(&self, message: String) {
        if self.queued.load(Ordering::SeqCst) == 0 {
            if let Ok(mut output) = self.output.try_lock() {
                if self.queued.load(Ordering::SeqCst) == 0 {
                    let written = output
                        .write_all(message.as_bytes())
                        .and_then(|()| output.write_all(b"\n"))
                        .and_then(|()| output.flush());
                    // An output that failed is the writer thread's to report, as it
                    // reports its own failures: the answer goes its way.
                    if written.is_ok() {
                        return;
                    }
                }
            }
        }
        self.queued.fetch_add(1, Ordering::SeqCst);
        if self.sender.send(Outgoing::Message(message)).await.is_err() {
            self.queued.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Queues a notification or request; a full queue drops it rather than stall the sender,
    /// and the connection is marked behind: once the writer has caught up, it is told
    /// every change it may have missed (see [`write_loop`]).
    pub(super) fn notify(&self, message: String) {
        self.queued.fetch_add(1, Ordering::SeqCst);
        if self.sender.try_send(Outgoing::Message(message)).is_err() {
            self.queued.fetch_sub(1, Ordering::SeqCst);
            if !self.behind.swap(true, Ordering::SeqCst) {
                tracing::warn!(
                    "the client reads too slowly: notifications were dropped; it is told every \
                     list changed and every resource it subscribed to updated once it catches up"
                );
            }
        }
    }
}

/// What the writer thread is asked to do.
pub(super) enum Outgoing {
    /// Write a message.
    Message(String),
    /// Flush and stop.
    Close,
}

/// Writes the answers of awaited calls, several at a time when they come together. When the
/// queue is empty again after notifications were dropped, `resync` queues what tells the
/// client every change it may have missed, so that none is lost in silence.
pub(super) fn write_loop<W: Write>(
    mut outbox: mpsc::Receiver<Outgoing>,
    output: &Mutex<BufWriter<W>>,
    (queued, behind): (&AtomicUsize, &AtomicBool),
    resync: &dyn Fn(),
) -> io::Result<()> {
    while let Some(first) = outbox.blocking_recv() {
        let mut output = lock(output);
        let mut next = Some(first);
        while let Some(outgoing) = next {
            match outgoing {
                Outgoing::Message(message) => {
                    output.write_all(message.as_bytes())?;
                    output.write_all(b"\n")?;
                    queued.fetch_sub(1, Ordering::SeqCst);
                }
                Outgoing::Close => return output.flush(),
            }
            next = outbox.try_recv().ok();
        }
        output.flush()?;
        drop(output);
        if queued.load(Ordering::SeqCst) == 0 && behind.swap(false, Ordering::SeqCst) {
            resync();
        }
    }
    Ok(())
}
