//! The teacher's view of the class (schema v8, `class_questions`): which student and which
//! device asked each question in classroom mode, recorded by the server beside the turn, and
//! the report made of it: what the class asked grouped by book, chapter and printed page (the
//! answer's first citation), the questions the books could not answer, and each device's
//! questions; also as CSV for a spreadsheet.
//!
//! Only the teacher sees it (`GET /api/class-report`, `GET /api/class-report.csv`, the
//! window's Dashboard). A row goes with its turn: deleting a conversation deletes it.

use super::Library;
use crate::error::{Result, VidyaError};
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

/// Who asked a question in classroom mode, as the server knows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asker {
    /// The name the student typed when joining.
    pub student: String,
    /// The device: its network address (one seat of the class per address).
    pub device: String,
    /// When the class session the student joined started (Unix seconds), if known.
    pub class_started: Option<i64>,
}

/// From when a report counts questions.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ReportSince {
    /// Every recorded question.
    #[default]
    All,
    /// From this time on (Unix seconds).
    From(i64),
    /// From this date or time on this computer's clock (`2025-07-14`, `2025-07-14 10:05`).
    Local(String),
    /// From the start of the latest class session recorded.
    LastClass,
}

impl ReportSince {
    /// Reads a `?since=` value: empty or `all`, `class` (the latest class session), Unix
    /// seconds, or a local date or time `YYYY-MM-DD[ HH:MM[:SS]]` (`T` between them works
    /// too). Errors: [`VidyaError::BadOption`] saying what to use.
    pub fn parse(s: &str) -> Result<Self> {
        let s = s.trim();
        if s.is_empty() || s.eq_ignore_ascii_case("all") {
            return Ok(Self::All);
        }
        if s.eq_ignore_ascii_case("class") {
            return Ok(Self::LastClass);
        }
        if let Ok(n) = s.parse::<i64>() {
            return Ok(Self::From(n));
        }
        // YYYY-MM-DD, YYYY-MM-DD HH:MM or YYYY-MM-DD HH:MM:SS (ASCII only, so byte lengths).
        let shape = matches!(s.len(), 10 | 16 | 19)
            && s.chars().enumerate().all(|(i, c)| match i {
                4 | 7 => c == '-',
                10 => c == ' ' || c == 'T',
                13 | 16 => c == ':',
                _ => c.is_ascii_digit(),
            });
        if shape {
            return Ok(Self::Local(s.replacen('T', " ", 1)));
        }
        Err(VidyaError::BadOption(format!(
            "since '{}' is not a time: use class, all, a date such as 2025-07-14, a date and time such as 2025-07-14 10:05, or Unix seconds",
            s.chars().take(40).collect::<String>()
        )))
    }
}

/// One question a student asked, as the report lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassQuestion {
    /// The turn it was answered in.
    pub turn_id: i64,
    /// When it was asked (Unix seconds).
    pub asked_at: i64,
    /// The same on this computer's clock (`2025-07-14 10:05:31`).
    pub time: String,
    /// The name the student typed when joining.
    pub student: String,
    /// The device (its network address).
    pub device: String,
    /// The student's words.
    pub question: String,
    /// How it was answered (`answered`, `cached`, `extractive`, `incomplete`, `refused`,
    /// `gated`).
    pub status: String,
    /// The first citation's book title (`None`: nothing cited).
    pub book: Option<String>,
    /// Its book id.
    pub book_id: Option<i64>,
    /// Its chapter title.
    pub chapter: Option<String>,
    /// Its printed page number.
    pub page_label: Option<String>,
    /// Its page ordinal in the book (0-based).
    pub page: Option<i64>,
}

impl ClassQuestion {
    /// True when the books could not answer it: stopped by the relevance gate, refused by the
    /// model, or answered without citing a page.
    pub fn unanswered(&self) -> bool {
        matches!(self.status.as_str(), "gated" | "refused") || self.book.is_none()
    }
}

/// A book's questions, by chapter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BookGroup {
    /// Title.
    pub book: String,
    /// Book id (0 when unknown).
    pub book_id: i64,
    /// Questions whose answer cites it first.
    pub count: usize,
    /// Its chapters, most asked first.
    pub chapters: Vec<ChapterGroup>,
}

