//! `vidya bench classroom`: a class of students asking one `vidya serve --classroom` at once.
//!
//! Each simulated student is its own device: its sockets are bound to its own loopback
//! address (127.0.0.2, 127.0.0.3, …), so the server sees `--students` different devices; each
//! joins with the class code, then asks a question, reads the streamed answer, waits a few
//! seconds (think time), and asks the next, until `--minutes` are up. Every `--teacher-every`
//! seconds the teacher (this machine, 127.0.0.1) asks one question too.
//!
//! Printed: answers, failed and lost answers (a stream that ended without an `answer` or
//! `error` event), conversations the server no longer lists, waiting time (from sending the
//! question to its first token, ms: the queue plus retrieval plus the model's first token)
//! p50/p95, answer time p50/p95, whether the model served the questions in the order they
//! came (students whose question went to the model before an earlier one's), one model
//! call's time (the answers' `generate` timing), and the teacher's answer times beside it
//! with the number of students' answers the teacher's questions pre-empted (each started again
//! after the teacher's). It ends with one line:
//! `classroom: students=S servers=K questions=Q answered=A lost=L passages_p50_s=…
//! passages_p95_s=… first_word_p50_s=… first_word_p95_s=… answers_per_min=…`, where the
//! passages time is from sending a question to the textbook's answer shown (the `sources`
//! event with its quotes, or the whole answer when it needs no model), the first word is the
//! tutor's first checked word (or the whole answer), and K is the number of answer machines
//! the server's `/health` reports. Only loopback addresses are used: nothing leaves the
//! machine.

use anyhow::{bail, Result};
use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_stream::StreamExt;
use vidya_core::eval::quantile;

/// Options of `vidya bench classroom`.
#[derive(clap::Args, Debug)]
pub struct ClassroomArgs {
    /// The server's loopback address, as `vidya serve --classroom --bind 127.0.0.1` printed.
    #[arg(long)]
    pub url: String,
    /// The class code it printed.
    #[arg(long)]
    pub code: String,
    /// Students (devices 127.0.0.2 onwards; 1–200).
    #[arg(long, default_value_t = 30)]
    pub students: u8,
    /// How long the class asks (minutes).
    #[arg(long, default_value_t = 10.0)]
    pub minutes: f64,
    /// Questions to ask, one per line (default: a built-in list of biology questions).
    #[arg(long)]
    pub questions: Option<PathBuf>,
    /// Think time between a student's answer and their next question (seconds).
    #[arg(long, default_value_t = 5.0)]
    pub think: f64,
    /// The teacher asks one question this often (seconds; 0: never).
    #[arg(long, default_value_t = 60.0)]
    pub teacher_every: f64,
}

const DEFAULT_QUESTIONS: &[&str] = &[
    "what does chlorophyll absorb",
    "why do plants look green",
    "what happens in the light dependent reactions",
    "wat is the calvin cycle",
    "how do plants make sugar from light",
    "where does photosynthesis happen in the cell",
    "what is the role of water in photosynthesis",
    "how is atp made in the chloroplast",
];

