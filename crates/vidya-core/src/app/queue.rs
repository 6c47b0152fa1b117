//! One queue for the answer models: questions are answered in the order they came, the
//! teacher's own ahead of the students', by every answer machine of the pool (the laptop's
//! own Ollama and the lab machines the teacher added, [`AskQueue::set_hosts`]), each with
//! its slots (answers written at once). The question at the head of the line takes the first
//! free slot of a machine that is up. The teacher's question also pre-empts a student's
//! answer in progress when no slot is free ([`Turn::preempted`]): that answer stops, the
//! teacher's is written, and the student's starts again first in line ([`Turn::rejoin`]), so
//! the teacher's window answers within one model call's time even while a class asks. A
//! machine that fails (it stops answering, or its connection breaks mid-answer) is set
//! aside for [`DOWN_FOR_SECS`] and the question goes back to the head of the line for
//! another machine ([`Turn::failed`]). A question takes its place in that order when it
//! arrives ([`AskQueue::arrive`]), before its passages are retrieved, so a question whose
//! retrieval took longer is not overtaken by one that came after it. Each waiting question
//! learns how many are ahead of it, and can leave the queue (the student cancelled or closed
//! the page).
//!
//! The queue holds at most [`MAX_WAITING`] questions; one more is refused
//! ([`VidyaError::Busy`]) with a message to ask again in a minute. The teacher's question is never
//! refused.

use crate::error::{Result, VidyaError};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The most questions that may wait at once (a class of 60, one question each).
pub const MAX_WAITING: usize = 60;

/// How often a waiting question checks whether it was cancelled (ms).
pub const CANCEL_POLL_MS: u64 = 250;

/// How long a machine that failed is set aside before it is tried again (s).
pub const DOWN_FOR_SECS: u64 = 30;

/// One place an answer is written: a slot of an answer machine.
#[derive(Debug, Clone, Default)]
struct Slot {
    /// The machine's Ollama address (empty: the tutor's own setting).
    host: String,
    busy: bool,
    /// The pre-emption flag of the student's answer in progress here (`None` while the
    /// teacher's is, or none is).
    running_student: Option<Arc<AtomicBool>>,
    /// Left over from an earlier pool: takes no new question (kept so that the index a turn
    /// holds stays valid).
    retired: bool,
}

/// What the queue knows of one answer machine (the Dashboard shows it).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct MachineHealth {
    /// Its Ollama address (empty: the laptop's own, as set in Settings).
    pub host: String,
    /// Answers it is writing now.
    pub busy: usize,
    /// Answers it can write at once.
    pub slots: usize,
    /// False while it is set aside after a failure.
    pub up: bool,
    /// Answers it finished.
    pub answered: u64,
    /// Times it failed (stopped answering, broke off mid-answer).
    pub failures: u64,
    /// The last failure, in words.
    pub last_error: Option<String>,
}

/// One answer machine's record: host, set aside until, answered, failures, last error.
type MachineRecord = (String, Option<Instant>, u64, u64, Option<String>);

#[derive(Debug)]
struct State {
    next: u64,
    /// Waiting tickets in serving order: `(ticket, teacher)`.
    waiting: VecDeque<(u64, bool)>,
    slots: Vec<Slot>,
    /// Per machine: set aside until, answered, failures, last error.
    machines: Vec<MachineRecord>,
}

impl Default for State {
    fn default() -> Self {
        Self {
            next: 0,
            waiting: VecDeque::new(),
            slots: vec![Slot::default()],
            machines: vec![(String::new(), None, 0, 0, None)],
        }
    }
}

impl State {
    fn machine(&mut self, host: &str) -> Option<&mut MachineRecord> {
        self.machines.iter_mut().find(|m| m.0 == host)
    }

    /// Records that `host` failed (`why`): set aside for [`DOWN_FOR_SECS`], a failure more.
    fn machine_failed(&mut self, host: &str, why: &str) {
        if let Some(m) = self.machine(host) {
            m.1 = Some(Instant::now() + Duration::from_secs(DOWN_FOR_SECS));
            m.3 += 1;
            m.4 = Some(why.to_string());
        }
    }

    fn up(&self, host: &str) -> bool {
        self.machines
            .iter()
            .find(|m| m.0 == host)
            .is_none_or(|m| m.1.is_none_or(|until| Instant::now() >= until))
    }

    /// The first free slot of a machine that is up; when every machine is set aside, the
    /// first free slot of any (it is tried again rather than nothing being answered).
    fn free_slot(&self) -> Option<usize> {
        let free = |i: &usize| !self.slots[*i].busy && !self.slots[*i].retired;
        let all_down = self
            .slots
            .iter()
            .filter(|s| !s.retired)
            .all(|s| !self.up(&s.host));
        (0..self.slots.len()).find(|i| free(i) && (all_down || self.up(&self.slots[*i].host)))
    }

    fn busy(&self) -> usize {
        self.slots.iter().filter(|s| s.busy).count()
    }
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
    slot: usize,
    host: String,
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