/// A chapter's questions, by page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChapterGroup {
    /// Title.
    pub chapter: String,
    /// Questions.
    pub count: usize,
    /// Its pages, most asked first.
    pub pages: Vec<PageGroup>,
}

/// A page's questions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageGroup {
    /// The printed page number.
    pub page_label: String,
    /// Page ordinal in the book (0-based).
    pub page: i64,
    /// Questions.
    pub count: usize,
    /// The questions, oldest first.
    pub questions: Vec<ClassQuestion>,
}

/// One student on one device.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceGroup {
    /// The name typed when joining.
    pub student: String,
    /// The device's network address.
    pub device: String,
    /// Questions asked.
    pub count: usize,
    /// Of them, not answered by the books ([`ClassQuestion::unanswered`]).
    pub unanswered: usize,
    /// The questions, oldest first.
    pub questions: Vec<ClassQuestion>,
}

/// A class session with questions recorded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassSession {
    /// When it started (Unix seconds).
    pub started: i64,
    /// The same on this computer's clock.
    pub time: String,
    /// Questions recorded in it.
    pub questions: usize,
}

/// The teacher's view of the class (`GET /api/class-report`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassReport {
    /// From when it counts (Unix seconds; `None`: everything recorded).
    pub since: Option<i64>,
    /// Questions the students asked.
    pub total: usize,
    /// Answered ones, by book, chapter and page of their first citation, most asked first.
    pub groups: Vec<BookGroup>,
    /// The questions the books could not answer, oldest first.
    pub unanswered: Vec<ClassQuestion>,
    /// Per student and device, by name.
    pub devices: Vec<DeviceGroup>,
    /// The latest class sessions (newest first, at most [`CLASS_SESSIONS`]), whatever `since`.
    pub classes: Vec<ClassSession>,
}

/// Class sessions a report lists.
pub const CLASS_SESSIONS: usize = 20;

/// The CSV's header row.
pub const CSV_HEADER: [&str; 8] = [
    "time",
    "student",
    "device",
    "question",
    "status",
    "book",
    "chapter",
    "printed page",
];

/// One CSV field: quoted when it holds a comma, a quote or a line break (quotes doubled, RFC
/// 4180). Text a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab
/// or a carriage return: a student's question is untrusted) gets a leading `'`.
pub fn csv_field(value: &str) -> String {
    let mut v = String::with_capacity(value.len() + 2);
    if value.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        v.push('\'');
    }
    v.push_str(value);
    if v.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v
    }
}

/// The questions as CSV: UTF-8 with a byte-order mark (so Excel reads Hindi), CRLF line ends,
/// the [`CSV_HEADER`] row, then one row per question.
pub fn to_csv(questions: &[ClassQuestion]) -> String {
    let mut out = String::from("\u{FEFF}");
    out.push_str(&CSV_HEADER.join(","));
    out.push_str("\r\n");
    for q in questions {
        let row = [
            q.time.as_str(),
            &q.student,
            &q.device,
            &q.question,
            &q.status,
            q.book.as_deref().unwrap_or(""),
            q.chapter.as_deref().unwrap_or(""),
            q.page_label.as_deref().unwrap_or(""),
        ];
        let fields: Vec<String> = row.iter().map(|f| csv_field(f)).collect();
        out.push_str(&fields.join(","));
        out.push_str("\r\n");
    }
    out
}

/// A turn's first citation: (book, book id, chapter, page label, page).
type FirstCitation = (
    String,
    Option<i64>,
    Option<String>,
    Option<String>,
    Option<i64>,
);

/// The first citation of a turn's stored citations (see [`FirstCitation`]).
fn first_citation(citations: &str) -> Option<FirstCitation> {
    let v: serde_json::Value = serde_json::from_str(citations).ok()?;
    let c = v.as_array()?.first()?;
    let book = c["book"].as_str()?.to_string();
    let text = |k: &str| c[k].as_str().map(str::to_string);
    Some((
        book,
        c["book_id"].as_i64(),
        text("chapter"),
        text("page_label"),
        c["page"].as_i64(),
    ))
}

