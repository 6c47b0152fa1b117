// The six languages of the interface and of answers, each named in its own script.

/** [code, name] pairs, in menu order. */
export const LANGUAGES = [
  ['en', 'English'], ['hi', 'हिन्दी'], ['mr', 'मराठी'], ['kn', 'ಕನ್ನಡ'], ['te', 'తెలుగు'], ['ta', 'தமிழ்'],
];

/** The language's own name for a code (the code itself when unknown, `–` for none). */
export function languageName(code) {
  const hit = LANGUAGES.find(([c]) => c === code);
  return hit ? hit[1] : (code && code !== 'und' ? code : '–');
}

/** Appends the six languages to every <select data-languages> under `root`. */
export function fillLanguageMenus(root) {
  root.querySelectorAll('select[data-languages]').forEach((sel) => {
    for (const [code, name] of LANGUAGES) sel.append(new Option(name, code));
  });
}