    /// The answer machine of this turn: its Ollama address, or `None` for the tutor's own
    /// setting.
    pub fn host(&self) -> Option<&str> {
        (!self.host.is_empty()).then_some(self.host.as_str())
    }

    /// True when another machine could take the question if this one fails (the pool has
    /// more than one).
    pub fn has_other_machines(&self) -> bool {
        let st = self.queue.lock();
        st.machines.iter().any(|m| m.0 != self.host)
    }

    /// The answer was written: counted for the machine (the Dashboard's health), which is up.
    pub fn answered(self) {
        let mut st = self.queue.lock();
        if let Some(m) = st.machine(&self.host) {
            m.1 = None;
            m.2 += 1;
        }
    }

    /// The machine could not write the answer (`why`, in words: not running, model missing,
    /// timed out) and no other took the question (the student got the quotes): counted as
    /// its failure and set aside as [`Turn::failed`] does, so the Dashboard shows the problem
    /// rather than a machine that answered.
    pub fn unanswered(self, why: &str) {
        self.queue.lock().machine_failed(&self.host, why);
    }

    /// This turn's machine failed (`why`, in words): it is set aside for [`DOWN_FOR_SECS`]
    /// and the question waits again, first in line, for another machine. `on_ahead` and
    /// `cancelled` as [`AskQueue::wait_turn`]. Errors: as [`Turn::rejoin`].
    pub fn failed(
        self,
        why: &str,
        on_ahead: &mut dyn FnMut(usize),
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Turn<'a>> {
        self.queue.lock().machine_failed(&self.host, why);
        self.rejoin(on_ahead, cancelled)
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
        let (queue, ticket, slot) = (self.queue, self.ticket, self.slot);
        let teacher = self.preempt.is_none();
        // Given up below, in the same step as the question rejoins: dropping it must not
        // release the model on its own.
        self.released = true;
        drop(self);
        let mut st = queue.lock();
        AskQueue::enqueue(&mut st, ticket, teacher);
        if let Some(s) = st.slots.get_mut(slot) {
            s.busy = false;
            s.running_student = None;
        }
        queue.turn.notify_all();
        queue.wait_in_line(st, ticket, teacher, on_ahead, cancelled)
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        if self.released {
            return;
        }
        let mut st = self.queue.lock();
        if let Some(s) = st.slots.get_mut(self.slot) {
            s.busy = false;
            s.running_student = None;
        }
        drop(st);
        self.queue.turn.notify_all();
    }
}

impl AskQueue {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Questions waiting now (not counting the ones being answered).
    pub fn waiting(&self) -> usize {
        self.lock().waiting.len()
    }

    /// Sets the answer machines: their Ollama addresses (empty: the tutor's own setting),
    /// each with `slots` answers at once (at least 1). Machines that stay keep their counts
    /// and the answers in progress; a machine no longer listed takes no new question.
    pub fn set_hosts(&self, hosts: &[String], slots: usize) {
        let slots = slots.max(1);
        let mut st = self.lock();
        let mut wanted: Vec<String> = Vec::new();
        for h in hosts {
            if !wanted.contains(h) {
                wanted.push(h.clone());
            }
        }
        if wanted.is_empty() {
            wanted.push(String::new());
        }
        let same = st.machines.len() == wanted.len()
            && st.machines.iter().zip(&wanted).all(|(m, w)| m.0 == *w)
            && st.slots.iter().filter(|x| !x.retired).count() == wanted.len() * slots;
        if same {
            return;
        }
        let old_machines = std::mem::take(&mut st.machines);
        st.machines = wanted
            .iter()
            .map(|w| {
                old_machines.iter().find(|m| m.0 == *w).cloned().unwrap_or((
                    w.clone(),
                    None,
                    0,
                    0,
                    None,
                ))
            })
            .collect();
        // Slots are never removed (a turn holds its slot's index): every slot is retired,
        // then each machine takes back its own, then free ones, then new ones.
        for slot in st.slots.iter_mut() {
            slot.retired = true;
        }
        for w in &wanted {
            let mut have = 0;
            for slot in st.slots.iter_mut().filter(|x| x.retired && x.host == *w) {
                if have < slots {
                    slot.retired = false;
                    have += 1;
                }
            }
            for slot in st.slots.iter_mut().filter(|x| x.retired && !x.busy) {
                if have < slots {
                    *slot = Slot {
                        host: w.clone(),
                        ..Slot::default()
                    };
                    have += 1;
                }
            }
            for _ in have..slots {
                st.slots.push(Slot {
                    host: w.clone(),
                    ..Slot::default()
                });
            }
        }
        drop(st);
        self.turn.notify_all();
    }