/// Groups answered questions by book, chapter and page, most asked first (ties in reading
/// order).
fn group(questions: &[ClassQuestion]) -> Vec<BookGroup> {
    let mut books: Vec<BookGroup> = Vec::new();
    for q in questions.iter().filter(|q| !q.unanswered()) {
        let book = q.book.clone().unwrap_or_default();
        let book_id = q.book_id.unwrap_or(0);
        let b = match books
            .iter()
            .position(|b| b.book_id == book_id && b.book == book)
        {
            Some(i) => &mut books[i],
            None => {
                books.push(BookGroup {
                    book,
                    book_id,
                    count: 0,
                    chapters: Vec::new(),
                });
                books.last_mut().expect("pushed")
            }
        };
        b.count += 1;
        let chapter = q.chapter.clone().unwrap_or_default();
        let c = match b.chapters.iter().position(|c| c.chapter == chapter) {
            Some(i) => &mut b.chapters[i],
            None => {
                b.chapters.push(ChapterGroup {
                    chapter,
                    count: 0,
                    pages: Vec::new(),
                });
                b.chapters.last_mut().expect("pushed")
            }
        };
        c.count += 1;
        let page = q.page.unwrap_or(-1);
        let label = q.page_label.clone().unwrap_or_default();
        let p = match c
            .pages
            .iter()
            .position(|p| p.page == page && p.page_label == label)
        {
            Some(i) => &mut c.pages[i],
            None => {
                c.pages.push(PageGroup {
                    page_label: label,
                    page,
                    count: 0,
                    questions: Vec::new(),
                });
                c.pages.last_mut().expect("pushed")
            }
        };
        p.count += 1;
        p.questions.push(q.clone());
    }
    let first_page = |c: &ChapterGroup| c.pages.iter().map(|p| p.page).min().unwrap_or(0);
    for b in &mut books {
        for c in &mut b.chapters {
            c.pages
                .sort_by(|x, y| y.count.cmp(&x.count).then(x.page.cmp(&y.page)));
        }
        b.chapters.sort_by(|x, y| {
            y.count
                .cmp(&x.count)
                .then(first_page(x).cmp(&first_page(y)))
        });
    }
    books.sort_by(|x, y| {
        y.count
            .cmp(&x.count)
            .then_with(|| x.book.to_lowercase().cmp(&y.book.to_lowercase()))
    });
    books
}

/// Each student's and device's questions, by name (then device).
fn per_device(questions: &[ClassQuestion]) -> Vec<DeviceGroup> {
    let mut out: Vec<DeviceGroup> = Vec::new();
    for q in questions {
        let i = match out
            .iter()
            .position(|d| d.student == q.student && d.device == q.device)
        {
            Some(i) => i,
            None => {
                out.push(DeviceGroup {
                    student: q.student.clone(),
                    device: q.device.clone(),
                    count: 0,
                    unanswered: 0,
                    questions: Vec::new(),
                });
                out.len() - 1
            }
        };
        let d = &mut out[i];
        d.count += 1;
        d.unanswered += usize::from(q.unanswered());
        d.questions.push(q.clone());
    }
    out.sort_by(|x, y| {
        x.student
            .to_lowercase()
            .cmp(&y.student.to_lowercase())
            .then_with(|| x.device.cmp(&y.device))
    });
    out
}

impl ClassReport {
    /// The report of `questions` (oldest first), counted from `since`, listing `classes`.
    pub fn of(questions: &[ClassQuestion], since: Option<i64>, classes: Vec<ClassSession>) -> Self {
        Self {
            since,
            total: questions.len(),
            groups: group(questions),
            unanswered: questions
                .iter()
                .filter(|q| q.unanswered())
                .cloned()
                .collect(),
            devices: per_device(questions),
            classes,
        }
    }
}

