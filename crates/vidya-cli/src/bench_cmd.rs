//! `vidya bench`: per-stage latency over a large synthetic library, ingest throughput, and a
//! class asking one classroom server ([`crate::bench_classroom`]).

use anyhow::Result;
use clap::Subcommand;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use vidya_core::bench::{self, SyntheticSpec};
use vidya_core::retrieve::rerank::CrossEncoder;
use vidya_core::retrieve::{Models, PipelineConfig};
use vidya_core::{Engine, Library, VidyaError};

#[derive(Subcommand)]
pub enum BenchCmd {
    /// Per-stage latency (p50/p95 ms) and peak memory over a synthetic library grown from an
    /// embedded one.
    Latency(LatencyArgs),
    /// A class asking one `vidya serve --classroom` at once: each student a device of its own
    /// (loopback addresses 127.0.0.2 onwards); answers, failures, waiting time p50/p95, order.
    Classroom(crate::bench_classroom::ClassroomArgs),
    /// Ingest throughput (pages/s, chunks/s, with embedding) of a book into a new library.
    Ingest {
        /// The book (file or folder).
        path: PathBuf,
        /// Folder for the scratch library (must not exist yet).
        #[arg(long)]
        work: PathBuf,
    },
}

/// `vidya bench latency`'s options.
#[derive(clap::Args)]
pub struct LatencyArgs {
    /// A library with embedded books to grow the synthetic one from (e.g. Biology 2e).
    #[arg(long)]
    pub from: PathBuf,
    /// Folder for the synthetic library (built on first use, reused afterwards).
    #[arg(long)]
    pub work: PathBuf,
    /// Chunks in the synthetic library.
    #[arg(long, default_value_t = 100_000)]
    pub chunks: usize,
    /// QA JSONL whose questions are asked (default: the first sentence of source chunks).
    #[arg(long)]
    pub questions: Option<PathBuf>,
    /// Questions timed.
    #[arg(long, default_value_t = 200)]
    pub n: usize,
    /// Also time the cross-encoder in this folder (model.onnx, tokenizer.json) over the
    /// default 30 fused candidates.
    #[arg(long)]
    pub reranker: Option<PathBuf>,
    /// First ingest this book (file or folder) with vectors into a scratch library under
    /// --work, and report its pages/s and peak memory, so that one run prints every figure.
    #[arg(long, value_name = "BOOK")]
    pub ingest: Option<PathBuf>,
}

fn mib(b: Option<u64>) -> String {
    b.map(|b| format!("{:.0} MiB", b as f64 / 1048576.0))
        .unwrap_or_else(|| "n/a".into())
}

fn read_questions(path: &Path, n: usize) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|e| VidyaError::io(path, e))?;
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get("question")?.as_str().map(str::to_string))
        .take(n)
        .collect())
}

fn print_latency(title: &str, rows: &[bench::StageLatency]) -> Result<()> {
    out!("{title}");
    out!(
        "  {:<12} {:>6} {:>9} {:>9}",
        "stage",
        "runs",
        "p50 ms",
        "p95 ms"
    );
    for r in rows {
        out!(
            "  {:<12} {:>6} {:>9.1} {:>9.1}",
            r.stage,
            r.runs,
            r.p50_ms,
            r.p95_ms
        );
    }
    Ok(())
}

