//! Bad input gets a clear message and exit code 1, never a panic, and nothing stored is lost.

use crate::common::*;

#[test]
fn empty_question_and_empty_library() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path();
    // A mistyped library path is reported, not silently created.
    let o = run(lib, &["ask", "what is photosynthesis"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("there is no library at"),
        "{}",
        stderr(&o)
    );
    assert!(!lib.join(vidya_core::store::DB_FILE).exists());
    // A library whose only book was removed has no books.
    ok(&run(
        lib,
        &[
            "ingest",
            fixtures().join("biology2e/ch07.pdf").to_str().unwrap(),
        ],
    ));
    ok(&run(lib, &["remove", "1"]));
    let o = run(lib, &["ask", "what is photosynthesis"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no books yet"), "{}", stderr(&o));

    ok(&run(
        lib,
        &[
            "ingest",
            fixtures().join("biology2e/ch08.pdf").to_str().unwrap(),
        ],
    ));
    for q in ["", "   ", "\n\t", "?? 🙏 !!"] {
        let o = run(lib, &["ask", q]);
        assert_eq!(o.status.code(), Some(1));
        assert!(
            stderr(&o).contains("the question is empty"),
            "{}",
            stderr(&o)
        );
    }
    // Only punctuation or stop words: no searchable term, so nothing is found (not a crash).
    let r = json(lib, &["ask", "?? what is the ??", "--json"]);
    assert_eq!(r["gated"], true);
    // --json errors are JSON too.
    let v = json(lib, &["ask", "", "--json"]);
    assert_eq!(v["error"]["kind"], "empty_question");
    // A pasted page as a question is cut, not refused.
    let huge = "photosynthesis light chlorophyll ".repeat(2000);
    let r = json(lib, &["ask", &huge, "--json"]);
    assert_eq!(r["gated"], false);
}

#[test]
fn unsupported_missing_and_damaged_files() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    ok(&run(
        &lib,
        &[
            "ingest",
            fixtures().join("biology2e/ch08.pdf").to_str().unwrap(),
        ],
    ));
    let before = counts(&lib);

    let exe = dir.path().join("setup.exe");
    std::fs::write(&exe, b"MZ\x90\x00").unwrap();
    let o = run(&lib, &["ingest", exe.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unsupported file type"),
        "{}",
        stderr(&o)
    );

    let o = run(
        &lib,
        &["ingest", dir.path().join("missing.pdf").to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
    // The teacher's record keeps what was refused (the log file in the library).
    let logged: String = std::fs::read_dir(lib.join("logs"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    assert!(
        logged.contains("a file was not added") && logged.contains("missing.pdf"),
        "{logged}"
    );

    let fake = dir.path().join("notes.pdf");
    std::fs::write(&fake, b"this is not a pdf at all").unwrap();
    let o = run(&lib, &["ingest", fake.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("is not a PDF file"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));

    // Truncated copy of a real chapter.
    let bytes = std::fs::read(fixtures().join("biology2e/ch07.pdf")).unwrap();
    let cut = dir.path().join("ch07-cut.pdf");
    std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
    let o = run(&lib, &["ingest", cut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("damaged or incomplete"),
        "{}",
        stderr(&o)
    );

    let empty = dir.path().join("empty.pdf");
    std::fs::write(&empty, b"").unwrap();
    let o = run(&lib, &["ingest", empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("the file is empty (0 bytes)"),
        "{}",
        stderr(&o)
    );

    // Content that contradicts the name, and text files with nothing in them.
    let pdf_as_txt = dir.path().join("chapter.txt");
    std::fs::copy(fixtures().join("biology2e/ch07.pdf"), &pdf_as_txt).unwrap();
    let o = run(&lib, &["ingest", pdf_as_txt.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("Rename it to end in .pdf"),
        "{}",
        stderr(&o)
    );
    let blank = dir.path().join("blank.md");
    std::fs::write(&blank, "\u{FEFF}\n   \n\t\n").unwrap();
    let o = run(&lib, &["ingest", blank.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("contains no text"), "{}", stderr(&o));
    // Several books with one --title is refused before anything is stored.
    let o = run(
        &lib,
        &[
            "ingest",
            blank.to_str().unwrap(),
            pdf_as_txt.to_str().unwrap(),
            "--title",
            "Two",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--title names one book"),
        "{}",
        stderr(&o)
    );

    // Nothing stored was lost, nothing half-stored was added.
    assert_eq!(counts(&lib), before);
    let r = json(&lib, &["ask", "light-dependent reactions", "--json"]);
    assert_eq!(r["gated"], false);
}

#[test]
fn a_folder_with_one_bad_chapter_keeps_the_good_ones() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    let book = dir.path().join("science-7");
    std::fs::create_dir(&book).unwrap();
    std::fs::copy(fixtures().join("biology2e/ch08.pdf"), book.join("ch01.pdf")).unwrap();
    std::fs::write(book.join("ch02.pdf"), b"%PDF-1.4 broken").unwrap();
    let o = run(&lib, &["ingest", "--no-embed", book.to_str().unwrap()]);
    ok(&o);
    let out = stdout(&o);
    assert!(
        out.contains("14 pages") && out.contains("skipped ch02.pdf"),
        "{out}"
    );
}

#[test]
fn text_markdown_and_docx_books() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    let md = dir.path().join("plants.md");
    std::fs::write(
        &md,
        "# Science for Class 7\n\n## Nutrition in Plants\n\nGreen plants make their own food by photosynthesis. The leaves contain chlorophyll, a green pigment that traps the energy of sunlight. Water and minerals are absorbed by the roots from the soil.\n\n## Respiration in Organisms\n\nAll living organisms respire to release energy from food. In yeast, anaerobic respiration produces alcohol and carbon dioxide.\n",
    )
    .unwrap();
    let o = run(&lib, &["ingest", md.to_str().unwrap()]);
    ok(&o);
    assert!(
        stdout(&o).contains("\"Science for Class 7\""),
        "{}",
        stdout(&o)
    );
    let r = json(
        &lib,
        &[
            "ask",
            "What does yeast produce in anaerobic respiration?",
            "--json",
        ],
    );
    let c = &r["citations"][0];
    assert_eq!(c["chapter"], "Respiration in Organisms");
    assert!(c["text"].as_str().unwrap().contains("alcohol"));

    let txt = dir.path().join("hindi.txt");
    std::fs::write(&txt, "अध्याय 1 पादपों में पोषण\nहरे पौधे प्रकाश संश्लेषण द्वारा अपना भोजन स्वयं बनाते हैं। पत्तियों में क्लोरोफिल नामक हरा वर्णक होता है जो सूर्य के प्रकाश की ऊर्जा को ग्रहण करता है।\nअध्याय 2 जीवों में श्वसन\nसभी जीव भोजन से ऊर्जा प्राप्त करने के लिए श्वसन करते हैं। यीस्ट में अवायवीय श्वसन से एल्कोहॉल बनता है।\n").unwrap();
    let o = run(&lib, &["ingest", txt.to_str().unwrap()]);
    ok(&o);
    assert!(stdout(&o).contains(", hi)"), "{}", stdout(&o));
    let r = json(&lib, &["ask", "क्लोरोफिल क्या होता है?", "--json"]);
    let c = &r["citations"][0];
    assert_eq!(c["chapter"], "अध्याय 1 पादपों में पोषण");
    assert!(c["text"].as_str().unwrap().contains("क्लोरोफिल"));
}

#[test]
fn closed_stdout_and_parallel_processes() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path();
    let ch07 = fixtures().join("biology2e/ch07.pdf");
    // Six processes create the same new library and add the same book at once.
    let children: Vec<_> = (0..6)
        .map(|_| {
            vidya(lib)
                // Word search only: the point is six writers on one library, and six
                // embedders at once would only make the test minutes slower.
                .args(["ingest", "--no-embed", ch07.to_str().unwrap()])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        ok(&o);
    }
    assert_eq!(counts(lib).0, 1);
    // A reader that stops reading (`vidya books | head -c 1`) is not a crash.
    let mut child = vidya(lib)
        .args(["books"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    assert!(o.status.code() == Some(0), "{:?}", o.status);
}