/// One asked question, as the student saw it.
#[derive(Debug, Clone)]
struct Asked {
    sent: Instant,
    /// The textbook's answer shown: the `sources` event with quotes, or the answer.
    passages: Option<Instant>,
    first: Option<Instant>,
    done: Instant,
    outcome: Outcome,
    conversation: Option<i64>,
    /// Times the teacher's question pre-empted this answer (its `restart` events).
    restarts: usize,
    /// The model call that wrote the answer (its `timings_ms.generate`, ms).
    generate_ms: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Outcome {
    Answered,
    Failed,
    Lost,
}

fn device(ip: IpAddr) -> Result<reqwest::Client> {
    Ok(reqwest::Client::builder()
        .local_address(ip)
        .cookie_store(true)
        .build()?)
}

/// Asks one question over the event stream.
async fn ask(http: &reqwest::Client, url: &str, question: &str) -> Asked {
    let sent = Instant::now();
    let (mut first, mut outcome, mut conversation) = (None, Outcome::Lost, None);
    let mut passages: Option<Instant> = None;
    let (mut restarts, mut generate_ms) = (0, None);
    let res = http
        .post(format!("{url}/api/ask"))
        // Every question goes to the model (the class's shared cache would answer repeats at
        // once): the worst case for the queue.
        .json(&serde_json::json!({"question": question, "no_cache": true}))
        .send()
        .await;
    match res {
        Ok(r) if r.status().is_success() => {
            let mut stream = r.bytes_stream();
            let mut buf = String::new();
            'read: while let Some(Ok(chunk)) = stream.next().await {
                buf.push_str(&String::from_utf8_lossy(&chunk));
                while let Some(cut) = buf.find("\n\n") {
                    let block: String = buf.drain(..cut + 2).collect();
                    let name = block
                        .lines()
                        .find_map(|l| l.strip_prefix("event: "))
                        .unwrap_or("");
                    match name {
                        "sources" => {
                            passages.get_or_insert_with(Instant::now);
                        }
                        "token" => {
                            first.get_or_insert_with(Instant::now);
                        }
                        // The words so far are void: the wait counts to the first word of
                        // the answer the student keeps.
                        "restart" => {
                            restarts += 1;
                            first = None;
                        }
                        "answer" => {
                            first.get_or_insert_with(Instant::now);
                            passages.get_or_insert_with(Instant::now);
                            outcome = Outcome::Answered;
                            let data = block
                                .lines()
                                .find_map(|l| l.strip_prefix("data: "))
                                .and_then(|d| serde_json::from_str::<serde_json::Value>(d).ok())
                                .unwrap_or_default();
                            conversation = data["conversation_id"].as_i64();
                            generate_ms = data["timings_ms"]["generate"].as_f64();
                            break 'read;
                        }
                        "error" => {
                            outcome = Outcome::Failed;
                            break 'read;
                        }
                        _ => {}
                    }
                }
            }
        }
        _ => outcome = Outcome::Failed,
    }
    Asked {
        sent,
        passages,
        first,
        done: Instant::now(),
        outcome,
        conversation,
        restarts,
        generate_ms,
    }
}

/// Runs the bench and prints its figures.
pub fn run(args: ClassroomArgs) -> Result<std::process::ExitCode> {
    if args.students == 0 || args.students > 200 {
        bail!("--students must be 1 to 200");
    }
    let questions: Vec<String> = match &args.questions {
        Some(p) => std::fs::read_to_string(p)?
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect(),
        None => DEFAULT_QUESTIONS.iter().map(|s| s.to_string()).collect(),
    };
    if questions.is_empty() {
        bail!("no questions to ask");
    }
    let url = args.url.trim_end_matches('/').to_string();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let end = Instant::now() + Duration::from_secs_f64(args.minutes * 60.0);
        let log: Arc<Mutex<Vec<(usize, Asked)>>> = Arc::default();
        let mut tasks = Vec::new();
        for i in 0..args.students as usize {
            let http = join(&url, &args.code, i).await?;
            let student = Student {
                http,
                i,
                url: url.clone(),
                questions: questions.clone(),
                think: Duration::from_secs_f64(args.think),
                end,
                log: log.clone(),
            };
            tasks.push(tokio::spawn(student.asks()));
        }
        let teacher = tokio::spawn(teacher(
            url.clone(),
            questions.clone(),
            args.teacher_every,
            end,
        ));
        let mut lost_conversations = 0;
        for t in tasks {
            lost_conversations += t.await.unwrap_or(0);
        }
        let teacher_ms = teacher.await.unwrap_or_default();
        let log = log.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let servers = reqwest::get(format!("{url}/health"))
            .await
            .ok()
            .map(|r| r.json::<serde_json::Value>())
            .map(|f| async move { f.await.ok() });
        let servers = match servers {
            Some(f) => f
                .await
                .and_then(|h| h["answer_machines"].as_u64())
                .unwrap_or(1) as usize,
            None => 1,
        };
        print_figures(&args, &url, &log, lost_conversations, &teacher_ms, servers)?;
        Ok(std::process::ExitCode::SUCCESS)
    })
}

