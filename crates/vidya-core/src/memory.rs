//! Giving freed heap memory back to the operating system.
//!
//! Loading a tokenizer parses its JSON through memory that is freed again: the answer model's
//! Llama 3.2 `tokenizer.json` peaks at 195 MiB while it loads and keeps 44 MiB (measured on this
//! machine). glibc's allocator keeps such freed memory in its arenas, where it still counts as
//! the process's resident memory (144 MiB after that load) until `malloc_trim` returns it
//! (51 MiB). On Windows the programs use mimalloc, which returns freed pages by itself.

/// Returns the heap's free memory to the operating system (glibc's `malloc_trim(0)`); does
/// nothing where the C library has no such call.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory the allocator holds free; it takes no pointers.
    unsafe {
        libc::malloc_trim(0);
    }
}
