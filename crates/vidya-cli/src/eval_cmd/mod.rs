//! `vidya eval`: stage configurations side by side on a textbook QA set or a BEIR folder, and
//! the tutor's answers with a real model.
//!
//! One file per mode: [`retrieval`] (`--qa`, `--beir`), [`students`] (`--students`),
//! [`answers`] (`--answers`), [`extraction`] (`--extraction`), [`grounding`] (`--grounding`).

mod answers;
mod extraction;
mod grounding;
mod retrieval;
mod students;

use crate::cli::ModelArgs;
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use vidya_core::answer::Tutor;
use vidya_core::eval;
use vidya_core::{Engine, Library, VidyaError};

/// `vidya eval` arguments.
#[derive(clap::Args)]
pub struct EvalArgs {
    /// QA JSONL file whose records have source.pdf_file and source.pdf_pages (page-level
    /// eval of the library's books).
    #[arg(long, required_unless_present_any = ["beir", "extraction", "students", "grounding"], conflicts_with_all = ["beir", "students"])]
    pub qa: Option<PathBuf>,
    /// The realistic student question set (tests/eval/students.jsonl): exact-page hit@1 and
    /// hit@3 of the citations `vidya ask` shows, false stops, per language and question kind.
    #[arg(long, conflicts_with = "beir")]
    pub students: Option<PathBuf>,
    /// With --students: follow-up pairs (tests/eval/followups.jsonl), asked as two-turn
    /// conversations.
    #[arg(long, requires = "students")]
    pub followups: Option<PathBuf>,
    /// With --students or --grounding: dev, test or all (tune on dev, report on test; records
    /// without a split are always read).
    #[arg(long, default_value = "test", value_parser = ["dev", "test", "all"])]
    pub split: String,
    /// With --students: write what the gate saw for every question, one JSON line each
    /// (`{"answerable", "input"}`), to fit the gate (tests/eval/fit_gate.py).
    #[arg(long, requires = "students")]
    pub gate_features: Option<PathBuf>,
    /// With --gate-features: add the questions of this gate training set (JSONL with
    /// "question" and "answerable"; tests/eval/gate_train.jsonl) to the samples.
    #[arg(long, requires = "gate_features")]
    pub gate_train: Option<PathBuf>,
    /// With --students: list every question missed (not on the page within 3 citations, or
    /// not stopped).
    #[arg(long, requires = "students")]
    pub misses: bool,
    /// A pair set (JSONL: "id", "sources" [texts], "answer"; "label", "kind", "language",
    /// "split" read when present): run the tutor's answer check on each answer against its
    /// sources and print the share rejected per label, kind and language (--json: one line
    /// per record with each sentence's verdict). Needs no library.
    #[arg(long, conflicts_with_all = ["qa", "beir", "students", "extraction", "answers"])]
    pub grounding: Option<PathBuf>,
    /// With --grounding: the check without its meaning check (shared words and embeddings
    /// only, as Vidya checked answers before it), to measure what the meaning check adds.
    #[arg(long, requires = "grounding")]
    pub words_only: bool,
    /// A BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv): its corpus is stored in
    /// the --library as one book (embedded once) and nDCG@10 is measured.
    #[arg(long)]
    pub beir: Option<PathBuf>,
    /// A folder of PDFs with NAME.groundtruth*.txt beside them: print each PDF's character
    /// error rate (CER) before and after Vidya's Indic repairs and legacy-font conversion.
    /// Needs no library.
    #[arg(long, conflicts_with_all = ["qa", "beir", "students"])]
    pub extraction: Option<PathBuf>,
    /// With --beir: another queries.jsonl (e.g. English questions over a Hindi corpus).
    #[arg(long, requires = "beir")]
    pub queries: Option<PathBuf>,
    /// With --beir: the judgements to score against, `qrels/<SPLIT>.tsv` (tune on train,
    /// report on test).
    #[arg(long, requires = "beir", default_value = "test", value_parser = ["test", "train", "dev"])]
    pub beir_split: String,
    /// Questions the library cannot answer (JSONL with "question"), for the gate
    /// (tests/eval/off_topic.jsonl with --students).
    #[arg(long)]
    pub unanswerable: Option<PathBuf>,
    /// Configurations to compare, comma-separated (default: all of bm25, dense, hybrid,
    /// hybrid-weighted, hybrid+router, hybrid+router+rerank, full; with --students: full).
    #[arg(long)]
    pub configs: Option<String>,
    /// k of recall@k (1-100).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=100))]
    pub k: u16,
    /// Use the question alone, without the MCQ options.
    #[arg(long)]
    pub no_options: bool,
    /// Evaluate only the first N questions.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Judge the tutor's answers with a real model instead of retrieval (--qa or --students,
    /// with --unanswerable): answered / refused / extractive shares, answers whose every
    /// sentence is supported and cited, cited-page and must-mention rates, invented sentences
    /// removed, time to first token (needs Ollama or the test model server).
    #[arg(long)]
    pub answers: bool,
    /// With --answers: also run the extractive answer (no model) on the same questions.
    #[arg(long, requires = "answers")]
    pub baseline: bool,
    /// With --answers: also ask each question with the whole pages of its passages (up to
    /// 2,000 tokens) instead of the pruned sentences, right after the pruned one: time to
    /// first token and prompt tokens side by side (the pruning measurement).
    #[arg(long, requires = "answers")]
    pub whole_pages: bool,
    /// With --answers: the prompt's form (standard, example, short, question-first).
    #[arg(long, requires = "answers", value_parser = ["standard", "example", "short", "question-first"])]
    pub prompt_form: Option<String>,
    /// With --answers: ask the model even when the relevance gate would stop the question
    /// (measures what the answer checks do alone).
    #[arg(long, requires = "answers")]
    pub no_gate: bool,
    /// With --answers: how the model's answer is shown: quotes-first (the textbook's quotes,
    /// then the tutor's checked sentences; the default) or model-only.
    #[arg(long, requires = "answers", value_parser = ["quotes-first", "model-only"])]
    pub layout: Option<String>,
    /// With --answers: write every answer the student sees (question, the textbook's evidence,
    /// the answer, a key) as JSONL to FILE, for a person to grade correct / partial / wrong
    /// without knowing the configuration (merge and shuffle the files of several runs).
    #[arg(long, requires = "answers", value_name = "FILE")]
    pub grading_out: Option<PathBuf>,
    /// With --answers: grades (JSONL `{"key", "grade"}`) to report correct / partial / wrong
    /// and the wrong-but-cited rate with (answers whose key has no grade are counted apart).
    #[arg(long, requires = "answers", value_name = "FILE")]
    pub grades: Option<PathBuf>,
    /// With --answers: the model's sampling temperature instead of the default.
    #[arg(long, requires = "answers")]
    pub temperature: Option<f32>,
    /// With --answers: the model's repeat penalty instead of the default (1.0: none).
    #[arg(long, requires = "answers")]
    pub repeat_penalty: Option<f32>,
    /// With --answers: the longest answer (tokens, num_predict) instead of the default.
    #[arg(long, requires = "answers")]
    pub max_tokens: Option<i32>,
    #[command(flatten)]
    pub tune: Tune,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Stage settings to try instead of the defaults (for tuning).
#[derive(clap::Args, Default)]
pub struct Tune {
    /// Try this pruning threshold (cosine) instead of the default.
    #[arg(long)]
    pub prune_threshold: Option<f32>,
    /// Try this router margin instead of the default.
    #[arg(long)]
    pub router_margin: Option<f32>,
    /// Try this decision threshold (0..1) on the gate model's probability (for English and
    /// other questions alike; 0 turns the gate off).
    #[arg(long)]
    pub gate_threshold: Option<f32>,
    /// Try this gate threshold on BM25 coverage.
    #[arg(long)]
    pub gate_coverage: Option<f32>,
    /// Try this weight (0..1) of the sentence cosine in the rescoring stage.
    #[arg(long)]
    pub rescore_weight: Option<f32>,
    /// Try this bonus in the rescoring stage for a passage that defines the term a
    /// definition question asks about (0 turns it off).
    #[arg(long)]
    pub definition_weight: Option<f32>,
    /// Try this factor on the fused score of boilerplate chunks (1: rank them like body text).
    #[arg(long)]
    pub boilerplate_weight: Option<f32>,
    /// Try this weight (0..1) of the dense list in weighted fusion (the configurations that
    /// use weighted fusion).
    #[arg(long)]
    pub dense_weight: Option<f32>,
    /// Search with the question as typed (no SMS, typo, Hinglish or Hindi normalisation).
    #[arg(long)]
    pub no_normalize: bool,
    /// Try this many fused candidates in the sentence rescoring (stage 2 without a
    /// cross-encoder) instead of the default.
    #[arg(long)]
    pub rescore_top: Option<usize>,
    /// Try this many candidates from each of BM25 and dense retrieval instead of the default.
    #[arg(long)]
    pub candidates: Option<usize>,
}

impl Tune {
    fn apply(&self, configs: &mut [eval::NamedConfig]) {
        for c in configs {
            let p = &mut c.config;
            if let Some(t) = self.prune_threshold {
                p.prune_threshold = t;
            }
            if let (Some(m), Some(r)) = (self.router_margin, p.router.as_mut()) {
                r.margin = m;
            }
            if let (Some(t), Some(g)) = (self.gate_threshold, p.gate.as_mut()) {
                g.model.threshold = t;
                g.model.threshold_indic = t;
            }
            if let (Some(x), Some(g)) = (self.gate_coverage, p.gate.as_mut()) {
                g.coverage = x;
            }
            if let Some(w) = self.rescore_weight {
                p.rescore_weight = w;
            }
            if let Some(w) = self.definition_weight {
                p.definition_weight = w;
            }
            if let Some(w) = self.boilerplate_weight {
                p.boilerplate_weight = w;
            }
            if let (Some(w), vidya_core::retrieve::fusion::Fusion::Weighted { dense }) =
                (self.dense_weight, &mut p.fusion)
            {
                *dense = w;
            }
            if self.no_normalize {
                p.normalize = false;
            }
            if let Some(n) = self.rescore_top {
                p.rescore_top = n;
            }
            if let Some(n) = self.candidates {
                p.candidates = n;
            }
        }
    }
}

/// Runs `vidya eval` in the mode its arguments choose.
pub fn run(library: &Path, args: &EvalArgs) -> Result<ExitCode> {
    if let Some(dir) = &args.extraction {
        return extraction::extraction(dir, args.json);
    }
    if args.grounding.is_some() {
        return grounding::grounding(args);
    }
    if args.answers {
        if args.qa.is_none() && args.students.is_none() {
            return Err(VidyaError::BadOption(
                "--answers needs the questions: --qa FILE or --students FILE".into(),
            )
            .into());
        }
        let engine = Engine::from_library(Library::open_existing(library)?)?;
        let mut llm = crate::ask_cmd::llm_config(&args.model);
        if let Some(t) = args.temperature {
            llm.temperature = t;
        }
        if let Some(p) = args.repeat_penalty {
            llm.repeat_penalty = p;
        }
        if let Some(n) = args.max_tokens {
            llm.max_tokens = n;
        }
        let tutor = Tutor::new(engine, llm);
        let opts = vidya_core::answer::TutorOptions {
            gate: !args.no_gate,
            layout: args
                .layout
                .as_deref()
                .and_then(vidya_core::answer::tutor::Layout::parse)
                .unwrap_or_default(),
            prompt_form: args
                .prompt_form
                .as_deref()
                .and_then(vidya_core::answer::prompt::PromptForm::parse)
                .unwrap_or_default(),
            ..crate::ask_cmd::tutor_options(&args.model, None, false)?
        };
        return answers::answers(&tutor, args, &opts);
    }
    if let Some(students) = &args.students {
        return students::students_cmd(library, students, args);
    }
    retrieval::retrieval(library, args)
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map(|x| format!("{x:.digits$}"))
        .unwrap_or_else(|| "-".into())
}
