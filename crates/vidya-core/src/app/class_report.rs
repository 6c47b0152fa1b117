//! The teacher's view of the class ([`crate::store::class_report`]) through the app service:
//! the server records who asked each student's question, and the Dashboard (the window's
//! commands, `GET /api/class-report` and `GET /api/class-report.csv`) reads the report.

use super::App;
use crate::error::{Result, VidyaError};
use crate::store::class_report::{Asker, ClassReport, ReportSince};
use std::path::PathBuf;

/// The folder of the library where the window saves class reports as CSV.
pub const REPORTS_DIR: &str = "reports";

/// Now, in Unix seconds.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl App {
    /// Records that `who` asked the question answered in turn `turn_id`, at `asked_at` (Unix
    /// seconds). Errors: database errors.
    pub fn record_class_question(&self, turn_id: i64, who: &Asker, asked_at: i64) -> Result<()> {
        self.lib()?.record_class_question(turn_id, who, asked_at)
    }

    /// The class report from `since`. Errors: a bad date; database errors.
    pub fn class_report(&self, since: &ReportSince) -> Result<ClassReport> {
        self.lib()?.class_report(since)
    }

    /// The class's questions from `since` as CSV (UTF-8 with a byte-order mark, one row per
    /// question). Errors: as [`App::class_report`].
    pub fn class_report_csv(&self, since: &ReportSince) -> Result<String> {
        self.lib()?.class_report_csv(since)
    }

    /// Writes [`App::class_report_csv`] to `<library>/reports/class-report-<local time>.csv`
    /// and returns its path (the window's "Download CSV"). Errors: as
    /// [`App::class_report`]; I/O.
    pub fn save_class_report_csv(&self, since: &ReportSince) -> Result<PathBuf> {
        let lib = self.lib()?;
        let csv = lib.class_report_csv(since)?;
        let dir = self.library.join(REPORTS_DIR);
        std::fs::create_dir_all(&dir).map_err(|e| VidyaError::io(&dir, e))?;
        let stamp = lib.local_stamp()?;
        let mut path = dir.join(format!("class-report-{stamp}.csv"));
        let mut n = 2;
        while path.exists() {
            path = dir.join(format!("class-report-{stamp} ({n}).csv"));
            n += 1;
        }
        std::fs::write(&path, csv).map_err(|e| VidyaError::io(&path, e))?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::LlmOverrides;
    use crate::store::Turn;
    use crate::Library;

    #[test]
    fn a_recorded_question_reaches_the_report_and_the_saved_csv() {
        let dir = tempfile::tempdir().unwrap();
        let app = App::open(dir.path(), false, LlmOverrides::default()).unwrap();
        let lib = Library::open(dir.path()).unwrap();
        let c = lib.create_conversation("क्या है ATP?").unwrap();
        let turn = lib
            .add_turn(&Turn {
                id: 0,
                conversation_id: c,
                question: "क्या है ATP?".into(),
                query: "q".into(),
                answer: "a".into(),
                citations: serde_json::json!([{"n": 1, "book": "Biology 2e", "chapter": "Chapter 8",
                    "file": "f.pdf", "pdf_page": 3, "page_label": "154", "text": "…", "book_id": 1, "page": 25}]),
                mode: "answer".into(),
                language: "hi".into(),
                model: None,
                status: "answered".into(),
                timings: serde_json::json!({}),
                context_tokens: 0,
                page_tokens: 0,
            })
            .unwrap();
        let who = Asker {
            student: "Asha".into(),
            device: "192.168.1.21".into(),
            class_started: Some(unix_now() - 60),
        };
        app.record_class_question(turn, &who, unix_now()).unwrap();
        // A turn that does not exist is refused (the foreign key).
        assert!(app
            .record_class_question(turn + 100, &who, unix_now())
            .is_err());
        let r = app.class_report(&ReportSince::LastClass).unwrap();
        assert_eq!(r.total, 1);
        assert_eq!(r.groups[0].chapters[0].pages[0].page_label, "154");
        let path = app.save_class_report_csv(&ReportSince::All).unwrap();
        assert_eq!(path.parent().unwrap(), dir.path().join(REPORTS_DIR));
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.starts_with(b"\xEF\xBB\xBF"), "UTF-8 with a BOM");
        let text = String::from_utf8(bytes).unwrap();
        assert!(
            text.contains(",Asha,192.168.1.21,क्या है ATP?,answered,Biology 2e,Chapter 8,154\r\n"),
            "{text}"
        );
        // Saved again the same second: another file.
        let again = app.save_class_report_csv(&ReportSince::All).unwrap();
        assert_ne!(again, path);
    }
}