/// Student `i` joins the class with `code` from a device of its own (127.0.0.2 + i).
async fn join(url: &str, code: &str, i: usize) -> Result<reqwest::Client> {
    let ip = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + i as u8));
    let http = device(ip)?;
    let join = http
        .post(format!("{url}/api/join"))
        .json(&serde_json::json!({"code": code, "name": format!("student {}", i + 1)}))
        .send()
        .await?;
    if !join.status().is_success() {
        bail!(
            "student {} could not join ({}): {}",
            i + 1,
            join.status(),
            join.text().await.unwrap_or_default()
        );
    }
    Ok(http)
}

/// One student's device asking until the class ends.
struct Student {
    http: reqwest::Client,
    i: usize,
    url: String,
    questions: Vec<String>,
    /// Pause between an answer and the next question.
    think: Duration,
    end: Instant,
    log: Arc<Mutex<Vec<(usize, Asked)>>>,
}

impl Student {
    /// Asks until the end (starting 300 ms after the student before, as a class does), each
    /// question logged; then the number of this student's conversations the server no longer
    /// lists.
    async fn asks(self) -> usize {
        tokio::time::sleep(Duration::from_millis(300 * self.i as u64)).await;
        let mut n = self.i;
        let mut mine = Vec::new();
        while Instant::now() < self.end {
            let q = &self.questions[n % self.questions.len()];
            let a = ask(&self.http, &self.url, q).await;
            n += 1;
            mine.push(a.conversation);
            self.log
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((self.i, a));
            tokio::time::sleep(self.think).await;
        }
        let listed: Vec<i64> = match self
            .http
            .get(format!("{}/api/conversations", self.url))
            .send()
            .await
        {
            Ok(r) => r
                .json::<Vec<serde_json::Value>>()
                .await
                .unwrap_or_default()
                .iter()
                .filter_map(|c| c["id"].as_i64())
                .collect(),
            Err(_) => Vec::new(),
        };
        let expected: std::collections::HashSet<i64> = mine.into_iter().flatten().collect();
        expected.iter().filter(|id| !listed.contains(id)).count()
    }
}

/// The teacher asking from the laptop itself every `every` seconds (never when 0) until the
/// end: each answer's time (ms).
async fn teacher(url: String, questions: Vec<String>, every: f64, end: Instant) -> Vec<f64> {
    let mut times = Vec::new();
    if every <= 0.0 {
        return times;
    }
    let http = reqwest::Client::new();
    let mut n = 0;
    loop {
        tokio::time::sleep(Duration::from_secs_f64(every)).await;
        if Instant::now() >= end {
            break;
        }
        let a = ask(&http, &url, &questions[n % questions.len()]).await;
        n += 1;
        times.push((a.done - a.sent).as_secs_f64() * 1e3);
    }
    times
}

/// Questions served out of order: a question whose first token came before that of a
/// question sent earlier (by more than the 300 ms a retrieval may take); and how many had a
/// first token.
fn out_of_order(log: &[(usize, Asked)]) -> (usize, usize) {
    let mut by_sent: Vec<&Asked> = log
        .iter()
        .map(|(_, a)| a)
        .filter(|a| a.first.is_some())
        .collect();
    by_sent.sort_by_key(|a| a.sent);
    let mut late = 0;
    let mut latest_first: Option<Instant> = None;
    for a in &by_sent {
        let f = a.first.expect("filtered");
        if latest_first.is_some_and(|l| f + Duration::from_millis(300) < l) {
            late += 1;
        }
        latest_first = Some(latest_first.map_or(f, |l| l.max(f)));
    }
    (late, by_sent.len())
}

