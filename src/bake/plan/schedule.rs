//! Jobs of one bake run side by side on the bake's threads.
//!
//! A job has serial stretches — loading its model and textures, hashing
//! its inputs, encoding its last GIF — where its frames cannot keep every
//! thread busy; run one job after another and those stretches idle the
//! other cores (a recipe of many small jobs, a server's hundreds of item
//! thumbnails, is mostly such stretches). So as many jobs as there are
//! threads run at once, each spreading its frames over the same pool.
//!
//! What running together must not change: every job's files are its own
//! (outputs are byte-identical whatever overlaps), the report and the
//! per-job lines come in recipe order, and the memory limit holds for the
//! jobs rendering at once, not just each alone: a job whose images do not
//! fit beside the others' waits (`Budget`).
//!
//! A task never blocks a worker thread to wait for memory or for another
//! job: a rayon worker that blocks inside a task can deadlock on work
//! further down its own stack. Instead a job that finds the budget taken
//! gives up before rendering (`Attempt::Deferred`) and the coordinator,
//! on a thread outside the pool, starts it again once a job has ended.

use std::collections::{BTreeMap, VecDeque};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::Mutex;

/// What a task made of one attempt.
pub(crate) enum Attempt<T> {
    /// It ran to its end, well or not.
    Done(T),
    /// It stopped before rendering: its images did not fit in the budget
    /// beside those of the jobs running. Run it again later.
    Deferred,
}

/// Bytes the images of the jobs rendering at once may take.
#[derive(Debug)]
pub(crate) struct Budget {
    limit: u64,
    used: Mutex<u64>,
}

/// Bytes taken from a [`Budget`], given back when dropped.
#[derive(Debug)]
pub(crate) struct Held<'a> {
    budget: &'a Budget,
    bytes: u64,
}

impl Budget {
    pub fn new(limit: u64) -> Budget {
        Budget {
            limit,
            used: Mutex::new(0),
        }
    }

    /// Takes `bytes` if they fit beside what is held, or if nothing is held
    /// (a job alone was already checked against the limit itself, so the
    /// first one always runs).
    pub fn try_take(&self, bytes: u64) -> Option<Held<'_>> {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        if *used != 0 && used.saturating_add(bytes) > self.limit {
            return None;
        }
        *used = used.saturating_add(bytes);
        Some(Held {
            budget: self,
            bytes,
        })
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let mut used = self.budget.used.lock().unwrap_or_else(|e| e.into_inner());
        *used = used.saturating_sub(self.bytes);
    }
}

/// Where the tasks run.
pub(crate) enum Pool<'a> {
    /// A pool of the bake's own.
    Own(&'a rayon::ThreadPool),
    /// rayon's global pool.
    Global,
}

/// Runs `task(0..count)`, up to the pool's thread count at once, and hands
/// each result to `done` in index order as soon as it and every one before
/// it have ended. Called from inside a rayon worker (a library caller's
/// own parallel loop) the tasks run one after another on that thread: the
/// coordinator must not block a worker.
///
/// A task that panics stops new tasks from starting; the panic is resumed
/// here once the running ones have ended.
pub(crate) fn run_in_order<T: Send>(
    pool: Pool<'_>,
    count: usize,
    task: &(dyn Fn(usize) -> Attempt<T> + Sync),
    done: &mut dyn FnMut(T),
) {
    let in_worker = match pool {
        Pool::Own(p) => p.current_thread_index().is_some(),
        Pool::Global => rayon::current_thread_index().is_some(),
    };
    if in_worker {
        for i in 0..count {
            // Alone, a job always finds the budget free: a retry succeeds.
            let out = loop {
                if let Attempt::Done(t) = task(i) {
                    break t;
                }
            };
            done(out);
        }
        return;
    }
    match pool {
        Pool::Own(p) => {
            let width = p.current_num_threads();
            p.in_place_scope(|s| coordinate(s, width, count, task, done))
        }
        Pool::Global => {
            let width = rayon::current_num_threads();
            rayon::in_place_scope(|s| coordinate(s, width, count, task, done))
        }
    }
}

type Message<T> = (usize, std::thread::Result<Attempt<T>>);

/// The loop on the calling thread: starts tasks, collects their ends.
fn coordinate<'s, T: Send + 's>(
    scope: &rayon::Scope<'s>,
    width: usize,
    count: usize,
    task: &'s (dyn Fn(usize) -> Attempt<T> + Sync),
    done: &mut dyn FnMut(T),
) {
    let (tx, rx) = mpsc::channel::<Message<T>>();
    // Ended tasks waiting for an earlier one: at most the pool's width, so
    // a map rather than a slot per task (a catalogue has thousands).
    let mut results: BTreeMap<usize, T> = BTreeMap::new();
    let mut next = 0;
    let mut emitted = 0;
    let mut running = 0usize;
    let mut deferred: VecDeque<usize> = VecDeque::new();
    // Deferred tasks that may be tried again: one per ended task, since
    // each end may have freed memory; a deferred task is tried before a
    // new one so that the order stays close to the recipe's.
    let mut retries = 0usize;
    let mut panic = None;
    loop {
        while panic.is_none() && running < width.max(1) {
            let i = if retries > 0 || (running == 0 && next == count) {
                match deferred.pop_front() {
                    Some(i) => {
                        retries = retries.saturating_sub(1);
                        i
                    }
                    None if next < count => take(&mut next),
                    None => break,
                }
            } else if next < count {
                take(&mut next)
            } else {
                break;
            };
            let tx = tx.clone();
            scope.spawn(move |_| {
                let r = catch_unwind(AssertUnwindSafe(|| task(i)));
                // The receiver lives until every started task has
                // answered; a failed send can only follow its own panic.
                let _ = tx.send((i, r));
            });
            running += 1;
        }
        if running == 0 {
            break;
        }
        let Ok((i, r)) = rx.recv() else { break };
        running -= 1;
        match r {
            Ok(Attempt::Done(t)) => {
                results.insert(i, t);
                retries += 1;
            }
            Ok(Attempt::Deferred) => deferred.push_front(i),
            Err(p) => {
                panic.get_or_insert(p);
            }
        }
        while let Some(t) = results.remove(&emitted) {
            done(t);
            emitted += 1;
        }
    }
    if let Some(p) = panic {
        resume_unwind(p);
    }
}

