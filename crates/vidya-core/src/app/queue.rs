//! One queue for the answer model: questions are answered one at a time, in the order they
//! came, the teacher's own ahead of the students' (so the teacher's window answers within one
//! model call's time even while a class asks). A question takes its place in that order when
//! it arrives ([`AskQueue::arrive`]), before its passages are retrieved, so a question whose
//! retrieval took longer is not overtaken by one that came after it. Each waiting question learns how many are
//! ahead of it, and can leave the queue (the student cancelled or closed the page).
//!
//! The queue holds at most [`MAX_WAITING`] questions; one more is refused
//! ([`VidyaError::Busy`]) with a message to ask again in a minute. The teacher's question is never
//! refused.

use crate::error::{Result, VidyaError};
use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// The most questions that may wait at once (a class of 60, one question each).
pub const MAX_WAITING: usize = 60;

/// How often a waiting question checks whether it was cancelled (ms).
pub const CANCEL_POLL_MS: u64 = 250;

#[derive(Debug, Default)]
struct State {
    next: u64,
    /// Waiting tickets in serving order: `(ticket, teacher)`.
    waiting: VecDeque<(u64, bool)>,
    busy: bool,
}

/// The queue (one per [`super::App`]).
#[derive(Debug, Default)]
pub struct AskQueue {
    state: Mutex<State>,
    turn: Condvar,
}

/// A question's place in the arrival order ([`AskQueue::arrive`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Arrival(u64);

/// A question's turn with the model; the next question's turn starts when it is dropped.
#[derive(Debug)]
pub struct Turn<'a> {
    queue: &'a AskQueue,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.queue.lock().busy = false;
        self.queue.turn.notify_all();
    }
}

impl AskQueue {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Questions waiting now (not counting the one being answered).
    pub fn waiting(&self) -> usize {
        self.lock().waiting.len()
    }

    /// Numbers a question as it arrives: [`AskQueue::wait_turn`] serves questions in the order
    /// of these numbers (the teacher's first), whenever each comes to wait.
    pub fn arrive(&self) -> Arrival {
        let mut st = self.lock();
        st.next += 1;
        Arrival(st.next - 1)
    }

    /// Waits for the turn of the question that arrived as `arrival`. `teacher` questions go
    /// ahead of every student's (after teacher questions that arrived earlier); among the
    /// students', one that arrived earlier goes first. `on_ahead(n)` is called with the number of questions ahead
    /// (the one being answered included) whenever it changes, first before waiting.
    /// `cancelled` is polled every [`CANCEL_POLL_MS`].
    ///
    /// Errors: [`VidyaError::Busy`] when [`MAX_WAITING`] questions wait already (never for
    /// the teacher's);
    /// [`VidyaError::Cancelled`] when `cancelled` said so (the question left the queue).
    pub fn wait_turn(
        &self,
        arrival: Arrival,
        teacher: bool,
        on_ahead: &mut dyn FnMut(usize),
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Turn<'_>> {
        let mut st = self.lock();
        // The teacher's question is never refused: it goes ahead of the waiting class.
        if !teacher && st.waiting.len() >= MAX_WAITING {
            return Err(VidyaError::Busy(format!(
                "{} questions are waiting for the model already: ask again in a minute",
                st.waiting.len()
            )));
        }
        let ticket = arrival.0;
        let at = st
            .waiting
            .iter()
            .position(|(t, its_teacher)| {
                if teacher {
                    !*its_teacher || *t > ticket
                } else {
                    !*its_teacher && *t > ticket
                }
            })
            .unwrap_or(st.waiting.len());
        st.waiting.insert(at, (ticket, teacher));
        let mut last = None;
        loop {
            let pos = st
                .waiting
                .iter()
                .position(|(t, _)| *t == ticket)
                .unwrap_or(0);
            if !st.busy && pos == 0 {
                st.waiting.pop_front();
                st.busy = true;
                return Ok(Turn { queue: self });
            }
            let ahead = pos + st.busy as usize;
            if last != Some(ahead) {
                last = Some(ahead);
                drop(st);
                on_ahead(ahead);
                st = self.lock();
                continue;
            }
            if cancelled() {
                st.waiting.retain(|(t, _)| *t != ticket);
                drop(st);
                self.turn.notify_all();
                return Err(VidyaError::Cancelled);
            }
            st = self
                .turn
                .wait_timeout(st, Duration::from_millis(CANCEL_POLL_MS))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    #[test]
    fn questions_are_served_in_order_and_the_teacher_goes_first() {
        let q = Arc::new(AskQueue::default());
        let first = q
            .wait_turn(q.arrive(), false, &mut |_| {}, &|| false)
            .unwrap();
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut handles = Vec::new();
        for (i, teacher) in [(1, false), (2, false), (3, true)] {
            let (queue, order) = (q.clone(), order.clone());
            handles.push(std::thread::spawn(move || {
                let mut seen = Vec::new();
                let _turn = queue
                    .wait_turn(queue.arrive(), teacher, &mut |n| seen.push(n), &|| false)
                    .unwrap();
                order.lock().unwrap().push(i);
                seen
            }));
            // Each joins the queue before the next.
            while q.waiting() < handles.len() {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        drop(first);
        let seen: Vec<Vec<usize>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(
            *order.lock().unwrap(),
            [3, 1, 2],
            "teacher first, then in order"
        );
        // Ahead counts the answer in progress: the first student waited for it alone, then
        // the teacher's question went ahead of both students.
        assert_eq!(seen[0][0], 1, "{seen:?}");
        assert_eq!(seen[1][0], 2, "{seen:?}");
        assert_eq!(
            seen[2],
            [1],
            "the teacher waits only for the answer in progress"
        );
    }

    #[test]
    fn a_cancelled_question_leaves_and_a_full_queue_refuses() {
        let q = AskQueue::default();
        let _busy = q
            .wait_turn(q.arrive(), false, &mut |_| {}, &|| false)
            .unwrap();
        let cancel = AtomicBool::new(true);
        let r = q.wait_turn(q.arrive(), false, &mut |_| {}, &|| {
            cancel.load(Ordering::SeqCst)
        });
        assert!(matches!(r, Err(VidyaError::Cancelled)));
        assert_eq!(q.waiting(), 0);
        q.lock()
            .waiting
            .extend((100..100 + MAX_WAITING as u64).map(|t| (t, false)));
        let r = q.wait_turn(q.arrive(), false, &mut |_| {}, &|| true);
        assert!(matches!(r, Err(VidyaError::Busy(_))));
        // The teacher still gets in (and here leaves at once, cancelled).
        let r = q.wait_turn(q.arrive(), true, &mut |_| {}, &|| true);
        assert!(matches!(r, Err(VidyaError::Cancelled)));
    }

    #[test]
    fn a_question_that_arrived_first_goes_first_however_long_its_retrieval_took() {
        let q = Arc::new(AskQueue::default());
        let busy = q
            .wait_turn(q.arrive(), false, &mut |_| {}, &|| false)
            .unwrap();
        let (slow, quick) = (q.arrive(), q.arrive());
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut handles = Vec::new();
        // The later question comes to wait first (its retrieval was quicker).
        for (name, arrival) in [("quick", quick), ("slow", slow)] {
            let (queue, order) = (q.clone(), order.clone());
            handles.push(std::thread::spawn(move || {
                let _turn = queue
                    .wait_turn(arrival, false, &mut |_| {}, &|| false)
                    .unwrap();
                order.lock().unwrap().push(name);
            }));
            while q.waiting() < handles.len() {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        drop(busy);
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(*order.lock().unwrap(), ["slow", "quick"]);
    }
}