/// Prints the class's figures: answered, failed and lost questions, lost conversations,
/// waiting and answer times (p50/p95 ms), order, and the teacher's answer times.
fn print_figures(
    args: &ClassroomArgs,
    url: &str,
    log: &[(usize, Asked)],
    lost_conversations: usize,
    teacher_ms: &[f64],
    servers: usize,
) -> Result<()> {
    let count = |o: Outcome| log.iter().filter(|(_, a)| a.outcome == o).count();
    let waits: Vec<f64> = log
        .iter()
        .filter_map(|(_, a)| a.first.map(|f| (f - a.sent).as_secs_f64() * 1e3))
        .collect();
    let totals: Vec<f64> = log
        .iter()
        .filter(|(_, a)| a.outcome == Outcome::Answered)
        .map(|(_, a)| (a.done - a.sent).as_secs_f64() * 1e3)
        .collect();
    let (late, with_first) = out_of_order(log);
    crate::output::line(format!(
        "classroom: {} students for {:.1} min against {url}",
        args.students, args.minutes
    ))?;
    crate::output::line(format!(
        "questions {}: answered {}, failed {}, lost {}; conversations no longer listed: {lost_conversations}",
        log.len(),
        count(Outcome::Answered),
        count(Outcome::Failed),
        count(Outcome::Lost)
    ))?;
    crate::output::line(format!(
        "waiting time to the first token (ms): p50 {:.0}, p95 {:.0}; answer time (ms): p50 {:.0}, p95 {:.0}",
        quantile(&waits, 0.5),
        quantile(&waits, 0.95),
        quantile(&totals, 0.5),
        quantile(&totals, 0.95)
    ))?;
    crate::output::line(format!("served out of order: {late} of {with_first}"))?;
    let calls: Vec<f64> = log.iter().filter_map(|(_, a)| a.generate_ms).collect();
    crate::output::line(format!(
        "one model call (a student's answer being written, ms): p50 {:.0}, p95 {:.0}, max {:.0}",
        quantile(&calls, 0.5),
        quantile(&calls, 0.95),
        calls.iter().copied().fold(0.0, f64::max)
    ))?;
    crate::output::line(format!(
        "teacher's questions: {}, answer time (ms) p50 {:.0}, max {:.0}; students' answers started again for them: {}",
        teacher_ms.len(),
        quantile(teacher_ms, 0.5),
        teacher_ms.iter().copied().fold(0.0, f64::max),
        log.iter().map(|(_, a)| a.restarts).sum::<usize>()
    ))?;
    let passages: Vec<f64> = log
        .iter()
        .filter_map(|(_, a)| a.passages.map(|p| (p - a.sent).as_secs_f64()))
        .collect();
    let firsts: Vec<f64> = waits.iter().map(|ms| ms / 1e3).collect();
    let s = |v: f64| format!("{v:.2}");
    // Answers per minute over the time the class was answered: from the first question to the
    // last answer (the questions asked just before the end are answered after it).
    let start = log.iter().map(|(_, a)| a.sent).min();
    let last = log
        .iter()
        .filter(|(_, a)| a.outcome == Outcome::Answered)
        .map(|(_, a)| a.done)
        .max();
    let minutes = match (start, last) {
        (Some(a), Some(b)) if b > a => (b - a).as_secs_f64() / 60.0,
        _ => args.minutes,
    };
    crate::output::line(format!(
        "classroom: students={} servers={servers} questions={} answered={} lost={} passages_p50_s={} passages_p95_s={} first_word_p50_s={} first_word_p95_s={} answers_per_min={:.2}",
        args.students,
        log.len(),
        count(Outcome::Answered),
        count(Outcome::Lost),
        s(quantile(&passages, 0.5)),
        s(quantile(&passages, 0.95)),
        s(quantile(&firsts, 0.5)),
        s(quantile(&firsts, 0.95)),
        count(Outcome::Answered) as f64 / minutes.max(1e-9)
    ))?;
    Ok(())
}
