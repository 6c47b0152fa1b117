use super::*;
use crate::store::{NewBook, NewChunk};
use crate::text::Tokenizer;
use rand::{Rng, SeedableRng};

const WORDS: &[&str] = &[
    "photosynthesis",
    "chlorophyll",
    "light",
    "energy",
    "plant",
    "leaf",
    "green",
    "sugar",
    "carbon",
    "dioxide",
    "water",
    "oxygen",
    "cell",
    "nucleus",
    "mitosis",
    "meiosis",
    "gene",
    "force",
    "motion",
    "newton",
    "mass",
    "velocity",
    "acceleration",
    "work",
    "power",
    "heat",
    "electron",
    "atom",
    "current",
    "voltage",
    "wave",
    "sound",
    "river",
    "soil",
    "root",
];

/// A book of `chunks` chunks of random sentences over [`WORDS`] (seeded).
fn book(title: &str, chunks: usize, seed: u64, replaces: Option<i64>) -> NewBook {
    let tokenizer = Tokenizer::new();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let chunks: Vec<NewChunk> = (0..chunks)
        .map(|i| {
            let n = rng.random_range(5..80);
            let text: String = (0..n)
                .map(|_| WORDS[rng.random_range(0..WORDS.len())])
                .collect::<Vec<_>>()
                .join(" ");
            NewChunk {
                chapter: 0,
                first_page: i,
                last_page: i,
                terms: tokenizer.terms(&text),
                token_count: n,
                page_starts: vec![(0, i)],
                text,
                vector: None,
                kind: crate::ingest::blocks::BlockKind::Body,
                context: String::new(),
                sentence_vectors: None,
            }
        })
        .collect();
    crate::store::insert::test_book(title, &format!("{title}-{seed}"), chunks, None, replaces)
}

/// The `bm25` crate's scorer over the same stored terms: what the index answered before it
/// moved to disk.
fn reference(lib: &Library, terms: &[String], k: usize) -> Vec<(i64, f32)> {
    #[derive(Default)]
    struct Folded;
    impl bm25::Tokenizer for Folded {
        fn tokenize(&self, text: &str) -> Vec<String> {
            text.split(' ')
                .filter(|t| !t.is_empty())
                .map(|t| fold_variants(t).into_owned())
                .collect()
        }
    }
    let rows = lib.all_terms().unwrap();
    let total: usize = rows.iter().map(|r| r.term_count).sum();
    let embedder: bm25::Embedder<u32, Folded> =
        bm25::EmbedderBuilder::with_avgdl(total as f32 / rows.len() as f32).build();
    let mut scorer = bm25::Scorer::<i64, u32>::new();
    for r in &rows {
        scorer.upsert(&r.chunk_id, embedder.embed(&r.terms));
    }
    // As the index before: each distinct query term once.
    let mut seen = HashSet::new();
    let distinct: Vec<&str> = terms
        .iter()
        .map(String::as_str)
        .filter(|t| seen.insert(*t))
        .collect();
    let mut hits: Vec<(i64, f32)> = scorer
        .matches(&embedder.embed(&distinct.join(" ")))
        .into_iter()
        .map(|d| (d.id, d.score))
        .collect();
    hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    hits.truncate(k);
    hits
}

/// A question's terms, as the pipeline makes them.
fn terms(text: &str) -> Vec<String> {
    Tokenizer::new().terms(text)
}

fn queries(seed: u64) -> Vec<Vec<String>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..40)
        .map(|_| {
            let text: Vec<&str> = (0..rng.random_range(1..6))
                .map(|_| WORDS[rng.random_range(0..WORDS.len())])
                .collect();
            terms(&text.join(" "))
        })
        .filter(|q| !q.is_empty())
        .collect()
}

fn assert_same(index: &Bm25Index, lib: &Library) {
    for q in queries(7) {
        let got: Vec<(i64, f32)> = index
            .search(&q, 10, None)
            .into_iter()
            .map(|h| (h.chunk_id, h.score))
            .collect();
        let want = reference(lib, &q, 10);
        assert_eq!(
            got.iter().map(|h| h.0).collect::<Vec<_>>(),
            want.iter().map(|h| h.0).collect::<Vec<_>>(),
            "{q:?}"
        );
        for (g, w) in got.iter().zip(&want) {
            assert!(
                (g.1 - w.1).abs() <= 1e-3 * w.1.abs().max(1.0),
                "{q:?}: {g:?} vs {w:?}"
            );
        }
    }
}

#[test]
fn the_index_on_disk_answers_the_same_top_k_as_the_bm25_crate() {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::open(dir.path()).unwrap();
    lib.insert_book(&book("Science", 300, 1, None), || {})
        .unwrap();
    lib.insert_book(&book("Geography", 120, 2, None), || {})
        .unwrap();
    let index = Bm25Index::load(&lib).unwrap();
    assert_eq!(index.len(), 420);
    assert!(index.repaired().is_empty());
    assert_same(&index, &lib);
    // A book filter keeps only that book's chunks.
    let q = terms("river soil");
    let only = index.search(&q, 50, Some(&[2]));
    assert!(!only.is_empty() && only.iter().all(|h| h.book_id == 2));
    let (river, mughal) = (&terms("river")[0], &terms("mughal")[0]);
    assert!(index.knows(river) && !index.knows(mughal));
    assert!(index.idf(mughal) > index.idf(river));
}

