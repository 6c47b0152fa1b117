//! Conversation memory, the answer cache and usage counters (schema v2).

use super::Library;
use crate::error::Result;
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

/// A conversation as listed.
#[derive(Debug, Clone, Serialize)]
pub struct Conversation {
    /// Id.
    pub id: i64,
    /// Title (the first question, shortened).
    pub title: String,
    /// Number of turns.
    pub turns: i64,
    /// Creation time (UTC, SQLite `datetime('now')`).
    pub created_at: String,
    /// Last change (UTC).
    pub updated_at: String,
}

/// One question and its answer.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Turn {
    /// Id (0 before it is stored).
    pub id: i64,
    /// Conversation id.
    pub conversation_id: i64,
    /// The student's words.
    pub question: String,
    /// The standalone query used for retrieval (the question, or its rewrite for a follow-up).
    pub query: String,
    /// The answer shown.
    pub answer: String,
    /// The citations, as JSON (the `citations` array of the answer).
    pub citations: serde_json::Value,
    /// `answer`, `socratic` or `quiz`.
    pub mode: String,
    /// ISO 639-1 answer language.
    pub language: String,
    /// The model that wrote the answer, if any.
    pub model: Option<String>,
    /// How the answer was made (`answered`, `incomplete`, `extractive`, `gated`, `cached`).
    pub status: String,
    /// Milliseconds per stage.
    pub timings: serde_json::Value,
    /// Answer-model tokens of the context the answer was made from.
    #[serde(default)]
    pub context_tokens: i64,
    /// Tokens of the whole pages that context comes from (the full-page baseline).
    #[serde(default)]
    pub page_tokens: i64,
}

