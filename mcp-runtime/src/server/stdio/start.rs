//! Starting a task where its request was read. A call of a mounted tool does, up to its
//! first wait, nothing but write its request to the server behind; the reading thread does
//! that itself, and the call moves to the runtime only when it is woken. Handing it to a
//! worker at once would wake one, and on a quiet server that wake-up is most of the cost of
//! relaying a call.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use tokio::runtime::Handle;

use super::lock;

type Task = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Polls `task` once on this thread, within `runtime`'s context; if it is not done, it is
/// spawned on `runtime` when first woken. A panic in that first poll ends the task, as it
/// would end a spawned one, and leaves this thread running.
pub(super) fn start_here(runtime: &Handle, task: impl Future<Output = ()> + Send + 'static) {
    let _entered = runtime.enter();
    let parked = Arc::new(Parked {
        runtime: runtime.clone(),
        state: Mutex::new(State {
            task: None,
            woken: false,
        }),
    });
    let waker = Waker::from(Arc::clone(&parked));
    let mut task: Task = Box::pin(task);
    let polled = catch_unwind(AssertUnwindSafe(|| {
        task.as_mut().poll(&mut Context::from_waker(&waker))
    }));
    if !matches!(polled, Ok(Poll::Pending)) {
        return;
    }
    let mut state = lock(&parked.state);
    if state.woken {
        // Woken during the poll: it goes now.
        drop(state);
        runtime.spawn(task);
    } else {
        state.task = Some(task);
    }
}

/// A task polled once and waiting for its first wake-up. Were it never woken (every waker
/// dropped), it is dropped with the last of them.
struct Parked {
    runtime: Handle,
    state: Mutex<State>,
}

struct State {
    task: Option<Task>,
    woken: bool,
}

impl Wake for Parked {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let task = {
            let mut state = lock(&self.state);
            state.woken = true;
            state.task.take()
        };
        // Polled on the runtime from now on, with its own wakers: a later wake-up through
        // this one finds nothing.
        if let Some(task) = task {
            self.runtime.spawn(task);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::oneshot;

    /// A runtime of one worker, so that "not on the calling thread" means "on the worker".
    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn a_task_runs_its_first_part_here_and_the_rest_on_the_runtime() {
        let runtime = runtime();
        let here = std::thread::current().id();
        let (go, wait) = oneshot::channel::<()>();
        let (done, finished) = std::sync::mpsc::channel();
        start_here(runtime.handle(), async move {
            let first = std::thread::current().id();
            let _ = wait.await;
            let _ = done.send((first, std::thread::current().id()));
        });
        go.send(()).unwrap();
        let (first, rest) = finished
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("the task finished on the runtime");
        assert_eq!(first, here, "the first part ran on the calling thread");
        assert_ne!(rest, here, "the rest ran on a worker");
    }

    #[test]
    fn a_task_done_at_once_or_panicking_is_not_spawned_and_the_thread_goes_on() {
        let runtime = runtime();
        let (done, finished) = std::sync::mpsc::channel();
        start_here(runtime.handle(), async move {
            let _ = done.send(());
        });
        assert!(finished.try_recv().is_ok(), "it ran to its end here");
        start_here(runtime.handle(), async { panic!("a tool's bug") });
    }

    #[test]
    fn a_task_woken_during_its_first_poll_still_finishes() {
        let runtime = runtime();
        let (done, finished) = std::sync::mpsc::channel();
        start_here(runtime.handle(), async move {
            // Pending once, having woken itself.
            let mut yielded = false;
            std::future::poll_fn(|cx| {
                if yielded {
                    Poll::Ready(())
                } else {
                    yielded = true;
                    cx.waker().wake_by_ref();
                    Poll::Pending
                }
            })
            .await;
            let _ = done.send(());
        });
        finished
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("the task finished on the runtime");
    }
}
