#!/usr/bin/env python3
"""Makes the scanned test set for OCR: image-only PDFs of real textbook pages with their
ground truth, as a school's scanner or a teacher's phone would give them.

Sources (all under ../shared/data, nothing copied into the repository):
  - indic_pdfs/{hi_xquad,mr,te,ta,kn}_*_unicode.pdf with their *.groundtruth.txt (every page);
  - OpenStax Biology 2e and Physics pages (CC BY 4.0); ground truth = poppler's pdftotext of
    the original page (its text layer is the publisher's own).

Two qualities per source:
  clean300  rendered at 300 dpi in grey, stored losslessly (a flatbed scanner);
  phone200  rendered at 200 dpi, turned 1.2 degrees, blurred (sigma 0.7 px), Gaussian noise,
            a light-to-dark gradient across the page (uneven light), stored as JPEG quality 45
            (a phone photo sent over a chat app).

Every step is a fixed command with a fixed random seed, so the same inputs give the same
pictures (only the PDF's random /ID differs between runs): pdftoppm (poppler-utils) renders, ImageMagick degrades, img2pdf wraps the pictures
into a PDF without re-encoding them.

Usage:  tests/eval/scans/make_scans.py OUT_DIR [--shared ../shared/data] [--only hi,en]
                                        [--english tuned|heldout] [--pages N]
Then:   vidya eval --extraction OUT_DIR/clean300   (and OUT_DIR/phone200)
"""

import argparse
import concurrent.futures
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

# (name, pdf relative to shared data, ground truth relative to shared data or None, pages or None)
INDIC = [
    ("hi_xquad", "indic_pdfs/hi_xquad_unicode.pdf", "indic_pdfs/hi_xquad_unicode.groundtruth.txt"),
    ("mr_indicquest", "indic_pdfs/mr_indicquest_unicode.pdf", "indic_pdfs/mr_indicquest_unicode.groundtruth.txt"),
    ("te_indicquest", "indic_pdfs/te_indicquest_unicode.pdf", "indic_pdfs/te_indicquest_unicode.groundtruth.txt"),
    ("ta_indicquest", "indic_pdfs/ta_indicquest_unicode.pdf", "indic_pdfs/ta_indicquest_unicode.groundtruth.txt"),
    ("kn_indicquest", "indic_pdfs/kn_indicquest_unicode.pdf", "indic_pdfs/kn_indicquest_unicode.groundtruth.txt"),
]
# English pages of running text; chosen once by chapter and page number, not by OCR result.
ENGLISH = [
    ("en_biology2e_ch10", "openstax_biology2e/pdf/ch10.pdf", 3, 4),
    ("en_biology2e_ch24", "openstax_biology2e/pdf/ch24.pdf", 5, 6),
    ("en_physics_ch05", "openstax_physics/pdf/ch05.pdf", 3, 4),
]
# Six more English pages, chosen the same way after the OCR settings were tuned on the three
# above, to check that a setting holds on pages it was not tuned on (`--english heldout`).
ENGLISH_HELDOUT = [
    ("en_biology2e_ch03", "openstax_biology2e/pdf/ch03.pdf", 4, 5),
    ("en_biology2e_ch16", "openstax_biology2e/pdf/ch16.pdf", 3, 4),
    ("en_biology2e_ch33", "openstax_biology2e/pdf/ch33.pdf", 6, 7),
    ("en_physics_ch08", "openstax_physics/pdf/ch08.pdf", 3, 4),
    ("en_physics_ch13", "openstax_physics/pdf/ch13.pdf", 5, 6),
    ("en_physics_ch20", "openstax_physics/pdf/ch20.pdf", 3, 4),
]
LANGS = {"hi", "mr", "te", "ta", "kn", "en"}


def need(tool, package):
    if shutil.which(tool) is None:
        sys.exit(f"make_scans: {tool} is missing: sudo apt-get install {package}")


def run(*args):
    subprocess.run(args, check=True)