/// True for what a question may not keep: C0 controls other than newline and tab (ESC starts
/// terminal escape sequences, BEL rings, CR overwrites the line, NUL cuts it), DEL, C1
/// controls, and the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
/// U+2066–U+2069), which make text read in another order than it is stored (Unicode UAX #9).
pub fn is_unsafe_in_text(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` without the characters [`is_unsafe_in_text`] names: what a conversation stores of
/// a question (a student's words may reach the teacher's terminal, `vidya conversations`).
pub fn safe_text(text: &str) -> String {
    text.chars().filter(|c| !is_unsafe_in_text(*c)).collect()
}

fn title_of(question: &str) -> String {
    let question = safe_text(question);
    let t: String = question.split_whitespace().collect::<Vec<_>>().join(" ");
    if t.chars().count() > 60 {
        format!("{}…", t.chars().take(59).collect::<String>())
    } else {
        t
    }
}

impl Library {
    /// Creates a conversation titled after its first question; returns its id.
    pub fn create_conversation(&self, first_question: &str) -> Result<i64> {
        self.conn
            .execute(
                "INSERT INTO conversations (title) VALUES (?1)",
                [title_of(first_question)],
            )
            .map_err(|e| self.db_err(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// All conversations, most recently changed first.
    pub fn conversations(&self) -> Result<Vec<Conversation>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT c.id, c.title, (SELECT COUNT(*) FROM turns t WHERE t.conversation_id = c.id),
                        c.created_at, c.updated_at
                 FROM conversations c ORDER BY c.updated_at DESC, c.id DESC",
            )
            .map_err(|e| self.db_err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok(Conversation {
                    id: r.get(0)?,
                    title: r.get(1)?,
                    turns: r.get(2)?,
                    created_at: r.get(3)?,
                    updated_at: r.get(4)?,
                })
            })
            .map_err(|e| self.db_err(e))?;
        rows.collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| self.db_err(e))
    }

    /// True when the conversation exists.
    pub fn conversation_exists(&self, id: i64) -> Result<bool> {
        self.conn
            .query_row(
                "SELECT 1 FROM conversations WHERE id = ?1",
                [id],
                |_| Ok(()),
            )
            .optional()
            .map(|o| o.is_some())
            .map_err(|e| self.db_err(e))
    }

    /// Deletes a conversation and its turns; returns false when it did not exist.
    pub fn delete_conversation(&self, id: i64) -> Result<bool> {
        let n = self
            .conn
            .execute("DELETE FROM conversations WHERE id = ?1", [id])
            .map_err(|e| self.db_err(e))?;
        Ok(n > 0)
    }

    /// Appends a turn to its conversation; returns the turn id. The question and the query are
    /// stored without control and bidirectional-override characters ([`safe_text`]).
    pub fn add_turn(&self, t: &Turn) -> Result<i64> {
        let ordinal: i64 = self
            .conn
            .query_row(
                "SELECT COALESCE(MAX(ordinal) + 1, 0) FROM turns WHERE conversation_id = ?1",
                [t.conversation_id],
                |r| r.get(0),
            )
            .map_err(|e| self.db_err(e))?;
        self.conn
            .execute(
                "INSERT INTO turns (conversation_id, ordinal, question, query, answer, citations, mode, language, model, status, timings, context_tokens, page_tokens)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![
                    t.conversation_id,
                    ordinal,
                    safe_text(&t.question),
                    safe_text(&t.query),
                    t.answer,
                    t.citations.to_string(),
                    t.mode,
                    t.language,
                    t.model,
                    t.status,
                    t.timings.to_string(),
                    t.context_tokens,
                    t.page_tokens
                ],
            )
            .map_err(|e| self.db_err(e))?;
        let id = self.conn.last_insert_rowid();
        self.conn
            .execute(
                "UPDATE conversations SET updated_at = datetime('now') WHERE id = ?1",
                [t.conversation_id],
            )
            .map_err(|e| self.db_err(e))?;
        Ok(id)
    }

    /// The turns of a conversation in order.
    pub fn turns(&self, conversation_id: i64) -> Result<Vec<Turn>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT id, conversation_id, question, query, answer, citations, mode, language, model, status, timings, context_tokens, page_tokens
                 FROM turns WHERE conversation_id = ?1 ORDER BY ordinal",
            )
            .map_err(|e| self.db_err(e))?;
        let rows = st
            .query_map([conversation_id], |r| {
                let citations: String = r.get(5)?;
                let timings: String = r.get(10)?;
                Ok(Turn {
                    id: r.get(0)?,
                    conversation_id: r.get(1)?,
                    question: r.get(2)?,
                    query: r.get(3)?,
                    answer: r.get(4)?,
                    citations: serde_json::from_str(&citations).unwrap_or_default(),
                    mode: r.get(6)?,
                    language: r.get(7)?,
                    model: r.get(8)?,
                    status: r.get(9)?,
                    timings: serde_json::from_str(&timings).unwrap_or_default(),
                    context_tokens: r.get(11)?,
                    page_tokens: r.get(12)?,
                })
            })
            .map_err(|e| self.db_err(e))?;
        rows.collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| self.db_err(e))
    }

    /// A cached answer (JSON) for `key`, counting the hit.
    pub fn cache_get(&self, key: &str) -> Result<Option<String>> {
        let hit: Option<String> = self
            .conn
            .query_row(
                "SELECT response FROM answer_cache WHERE key = ?1",
                [key],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.db_err(e))?;
        self.bump("cache_lookups", 1)?;
        if hit.is_some() {
            self.conn
                .execute(
                    "UPDATE answer_cache SET hits = hits + 1 WHERE key = ?1",
                    [key],
                )
                .map_err(|e| self.db_err(e))?;
            self.bump("cache_hits", 1)?;
        }
        Ok(hit)
    }

    /// Stores an answer (JSON) under `key`.
    pub fn cache_put(&self, key: &str, response_json: &str) -> Result<()> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO answer_cache (key, response) VALUES (?1, ?2)",
                params![key, response_json],
            )
            .map_err(|e| self.db_err(e))?;
        Ok(())
    }

    /// Adds `by` to the counter `name`.
    pub fn bump(&self, name: &str, by: i64) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO counters (name, value) VALUES (?1, ?2)
                 ON CONFLICT(name) DO UPDATE SET value = value + excluded.value",
                params![name, by],
            )
            .map_err(|e| self.db_err(e))?;
        Ok(())
    }

    /// The value of counter `name` (0 when never bumped).
    pub fn counter(&self, name: &str) -> Result<i64> {
        self.conn
            .query_row("SELECT value FROM counters WHERE name = ?1", [name], |r| {
                r.get(0)
            })
            .optional()
            .map(|v| v.unwrap_or(0))
            .map_err(|e| self.db_err(e))
    }

    /// Figures of every stored turn, oldest first, for statistics.
    pub fn turn_figures(&self) -> Result<Vec<TurnFigures>> {
        let mut st = self
            .conn
            .prepare("SELECT timings, context_tokens, page_tokens FROM turns ORDER BY id")
            .map_err(|e| self.db_err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                ))
            })
            .map_err(|e| self.db_err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (timings, context_tokens, page_tokens) = row.map_err(|e| self.db_err(e))?;
            let timings_ms =
                serde_json::from_str::<std::collections::BTreeMap<String, f64>>(&timings)
                    .unwrap_or_default();
            out.push(TurnFigures {
                timings_ms,
                context_tokens,
                page_tokens,
            });
        }
        Ok(out)
    }
}

/// One stored turn's figures ([`Library::turn_figures`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TurnFigures {
    /// Milliseconds per stage (`total` is the whole turn).
    pub timings_ms: std::collections::BTreeMap<String, f64>,
    /// Answer-model tokens of the context sent.
    pub context_tokens: i64,
    /// Tokens of the whole cited pages (0 for turns stored before schema v4).
    pub page_tokens: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversations_turns_cache_counters() {
        let dir = tempfile::tempdir().unwrap();
        let lib = Library::open(dir.path()).unwrap();
        let c = lib
            .create_conversation(
                "What is photosynthesis and why does it matter so much for life on Earth today?",
            )
            .unwrap();
        assert!(lib.conversations().unwrap()[0].title.ends_with('…'));
        let odd = "why\u{1b}[2J\r\u{7}\u{0} is\u{202E} it\u{2066}?\nand\tthis";
        let c2 = lib.create_conversation(odd).unwrap();
        let t2 = Turn {
            id: 0,
            conversation_id: c2,
            question: odd.into(),
            query: odd.into(),
            answer: "a".into(),
            citations: serde_json::json!([]),
            mode: "answer".into(),
            language: "en".into(),
            model: None,
            status: "answered".into(),
            timings: serde_json::json!({}),
            context_tokens: 0,
            page_tokens: 0,
        };
        lib.add_turn(&t2).unwrap();
        let kept = &lib.turns(c2).unwrap()[0];
        assert_eq!(kept.question, "why[2J is it?\nand\tthis");
        assert_eq!(kept.query, kept.question);
        let title = &lib.conversations().unwrap()[0].title;
        assert_eq!(title, "why[2J is it? and this");
        assert!(lib.delete_conversation(c2).unwrap());
        let t = Turn {
            id: 0,
            conversation_id: c,
            question: "q".into(),
            query: "q".into(),
            answer: "a [1]".into(),
            citations: serde_json::json!([{"n": 1}]),
            mode: "answer".into(),
            language: "en".into(),
            model: Some("m".into()),
            status: "answered".into(),
            timings: serde_json::json!({"total": 12.5}),
            context_tokens: 120,
            page_tokens: 900,
        };
        lib.add_turn(&t).unwrap();
        lib.add_turn(&t).unwrap();
        let turns = lib.turns(c).unwrap();
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[1].citations, serde_json::json!([{"n": 1}]));
        let figures = lib.turn_figures().unwrap();
        assert_eq!(figures.len(), 2);
        assert_eq!(figures[0].timings_ms["total"], 12.5);
        assert_eq!(
            (figures[1].context_tokens, figures[1].page_tokens),
            (120, 900)
        );
        assert_eq!(turns[1].page_tokens, 900);
        assert!(lib.cache_get("k").unwrap().is_none());
        lib.cache_put("k", "{}").unwrap();
        assert_eq!(lib.cache_get("k").unwrap().as_deref(), Some("{}"));
        assert_eq!(lib.counter("cache_lookups").unwrap(), 2);
        assert_eq!(lib.counter("cache_hits").unwrap(), 1);
        assert!(lib.delete_conversation(c).unwrap());
        assert!(lib.turns(c).unwrap().is_empty());
        assert!(!lib.conversation_exists(c).unwrap());
    }
}
