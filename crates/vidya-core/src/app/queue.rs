//! One queue for the answer model: questions are answered one at a time, in the order they
//! came, the teacher's own ahead of the students'. The teacher's question also pre-empts a
//! student's answer in progress ([`Turn::preempted`]): that answer stops, the teacher's is
//! written, and the student's starts again first in line ([`Turn::rejoin`]), so the
//! teacher's window answers within one model call's time even while a class asks (on a
//! 2-core laptop two answers at once each run at half speed, so waiting for the student's
//! answer to end, or running both, takes up to two calls' time). A question takes its place in that order when
//! it arrives ([`AskQueue::arrive`]), before its passages are retrieved, so a question whose
//! retrieval took longer is not overtaken by one that came after it. Each waiting question learns how many are
//! ahead of it, and can leave the queue (the student cancelled or closed the page).
//!
//! The queue holds at most [`MAX_WAITING`] questions; one more is refused
//! ([`VidyaError::Busy`]) with a message to ask again in a minute. The teacher's question is never
//! refused.

use crate::error::{Result, VidyaError};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
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
    /// The pre-emption flag of the student's answer in progress (`None` while the teacher's
    /// is, or none is).
    running_student: Option<Arc<AtomicBool>>,
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

/// A question's turn with the model; the next question's turn starts when it is dropped, or
/// when a pre-empted student's turn is given up with [`Turn::rejoin`].
#[derive(Debug)]
pub struct Turn<'a> {
    queue: &'a AskQueue,
    ticket: u64,
    preempt: Option<Arc<AtomicBool>>,
    released: bool,
}

impl<'a> Turn<'a> {
    /// For a student's turn, the flag the queue sets when the teacher's question arrives:
    /// the model call should stop, and the question [`Turn::rejoin`] the queue. `None` for
    /// the teacher's turn (never pre-empted).
    pub fn preempted(&self) -> Option<Arc<AtomicBool>> {
        self.preempt.clone()
    }

    /// Gives the model to the teacher's question that pre-empted this student's turn and
    /// waits for the turn again, in the same step (no question can slip in between): the
    /// question keeps its place by arrival, so it goes first after the teacher's, and it is
    /// never refused as the queue is full. `on_ahead` and `cancelled` as
    /// [`AskQueue::wait_turn`].
    ///
    /// Errors: [`VidyaError::Cancelled`] when `cancelled` said so while waiting.
    pub fn rejoin(
        mut self,
        on_ahead: &mut dyn FnMut(usize),
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Turn<'a>> {
        let (queue, ticket) = (self.queue, self.ticket);
        // Given up below, in the same step as the question rejoins: dropping it must not
        // release the model on its own.
        self.released = true;
        drop(self);
        let mut st = queue.lock();
        AskQueue::enqueue(&mut st, ticket, false);
        st.busy = false;
        st.running_student = None;
        queue.turn.notify_all();
        queue.wait_in_line(st, ticket, false, on_ahead, cancelled)
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        if self.released {
            return;
        }
        let mut st = self.queue.lock();
        st.busy = false;
        st.running_student = None;
        drop(st);
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
    /// The teacher's question sets the [`Turn::preempted`] flag of a student's answer in
    /// progress as it starts waiting.
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
        Self::enqueue(&mut st, arrival.0, teacher);
        if teacher {
            if let Some(student) = &st.running_student {
                student.store(true, Ordering::SeqCst);
            }
        }
        self.wait_in_line(st, arrival.0, teacher, on_ahead, cancelled)
    }

    /// Puts `ticket` in its place: a teacher's after earlier teachers' questions, ahead of
    /// every student's; a student's after every earlier question.
    fn enqueue(st: &mut State, ticket: u64, teacher: bool) {
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
    }

    fn wait_in_line<'q>(
        &'q self,
        mut st: MutexGuard<'q, State>,
        ticket: u64,
        teacher: bool,
        on_ahead: &mut dyn FnMut(usize),
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Turn<'q>> {
        let mut last = None;
        loop {
            // Checked before the turn is taken: a question cancelled while it waited
            // never reaches the model.
            if cancelled() {
                st.waiting.retain(|(t, _)| *t != ticket);
                drop(st);
                self.turn.notify_all();
                return Err(VidyaError::Cancelled);
            }
            let pos = st
                .waiting
                .iter()
                .position(|(t, _)| *t == ticket)
                .unwrap_or(0);
            if !st.busy && pos == 0 {
                st.waiting.pop_front();
                st.busy = true;
                let preempt = (!teacher).then(|| Arc::new(AtomicBool::new(false)));
                st.running_student = preempt.clone();
                return Ok(Turn {
                    queue: self,
                    ticket,
                    preempt,
                    released: false,
                });
            }
            let ahead = pos + st.busy as usize;
            if last != Some(ahead) {
                last = Some(ahead);
                drop(st);
                on_ahead(ahead);
                st = self.lock();
                continue;
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
    fn a_question_cancelled_before_its_turn_never_gets_it() {
        let q = AskQueue::default();
        // The model is free, but the student closed the page already.
        let r = q.wait_turn(q.arrive(), false, &mut |_| {}, &|| true);
        assert!(matches!(r, Err(VidyaError::Cancelled)));
        assert_eq!(q.waiting(), 0);
        let next = q.wait_turn(q.arrive(), false, &mut |_| {}, &|| false);
        assert!(next.is_ok(), "the model stays free for the next question");
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

    #[test]
    fn the_teachers_question_preempts_a_students_answer_which_then_goes_first() {
        let q = Arc::new(AskQueue::default());
        let turn = q
            .wait_turn(q.arrive(), false, &mut |_| {}, &|| false)
            .unwrap();
        let preempted = turn
            .preempted()
            .expect("a student's turn can be pre-empted");
        // Another student waits behind the answer in progress.
        let order = Arc::new(Mutex::new(Vec::new()));
        let later = {
            let (queue, order) = (q.clone(), order.clone());
            let arrival = q.arrive();
            std::thread::spawn(move || {
                let _t = queue
                    .wait_turn(arrival, false, &mut |_| {}, &|| false)
                    .unwrap();
                order.lock().unwrap().push("later student");
            })
        };
        while q.waiting() < 1 {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(
            !preempted.load(Ordering::SeqCst),
            "students do not pre-empt"
        );
        let teacher = {
            let (queue, order) = (q.clone(), order.clone());
            std::thread::spawn(move || {
                let t = queue
                    .wait_turn(queue.arrive(), true, &mut |_| {}, &|| false)
                    .unwrap();
                assert!(t.preempted().is_none(), "the teacher is never pre-empted");
                order.lock().unwrap().push("teacher");
            })
        };
        while !preempted.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(5));
        }
        // The pre-empted student stops and waits again, with the queue full meanwhile: it is
        // not refused, and it goes ahead of the student who came later.
        q.lock()
            .waiting
            .extend((1000..1000 + MAX_WAITING as u64).map(|t| (t, false)));
        let mut seen = Vec::new();
        let t = turn.rejoin(&mut |n| seen.push(n), &|| false).unwrap();
        assert!(t.preempted().is_some_and(|p| !p.load(Ordering::SeqCst)));
        order.lock().unwrap().push("pre-empted student");
        drop(t);
        teacher.join().unwrap();
        later.join().unwrap();
        assert_eq!(
            *order.lock().unwrap(),
            ["teacher", "pre-empted student", "later student"]
        );
        assert!(seen.first().is_some_and(|&n| n >= 1), "{seen:?}");
    }
}