def render(pdf, dpi, first, last, out_prefix):
    """Grey PNG pages out_prefix-N.png (pdftoppm numbers them)."""
    args = ["pdftoppm", "-r", str(dpi), "-gray", "-png"]
    if first:
        args += ["-f", str(first), "-l", str(last)]
    run(*args, str(pdf), str(out_prefix))
    return sorted(out_prefix.parent.glob(out_prefix.name + "-*.png"))


def degrade_phone(png, jpg, seed):
    run(
        "convert", str(png),
        "-seed", str(seed),
        "-background", "white", "-rotate", "1.2",
        "-blur", "0x0.7",
        "-attenuate", "0.35", "+noise", "Gaussian",
        # uneven light: multiply by a vertical gradient from white to light grey
        "(", "+clone", "-sparse-color", "Barycentric", "0,0 white %[fx:w-1],%[fx:h-1] gray78", ")",
        "-compose", "multiply", "-composite",
        "-colorspace", "Gray", "-units", "PixelsPerInch", "-density", "200",
        "-quality", "45", str(jpg),
    )


def make(name, pdf, truth_text, pages, out, shared):
    for quality, dpi in (("clean300", 300), ("phone200", 200)):
        folder = out / quality
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            first, last = pages or (None, None)
            pngs = render(shared / pdf, dpi, first, last, tmp / "page")
            images = []
            for i, png in enumerate(pngs):
                if quality == "phone200":
                    jpg = tmp / f"phone-{i:03}.jpg"
                    degrade_phone(png, jpg, seed=1000 + i)
                    images.append(jpg)
                else:
                    images.append(png)
            run("img2pdf", "--nodate", "--imgsize", f"{dpi}dpix{dpi}dpi", "-o", str(folder / f"{name}.pdf"), *map(str, images))
        (folder / f"{name}.groundtruth.txt").write_text(truth_text, encoding="utf-8")
        print(f"{quality}/{name}.pdf: {len(images)} pages at {dpi} dpi")


def main():
    here = pathlib.Path(__file__).resolve()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=pathlib.Path)
    ap.add_argument("--shared", type=pathlib.Path, default=here.parents[3] / ".." / "shared" / "data")
    ap.add_argument("--only", default=",".join(sorted(LANGS)), help="languages, e.g. hi,en")
    ap.add_argument("--pages", type=int, default=None,
                    help="only the first N pages of each English source (the Indic PDFs are"
                         " always whole: their ground truth is one text per file)")
    ap.add_argument("--english", choices=("tuned", "heldout"), default="tuned",
                    help="which English pages: the three the OCR settings were tuned on, or six"
                         " others to check them on")
    a = ap.parse_args()
    for tool, pkg in (("pdftoppm", "poppler-utils"), ("pdftotext", "poppler-utils"),
                      ("convert", "imagemagick"), ("img2pdf", "img2pdf")):
        need(tool, pkg)
    shared = a.shared.resolve()
    if not (shared / "indic_pdfs").is_dir():
        sys.exit(f"make_scans: no shared data at {shared} (pass --shared DIR)")
    only = set(a.only.split(","))
    jobs = []
    for name, pdf, truth in INDIC:
        if name[:2] in only:
            jobs.append((name, pdf, (shared / truth).read_text(encoding="utf-8"), None))
    if "en" in only:
        for name, pdf, first, last in ENGLISH if a.english == "tuned" else ENGLISH_HELDOUT:
            if a.pages:
                last = min(last, first + a.pages - 1)
            text = subprocess.run(
                ["pdftotext", "-f", str(first), "-l", str(last), "-enc", "UTF-8",
                 str(shared / pdf), "-"],
                check=True, capture_output=True, text=True,
            ).stdout
            jobs.append((f"{name}_p{first}-{last}", pdf, text, (first, last)))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for f in [pool.submit(make, *job, a.out, shared) for job in jobs]:
            f.result()


if __name__ == "__main__":
    main()