#[test]
fn deleting_and_reindexing_a_book_update_the_index_and_a_killed_ingest_leaves_it_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::open(dir.path()).unwrap();
    let science = lib
        .insert_book(&book("Science", 200, 1, None), || {})
        .unwrap();
    let geo = lib
        .insert_book(&book("Geography", 100, 2, None), || {})
        .unwrap();
    lib.delete_book(geo).unwrap();
    let index = Bm25Index::load(&lib).unwrap();
    assert_eq!(index.len(), 200);
    let q = terms("river");
    let hits = index.search(&q, 500, None);
    assert!(!hits.is_empty() && hits.iter().all(|h| h.book_id == science));
    assert_same(&index, &lib);
    // Re-indexing replaces the book's rows in the same transaction.
    lib.insert_book(&book("Science", 150, 9, Some(science)), || {})
        .unwrap();
    let index = Bm25Index::load(&lib).unwrap();
    assert_eq!(index.len(), 150);
    assert!(index.repaired().is_empty());
    assert_same(&index, &lib);
    // A book killed before its commit leaves neither chunks nor index rows behind.
    let killed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = lib.insert_book(&book("History", 80, 3, None), || panic!("killed"));
    }));
    assert!(killed.is_err());
    drop(lib);
    let lib = Library::open(dir.path()).unwrap();
    let index = Bm25Index::load(&lib).unwrap();
    assert_eq!(index.len(), 150);
    assert!(index.repaired().is_empty());
    assert_same(&index, &lib);
}

/// Loads the index and lets its first whole check finish.
fn loaded(lib: &Library) -> Bm25Index {
    let index = Bm25Index::load_checked_after(lib, std::time::Duration::ZERO).unwrap();
    assert!(index.mender().wait_idle(std::time::Duration::from_secs(30)));
    index
}

/// Waits for the mender and returns what it mended.
fn mended(index: &Bm25Index) -> Vec<String> {
    assert!(index.mender().wait_idle(std::time::Duration::from_secs(30)));
    index.mender().mended()
}

#[test]
fn damage_found_by_a_question_is_mended_beside_the_questions() {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::open(dir.path()).unwrap();
    lib.insert_book(&book("Science", 200, 1, None), || {})
        .unwrap();
    let (energy, river) = (terms("energy").remove(0), terms("river").remove(0));
    let index = loaded(&lib);
    assert!(index.mender().mended().is_empty(), "nothing to mend");
    // Bytes that do not decode, and bytes that decode to other postings (the row's check
    // tells), and a wrong df.
    for damage in [
        "UPDATE bm25_postings SET postings = x'ffffffffffffffffffffff' WHERE term = ?1",
        "UPDATE bm25_postings SET postings = substr(postings, 4) WHERE term = ?1",
        "UPDATE bm25_postings SET df = df + 1 WHERE term = ?1",
    ] {
        assert_eq!(lib.conn.execute(damage, [&energy]).unwrap(), 1, "{damage}");
        let only_energy = index.search(std::slice::from_ref(&energy), 10, None);
        assert!(
            only_energy.is_empty(),
            "the damaged row is skipped: {damage}"
        );
        let hits = index.search(&[energy.clone(), river.clone()], 10, None);
        assert!(!hits.is_empty(), "the other term still answers");
        assert_eq!(
            mended(&index).last().map(String::as_str),
            Some("Science"),
            "{damage}"
        );
        assert_same(&index, &lib);
    }
    // Each damage mended at least once (a second question may ask again meanwhile).
    assert!(mended(&index).len() >= 3);
}