/// Runs one bench (see [`BenchCmd`]) and prints its figures.
pub fn run(cmd: BenchCmd) -> Result<ExitCode> {
    match cmd {
        BenchCmd::Latency(args) => latency(args),
        BenchCmd::Classroom(args) => crate::bench_classroom::run(args),
        BenchCmd::Ingest { path, work } => {
            if work.exists() {
                return Err(VidyaError::BadOption(format!(
                    "{} exists: give a new folder for the scratch library",
                    work.display()
                ))
                .into());
            }
            ingest_throughput(&path, &work)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `vidya bench latency`: the ingest first (with `--ingest`), then per-stage latency over the
/// synthetic library (and with the cross-encoder, with `--reranker`), then peak memory.
fn latency(a: LatencyArgs) -> Result<ExitCode> {
    if a.chunks == 0 || a.n == 0 {
        return Err(VidyaError::BadOption("--chunks and --n must be at least 1".into()).into());
    }
    let reranker = match a.reranker {
        Some(dir) if !dir.is_dir() => {
            return Err(VidyaError::BadOption(format!(
                "--reranker {}: there is no such folder",
                dir.display()
            ))
            .into())
        }
        Some(dir) => Some((CrossEncoder::load_from(&dir)?, dir)),
        None => None,
    };
    if let Some(book) = &a.ingest {
        // A fresh scratch library each run (the synthetic one under --work is kept).
        let scratch = a.work.join("ingest-run");
        if scratch.exists() {
            std::fs::remove_dir_all(&scratch).map_err(|e| VidyaError::io(&scratch, e))?;
        }
        ingest_throughput(book, &scratch)?;
        std::fs::remove_dir_all(&scratch).map_err(|e| VidyaError::io(&scratch, e))?;
        if !bench::reset_peak_rss() {
            out!("(this system cannot restart the peak-memory count: the figures below include the ingest's)");
        }
    }
    let models = Models::load();
    let embedder = models
        .embedder
        .clone()
        .ok_or_else(|| anyhow::anyhow!("{}", models.notes.join("; ")))?;
    let src = Library::open_existing(&a.from)?;
    if src.missing_vector_count(&embedder.model_id())? > 0 {
        return Err(VidyaError::BadOption(format!(
            "the source library {} has chunks without vectors: run `vidya --library {} reindex` first",
            a.from.display(),
            a.from.display()
        ))
        .into());
    }
    let dst = synthetic_library(&src, &a.work, a.chunks, &embedder.model_id())?;
    let (_, _, stored) = dst.counts()?;
    let t = std::time::Instant::now();
    let engine = Engine::with_models(dst, &models)?;
    let dense = engine.retriever().dense();
    out!(
        "library of {stored} chunks loaded in {:.1} s (HNSW {}; {})",
        t.elapsed().as_secs_f64(),
        dense
            .map(|d| format!("{:?}", d.source()).to_lowercase())
            .unwrap_or_else(|| "off".into()),
        match dense {
            Some(d) if d.is_mapped() => format!(
                "memory-mapped from its {} file, index memory {}",
                mib(Some(d.file_bytes())),
                mib(Some(d.memory_bytes() as u64))
            ),
            d => format!(
                "in memory, index memory {}",
                mib(d.map(|d| d.memory_bytes() as u64))
            ),
        }
    );
    let qs = match &a.questions {
        Some(p) => read_questions(p, a.n)?,
        None => src
            .all_terms()?
            .iter()
            .take(a.n)
            .filter_map(|r| src.chunk(r.chunk_id).ok().flatten())
            .map(|c| c.text.split(". ").next().unwrap_or_default().to_string())
            .collect(),
    };
    let cfg = PipelineConfig {
        rerank: false,
        ..PipelineConfig::default()
    };
    let rows = bench::stage_latency(&engine, &qs, &cfg, 5)?;
    print_latency(
        &format!(
            "full pipeline without reranker, {} questions over {stored} chunks (retrieval + prune):",
            qs.len()
        ),
        &rows,
    )?;
    drop(engine);
    if let Some((ce, dir)) = reranker {
        let with = Models {
            reranker: Some(Arc::new(ce)),
            ..models.clone()
        };
        let engine = Engine::with_models(Library::open_existing(&a.work)?, &with)?;
        let cfg = PipelineConfig {
            rerank_top: 20,
            ..PipelineConfig::default()
        };
        let rows = bench::stage_latency(&engine, &qs, &cfg, 3)?;
        print_latency(
            &format!(
                "with the cross-encoder at {} over 20 candidates:",
                dir.display()
            ),
            &rows,
        )?;
    }
    out!(
        "peak resident memory while loading and answering: {}",
        mib(bench::peak_rss_bytes())
    );
    Ok(ExitCode::SUCCESS)
}

/// The synthetic library of `chunks` chunks at `work`, grown from `src` (vectors from
/// `model`) on first use and reused afterwards.
///
/// Errors: `work` holds a synthetic library of another size; database errors.
fn synthetic_library(src: &Library, work: &Path, chunks: usize, model: &str) -> Result<Library> {
    let mut dst = Library::open(work)?;
    let stored = dst.counts()?.2;
    if stored > 0 && stored as usize != chunks {
        return Err(VidyaError::BadOption(format!(
            "{} holds a synthetic library of {stored} chunks, not {chunks}: give a new --work folder",
            work.display()
        ))
        .into());
    }
    if stored == 0 {
        let bar = ProgressBar::new(1);
        bar.set_style(
            ProgressStyle::with_template(
                "building synthetic library [{bar:30}] {pos}/{len} books ({eta})",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        let t = std::time::Instant::now();
        let spec = SyntheticSpec {
            chunks,
            ..SyntheticSpec::default()
        };
        let written = bench::build_synthetic(src, &mut dst, model, &spec, &mut |d, total| {
            bar.set_length(total as u64);
            bar.set_position(d as u64);
        })?;
        bar.finish_and_clear();
        out!(
            "synthetic library: {written} chunks written in {:.1} s",
            t.elapsed().as_secs_f64()
        );
    }
    Ok(dst)
}

/// Ingests `path` with vectors into a new library at `work` and prints pages/s, chunks/s and
/// the peak memory so far.
fn ingest_throughput(path: &Path, work: &Path) -> Result<()> {
    let books = vidya_core::ingest::plan(path)?;
    let mut lib = Library::open(work)?;
    let embedder = crate::index_cmd::embedder_for_ingest();
    let opts = vidya_core::ingest::IngestOptions {
        embedder: embedder.clone(),
        ..Default::default()
    };
    let t0 = std::time::Instant::now();
    let mut embed_start = None;
    let (mut pages, mut chunks) = (0, 0);
    for src in books {
        let r = vidya_core::ingest::ingest_book(&mut lib, &src, &opts, &mut |p| {
            if matches!(p, vidya_core::ingest::Progress::Embedding { .. }) {
                embed_start.get_or_insert_with(std::time::Instant::now);
            }
        })?;
        pages += r.pages;
        chunks += r.chunks;
    }
    let total = t0.elapsed().as_secs_f64();
    out!(
        "ingested {pages} pages, {chunks} chunks in {total:.1} s: {:.1} pages/s, {:.1} chunks/s (embedding {})",
        pages as f64 / total,
        chunks as f64 / total,
        if embedder.is_some() { "on" } else { "off" }
    );
    if let Some(t) = embed_start {
        let e = t.elapsed().as_secs_f64();
        out!(
            "  of which embedding (and writing) took about {e:.1} s ({:.1} chunks/s)",
            chunks as f64 / e
        );
    }
    out!(
        "peak resident memory while ingesting: {}",
        mib(bench::peak_rss_bytes())
    );
    Ok(())
}