fn take(next: &mut usize) -> usize {
    *next += 1;
    *next - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn pool(n: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .expect("a test pool")
    }

    #[test]
    fn results_come_in_order_whatever_ends_first() {
        let p = pool(4);
        // Earlier tasks take longer, so they end after later ones.
        let task = |i: usize| {
            std::thread::sleep(std::time::Duration::from_millis(((8 - i) * 3) as u64));
            Attempt::Done(i * 10)
        };
        let mut got = Vec::new();
        run_in_order(Pool::Own(&p), 8, &task, &mut |t| got.push(t));
        assert_eq!(got, [0, 10, 20, 30, 40, 50, 60, 70]);
    }

    #[test]
    fn no_more_run_at_once_than_the_pool_has_threads() {
        let p = pool(3);
        let now = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let task = |i: usize| {
            let n = now.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(n, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(5));
            now.fetch_sub(1, Ordering::SeqCst);
            Attempt::Done(i)
        };
        let mut got = Vec::new();
        run_in_order(Pool::Own(&p), 12, &task, &mut |t| got.push(t));
        assert_eq!(got, (0..12).collect::<Vec<_>>());
        let most = most.load(Ordering::SeqCst);
        assert!((1..=3).contains(&most), "{most} tasks ran at once");
    }

    #[test]
    fn the_budget_holds_for_jobs_rendering_at_once() {
        let p = pool(4);
        let budget = Budget::new(100);
        let now = Mutex::new(0u64);
        let most = Mutex::new(0u64);
        let tries = AtomicUsize::new(0);
        // Six jobs of 60 bytes: any two together exceed the limit of 100.
        let task = |i: usize| {
            tries.fetch_add(1, Ordering::SeqCst);
            let Some(_held) = budget.try_take(60) else {
                return Attempt::Deferred;
            };
            {
                let mut n = now.lock().unwrap();
                *n += 60;
                let mut m = most.lock().unwrap();
                *m = (*m).max(*n);
            }
            std::thread::sleep(std::time::Duration::from_millis(3));
            *now.lock().unwrap() -= 60;
            Attempt::Done(i)
        };
        let mut got = Vec::new();
        run_in_order(Pool::Own(&p), 6, &task, &mut |t| got.push(t));
        assert_eq!(got, [0, 1, 2, 3, 4, 5]);
        assert_eq!(*most.lock().unwrap(), 60, "two jobs rendered at once");
        // Each end lets at most one deferred job try again, and a task is
        // started at most once per free thread: the retries stay bounded.
        let tries = tries.load(Ordering::SeqCst);
        assert!((6..=6 * 4).contains(&tries), "{tries} attempts");
        assert_eq!(*budget.used.lock().unwrap(), 0, "all of it given back");
    }

    #[test]
    fn a_job_alone_always_fits() {
        let budget = Budget::new(10);
        let held = budget.try_take(1000).expect("nothing else is held");
        assert!(budget.try_take(1).is_none());
        drop(held);
        assert!(budget.try_take(10).is_some());
    }

    #[test]
    fn a_panic_reaches_the_caller_after_the_others_end() {
        let p = pool(2);
        let ended = AtomicUsize::new(0);
        let task = |i: usize| {
            if i == 1 {
                panic!("task one fails");
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
            ended.fetch_add(1, Ordering::SeqCst);
            Attempt::Done(i)
        };
        let r = catch_unwind(AssertUnwindSafe(|| {
            run_in_order(Pool::Own(&p), 6, &task, &mut |_| {})
        }));
        let msg = r.expect_err("the panic is resumed");
        assert_eq!(msg.downcast_ref::<&str>(), Some(&"task one fails"));
        // Task 0 was running beside it and ended; none started after it.
        assert!(ended.load(Ordering::SeqCst) >= 1);
    }

    #[test]
    fn inside_a_worker_the_tasks_run_one_after_another() {
        let p = pool(2);
        let got = p.install(|| {
            let mut got = Vec::new();
            let task = |i: usize| {
                assert!(rayon::current_thread_index().is_some());
                Attempt::Done(i)
            };
            run_in_order(Pool::Global, 3, &task, &mut |t| got.push(t));
            run_in_order(Pool::Own(&p), 2, &task, &mut |t| got.push(t));
            got
        });
        assert_eq!(got, [0, 1, 2, 0, 1]);
    }
}