#[test]
fn damage_no_question_reads_is_found_after_the_load_and_dropped_tables_come_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::open(dir.path()).unwrap();
    lib.insert_book(&book("Science", 200, 1, None), || {})
        .unwrap();
    lib.insert_book(&book("Maths", 50, 2, None), || {}).unwrap();
    let energy = terms("energy").remove(0);
    // A row lost, the totals changed, a chunk added behind the index's back.
    for damage in [
        "DELETE FROM bm25_postings WHERE term = ?1 AND book_id = 1",
        "UPDATE bm25_books SET terms = terms + 7 WHERE book_id = 1 AND ?1 != ''",
        "UPDATE bm25_books SET chunks = chunks - 1, \"check\" = 0 WHERE book_id = 1 AND ?1 != ''",
    ] {
        assert_eq!(lib.conn.execute(damage, [&energy]).unwrap(), 1, "{damage}");
        let index = Bm25Index::load_checked_after(&lib, std::time::Duration::ZERO).unwrap();
        assert_eq!(mended(&index), ["Science".to_string()], "{damage}");
        assert_same(&index, &lib);
    }
    // Tables dropped by hand: created again when the library opens, indexed at the load.
    for table in ["bm25_postings", "bm25_books"] {
        lib.conn
            .execute_batch(&format!("DROP TABLE {table}"))
            .unwrap();
        drop(lib);
        lib = Library::open(dir.path()).unwrap();
        let index = loaded(&lib);
        assert_eq!(
            index.repaired(),
            ["Science".to_string(), "Maths".to_string()],
            "{table}"
        );
        assert_eq!(index.len(), 250);
        assert_same(&index, &lib);
        // And books can be added again.
        let id = lib.insert_book(&book("Art", 5, 3, None), || {}).unwrap();
        lib.delete_book(id).unwrap();
    }
    // A table dropped while questions are asked: the next read fails, the mender opens the
    // library (which creates it again) and indexes every book.
    let index = loaded(&lib);
    lib.conn.execute_batch("DROP TABLE bm25_postings").unwrap();
    assert!(index
        .search(std::slice::from_ref(&energy), 10, None)
        .is_empty());
    let mut titles = mended(&index);
    titles.sort();
    assert_eq!(titles, ["Maths".to_string(), "Science".to_string()]);
    assert_same(&index, &lib);
}

#[test]
fn rows_of_unknown_books_values_of_the_wrong_type_and_foreign_tables_are_mended() {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::open(dir.path()).unwrap();
    lib.insert_book(&book("Science", 200, 1, None), || {})
        .unwrap();
    let energy = terms("energy").remove(0);
    // As a tool that does not enforce foreign keys would write them.
    lib.conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    for damage in [
        "INSERT INTO bm25_postings VALUES (?1, 99, 100000, 0, x'')",
        "INSERT INTO bm25_books SELECT 99, 100000, 100, 0, 0 WHERE ?1 != ''",
        "UPDATE bm25_postings SET df = 'seven' WHERE term = ?1",
        "UPDATE bm25_postings SET postings = 'hello' WHERE term = ?1",
        "UPDATE bm25_postings SET book_id = 'one' WHERE term = ?1",
        "UPDATE bm25_books SET terms = 'many' WHERE ?1 != ''",
        "UPDATE bm25_books SET chunks = 'lots' WHERE ?1 != ''",
        "UPDATE bm25_books SET \"check\" = 'x' WHERE ?1 != ''",
    ] {
        assert_eq!(lib.conn.execute(damage, [&energy]).unwrap(), 1, "{damage}");
        let index = loaded(&lib);
        assert_eq!(index.len(), 200, "{damage}");
        let _ = index.search(std::slice::from_ref(&energy), 10, None);
        mended(&index);
        assert_same(&index, &lib);
        let strays: i64 = lib
            .conn
            .query_row(
                "SELECT (SELECT COUNT(*) FROM bm25_postings WHERE book_id != 1)
                          + (SELECT COUNT(*) FROM bm25_books WHERE book_id != 1)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(strays, 0, "{damage}");
    }
    // A table of that name with other columns is no word index: replaced at open.
    lib.conn
        .execute_batch("DROP TABLE bm25_postings; CREATE TABLE bm25_postings (x)")
        .unwrap();
    drop(lib);
    let lib = Library::open(dir.path()).unwrap();
    let index = loaded(&lib);
    assert_eq!(index.repaired(), ["Science".to_string()]);
    assert_same(&index, &lib);
}

#[test]
fn a_library_removed_under_the_index_stops_the_mender_instead_of_spinning() {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::open(dir.path()).unwrap();
    lib.insert_book(&book("Science", 20, 3, None), || {})
        .unwrap();
    let index = Bm25Index::load_checked_after(&lib, std::time::Duration::from_secs(2)).unwrap();
    drop(lib);
    // The folder goes well before the whole check starts (2 s): every attempt to open it fails.
    std::fs::remove_dir_all(dir.path()).unwrap();
    // Before the fix the thread asked again after each failure, at once and for ever (a core
    // held until the program ended); now it gives up until it is asked again.
    assert!(
        index.mender().wait_idle(std::time::Duration::from_secs(20)),
        "the mender still runs after its library was removed"
    );
    // And stays idle (a spinning thread is idle only for an instant between attempts).
    for _ in 0..50 {
        std::thread::sleep(std::time::Duration::from_millis(10));
        assert!(
            index.mender().wait_idle(std::time::Duration::ZERO),
            "the mender started again with nothing asked of it"
        );
    }
    // Asked again (as a question that fails to read asks), for the whole index and for one
    // book: each attempt fails and ends.
    index.mender().request(None, std::time::Duration::ZERO);
    index.mender().request(Some(1), std::time::Duration::ZERO);
    assert!(index.mender().wait_idle(std::time::Duration::from_secs(20)));
    for _ in 0..20 {
        std::thread::sleep(std::time::Duration::from_millis(10));
        assert!(index.mender().wait_idle(std::time::Duration::ZERO));
    }
    assert!(index.mender().mended().is_empty());
}