    /// Each answer machine's state, in the pool's order.
    pub fn health(&self) -> Vec<MachineHealth> {
        let st = self.lock();
        st.machines
            .iter()
            .map(|m| MachineHealth {
                host: m.0.clone(),
                busy: st.slots.iter().filter(|s| s.busy && s.host == m.0).count(),
                slots: st
                    .slots
                    .iter()
                    .filter(|s| !s.retired && s.host == m.0)
                    .count(),
                up: m.1.is_none_or(|until| Instant::now() >= until),
                answered: m.2,
                failures: m.3,
                last_error: m.4.clone(),
            })
            .collect()
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
        // No slot free: the teacher's question stops the student's answer that started last.
        if teacher && st.free_slot().is_none() {
            if let Some(student) = st
                .slots
                .iter()
                .rev()
                .find_map(|s| s.running_student.as_ref())
            {
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
            if let Some(slot) = st.free_slot().filter(|_| pos == 0) {
                st.waiting.pop_front();
                let preempt = (!teacher).then(|| Arc::new(AtomicBool::new(false)));
                let s = &mut st.slots[slot];
                s.busy = true;
                s.running_student = preempt.clone();
                let host = s.host.clone();
                drop(st);
                // The next in line may take another free slot.
                self.turn.notify_all();
                return Ok(Turn {
                    queue: self,
                    ticket,
                    slot,
                    host,
                    preempt,
                    released: false,
                });
            }
            // Ahead: the questions before it in line, and the answers being written when no
            // slot is free.
            let ahead = pos
                + if st.free_slot().is_none() {
                    st.busy().max(1)
                } else {
                    0
                };
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
    fn every_machine_of_the_pool_answers_and_a_failed_one_is_set_aside() {
        let q = AskQueue::default();
        q.set_hosts(&["http://a:11434".into(), "http://b:11434".into()], 1);
        let first = q
            .wait_turn(q.arrive(), false, &mut |_| {}, &|| false)
            .unwrap();
        let second = q
            .wait_turn(q.arrive(), false, &mut |_| {}, &|| false)
            .unwrap();
        assert_ne!(first.host(), second.host(), "two machines answer at once");
        assert!(first.has_other_machines());
        // Machine a stops answering: the question goes back first in line and, once b is
        // free, b writes it; a stays aside.
        let a = first.host().unwrap().to_string();
        let waiting = std::thread::scope(|scope| {
            let moved = scope.spawn(|| first.failed("connection refused", &mut |_| {}, &|| false));
            while q.waiting() == 0 {
                std::thread::sleep(Duration::from_millis(5));
            }
            let waiting = q.waiting();
            second.answered();
            let turn = moved.join().unwrap().unwrap();
            assert_ne!(
                turn.host(),
                Some(a.as_str()),
                "moved to the machine that is up"
            );
            waiting
        });
        assert_eq!(waiting, 1, "it waited for the other machine");
        let health = q.health();
        let down = health.iter().find(|m| m.host == a).unwrap();
        assert!(!down.up && down.failures == 1, "{health:?}");
        assert_eq!(down.last_error.as_deref(), Some("connection refused"));
        let up = health.iter().find(|m| m.host != a).unwrap();
        assert!(up.up && up.answered == 1, "{health:?}");
    }

    /// A lone machine whose Ollama is not running: the student got the quotes, and the
    /// Dashboard shows the machine down with the problem in words, not as one that answered.
    #[test]
    fn a_machine_that_could_not_answer_is_shown_down() {
        let q = AskQueue::default();
        q.set_hosts(&["http://a:11434".into()], 1);
        let turn = q
            .wait_turn(q.arrive(), false, &mut |_| {}, &|| false)
            .unwrap();
        assert!(!turn.has_other_machines());
        turn.unanswered("Ollama is not running at http://a:11434");
        let health = q.health();
        assert!(
            !health[0].up && health[0].failures == 1 && health[0].answered == 0,
            "{health:?}"
        );
        assert!(health[0]
            .last_error
            .as_deref()
            .unwrap()
            .contains("not running"));
        // Tried again all the same (it is the only one), and up again once it answers.
        let turn = q
            .wait_turn(q.arrive(), false, &mut |_| {}, &|| false)
            .unwrap();
        turn.answered();
        assert!(q.health()[0].up);
    }

    #[test]
    fn the_teacher_preempts_only_when_no_slot_is_free() {
        let q = AskQueue::default();
        q.set_hosts(&["http://a:11434".into()], 2);
        let student = q
            .wait_turn(q.arrive(), false, &mut |_| {}, &|| false)
            .unwrap();
        let flag = student.preempted().unwrap();
        let teacher = q
            .wait_turn(q.arrive(), true, &mut |_| {}, &|| false)
            .unwrap();
        assert!(!flag.load(Ordering::SeqCst), "a free slot: nobody stopped");
        drop(teacher);
        let other = q
            .wait_turn(q.arrive(), false, &mut |_| {}, &|| false)
            .unwrap();
        let flag2 = other.preempted().unwrap();
        let t = std::thread::scope(|scope| {
            let h = scope.spawn(|| {
                q.wait_turn(q.arrive(), true, &mut |_| {}, &|| false)
                    .is_ok()
            });
            while !(flag.load(Ordering::SeqCst) || flag2.load(Ordering::SeqCst)) {
                std::thread::sleep(Duration::from_millis(5));
            }
            drop(other);
            h.join().unwrap()
        });
        assert!(t);
        assert!(
            flag2.load(Ordering::SeqCst) && !flag.load(Ordering::SeqCst),
            "the answer that started last stops"
        );
        drop(student);
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
