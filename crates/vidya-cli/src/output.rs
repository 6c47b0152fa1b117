//! Writing to stdout without panicking: `println!` panics when stdout is closed (`| head`) or
//! the disk is full. Every command prints through [`line`]/[`text`], which return an error
//! instead; `main` ends quietly on a closed pipe and reports other write failures.

use std::io::Write;

/// Prints a formatted line to stdout, returning the write error instead of panicking (`?`).
macro_rules! out {
    ($($t:tt)*) => { $crate::output::line(format!($($t)*))? };
}

/// `n word` or `n words`.
pub fn plural(n: impl Into<i64>, word: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Writes `s` and a newline to stdout.
pub fn line(s: impl std::fmt::Display) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{s}")
}

/// Writes `s` to stdout and flushes (for streamed answers).
pub fn text(s: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(s.as_bytes())?;
    out.flush()
}

/// Writes a line to stderr, ignoring failures (there is nowhere left to report them).
pub fn err_line(s: impl std::fmt::Display) {
    let _ = writeln!(std::io::stderr().lock(), "{s}");
}

/// True when `e` (anywhere in its chain) is a closed pipe.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