impl Library {
    /// Records who asked the question answered in turn `turn_id`, at `asked_at` (Unix
    /// seconds). The name is stored without control and bidirectional-override characters.
    /// Errors: database errors (no such turn).
    pub fn record_class_question(&self, turn_id: i64, who: &Asker, asked_at: i64) -> Result<()> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO class_questions (turn_id, student, device, asked_at, class_started)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    turn_id,
                    super::conversations::safe_text(&who.student),
                    super::conversations::safe_text(&who.device),
                    asked_at,
                    who.class_started
                ],
            )
            .map_err(|e| self.db_err(e))?;
        Ok(())
    }

    /// `since` as Unix seconds (`None`: everything). Errors: [`VidyaError::BadOption`] for a
    /// local date that is no date.
    pub fn report_since(&self, since: &ReportSince) -> Result<Option<i64>> {
        match since {
            ReportSince::All => Ok(None),
            ReportSince::From(t) => Ok(Some(*t)),
            ReportSince::LastClass => self
                .conn
                .query_row("SELECT MAX(class_started) FROM class_questions", [], |r| {
                    r.get::<_, Option<i64>>(0)
                })
                .map_err(|e| self.db_err(e)),
            ReportSince::Local(text) => {
                // SQLite's 'utc' modifier reads the time as this computer's local time.
                let t: Option<i64> = self
                    .conn
                    .query_row(
                        "SELECT CAST(strftime('%s', ?1, 'utc') AS INTEGER)",
                        [text],
                        |r| r.get(0),
                    )
                    .map_err(|e| self.db_err(e))?;
                t.map(Some).ok_or_else(|| {
                    VidyaError::BadOption(format!(
                        "since '{text}' is not a date: use one such as 2025-07-14 or 2025-07-14 10:05"
                    ))
                })
            }
        }
    }

    /// The questions students asked from `since` (Unix seconds; `None`: all), oldest first.
    pub fn class_questions(&self, since: Option<i64>) -> Result<Vec<ClassQuestion>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT q.turn_id, q.asked_at, datetime(q.asked_at, 'unixepoch', 'localtime'),
                        q.student, q.device, t.question, t.status, t.citations
                 FROM class_questions q JOIN turns t ON t.id = q.turn_id
                 WHERE q.asked_at >= ?1
                 ORDER BY q.asked_at, q.turn_id",
            )
            .map_err(|e| self.db_err(e))?;
        let rows = st
            .query_map([since.unwrap_or(i64::MIN)], |r| {
                let citations: String = r.get(7)?;
                let cited = first_citation(&citations);
                Ok(ClassQuestion {
                    turn_id: r.get(0)?,
                    asked_at: r.get(1)?,
                    time: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                    student: r.get(3)?,
                    device: r.get(4)?,
                    question: r.get(5)?,
                    status: r.get(6)?,
                    book: cited.as_ref().map(|c| c.0.clone()),
                    book_id: cited.as_ref().and_then(|c| c.1),
                    chapter: cited.as_ref().and_then(|c| c.2.clone()),
                    page_label: cited.as_ref().and_then(|c| c.3.clone()),
                    page: cited.as_ref().and_then(|c| c.4),
                })
            })
            .map_err(|e| self.db_err(e))?;
        rows.collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| self.db_err(e))
    }

    /// The latest [`CLASS_SESSIONS`] class sessions with questions, newest first.
    pub fn class_sessions(&self) -> Result<Vec<ClassSession>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT class_started, datetime(class_started, 'unixepoch', 'localtime'), COUNT(*)
                 FROM class_questions WHERE class_started IS NOT NULL
                 GROUP BY class_started ORDER BY class_started DESC LIMIT ?1",
            )
            .map_err(|e| self.db_err(e))?;
        let rows = st
            .query_map([CLASS_SESSIONS as i64], |r| {
                Ok(ClassSession {
                    started: r.get(0)?,
                    time: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                    questions: r.get::<_, i64>(2)? as usize,
                })
            })
            .map_err(|e| self.db_err(e))?;
        rows.collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| self.db_err(e))
    }

    /// The class report from `since`. Errors: a bad local date; database errors.
    pub fn class_report(&self, since: &ReportSince) -> Result<ClassReport> {
        let from = self.report_since(since)?;
        let questions = self.class_questions(from)?;
        Ok(ClassReport::of(&questions, from, self.class_sessions()?))
    }

    /// The questions from `since` as CSV ([`to_csv`]). Errors: as [`Library::class_report`].
    pub fn class_report_csv(&self, since: &ReportSince) -> Result<String> {
        let from = self.report_since(since)?;
        Ok(to_csv(&self.class_questions(from)?))
    }

    /// This computer's local time now as `YYYY-MM-DD-HHMMSS` (for a file name).
    pub fn local_stamp(&self) -> Result<String> {
        self.conn
            .query_row(
                "SELECT strftime('%Y-%m-%d-%H%M%S', 'now', 'localtime')",
                [],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()
            .map(|v| v.flatten().unwrap_or_else(|| "report".into()))
            .map_err(|e| self.db_err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Turn;

    fn cite(book: &str, book_id: i64, chapter: &str, label: &str, page: i64) -> serde_json::Value {
        serde_json::json!({"n": 1, "book": book, "book_id": book_id, "chapter": chapter,
            "file": "f.pdf", "pdf_page": page + 1, "page_label": label, "text": "…", "page": page})
    }

    /// Stores a turn answering `question` with `citations` (first one counts) and records
    /// `student` on `device` as its asker at `at`.
    fn asked(
        lib: &Library,
        student: &str,
        device: &str,
        at: i64,
        question: &str,
        status: &str,
        citations: Vec<serde_json::Value>,
    ) -> i64 {
        let c = lib.create_conversation(question).unwrap();
        let id = lib
            .add_turn(&Turn {
                id: 0,
                conversation_id: c,
                question: question.into(),
                query: question.into(),
                answer: "a".into(),
                citations: serde_json::Value::Array(citations),
                mode: "answer".into(),
                language: "en".into(),
                model: None,
                status: status.into(),
                timings: serde_json::json!({}),
                context_tokens: 0,
                page_tokens: 0,
            })
            .unwrap();
        let who = Asker {
            student: student.into(),
            device: device.into(),
            class_started: Some(1000),
        };
        lib.record_class_question(id, &who, at).unwrap();
        id
    }

    fn class(lib: &Library) {
        let bio =
            |label: &str, page| cite("Biology 2e", 1, "Chapter 8: Photosynthesis", label, page);
        let ch7 = cite("Biology 2e", 1, "Chapter 7: Cellular Respiration", "130", 4);
        let hindi = cite("विज्ञान", 2, "अध्याय 6: जैव प्रक्रम", "95", 12);
        asked(
            lib,
            "Asha",
            "192.168.1.21",
            1010,
            "What is ATP?",
            "answered",
            vec![bio("154", 25), ch7.clone()],
        );
        asked(
            lib,
            "Ravi",
            "192.168.1.22",
            1020,
            "what does chlorophyll absorb",
            "cached",
            vec![bio("154", 25)],
        );
        asked(
            lib,
            "Asha",
            "192.168.1.21",
            1030,
            "Who won the 1983 world cup?",
            "gated",
            vec![],
        );
        asked(
            lib,
            "Ravi",
            "192.168.1.22",
            1040,
            "stroma kya hai",
            "extractive",
            vec![bio("158", 29)],
        );
        asked(
            lib,
            "Ravi",
            "192.168.1.22",
            1050,
            "glycolysis?",
            "answered",
            vec![ch7],
        );
        asked(
            lib,
            "Meena",
            "192.168.1.23",
            1060,
            "प्रकाश संश्लेषण क्या है?",
            "answered",
            vec![hindi],
        );
        asked(
            lib,
            "Meena",
            "192.168.1.23",
            1070,
            "why is the sky blue",
            "refused",
            vec![bio("161", 32)],
        );
    }

    #[test]
    fn the_report_groups_by_book_chapter_and_page_and_lists_the_unanswered_and_each_device() {
        let dir = tempfile::tempdir().unwrap();
        let lib = Library::open(dir.path()).unwrap();
        let empty = lib.class_report(&ReportSince::All).unwrap();
        assert_eq!(
            (empty.total, empty.groups.len(), empty.devices.len()),
            (0, 0, 0)
        );
        class(&lib);
        // A question of the teacher (no asker recorded) is no class question.
        let c = lib.create_conversation("teacher's").unwrap();
        lib.add_turn(&Turn {
            id: 0,
            conversation_id: c,
            question: "teacher's".into(),
            query: "q".into(),
            answer: "a".into(),
            citations: serde_json::json!([]),
            mode: "answer".into(),
            language: "en".into(),
            model: None,
            status: "answered".into(),
            timings: serde_json::json!({}),
            context_tokens: 0,
            page_tokens: 0,
        })
        .unwrap();

        let r = lib.class_report(&ReportSince::All).unwrap();
        assert_eq!(r.total, 7);
        assert_eq!(r.since, None);
        // Biology 2e: 4 answered (2 on p. 154, 1 on p. 158 of chapter 8; 1 in chapter 7).
        let books: Vec<(&str, usize)> = r
            .groups
            .iter()
            .map(|b| (b.book.as_str(), b.count))
            .collect();
        assert_eq!(books, [("Biology 2e", 4), ("विज्ञान", 1)]);
        let bio = &r.groups[0];
        let chapters: Vec<(&str, usize)> = bio
            .chapters
            .iter()
            .map(|c| (c.chapter.as_str(), c.count))
            .collect();
        assert_eq!(
            chapters,
            [
                ("Chapter 8: Photosynthesis", 3),
                ("Chapter 7: Cellular Respiration", 1)
            ]
        );
        let pages: Vec<(&str, usize)> = bio.chapters[0]
            .pages
            .iter()
            .map(|p| (p.page_label.as_str(), p.count))
            .collect();
        assert_eq!(pages, [("154", 2), ("158", 1)]);
        let on_154: Vec<&str> = bio.chapters[0].pages[0]
            .questions
            .iter()
            .map(|q| q.question.as_str())
            .collect();
        assert_eq!(on_154, ["What is ATP?", "what does chlorophyll absorb"]);
        // Gated and refused: the books could not answer them (a refusal cites nothing it
        // answered, whatever its passages).
        let unanswered: Vec<(&str, &str)> = r
            .unanswered
            .iter()
            .map(|q| (q.question.as_str(), q.status.as_str()))
            .collect();
        assert_eq!(
            unanswered,
            [
                ("Who won the 1983 world cup?", "gated"),
                ("why is the sky blue", "refused")
            ]
        );
        // Per student and device, by name.
        let devices: Vec<(&str, &str, usize, usize)> = r
            .devices
            .iter()
            .map(|d| (d.student.as_str(), d.device.as_str(), d.count, d.unanswered))
            .collect();
        assert_eq!(
            devices,
            [
                ("Asha", "192.168.1.21", 2, 1),
                ("Meena", "192.168.1.23", 2, 1),
                ("Ravi", "192.168.1.22", 3, 0)
            ]
        );
        assert_eq!(r.classes.len(), 1);
        assert_eq!((r.classes[0].started, r.classes[0].questions), (1000, 7));

        // Since a time: only the later questions.
        let later = lib.class_report(&ReportSince::From(1045)).unwrap();
        assert_eq!(later.total, 3);
        assert_eq!(later.since, Some(1045));
        assert_eq!(lib.class_report(&ReportSince::LastClass).unwrap().total, 7);

        // Deleting a conversation deletes its class question.
        let first = lib.class_questions(None).unwrap()[0].clone();
        let conv: i64 = lib
            .conn
            .query_row(
                "SELECT conversation_id FROM turns WHERE id = ?1",
                [first.turn_id],
                |r| r.get(0),
            )
            .unwrap();
        lib.delete_conversation(conv).unwrap();
        assert_eq!(lib.class_report(&ReportSince::All).unwrap().total, 6);
    }

    #[test]
    fn the_csv_has_a_bom_one_row_per_question_and_quotes_what_needs_it() {
        let dir = tempfile::tempdir().unwrap();
        let lib = Library::open(dir.path()).unwrap();
        class(&lib);
        asked(
            &lib,
            "Priya, \"P\"",
            "192.168.1.24",
            1080,
            "line one\nline \"two\", with a comma",
            "answered",
            vec![cite(
                "Biology 2e",
                1,
                "Chapter 8: Photosynthesis",
                "154",
                25,
            )],
        );
        asked(
            &lib,
            "=HYPERLINK(\"x\")",
            "192.168.1.25",
            1090,
            "-1+2",
            "gated",
            vec![],
        );
        let csv = lib.class_report_csv(&ReportSince::All).unwrap();
        assert!(
            csv.starts_with(
                "\u{FEFF}time,student,device,question,status,book,chapter,printed page\r\n"
            ),
            "{csv}"
        );
        // One row per question (a quoted line break is inside its row).
        let body = csv.trim_start_matches('\u{FEFF}');
        assert_eq!(body.matches("\r\n").count(), 1 + 9);
        let rows: Vec<&str> = body.split("\r\n").collect();
        let time_of = |row: &str| row.split(',').next().unwrap().to_string();
        let t = time_of(rows[1]);
        assert!(
            t.len() == 19 && t.as_bytes()[4] == b'-' && t.as_bytes()[13] == b':',
            "a local date and time: {t}"
        );
        assert!(
            rows[1].ends_with(
                ",Asha,192.168.1.21,What is ATP?,answered,Biology 2e,Chapter 8: Photosynthesis,154"
            ),
            "{}",
            rows[1]
        );
        // Hindi stays UTF-8 as it is.
        assert!(
            rows[6].ends_with(
                ",Meena,192.168.1.23,प्रकाश संश्लेषण क्या है?,answered,विज्ञान,अध्याय 6: जैव प्रक्रम,95"
            ),
            "{}",
            rows[6]
        );
        // Unanswered: no book, chapter or page.
        assert!(
            rows[3].ends_with(",Who won the 1983 world cup?,gated,,,"),
            "{}",
            rows[3]
        );
        // Commas, quotes and line breaks are quoted, quotes doubled.
        assert!(
            csv.contains(",\"Priya, \"\"P\"\"\",192.168.1.24,\"line one\nline \"\"two\"\", with a comma\",answered,"),
            "{csv}"
        );
        // What a spreadsheet would run as a formula is text.
        assert!(
            csv.contains(",\"'=HYPERLINK(\"\"x\"\")\",192.168.1.25,'-1+2,gated,,,\r\n"),
            "{csv}"
        );
        // Since: fewer rows.
        let later = lib.class_report_csv(&ReportSince::From(1080)).unwrap();
        assert_eq!(
            later.trim_start_matches('\u{FEFF}').matches("\r\n").count(),
            1 + 2
        );
    }

    #[test]
    fn since_reads_class_all_seconds_and_local_dates() {
        assert_eq!(ReportSince::parse("").unwrap(), ReportSince::All);
        assert_eq!(ReportSince::parse("all").unwrap(), ReportSince::All);
        assert_eq!(ReportSince::parse("class").unwrap(), ReportSince::LastClass);
        assert_eq!(
            ReportSince::parse("1720950000").unwrap(),
            ReportSince::From(1720950000)
        );
        assert_eq!(
            ReportSince::parse("2025-07-14T10:05").unwrap(),
            ReportSince::Local("2025-07-14 10:05".into())
        );
        for bad in [
            "yesterday",
            "2025-7-14",
            "2025-07-14 10",
            "2025-07-14; DROP TABLE turns",
        ] {
            assert_eq!(
                ReportSince::parse(bad).unwrap_err().kind(),
                "bad_option",
                "{bad}"
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let lib = Library::open(dir.path()).unwrap();
        let day = lib
            .report_since(&ReportSince::Local("2025-07-14".into()))
            .unwrap()
            .unwrap();
        // Local midnight is within a day of UTC midnight (1752451200).
        assert!((day - 1_752_451_200).abs() <= 14 * 3600, "{day}");
        let later = lib
            .report_since(&ReportSince::Local("2025-07-14 10:05:30".into()))
            .unwrap()
            .unwrap();
        assert_eq!(later - day, 10 * 3600 + 5 * 60 + 30);
        assert_eq!(
            lib.report_since(&ReportSince::Local("2025-13-45".into()))
                .unwrap_err()
                .kind(),
            "bad_option"
        );
        // No class recorded yet: everything.
        assert_eq!(lib.report_since(&ReportSince::LastClass).unwrap(), None);
    }
}
