//! Each kind of false sentence rejected and paraphrases kept, with a few lines of lexicon
//! written here (no model files).

use super::lexicon::Lexicon;
use super::*;

fn lexicon() -> Lexicon {
    Lexicon::parse(
        "s\tn1\tentity\t\n\
         s\tn2\tabstraction\tn1\n\
         s\tn3\tprocess\tn2\n\
         s\tn4\tnatural process\tn3\n\
         s\tn5\tbiological process\tn4\n\
         s\tn6\tcell division|cellular division\tn5\n\
         s\tn7\tmitosis\tn6\n\
         s\tn8\tmeiosis|reduction division\tn6\n\
         s\tv1\tappear|seem|look\t\n\
         s\tv2\tproduce|make|create\t\n\
         s\tv3\tcapture|trap|catch\t\n\
         s\tv4\tincrease|raise\t\n\
         s\tv5\tdecrease|lower|reduce\t\n\
         a\tincrease\tdecrease\n\
         a\tdecrease\tincrease\n\
         s\tn9\tphysical entity\tn1\n\
         s\tn10\tobject\tn9\n\
         s\tn11\twhole\tn10\n\
         s\tn12\tliving thing\tn11\n\
         s\tn13\torganism\tn12\n\
         s\tn14\tplant|flora\tn13\n\
         s\tn15\tanimal|fauna\tn13\n\
         s\ta1\tweak\t\n\
         s\tn16\ttaste|gustation\t\n\
         s\tv6\ttaste\t\n\
         s\tv7\tdetect|observe\t\n\
         s\ta2\tprimary|main\t\n\
         s\tn17\tprimary\t\n\
         s\tn18\thuman|man\tn13\n\
         s\ta3\tsweet\t\n\
         s\ta4\tsour\t\n\
         s\ta5\tbitter\t\n\
         s\ta6\tsalty\t\n\
         s\tn19\tumami\t\n\
         s\tn20\tturn\t\n\
         s\tv8\tturn\t\n\
         s\tn21\tcycle\t\n\
         s\tv9\tcycle\t\n\
         s\tn22\tcarbon\t\n\
         s\tv10\tfix|fixate\t\n\
         s\tv11\texport\t\n\
         s\tn23\texport\t\n\
         s\tn24\tcell\t\n\
         s\tn25\tbody\t\n\
         s\tv12\toutnumber\t\n\
         s\ta7\tprokaryotic\t\n\
         s\ta8\ttypical\t\n\
         s\ta9\tbig|large\t\n\
         s\ta10\tgreat|big\t\n\
         s\ta11\tstatic\t\n\
         s\ta12\tkinetic\t\n\
         s\tn26\tfriction\t\n\
         s\tv13\tthrow\t\n\
         s\tv14\tjoin|unite\t\n\
         s\tr1\tslowly\t\n\
         s\tn27\tability\t\n\
         s\tn40\tradiation\tn9\n\
         s\tn41\telectromagnetic radiation\tn40\n\
         s\tn42\tlight\tn41\n\
         s\tn43\tactinic radiation\tn42\n\
         s\tn44\tinfrared|infrared radiation\tn43\n\
         s\tn45\tultraviolet|ultraviolet radiation\tn43\n\
         s\ta20\tinvisible\t\n\
         s\ta21\tinfrared\t\n\
         s\ta22\tultraviolet\t\n\
         s\ta23\tunseeable\t\n\
         m\ta21\ta20\n\
         m\ta22\ta20\n\
         m\ta23\ta20\n\
         s\tv20\temit|give off\t\n\
         s\tv21\ttravel|go\t\n\
         s\ta30\tslow\t\n\
         s\ta31\tfast\t\n\
         s\tn50\tcoal\t\n\
         s\tv50\tcoal\t\n\
         s\tv51\tburn\t\n\
         s\ta50\tburning\t\n\
         s\tn54\tburning\t\n\
         s\tv52\thit|strike|impact\t\n\
         s\tn51\tsteam\t\n\
         s\tv53\tturn|rotate\t\n\
         s\tn52\tshaft\t\n\
         s\tv54\tconnect\t\n\
         s\tn53\tgenerator\t\n\
         s\ta60\texergonic\t\n\
         s\ta61\tendergonic\t\n\
         s\ta62\tnasal\t\n\
         s\tn60\tperception\t\n\
         s\tn61\tpassage\t\n\
         s\tn70\tmicrotubule\t\n\
         s\tn82\tconvection\t\n\
         s\tn83\tconvection\t\n\
         s\tv80\tchange|alter\t\n\
         s\tn80\tmass\t\n\
         s\tn81\tweight\t\n\
         s\tn71\tband\t\n\
         s\tv71\tband\t\n\
         a\texergonic\tendergonic\n\
         a\tendergonic\texergonic\n\
         s\tr2\tabout|most|almost\t\n\
         s\ta70\tmost\t\n\
         s\ta71\tleast\t\n\
         a\tmost\tleast\n\
         a\tleast\tmost\n\
         s\tn90\tmistletoe\t\n\
         s\tn91\tmistletoe\t\n\
         s\tn92\tthreat\t\n\
         s\tn93\tthreat\t\n\
         s\tn94\tmovement|moving\t\n\
         s\tv95\tmanipulate\t\n\
         s\tn95\tmanipulation\t\n\
         s\tv96\tcontain|hold\t\n\
         s\tv97\tconvert\t\n",
    )
}

fn check(answer: &str, source: &str) -> Verification {
    let lex = lexicon();
    verify_with(answer, &[source], Some(&lex))
}

fn kinds(v: &Verification) -> Vec<&'static str> {
    v.findings.iter().map(Finding::kind).collect()
}

/// Asserts the answer is kept, naming what was found otherwise.
fn assert_kept(answer: &str, source: &str) {
    let v = check(answer, source);
    assert!(v.agrees(), "{answer}: {:?}", v.findings);
}

const CELL_WALL: &str =
    "Plant cells have a cell wall outside the plasma membrane, which animal cells lack.";
const LIGHT: &str = "The light-dependent reactions capture light energy and produce ATP and NADPH. These molecules are used in the Calvin cycle.";

#[test]
fn paraphrases_and_near_copies_are_kept() {
    for (answer, source) in [
        (
            "Plant cells have a cell wall outside the plasma membrane.",
            CELL_WALL,
        ),
        (
            "The light-dependent reactions trap light energy and make ATP and NADPH.",
            LIGHT,
        ),
        (
            "ATP and NADPH are produced by the light-dependent reactions.",
            LIGHT,
        ),
        (
            "Meiosis is a kind of cell division.",
            "Meiosis is a special form of cell division that produces four haploid cells.",
        ),
        (
            "Meiosis produces four haploid cells.",
            "Meiosis is a special form of cell division that produces four haploid cells.",
        ),
        (
            "Humans have 46 chromosomes in each body cell.",
            "Humans have 23 pairs of chromosomes, 46 in all, in each body cell.",
        ),
        (
            "Raising the temperature increases the rate of diffusion.",
            "Increasing the temperature increases the rate of diffusion.",
        ),
    ] {
        let v = check(answer, source);
        assert!(v.agrees(), "{answer} | {:?}", v.findings);
    }
}

#[test]
fn a_dropped_or_added_negation_is_rejected() {
    let v = check("Plant cells do not have a cell wall.", CELL_WALL);
    assert_eq!(kinds(&v), ["negation"]);
    let v = check(
        "Animal cells have a cell wall.",
        "Animal cells do not have a cell wall.",
    );
    assert!(kinds(&v).contains(&"negation"), "{:?}", v.findings);
    // Known gap: a negation in a relative clause after its noun ("a cell wall, which animal
    // cells lack") is not read; "Animal cells have a cell wall" against CELL_WALL passes.
}

#[test]
fn an_opposite_direction_or_comparative_is_rejected() {
    let v = check(
        "Raising the temperature decreases the rate of diffusion.",
        "Increasing the temperature increases the rate of diffusion.",
    );
    assert!(
        kinds(&v)
            .iter()
            .any(|k| ["direction", "swapped_term"].contains(k)),
        "{:?}",
        v.findings
    );
    let v = check(
        "Water moves out of the cell in a hypotonic solution.",
        "In a hypotonic solution, water moves into the cell.",
    );
    assert!(kinds(&v).contains(&"direction"), "{:?}", v.findings);
    let v = check(
        "Sound travels slower in solids than in air.",
        "Sound travels faster in solids than in air.",
    );
    assert!(kinds(&v).contains(&"direction"), "{:?}", v.findings);
    // Physics (OpenStax), ch. 8: "better" and "worse" (the irregular comparatives; stop 59).
    let v = check(
        "Rockets actually work worse in a vacuum.",
        "They actually work better in a vacuum, where they can expel exhaust gases more easily.",
    );
    assert!(kinds(&v).contains(&"direction"), "{:?}", v.findings);
}

#[test]
fn another_term_of_the_same_kind_is_rejected() {
    let v = check(
        "Mitosis produces four haploid cells.",
        "Meiosis is a special form of cell division that produces four haploid cells.",
    );
    // "mitosis"/"meiosis" is also on the list of opposites (cues.rs): either finding rejects.
    assert!(
        kinds(&v)
            .iter()
            .any(|k| ["direction", "swapped_term"].contains(k)),
        "{:?}",
        v.findings
    );
    let v = check(
        "In prophase the chromosomes line up at the middle of the cell.",
        "In metaphase the chromosomes line up at the middle of the cell.",
    );
    assert!(kinds(&v).contains(&"swapped_term"), "{:?}", v.findings);
}

#[test]
fn a_changed_number_or_unit_is_rejected() {
    let v = check(
        "Humans have 48 chromosomes in each body cell.",
        "Humans have 23 pairs of chromosomes, 46 in all, in each body cell.",
    );
    assert_eq!(kinds(&v), ["number"]);
    let v = check(
        "Light travels at 300,000 m per second.",
        "Light travels at about 300,000 km per second in a vacuum.",
    );
    assert!(kinds(&v).contains(&"unit"), "{:?}", v.findings);
}

/// A number given the unit of another number of the source: "46 pairs" where the book's pairs
/// number 23 and its 46 counts single chromosomes.
#[test]
fn a_number_with_another_numbers_unit_is_rejected() {
    let source = "Each human body cell has 23 pairs of chromosomes, 46 in all.";
    let v = check("Each human body cell has 46 pairs of chromosomes.", source);
    assert_eq!(kinds(&v), ["number"], "{:?}", v.findings);
    assert_kept("Each human body cell has 23 pairs of chromosomes.", source);
    assert_kept("Each human body cell has 46 chromosomes in all.", source);
}

/// Physics, the atom: "and" opens a parallel clause ("electrons have …, and protons have …"
/// with no comma), so that each subject is read with its own predicate; an "and" inside a
/// list of terms opens none.
#[test]
fn a_parallel_clause_is_its_own_clause() {
    let s = words::read("Electrons have a negative charge and protons have a positive charge.");
    let clause = |w: &str| s.words.iter().find(|x| x.lower == w).map(|x| x.clause);
    assert_ne!(clause("electrons"), clause("protons"));
    assert_eq!(clause("protons"), clause("positive"));
    let s = words::read("Plants and animals have cells and tissues.");
    assert!(s.words.iter().all(|w| w.clause == 0));
}

/// Biology 2e, circulation: "away from" the heart is the opposite of "back to" it.
#[test]
fn away_for_back_is_rejected() {
    let source = "Veins carry blood back to the heart.";
    let v = check("Veins carry blood away from the heart.", source);
    assert!(kinds(&v).contains(&"direction"), "{:?}", v.findings);
    assert_kept("Veins carry the blood back to the heart.", source);
}

/// Doubling and halving are opposites (WordNet lists neither as the other's antonym).
#[test]
fn doubled_for_halved_is_rejected() {
    let v = check(
        "The force is doubled when the distance between the charges is doubled.",
        "The force is halved when the distance between the charges is doubled.",
    );
    assert!(kinds(&v).contains(&"direction"), "{:?}", v.findings);
}

#[test]
fn a_stronger_or_other_quantifier_is_rejected() {
    let v = check(
        "All bacteria cause disease.",
        "Some bacteria cause disease.",
    );
    assert_eq!(kinds(&v), ["quantifier"]);
    let v = check(
        "Some cells have a nucleus.",
        "All eukaryotic cells have a nucleus.",
    );
    assert!(kinds(&v).contains(&"quantifier"), "{:?}", v.findings);
    let v = check(
        "Only plants carry out photosynthesis.",
        "Plants carry out photosynthesis.",
    );
    assert_eq!(kinds(&v), ["quantifier"]);
}

#[test]
fn swapped_roles_and_reversed_cause_are_rejected_but_the_passive_is_kept() {
    let source = "Herbivores eat producers.";
    assert_eq!(
        kinds(&check("Producers eat herbivores.", source)),
        ["roles"]
    );
    assert!(check("Producers are eaten by herbivores.", source).agrees());
    let source = "Smoking causes lung cancer.";
    assert_eq!(
        kinds(&check("Lung cancer causes smoking.", source)),
        ["roles"]
    );
    assert!(check("Lung cancer is caused by smoking.", source).agrees());
    let source = "The Sun is larger than the Earth.";
    assert_eq!(
        kinds(&check("The Earth is larger than the Sun.", source)),
        ["roles"]
    );
    assert!(check("The Earth is smaller than the Sun.", source).agrees());
}

#[test]
fn cause_and_effect_reversed_across_clauses_are_rejected() {
    // OpenStax College Physics 32.3: the cause is the long clause after "because".
    let source = "However, the neutrinos can carry their energy out of the Sun in less than two \
                  seconds, because they interact so weakly with other matter.";
    let v = check(
        "Neutrinos interact weakly with other matter because they carry their energy out of \
         the Sun in less than two seconds.",
        source,
    );
    assert!(kinds(&v).contains(&"roles"), "{:?}", v.findings);
    assert_kept(
        "Neutrinos carry their energy out of the Sun in less than two seconds because they \
         interact so weakly with other matter.",
        source,
    );
    // The same order of cause and effect with the connective that puts the cause first.
    assert_kept(
        "Neutrinos interact so weakly with other matter, so they carry their energy out of \
         the Sun in less than two seconds.",
        source,
    );
    // OpenStax College Physics 26.1: two conditions of one effect, one made the other's cause.
    let source = "Myopia (nearsightedness) occurs when an eyeball is elongated and the image \
                  focus falls in front of the retina.";
    let v = check(
        "The eyeball is elongated because the image focus falls in front of the retina.",
        source,
    );
    assert!(kinds(&v).contains(&"roles"), "{:?}", v.findings);
    assert_kept(
        "Myopia occurs when the eyeball is elongated and the image focus falls in front of the \
         retina.",
        source,
    );
}

#[test]
fn cause_and_effect_reversed_through_makes_reason_and_the_more_are_rejected() {
    // OpenStax Biology 2e, 36.3: a condition ("if") made the effect of its own effect.
    let source =
        "A person's perception of flavor is reduced if they have congested nasal passages.";
    let v = check(
        "A reduced perception of flavour makes a person's nasal passages congested.",
        source,
    );
    assert!(kinds(&v).contains(&"roles"), "{:?}", v.findings);
    assert_kept(
        "Congested nasal passages make a person's perception of flavor reduced.",
        source,
    );
    // OpenStax Biology 2e, 46.2: "A … limits B" read against "B is the reason A".
    let source = "The low efficiency of energy transfer between trophic levels is usually the \
                  major factor that limits the length of food chains.";
    let v = check(
        "The length of food chains is the main reason for the low efficiency of energy \
         transfer between trophic levels.",
        source,
    );
    assert!(kinds(&v).contains(&"roles"), "{:?}", v.findings);
    let v = check(
        "The length of food chains limits the efficiency of energy transfer between trophic \
         levels.",
        source,
    );
    assert!(kinds(&v).contains(&"roles"), "{:?}", v.findings);
    assert_kept(
        "The low efficiency of energy transfer between trophic levels limits the length of food \
         chains.",
        source,
    );
    // OpenStax College Physics 10.3: "the more A, the B" puts the cause first.
    let source = "Furthermore, the more massive the merry-go-round is, the slower it \
                  accelerates for the same torque.";
    let v = check(
        "A merry-go-round becomes more massive because it accelerates more slowly for the same \
         torque.",
        source,
    );
    assert!(kinds(&v).contains(&"roles"), "{:?}", v.findings);
    assert_kept(
        "A merry-go-round accelerates more slowly for the same torque because it is more \
         massive.",
        source,
    );
}

#[test]
fn a_relative_clause_with_its_own_subject_is_no_swap() {
    // OpenStax Biology 2e, 36.3: the answer reads "the humans detect", as the passive does;
    // "tastes" after an adjective is a noun, not the relation.
    let source = "The primary tastes detected by humans are sweet, sour, bitter, salty, and umami.";
    assert_kept(
        "The primary tastes that humans detect are sweet, sour, bitter, salty, and umami.",
        source,
    );
    // A verb across a clause boundary is not the relation of the next clause's terms.
    let source = "As this fluid evaporates, heat is lost from the body.";
    assert_kept("As this fluid evaporates, the body loses heat.", source);
}

#[test]
fn terms_named_by_a_letter_exchanged_between_clauses_are_a_swap() {
    // OpenStax Biology 2e, 42.2.
    let source = "T cells are lymphocytes that mature in the thymus gland, and B cells are \
                  lymphocytes that mature in the bone marrow.";
    // The exchange is read as roles; each clause's letter is also not the one of the clause
    // it restates (a swapped term).
    let v = check(
        "T cells mature in the bone marrow, while B cells mature in the thymus gland.",
        source,
    );
    assert!(kinds(&v).contains(&"roles"), "{:?}", v.findings);
    assert_kept(
        "T cells mature in the thymus gland, while B cells mature in the bone marrow.",
        source,
    );
}

#[test]
fn a_bracketed_aside_does_not_hide_a_swap_between_clauses() {
    // OpenStax Biology 2e, 11.1: "(somatic)" and "(sperm or eggs)" are asides inside the
    // clauses whose counts the answer exchanges.
    let source = "Human body (somatic) cells have 46 chromosomes, while human gametes (sperm or \
                  eggs) have 23 chromosomes each.";
    let v = check(
        "Human gametes have 46 chromosomes each, while human body cells have 23 chromosomes.",
        source,
    );
    assert!(kinds(&v).contains(&"roles"), "{:?}", v.findings);
    assert_kept(
        "Human body cells have 46 chromosomes, while human gametes have 23 chromosomes each.",
        source,
    );
}

#[test]
fn a_swap_between_relative_clauses_is_read_with_the_term_they_describe() {
    // OpenStax Biology 2e, 42.2: each response is named in one clause and its cells in the
    // relative clause after it.
    let source = "There are two types of adaptive responses: the cell-mediated immune response, \
                  which is carried out by T cells, and the humoral immune response, which is \
                  controlled by activated B cells and antibodies.";
    let v = check(
        "The cell-mediated immune response is carried out by B cells, while the humoral immune \
         response is controlled by T cells.",
        source,
    );
    assert!(kinds(&v).contains(&"roles"), "{:?}", v.findings);
    assert_kept(
        "The cell-mediated immune response is carried out by T cells, while the humoral immune \
         response is controlled by B cells.",
        source,
    );
}

#[test]
fn another_count_of_the_same_thing_is_a_number_swap_though_the_passage_has_it() {
    // OpenStax Biology 2e, 8.3: "six" is in the passage, but not as the count of turns.
    let source = "It takes three turns of the Calvin cycle to fix enough net carbon to export \
                  one G3P. But each turn makes two G3Ps, thus three turns make six G3Ps.";
    let v = check(
        "It takes six turns of the Calvin cycle to fix enough carbon to export one G3P.",
        source,
    );
    assert!(kinds(&v).contains(&"number"), "{:?}", v.findings);
    assert_kept(
        "It takes three turns of the Calvin cycle to fix enough carbon to export one G3P.",
        source,
    );
}

#[test]
fn the_same_number_counting_another_kind_is_a_swap() {
    // OpenStax Biology 2e, 3.4; the answer of a graded run said "20 essential amino acids".
    let source = "There are 20 common amino acids commonly found in proteins. Nine of them are \
                  essential amino acids in humans.";
    assert_eq!(
        kinds(&check(
            "There are 20 essential amino acids in humans.",
            source
        )),
        ["swapped_term"]
    );
    assert_kept("There are 20 common amino acids found in proteins.", source);
}

#[test]
fn a_comparison_said_of_the_side_compared_against_is_a_swap() {
    // OpenStax College Physics 5.1; the answer of a graded run said "Kinetic friction is
    // bigger".
    let source = "The maximum static friction is usually greater than the kinetic friction.";
    assert_eq!(
        kinds(&check("Kinetic friction is bigger.", source)),
        ["roles"]
    );
    assert_kept("Static friction is bigger.", source);
    assert_kept("Static friction is bigger than kinetic friction.", source);
}

#[test]
fn two_plain_words_of_a_rewording_are_kept_and_three_are_new_content() {
    // OpenStax College Physics 31.4.
    let source = "Note that the two protons and two neutrons ejected from the nucleus combine to \
                  form a helium nucleus.";
    assert_kept(
        "The two protons and two neutrons thrown out of the nucleus join together to form a \
         helium nucleus.",
        source,
    );
    let v = check(
        "The two protons and two neutrons thrown out of the nucleus join slowly together to \
         form a helium nucleus.",
        source,
    );
    assert_eq!(kinds(&v), ["new_term", "new_term", "new_term"]);
}

#[test]
fn a_term_of_one_meaning_is_never_a_rewording() {
    // OpenStax Biology 2e 10.2. "microtubule" has one meaning in WordNet, a noun: a term of
    // the field put in "actin filaments"' place, not an everyday word picked to reword.
    let source = "A contractile ring composed of actin filaments forms just inside the plasma \
                  membrane at the former metaphase plate.";
    let v = check(
        "A contractile ring made of microtubules forms just inside the plasma membrane at the \
         former metaphase plate.",
        source,
    );
    assert_eq!(kinds(&v), ["new_term"], "{:?}", v.findings);
    // "band" is a noun and a verb: a word a model may pick to reword.
    assert_kept(
        "A contractile band of actin filaments forms just inside the plasma membrane at the \
         former metaphase plate.",
        source,
    );
}

#[test]
fn a_sentence_that_denies_the_answer_rejects_it_unless_the_answer_copies_the_book() {
    // After OpenStax College Physics 5.1: the second sentence restates the first one's words
    // and says they change.
    let sources = [
        "An object's mass m does not change but its weight mg can. Where matter is \
                    added, an object's mass m and its weight mg both change.",
    ];
    let lex = lexicon();
    let v = verify_with(
        "An object's mass m does not change, but its weight mg can.",
        &sources,
        Some(&lex),
    );
    assert!(
        v.agrees(),
        "a copy of the book's sentence: {:?}",
        v.findings
    );
    let v = verify_with(
        "An object's mass m cannot really change even where its weight mg does.",
        &sources,
        Some(&lex),
    );
    assert_eq!(
        kinds(&v),
        ["negation"],
        "a rewording the other sentence denies"
    );
}

#[test]
fn contrasted_clauses_that_change_places_keep_their_sense() {
    // OpenStax College Physics 17.2.
    let source = "Small instruments, such as a piccolo, typically make high-pitch sounds, while \
                  larger instruments, such as a tuba, typically make low-pitch sounds.";
    assert_kept(
        "Larger instruments like the tuba typically make low-pitch sounds, whereas small \
         instruments like the piccolo typically make high-pitch sounds.",
        source,
    );
    // The same two clauses with the sizes exchanged.
    let v = check(
        "Small instruments like the tuba typically make low-pitch sounds, whereas larger \
         instruments like the piccolo typically make high-pitch sounds.",
        source,
    );
    assert!(!v.agrees(), "sizes exchanged");
}

#[test]
fn a_term_with_another_middle_is_a_swap() {
    // OpenStax College Physics 14.5. "convection" has two meanings in WordNet (so it could pass
    // as a rewording) and no WordNet kind in common with "conduction".
    let source = "Heat transferred between the electric burner of a stove and the bottom of a pan \
                  is transferred by conduction.";
    let v = check(
        "Heat transferred between the electric burner of a stove and the bottom of a pan is \
         transferred by convection.",
        source,
    );
    assert_eq!(kinds(&v), ["swapped_term"], "{:?}", v.findings);
}

#[test]
fn a_definition_given_to_a_sibling_term_is_a_swap() {
    // OpenStax College Physics 1.3; a graded answer said this of accuracy.
    let sources = [
        "The validity of a measurement can be described in terms of its accuracy and its \
         precision. Precision states how well repeated measurements of something generate the \
         same or similar results.",
    ];
    let lex = lexicon();
    let v = verify_with(
        "Accuracy refers to the ability of a measurement to generate the same or similar \
         results.",
        &sources,
        Some(&lex),
    );
    assert!(kinds(&v).contains(&"swapped_term"), "{:?}", v.findings);
    let v = verify_with(
        "Precision refers to how well repeated measurements of something generate the same or \
         similar results.",
        &sources,
        Some(&lex),
    );
    assert!(v.agrees(), "{:?}", v.findings);
}

#[test]
fn a_plausible_extra_fact_is_unsupported() {
    let v = check(
        "The light-dependent reactions take place in the mitochondria.",
        LIGHT,
    );
    assert!(kinds(&v).contains(&"new_term"), "{:?}", v.findings);
    assert!(v.findings.iter().all(|f| !f.contradicts()));
}

#[test]
fn a_disputed_claim_stated_as_fact_is_unsupported() {
    let v = check(
        "Dinosaurs were killed by an asteroid.",
        "It is proposed that dinosaurs were killed by an asteroid impact.",
    );
    assert_eq!(kinds(&v), ["hedge"]);
    assert!(check(
        "Dinosaurs may have been killed by an asteroid.",
        "It is proposed that dinosaurs were killed by an asteroid impact."
    )
    .agrees());
}

#[test]
fn hindi_answers_are_read_in_english() {
    let source = "Chlorophyll reflects green light.";
    let v = verify_with("क्लोरोफिल हरा प्रकाश परावर्तित करता है।", &[source], None);
    assert!(v.agrees(), "{:?}", v.findings);
    let v = verify_with("क्लोरोफिल हरा प्रकाश परावर्तित नहीं करता है।", &[source], None);
    assert_eq!(kinds(&v), ["negation"]);
}

/// Biology 2e, immunity: "takes … much longer" is slower, against "much faster"; the word
/// order does not excuse it, as "response" is said twice (its place in the source is its
/// first one's).
#[test]
fn a_longer_time_is_slower() {
    let source = "The adaptive, or acquired, immune response takes days or even weeks to become established—much longer than the innate response; however, adaptive immunity is more specific to pathogens and has memory.";
    // WordNet has "set" and "much" as nouns too: terms, whose order excused the opposite.
    let lex = Lexicon::parse(
        "s\tn1\tresponse\t\n\
         s\tn2\tset\t\n\
         s\tn3\tmuch\t\n\
         s\ta1\tinnate\t\n\
         s\ta2\tadaptive\t\n\
         s\ta3\timmune\t\n\
         s\ta4\tfast\t\n",
    );
    let v = verify_with(
        "The adaptive immune response is set up much faster than the innate response.",
        &[source],
        Some(&lex),
    );
    assert!(kinds(&v).contains(&"direction"), "{v:?}");
    let v = verify_with(
        "The adaptive immune response is set up much slower than the innate response.",
        &[source],
        Some(&lex),
    );
    assert!(!kinds(&v).contains(&"direction"), "{v:?}");
}

/// Physics, momentum: a unit's name and its symbol are one word ("kilogram metres per second"
/// for "kg · m/s"), and two units are never opposites (WordNet links "second" and "m" through
/// their other senses; the antonym below stands for that path).
#[test]
fn unit_names_restate_their_symbols() {
    let source = "The SI unit for momentum is kg · m/s.";
    let answer = "In SI units, momentum is measured in kilogram metres per second, written kg m/s.";
    let v = verify_with(answer, &[source], None);
    assert!(v.agrees(), "{v:?}");
    let lex = Lexicon::parse("s\tx1\tsecond\t\ns\tx2\tm\t\na\tsecond\tm\na\tm\tsecond\n");
    let v = verify_with(answer, &[source], Some(&lex));
    assert!(v.agrees(), "{v:?}");
}

/// Physics, mirrors: "अंदर की ओर" (towards the inside) is the book's "inward", not "into"
/// against "outward"; "सबसे लंबी" is "longest".
#[test]
fn hindi_towards_and_superlatives_keep_a_faithful_answer() {
    let source = "A mirror that curves inward is called a concave mirror, whereas one that curves outward is called a convex mirror.";
    // WordNet's "out" is a synonym of "outward", whose antonym is "inward".
    let lex = Lexicon::parse(
        "s\tr1\toutward|out\t\n\
         s\tr2\tinward|in\t\n\
         a\toutward\tinward\n\
         a\tinward\toutward\n",
    );
    let v = verify_with(
        "जो दर्पण अंदर की ओर मुड़ा हो उसे अवतल (concave) दर्पण और जो बाहर की ओर मुड़ा हो उसे उत्तल (convex) दर्पण कहते हैं।",
        &[source],
        Some(&lex),
    );
    assert!(v.agrees(), "{v:?}");
    let v = verify_with(
        "फीमर (femur) शरीर की सबसे लंबी हड्डी है।",
        &["The femur is the longest bone in the body."],
        None,
    );
    assert!(v.agrees(), "{v:?}");
}

/// Biology 2e, taste: a Hindi answer with too few words the check can read in English is
/// still checked on its numbers and their units ("महीने", months, for the book's days).
#[test]
fn a_hindi_answer_read_in_part_is_checked_on_its_numbers() {
    let source = "Each taste bud’s taste cells are replaced every 10 to 14 days.";
    // "रसांकुर" (taste bud) and "ग्राही" (receptor) are not in the glossary.
    let v = verify_with(
        "हर रसांकुर की ग्राही कोशिकाएँ हर 10 से 14 महीने में बदली जाती हैं।",
        &[source],
        None,
    );
    assert!(v.checked && kinds(&v).contains(&"unit"), "{v:?}");
    // The book's own unit: too little read to judge the rest, so the check leaves it to the
    // embedding (unchecked), and says nothing against it.
    let v = verify_with(
        "हर रसांकुर की ग्राही कोशिकाएँ हर 10 से 14 दिन में बदली जाती हैं।",
        &[source],
        None,
    );
    assert!(!v.checked && v.findings.is_empty(), "{v:?}");
    // With "स्वाद" (taste) in the glossary, enough is read to judge the whole answer.
    let v = verify_with(
        "हर स्वाद कलिका की स्वाद कोशिकाएँ हर 10 से 14 दिन में बदली जाती हैं।",
        &[source],
        None,
    );
    assert!(v.agrees(), "{v:?}");
}

#[test]
fn an_answer_about_a_sibling_term_answers_another_question() {
    let lex = lexicon();
    let other = |q: &str, a: &str| answers_another_question_with(q, a, Some(&lex));
    assert!(other(
        "What happens in meiosis?",
        "In mitosis, one cell divides into two."
    ));
    // The question's own term, or a word that is not a sibling of any of its terms.
    assert!(!other(
        "What happens in meiosis?",
        "In meiosis, one cell divides into four."
    ));
    assert!(!other(
        "What happens in meiosis?",
        "A cell division gives new cells."
    ));
    assert!(!other(
        "What happens in meiosis?",
        "In mitosis and meiosis, cells divide."
    ));
}

/// Biology 2e p. 729 and Physics p. 17: answers of the 0.5B model graded wrong by a person.
#[test]
fn a_term_of_the_sources_put_beside_a_copied_run_is_a_swap() {
    let glycogen = "For example, glycolysis is a series of reactions in which glucose is converted to pyruvic acid. Glycogen is a polymeric form of glucose and is stored in the liver and skeletal muscle cells.";
    let v = check(
        "Glucose is a polymeric form of glucose and is stored in the liver and skeletal muscle cells.",
        glycogen,
    );
    assert_eq!(kinds(&v), ["swapped_term"]);
    let v = check(
        "Glycogen is a polymeric form of glucose and is stored in the liver.",
        glycogen,
    );
    assert!(v.agrees(), "{:?}", v.findings);
    let precision = "Precision states how well repeated measurements of something generate the same or similar results. Accuracy is how close a measurement is to the correct value for that measurement.";
    let v = check(
        "Accuracy refers to how well repeated measurements of something generate the same or similar results.",
        precision,
    );
    assert_eq!(kinds(&v), ["swapped_term"]);
    let v = check(
        "Precision refers to how well repeated measurements of something generate the same or similar results.",
        precision,
    );
    assert!(v.agrees(), "{:?}", v.findings);
}

/// Physics p. 11: the model wrote "seven base units, which form the International System of
/// Quantities" (graded wrong: the book says base quantities).
#[test]
fn a_term_swapped_for_one_the_copied_run_repeats_is_a_swap() {
    let isq = "Based on such considerations, the International Standards Organization recommends using seven base quantities, which form the International System of Quantities (ISQ). These are the base quantities used to define the SI base units.";
    let v = check(
        "The SI system uses seven base units, which form the International System of Quantities (ISQ).",
        isq,
    );
    assert_eq!(kinds(&v), ["swapped_term"]);
    let v = check(
        "Seven base quantities form the International System of Quantities (ISQ).",
        isq,
    );
    assert!(v.agrees(), "{:?}", v.findings);
}

/// Physics p. 414: "The weakest of the four fundamental forces is electromagnetism."
#[test]
fn a_superlative_the_sources_give_to_another_term_is_a_swap() {
    let forces = "The four fundamental forces are gravity, electromagnetism, weak nuclear force, and strong nuclear force. That said, gravity is incredibly weak compared to the other fundamental forces and is the weakest of all of the fundamental forces.";
    let v = check(
        "The weakest of the four fundamental forces is electromagnetism.",
        forces,
    );
    assert_eq!(kinds(&v), ["swapped_term"]);
    let v = check(
        "The weakest of the four fundamental forces is gravity.",
        forces,
    );
    assert!(v.agrees(), "{:?}", v.findings);
}

/// Biology 2e p. 997: the model wrote "R-selected species are species selected by stable,
/// predictable environments" (graded wrong: the book says K-selected).
#[test]
fn a_letter_symbol_swapped_for_another_is_a_swap() {
    let k = "K-selected species are species selected by stable, predictable environments. In contrast, r-selected species have a large number of small offspring.";
    let v = check(
        "R-selected species are species selected by stable, predictable environments.",
        k,
    );
    assert!(kinds(&v).contains(&"swapped_term"), "{:?}", v.findings);
    // The book's own letter is no swap (the word order check has its own say on this
    // sentence, whose "species … species" it reads with the small test lexicon).
    let v = check(
        "K-selected species are species selected by stable, predictable environments.",
        k,
    );
    assert!(!kinds(&v).contains(&"swapped_term"), "{:?}", v.findings);
}

/// Physics p. 126 and 129 (the sixth set of student questions, stop 57): the model gave Mars
/// the value of g the book works out for Earth, in another sentence of the same quote.
#[test]
fn a_number_spliced_from_another_sentence_is_a_changed_number() {
    let book = "The value of g on the planet Mars is 3.71 m/s2. Filling in the mass and radius of the Earth gives the value of g, which may look familiar: g = 9.80 m/s2.";
    let v = check("The value of g on Mars is 9.80 m/s2.", book);
    assert!(kinds(&v).contains(&"number"), "{:?}", v.findings);
    for kept in [
        "The value of g on Mars is 3.71 m/s2.",
        "The value of g for the Earth is 9.80 m/s2.",
    ] {
        let v = check(kept, book);
        assert!(!kinds(&v).contains(&"number"), "{kept}: {:?}", v.findings);
    }
}

/// Physics (OpenStax), chapter 16 (the eighth set of student questions, stop 58): the model
/// wrote "The good mirror reflects 90% of the light that falls on it" (graded wrong: the book
/// says more than 90 percent).
#[test]
fn a_bound_on_a_number_dropped_changes_the_number() {
    let book = "A good-quality mirror reflects more than 90 percent of the light that falls on it; the mirror absorbs the rest.";
    let v = check(
        "The good mirror reflects 90% of the light that falls on it.",
        book,
    );
    assert!(kinds(&v).contains(&"quantifier"), "{:?}", v.findings);
    for kept in [
        "A good mirror reflects more than 90% of the light that falls on it.",
        "A good mirror reflects over 90 percent of the light that falls on it.",
    ] {
        let v = check(kept, book);
        assert!(v.findings.is_empty(), "{kept}: {:?}", v.findings);
    }
    // An approximation dropped is not a bound dropped.
    let v = check(
        "The cell cycle takes 24 hours.",
        "The cell cycle of a typical human cell takes about 24 hours.",
    );
    assert!(!kinds(&v).contains(&"quantifier"), "{:?}", v.findings);
}

/// Biology 2e p. 918 (the fifth set of student questions, stop 57): the model wrote "T cells
/// mature in the bone marrow, whereas naïve T cells transit from the bone marrow to the
/// thymus" (graded wrong: the book says B cells). The sentence names T cells, but in the
/// other clause.
#[test]
fn a_letter_swapped_in_the_clause_it_restates_is_a_swap() {
    let book = "B cell maturation occurs in the bone marrow, whereas naïve T cells transit from the bone marrow to the thymus for maturation. In the thymus, immature T cells that express TCRs complementary to self-antigens are destroyed.";
    let v = check(
        "T cells mature in the bone marrow, whereas naïve T cells transit from the bone marrow to the thymus for maturation.",
        book,
    );
    assert!(kinds(&v).contains(&"swapped_term"), "{:?}", v.findings);
    for kept in [
        "B cells mature in the bone marrow, whereas naïve T cells transit from the bone marrow to the thymus for maturation.",
        "Naïve T cells transit from the bone marrow to the thymus for maturation.",
    ] {
        let v = check(kept, book);
        assert!(!kinds(&v).contains(&"swapped_term"), "{kept}: {:?}", v.findings);
    }
}

/// Biology 2e p. 599: "not due to a close evolutionary relationship" negates the words
/// "rather than a close evolutionary relationship" does, though "due to" stands between.
#[test]
fn a_negator_reaches_past_function_words() {
    let analogy = "When similar characteristics occur because of environmental constraints and not due to a close evolutionary relationship, it is an analogy or homoplasy.";
    let v = check(
        "When similar characteristics occur because of environmental constraints rather than a close evolutionary relationship, it is an analogy or homoplasy.",
        analogy,
    );
    assert!(!kinds(&v).contains(&"negation"), "{:?}", v.findings);
    let v = check(
        "When similar characteristics occur because of environmental constraints and due to a close evolutionary relationship, it is an analogy or homoplasy.",
        analogy,
    );
    assert!(kinds(&v).contains(&"negation"), "{:?}", v.findings);
}

/// Biology 2e p. 338: the negator moved from the verb to the noun keeps its sense.
#[test]
fn a_negator_moved_within_its_clause_is_the_same_negation() {
    let nad = "If NAD+ is not available, the second half of glycolysis slows down or stops.";
    let v = check(
        "When there is no NAD+ available, the second half of glycolysis slows down or stops.",
        nad,
    );
    assert!(!kinds(&v).contains(&"negation"), "{:?}", v.findings);
    let v = check(
        "When NAD+ is available, the second half of glycolysis slows down or stops.",
        nad,
    );
    assert!(kinds(&v).contains(&"negation"), "{:?}", v.findings);
}

/// Physics p. 120: "m/s²" is the book's "m/s2" (a PDF's text layer drops the superscript).
#[test]
fn a_superscript_digit_is_the_books_digit() {
    assert_kept(
        "The SI unit of force is called the newton (N), and it is the force needed to accelerate a 1-kg system at a rate of 1 m/s².",
        "The SI unit of force is called the newton (abbreviated N) and is the force needed to accelerate a 1-kg system at the rate of 1 m/s2.",
    );
}

/// Physics p. 122 and Biology 2e pp. 933, 661: "unlike X" sets X apart from what the sentence
/// says; it contradicts "as in X" / "like X", not a sentence that says the same the other way
/// round.
#[test]
fn unlike_sets_apart_only_its_term() {
    let mass = "Unlike weight (which changes if the gravitational force changes), mass does not depend on gravity.";
    let v = check(
        "Mass does not depend on gravity, whereas weight changes if the gravitational force changes.",
        mass,
    );
    assert!(v.agrees(), "{:?}", v.findings);
    let v = check("Like weight, mass does not depend on gravity.", mass);
    assert!(kinds(&v).contains(&"negation"), "{:?}", v.findings);
    let veins = "In addition, veins are structurally different than arteries in that veins have valves to prevent the backflow of blood.";
    let v = check(
        "Unlike arteries, veins have valves to prevent the backflow of blood.",
        veins,
    );
    assert!(v.agrees(), "{:?}", v.findings);
}

/// Physics p. 611: a condition holds its own clause only ("B when A, making C": C is no
/// cause), so an answer that puts C with B keeps the book's cause and effect.
#[test]
fn a_condition_holds_its_own_clause_only() {
    let voice = "A voice becomes louder when air flow from the lungs increases, making the amplitude of the sound pressure wave greater.";
    let v = check(
        "When air flow from the lungs increases, the voice becomes louder and the amplitude of the sound pressure wave becomes greater.",
        voice,
    );
    assert!(!kinds(&v).contains(&"roles"), "{:?}", v.findings);
    let v = check(
        "Air flow from the lungs increases when a voice becomes louder.",
        voice,
    );
    assert!(kinds(&v).contains(&"roles"), "{:?}", v.findings);
}

/// Physics p. 829 and Biology 2e p. 230: a passive that is not the relation between two
/// terms ("is formed when light rays …", "are located in the thylakoid membrane") does not
/// reverse who does what; the relation's own passive does.
#[test]
fn only_the_relations_own_passive_reverses_it() {
    let image = "A virtual image is formed when light rays appear to diverge from a point without actually doing so.";
    let v = check(
        "A virtual image forms when light rays appear to diverge from a point without actually doing so.",
        image,
    );
    assert!(!kinds(&v).contains(&"roles"), "{:?}", v.findings);
    let carotenoids = "Therefore, many carotenoids reside in the thylakoid membrane, absorb excess energy, and safely dissipate that energy as heat.";
    let v = check(
        "Many carotenoids are located in the thylakoid membrane and absorb excess energy.",
        carotenoids,
    );
    assert!(!kinds(&v).contains(&"roles"), "{:?}", v.findings);
    let growth = "Thus, population growth is greatly slowed in large populations by the carrying capacity K.";
    let v = check(
        "In large populations, population growth slows the carrying capacity K.",
        growth,
    );
    assert!(kinds(&v).contains(&"roles"), "{:?}", v.findings);
}

/// Biology 2e p. 225: "each absorbs only specific wavelengths" has a universal word ("each")
/// on pigments; "all wavelengths" is still not what it says.
#[test]
fn all_on_a_term_the_source_limits_is_a_quantifier_change() {
    let pigments = "Different kinds of pigments exist, and each absorbs only specific wavelengths (colors) of visible light.";
    let v = check(
        "Different kinds of pigments exist, and each absorbs all wavelengths of visible light.",
        pigments,
    );
    assert!(kinds(&v).contains(&"quantifier"), "{:?}", v.findings);
    assert_kept(
        "Different kinds of pigments exist, and each absorbs only specific wavelengths of visible light.",
        pigments,
    );
}

/// Physics p. 241: "first" after an auxiliary says when ("was first determined"), not which
/// one of a series ("the first law"): no changed number against "was first done".
#[test]
fn an_ordinal_after_an_auxiliary_is_no_number() {
    let cavendish = "This determination was first done accurately in 1798 by English scientist Henry Cavendish (1731–1810), more than 100 years after Newton published his universal law of gravitation.";
    let v = check(
        "G was first determined accurately in 1798 by the English scientist Henry Cavendish.",
        cavendish,
    );
    assert!(!kinds(&v).contains(&"number"), "{:?}", v.findings);
    let laws = "Newton's first law of motion states that a body at rest remains at rest.";
    let v = check(
        "Newton's third law of motion states that a body at rest remains at rest.",
        laws,
    );
    assert!(kinds(&v).contains(&"number"), "{:?}", v.findings);
}

/// Biology 2e p. 272: the model wrote "There are sixteen stop codons" (graded wrong: the book
/// counts sixteen blocks of codons, and three stop codons).
#[test]
fn a_number_that_counts_groups_of_a_noun_is_no_count_of_the_noun() {
    let code = "In addition to codons that instruct the addition of a specific amino acid to a polypeptide chain, three of the 64 codons terminate protein synthesis. There are sixteen \"blocks\" of codons, each specified by the first and second nucleotides of the codons within the block.";
    let v = verify_with("There are sixteen stop codons.", &[code], Some(&lexicon()));
    assert!(kinds(&v).contains(&"swapped_term"), "{:?}", v.findings);
    let v = verify_with(
        "There are sixteen blocks of codons.",
        &[code],
        Some(&lexicon()),
    );
    assert!(!kinds(&v).contains(&"swapped_term"), "{:?}", v.findings);
}

/// WordNet puts "infrared" and "ultraviolet" (like "red" and "blue") in one adjective
/// cluster, under "invisible"; as nouns they are two kinds of radiation. Physics p. 599: "people
/// are constantly emitting infrared radiation".
#[test]
fn two_kinds_in_one_adjective_cluster_are_no_synonyms() {
    let lex = lexicon();
    assert!(!lex.same_meaning("infrared", "ultraviolet"));
    assert!(lex.same_kind("infrared", "ultraviolet"));
    assert!(lex.same_meaning("infrared", "unseeable"));
    let body = "Another example is thermal radiation from the human body; people are constantly emitting infrared radiation.";
    let v = check("People constantly emit ultraviolet radiation.", body);
    assert!(kinds(&v).contains(&"swapped_term"), "{:?}", v.findings);
    assert_kept("People constantly emit infrared radiation.", body);
}

/// Physics p. 535: "the speed of light through matter is less than it is in a vacuum" says
/// light is slower there, not faster.
#[test]
fn faster_against_a_speed_that_is_less_is_an_opposite() {
    let matter = "The speed of light through matter is less than it is in a vacuum.";
    let v = check(
        "Light travels faster through matter than it does in a vacuum.",
        matter,
    );
    assert!(kinds(&v).contains(&"direction"), "{:?}", v.findings);
    assert_kept(
        "Light is slower through matter than it is in a vacuum.",
        matter,
    );
}

/// Biology 2e p. 95: the two sides of "outnumber" exchanged, where both sides end in "cells".
#[test]
fn the_two_sides_of_a_relation_exchanged_are_rejected() {
    let body = "In the typical human body, prokaryotic cells outnumber human body cells by about ten to one.";
    let v = check(
        "In the typical human body, human body cells outnumber prokaryotic cells by about ten to one.",
        body,
    );
    assert!(kinds(&v).contains(&"roles"), "{:?}", v.findings);
    assert_kept(
        "In the typical human body, prokaryotic cells outnumber human body cells by ten to one.",
        body,
    );
}

/// Biology 2e (OpenStax), ch. 32: the two sides of "is contained within" exchanged (the
/// held pairs' dev half, stop 59): each side is read past the auxiliary and the preposition,
/// and "larger", which stays on its side, tells nothing. (The mini lexicon here lets the
/// "who does what" rule catch it too; WordNet's readings of "contained" do not.)
#[test]
fn the_sides_past_an_auxiliary_and_a_preposition_exchanged_are_rejected() {
    let lex = lexicon();
    let pollen =
        words::read("The generative cell is contained within the larger pollen tube cell.");
    let read = |a: &str| sides::exchanged(&words::read(a), &pollen, Some(&lex));
    assert!(read(
        "The pollen tube cell is contained within the larger generative cell."
    ));
    assert!(!read(
        "The generative cell is held within the larger pollen tube cell."
    ));
    assert!(!read(
        "The generative cell is contained within the pollen tube cell."
    ));
    assert_kept(
        "The generative cell is contained within the larger pollen tube cell.",
        "The generative cell is contained within the larger pollen tube cell.",
    );
}

/// Physics (OpenStax), ch. 20: a conversion "to" the other way round (the held pairs' dev
/// half, stop 59).
#[test]
fn a_conversion_to_read_the_other_way_round_is_rejected() {
    let motor = "Electrical energy is converted to mechanical work in the process.";
    let (from, to) = sides::conversion(&words::read(motor)).expect("a conversion");
    let (af, ai) = sides::conversion(&words::read(
        "In a motor, mechanical work is converted into electrical energy.",
    ))
    .expect("a conversion");
    assert!(sides::conversion_reversed((&af, &ai), (&from, &to)));
    let v = check(
        "In a motor, mechanical work is converted into electrical energy.",
        motor,
    );
    assert!(kinds(&v).contains(&"roles"), "{:?}", v.findings);
    assert_kept(
        "Electrical energy is converted into mechanical work.",
        motor,
    );
}

/// Physics p. 881: a noun after a verb in "-ing" ("burning coal") is its object, not the
/// relation between "steam" and what follows.
#[test]
fn a_noun_after_a_verb_in_ing_is_no_relation() {
    assert_kept(
        "Steam from burning coal hits the turbine blades and turns the shaft that is connected to the generator.",
        "The steam produced by burning coal impacts the turbine blades, turning the shaft which is connected to the generator.",
    );
}

/// Biology 2e p. 211: an adjective put before a term ("endergonic reactions") says which one;
/// it is no relation whose sides a reordering could exchange, so the opposite stands.
#[test]
fn an_opposite_adjective_before_a_term_is_not_cancelled_by_word_order() {
    let v = check(
        "Reactions that have a negative ∆G and therefore release free energy are called endergonic reactions.",
        "Scientists call reactions that have a negative ∆G and consequently release free energy exergonic reactions.",
    );
    assert!(!v.agrees(), "{:?}", v.findings);
}

/// Physics p. 1021: "relative to" restates "with respect to"; neither noun is a term.
#[test]
fn relative_to_restates_with_respect_to() {
    assert_kept(
        "Length contraction is the shortening of distance measured by an observer moving relative to the two points.",
        "The shortening of distance measured by an observer moving with respect to the two points is called length contraction.",
    );
}

/// Two opposites in the other order are a swap ("a fast pump and a slow channel" for "a slow
/// pump and a fast channel"), unless each moved with the word it describes.
#[test]
fn opposites_moved_with_their_terms_are_no_swap() {
    let lex = Lexicon::parse(
        "s\ta1\tslow\t\n\
         s\ta2\tfast\t\n\
         a\tslow\tfast\n\
         a\tfast\tslow\n\
         s\tn1\tpump\t\n\
         s\tn2\tchannel\t\n\
         s\tn3\tmembrane\t\n",
    );
    let source = "The membrane has a slow pump and a fast channel.";
    let v = verify_with(
        "The membrane has a fast pump and a slow channel.",
        &[source],
        Some(&lex),
    );
    assert!(kinds(&v).contains(&"direction"), "{v:?}");
    let v = verify_with(
        "The membrane has a fast channel and a slow pump.",
        &[source],
        Some(&lex),
    );
    assert!(v.agrees(), "{v:?}");
    // Both describe one word: which pump is which is what the sentence says.
    let v = verify_with(
        "A fast pump opens before a slow pump.",
        &["A slow pump opens before a fast pump."],
        Some(&lex),
    );
    assert!(kinds(&v).contains(&"direction"), "{v:?}");
}

/// OpenStax Biology 2e, 11.2 (a held-out answer at stop 48): "mitosis" swapped for a second
/// "meiosis", a term joined to itself.
#[test]
fn a_term_joined_to_itself_for_two_terms_is_a_swap() {
    let source = "Meiosis and mitosis share obvious cellular processes, and it makes sense that \
                  meiosis evolved from mitosis.";
    let v = check(
        "Meiosis and meiosis share obvious cellular processes, and it makes sense that meiosis \
         evolved from mitosis.",
        source,
    );
    assert!(kinds(&v).contains(&"swapped_term"), "{:?}", v.findings);
    assert_kept(
        "Meiosis and mitosis share cellular processes, and meiosis evolved from mitosis.",
        source,
    );
}

/// Biology 2e, fungi: "exoenzymes" where the aligned sentence says "the enzymes" (and the
/// sentence before it says "exoenzymes") names the same thing more narrowly; "lipases" in
/// that place is another term.
#[test]
fn a_narrower_name_from_the_passage_is_no_swap() {
    let source = "Fungi make exoenzymes and lipases. The enzymes are either released into the substrate or remain bound to the outside of the fungal cell wall.";
    let v = verify_with(
        "The exoenzymes are released into the substrate or remain bound to the outside of the cell wall.",
        &[source],
        None,
    );
    assert!(v.agrees(), "{v:?}");
    let v = verify_with(
        "The lipases are released into the substrate or remain bound to the outside of the cell wall.",
        &[source],
        None,
    );
    assert!(kinds(&v).contains(&"swapped_term"), "{v:?}");
}

/// Biology 2e, photosynthesis: "light" said twice in each sentence; the answer's second
/// "light" is the source's second, the one "do not use" negates.
#[test]
fn a_repeated_word_matches_its_own_occurrence() {
    let v = verify_with(
        "The light-independent reactions use light as a reactant, and they also need the products of the light-dependent reactions to work.",
        &["Therefore, although the light-independent reactions do not use light as a reactant, they require the products of the light-dependent reactions to function."],
        None,
    );
    assert!(kinds(&v).contains(&"negation"), "{v:?}");
}

/// Biology 2e, metabolism and meiosis: everyday Hindi words ("अपने आप", on its own; "उम्र",
/// age; "खतरा", risk) are read, so that the answer is judged at all, and the main verb is
/// the last.
#[test]
fn hindi_everyday_words_are_read() {
    let v = verify_with(
        "एंडरगोनिक (endergonic) अभिक्रिया बिना कोई मुक्त ऊर्जा जोड़े अपने आप हो जाती है।",
        &["An endergonic reaction will not take place on its own without adding free energy."],
        None,
    );
    assert!(kinds(&v).contains(&"negation"), "{v:?}");
    // The risk decreases as age increases: Hindi's last verb ("कम होता जाता है") is the one
    // compared with the book's "increases", not the "बढ़ने" (increasing) of the age.
    let source = "The risk of nondisjunction occurring increases with the parents' age.";
    let v = check(
        "माता-पिता की उम्र बढ़ने के साथ नॉनडिसजंक्शन (nondisjunction) होने का खतरा कम होता जाता है।",
        source,
    );
    assert_eq!(kinds(&v), ["direction"], "{v:?}");
    let v = verify_with(
        "माता-पिता की उम्र बढ़ने के साथ नॉनडिसजंक्शन (nondisjunction) होने का खतरा बढ़ता जाता है।",
        &[source],
        None,
    );
    assert!(v.agrees(), "{v:?}");
}

/// Physics, induction: "A को B में बदलता है" (converts A into B) read against the book's
/// "converts mechanical energy into electrical energy".
#[test]
fn a_hindi_conversion_the_other_way_round_is_caught() {
    let source = "A device such as this that converts mechanical energy into electrical energy is called a generator.";
    let v = verify_with(
        "जनित्र (generator) विद्युत ऊर्जा को यांत्रिक ऊर्जा में बदलता है।",
        &[source],
        None,
    );
    assert_eq!(kinds(&v), ["roles"], "{v:?}");
    let v = verify_with(
        "जनित्र (generator) यांत्रिक ऊर्जा को विद्युत ऊर्जा में बदलता है।",
        &[source],
        None,
    );
    assert!(v.agrees(), "{v:?}");
}

/// Biology 2e, enzymes and circulation: a Hindi verb of direction in a form the cue list does
/// not spell out ("बढ़ाते", raise) and "दूर" (away) are read, and "कम"/"अधिक" as the book's
/// "low"/"high".
#[test]
fn hindi_verb_forms_and_degree_words_are_read_as_the_book_words_them() {
    let v = verify_with(
        "एंजाइम अभिक्रिया की सक्रियण ऊर्जा को बढ़ाते हैं।",
        &["Enzymes lower the activation energy of a reaction."],
        None,
    );
    assert_eq!(kinds(&v), ["direction"], "{v:?}");
    let v = verify_with(
        "शिराएँ रक्त को हृदय से दूर ले जाती हैं।",
        &["Arteries carry blood away from the heart, and veins carry blood back to the heart."],
        None,
    );
    assert!(kinds(&v).contains(&"direction"), "{v:?}");
    let v = verify_with(
        "परासरण में पानी कम विलेय सांद्रता से अधिक विलेय सांद्रता की ओर जाता है।",
        &["Osmosis is the movement of water from an area of low solute concentration to an area of high solute concentration."],
        None,
    );
    assert!(v.agrees(), "{v:?}");
}

/// Physics, sound: a Hindi comparison ("A B से धीमा", A slower than B) with its sides
/// exchanged is a roles finding; exchanged under the opposite word ("तेज़", faster) it says
/// the same as the book.
#[test]
fn a_hindi_comparison_with_its_sides_exchanged_is_caught() {
    let source = "Sound travels much slower than light.";
    let v = verify_with("प्रकाश ध्वनि से बहुत धीमा चलता है।", &[source], None);
    assert!(kinds(&v).contains(&"roles"), "{v:?}");
    let v = verify_with("प्रकाश ध्वनि से बहुत तेज़ चलता है।", &[source], None);
    assert!(!kinds(&v).contains(&"direction"), "{v:?}");
    assert!(!kinds(&v).contains(&"roles"), "{v:?}");
    let v = verify_with("ध्वनि प्रकाश से बहुत धीमी चलती है।", &[source], None);
    assert!(!kinds(&v).contains(&"roles"), "{v:?}");
}

/// Biology 2e, osmosis; Physics, convection: a Hindi movement "from A towards B" with its ends
/// exchanged, and a Hindi cause made the effect ("A, इसी कारण B", A, for this reason B), are
/// roles findings; the movement the right way round is kept.
#[test]
fn a_hindi_movement_or_cause_the_other_way_round_is_caught() {
    let osmosis = "Water moves from an area of low solute concentration to an area of high solute concentration.";
    let v = verify_with(
        "परासरण में पानी अधिक विलेय सांद्रता वाले क्षेत्र से कम विलेय सांद्रता वाले क्षेत्र की ओर जाता है।",
        &[osmosis],
        None,
    );
    assert!(kinds(&v).contains(&"roles"), "{v:?}");
    let v = verify_with(
        "परासरण में पानी कम विलेय सांद्रता वाले क्षेत्र से अधिक विलेय सांद्रता वाले क्षेत्र की ओर जाता है।",
        &[osmosis],
        None,
    );
    assert!(!kinds(&v).contains(&"roles"), "{v:?}");
    let convection = "Hot air rises because it is less dense than the surrounding air.";
    let v = verify_with(
        "गर्म हवा ऊपर उठती है, इसी कारण वह आसपास की हवा से कम सघन हो जाती है।",
        &[convection],
        None,
    );
    assert!(kinds(&v).contains(&"roles"), "{v:?}");
    let v = verify_with(
        "गर्म हवा ऊपर उठती है क्योंकि वह आसपास की हवा से कम सघन होती है।",
        &[convection],
        None,
    );
    assert!(!kinds(&v).contains(&"roles"), "{v:?}");
}

/// Biology 2e, photosynthesis (a real answer of Qwen2.5-Coder-0.5B): a word of another
/// passage the model was given ("photosynthesis") is no new content in a sentence that
/// restates its aligned sentence; a word no passage has still is.
#[test]
fn a_word_of_another_given_passage_is_not_new_content() {
    let sources = [
        "The overall function of light-dependent reactions is to convert solar energy into chemical energy in the form of NADPH and ATP.",
        "Photosynthesis takes place in two sequential stages: the light-dependent reactions and the light-independent reactions.",
    ];
    let v = verify_with(
        "The light-dependent reactions of photosynthesis convert solar energy into chemical energy in the form of NADPH and ATP.",
        &sources,
        None,
    );
    assert!(!kinds(&v).contains(&"new_term"), "{v:?}");
    let v = verify_with(
        "The light-dependent reactions of chemosynthesis convert solar energy into chemical energy in the form of NADPH and ATP.",
        &sources,
        None,
    );
    assert!(kinds(&v).contains(&"new_term"), "{v:?}");
}

/// Physics p. 160 (a near copy, the pronoun named): "so much more massive" is the "so" of
/// degree, no causal word between "Earth" and "much".
#[test]
fn the_so_of_degree_is_no_causal_relation() {
    let v = verify_with(
        "The effect on Earth is not noticeable because Earth is so much more massive than the player, but the effect is real.",
        &["The effect on Earth is not noticeable because it is so much more massive than the player, but the effect is real."],
        None,
    );
    assert!(v.agrees(), "{v:?}");
}

/// Biology 2e p. 1240: the book's "all" sits in a clause of its own ("All sensory signals,
/// except those …, are transmitted"), on the term the answer's "every" quantifies.
#[test]
fn a_universal_on_the_same_term_in_another_clause_is_the_books() {
    let source = "All sensory signals, except those from the olfactory system, are transmitted through the central nervous system and are routed to the thalamus.";
    let v = verify_with(
        "Except for olfactory signals, every sensory signal travels through the central nervous system and is routed to the thalamus.",
        &[source],
        None,
    );
    assert!(!kinds(&v).contains(&"quantifier"), "{v:?}");
    let v = verify_with(
        "Except for olfactory signals, every nerve signal travels through the central nervous system and is routed to the thalamus.",
        &[source],
        None,
    );
    assert!(kinds(&v).contains(&"quantifier"), "{v:?}");
}

/// Biology 2e p. 604: "oxygen" is the book's "O2".
#[test]
fn a_formula_and_its_name_are_one_word() {
    let v = verify_with(
        "The bacteria that gave rise to cyanobacteria used water as the hydrogen source and released oxygen as a waste product.",
        &["The group of bacteria that gave rise to cyanobacteria used water as the hydrogen source and released O2 as a waste product."],
        None,
    );
    assert!(v.agrees(), "{v:?}");
}

/// A possessive is its noun ("an object's velocity": "object", which WordNet knows); the "'s"
/// of a short word is a contraction and stays ("it's").
#[test]
fn a_possessive_is_read_as_its_noun() {
    let lower =
        |t: &str| -> Vec<String> { words::read(t).words.into_iter().map(|w| w.lower).collect() };
    assert!(lower("an object's velocity").contains(&"object".to_string()));
    assert!(lower("the cells' walls").contains(&"cells".to_string()));
    assert!(lower("it's small").contains(&"it's".to_string()));
}

/// Biology 2e p. 1122: "about" before a number is an estimate, not WordNet's "about" that is
/// a synonym of "most" (against the book's "at least").
#[test]
fn an_estimate_before_a_number_is_no_opposite() {
    let lex = lexicon();
    let a = words::read("The share of drugs with a plant extract fell to about 10 percent.");
    let s = words::read("The share of drugs with at least one plant extract fell.");
    assert!(opposites::opposites(&a, &s, Some(&lex)).is_empty());
}

/// Biology 2e p. 1011 and p. 1394: an example the book does not give ("such as mistletoe")
/// and a ranking of what it only lists ("the biggest threat") are new claims, never a
/// rewording.
#[test]
fn a_new_example_or_superlative_is_not_a_rewording() {
    let parasites =
        "Other parasitic plants (hemiparasites) are fully photosynthetic and only use the host for water and minerals.";
    let v = check(
        "Hemiparasites, such as mistletoe, are fully photosynthetic and only use the host for water and minerals.",
        parasites,
    );
    assert!(kinds(&v).contains(&"new_term"), "{v:?}");
    let v = check(
        "Hemiparasites are fully photosynthetic, and mistletoe only use the host for water and minerals.",
        parasites,
    );
    assert!(v.agrees(), "{v:?}");
    let v = check(
        "Three human activities have a major impact: destruction of habitat, introduction of exotic species and over-harvesting, the biggest threat being habitat destruction.",
        "Specifically, three human activities have a major impact: destruction of habitat, introduction of exotic species, and over-harvesting.",
    );
    assert!(kinds(&v).contains(&"new_term"), "{v:?}");
}

/// Biology 2e p. 1259 and Physics p. 1232: "by reducing …" gives the means (the cause), and "A
/// is responsible for B" puts the cause first; an answer that turns either round is caught.
#[test]
fn causes_given_by_means_or_responsibility_turned_round_are_caught() {
    let v = verify_with(
        "A cell reduces its protein synthesis because it has already become resistant to viral infection.",
        &["Thus, by reducing protein synthesis, a cell becomes resistant to viral infection."],
        None,
    );
    assert!(kinds(&v).contains(&"roles"), "{v:?}");
    let v = verify_with(
        "The massive inflation of the universe is thought to have caused the strong nuclear force to separate from the electroweak force.",
        &["The separation of the strong nuclear force from the electroweak force during this time is thought to have been responsible for the massive inflation of the universe."],
        None,
    );
    assert!(kinds(&v).contains(&"roles"), "{v:?}");
}

/// Biology 2e p. 262: "moving and manipulating chromosomes" is a list of two verbs on one
/// object, not "moving" as the subject of "manipulating".
#[test]
fn two_verbs_joined_by_and_are_no_relation() {
    let v = check(
        "During G2, the cell restocks its energy stores and makes the proteins it needs for moving and manipulating chromosomes.",
        "In the G2 phase, the cell replenishes its energy stores and synthesizes proteins necessary for chromosome manipulation and movement.",
    );
    assert!(!kinds(&v).contains(&"roles"), "{v:?}");
}

/// Biology 2e p. 942 (a real answer of Qwen2.5-Coder-0.5B): a term given as its own cause is
/// rejected; the book's own sentence is kept.
#[test]
fn a_term_given_as_its_own_cause_is_rejected() {
    let book = "The side effects of menopause include hot flashes, heavy sweating (especially at night), headaches, some hair loss, muscle pain, vaginal dryness, insomnia, depression, weight gain, and mood swings.";
    let v = verify_with(
        "Hot flashes are caused by hot flashes in menopause.",
        &[book],
        None,
    );
    assert!(kinds(&v).contains(&"roles"), "{v:?}");
    assert_kept(
        "The side effects of menopause include hot flashes and heavy sweating.",
        book,
    );
    // "because" opens a clause with a subject of its own: the colour and the light.
    assert_kept(
        "Chlorophyll looks green because green is reflected.",
        "Because green is reflected or transmitted, chlorophyll appears green.",
    );
}

/// A lexicon of a few lines for the stop-54 tests: the words each rule needs WordNet to know.
fn lexicon_54() -> Lexicon {
    Lexicon::parse(
        "s\tv1\tabsorb|soak up\t\n\
         s\tv2\tconvert\t\n\
         s\ta1\taccurate\t\n\
         s\tv3\tchange\t\n\
         s\tn1\tchange\t\n\
         s\tv4\ttravel\t\n\
         s\ta2\tlight|scant|short\t\n\
         s\tn2\tlight\t\n\
         s\ta3\tlong\t\n\
         a\tlong\tshort\n\
         a\tshort\tlong\n\
         s\tn3\tunit of measurement|unit\t\n\
         s\tn4\twatt|W\tn3\n\
         s\tn5\tjoule|J\tn3\n\
         s\tn6\tWatt|James Watt\t\n\
         s\tv5\trelease|free\t\n\
         s\tn7\trelease\t\n\
         s\tv6\tlose\t\n",
    )
}

fn check_54(answer: &str, source: &str) -> Verification {
    let lex = lexicon_54();
    verify_with(answer, &[source], Some(&lex))
}

/// Physics, the spectrum: a Hindi answer whose last verb ("बढ़ती", increases) is said of the
/// wavelength, where the book says "increases" of the frequency and "decreases" of the
/// wavelength, is compared with the wavelength's clause.
#[test]
fn a_hindi_verb_is_compared_with_the_clause_of_its_subject() {
    let source = "As frequency increases across the spectrum, wavelength decreases.";
    let v = check(
        "स्पेक्ट्रम में आवृत्ति बढ़ने के साथ-साथ तरंगदैर्ध्य भी बढ़ती जाती है।",
        source,
    );
    assert!(kinds(&v).contains(&"direction"), "{v:?}");
    let v = check("स्पेक्ट्रम में आवृत्ति बढ़ने के साथ-साथ तरंगदैर्ध्य घटती जाती है।", source);
    assert!(!kinds(&v).contains(&"direction"), "{v:?}");
}

/// Hindi postpositions and auxiliaries ("तक", up to; "ओर", towards; "रहता", keeps) are no
/// content: an answer made of glossary terms and them is read in full.
#[test]
fn hindi_postpositions_and_auxiliaries_are_function_words() {
    let view = hindi::english_view(
        "कोशिका के बीच तक ऊर्जा की ओर सक्रिय रहता है",
        &["The cell is active."],
    );
    assert!(view.known_share > 0.99, "{}", view.known_share);
}

/// Biology 2e, telomerase: "सक्रिय" (active) is read through the glossary, so that the book's
/// "not active in adult somatic cells" is compared with an answer that drops the "not".
#[test]
fn hindi_active_is_read_and_its_negation_compared() {
    let v = verify_with(
        "टेलोमरेज़ (telomerase) वयस्क कायिक कोशिकाओं (adult somatic cells) में सक्रिय रहता है।",
        &["Telomerase is typically active in germ cells and adult stem cells. It is not active in adult somatic cells."],
        None,
    );
    assert!(kinds(&v).contains(&"negation"), "{v:?}");
    let view = hindi::english_view("टेलोमरेज़ सक्रिय है।", &["Telomerase is active."]);
    assert!(
        view.sentence.words.iter().any(|w| w.lower == "active"),
        "{:?}",
        view.sentence
    );
}

/// Biology 2e, gas exchange: any comparative of more against any of less ("lower" for
/// "greater"), beyond the listed pairs.
#[test]
fn a_comparative_of_less_for_one_of_more_is_rejected() {
    let v = check(
        "Carbon monoxide has a lower affinity for hemoglobin than oxygen does.",
        "Carbon monoxide has a greater affinity for hemoglobin than oxygen.",
    );
    assert!(kinds(&v).contains(&"direction"), "{v:?}");
}

/// Physics, light: the answer's "light" is the book's "light", not WordNet's "light" (scant)
/// standing for the book's "short"; "very long" against "very short" is an opposite.
#[test]
fn a_word_the_book_has_itself_is_no_synonym_of_another() {
    let v = check_54(
        "The wavelengths that make up light are very long, so that light acts like a ray.",
        "The answer is that the wavelengths that make up the light are very short, so that the light acts like a ray.",
    );
    assert!(kinds(&v).contains(&"direction"), "{v:?}");
}

/// An opener that announces a rewording ("In other words,", "Simply put,") is not read as
/// content; without its comma "That is" is the sentence's own.
#[test]
fn an_opener_that_announces_a_rewording_is_not_read() {
    assert_eq!(
        words::without_opener("In other words, plant cells have a cell wall."),
        "plant cells have a cell wall."
    );
    assert_eq!(
        words::without_opener("This means that the cell divides."),
        "the cell divides."
    );
    assert_eq!(
        words::without_opener("That is the reason."),
        "That is the reason."
    );
    let v = verify_with(
        "In other words, plant cells have a cell wall outside the plasma membrane.",
        &[CELL_WALL],
        None,
    );
    assert!(v.agrees(), "{v:?}");
}

/// Biology 2e, carotenoids: a phrasal verb that WordNet lists ("soak up") is read as the
/// book's verb it means ("absorb").
#[test]
fn a_phrasal_verb_is_read_as_the_verb_it_means() {
    let v = check_54(
        "Many carotenoids soak up energy.",
        "Many carotenoids absorb energy.",
    );
    assert!(v.agrees(), "{v:?}");
}

/// Biology 2e, bony fish: "90 percent of all bony fish" says the part, not all: "All bony fish
/// are restricted …" is rejected.
#[test]
fn a_part_of_all_is_not_all() {
    let source =
        "About 90 percent of all bony fish are restricted to either freshwater or seawater.";
    let v = check(
        "All bony fish are restricted to either freshwater or seawater.",
        source,
    );
    assert!(kinds(&v).contains(&"quantifier"), "{v:?}");
    assert_kept(
        "About 90 percent of bony fish are restricted to either freshwater or seawater.",
        source,
    );
}

/// Physics, work: one unit named for another ("the watt" for "the joule") is a swapped term,
/// even where WordNet puts them under different kinds.
#[test]
fn one_unit_named_for_another_is_a_swapped_term() {
    let v = check_54(
        "The watt (W) is the metric unit of measurement for both work and energy.",
        "The joule (J) is the metric unit of measurement for both work and energy.",
    );
    assert!(kinds(&v).contains(&"swapped_term"), "{v:?}");
}

/// Biology 2e, phytochrome; Physics, vectors: two terms exchanged around a frame the answer
/// copies are swapped roles however far apart; a list ("Pr and Pfr") and a passive with
/// "from" are not.
#[test]
fn terms_exchanged_around_a_copied_frame_are_swapped_roles() {
    let v = check_54(
        "Pfr absorbs red light and is immediately converted to Pr.",
        "Pr absorbs red light (~667 nm) and is immediately converted to Pfr.",
    );
    assert!(kinds(&v).contains(&"roles"), "{v:?}");
    let v = check_54(
        "The graphical method is more accurate than the analytical method.",
        "The analytical method is more accurate than the graphical method, which is limited by the precision of the drawing.",
    );
    assert!(kinds(&v).contains(&"roles"), "{v:?}");
    let v = check_54(
        "Pr absorbs red light (~667 nm) and is immediately converted to Pfr.",
        "Pr absorbs red light (~667 nm) and is immediately converted to Pfr.",
    );
    assert!(v.agrees(), "{v:?}");
    // The book's "is … from" around the verb makes a passive of the frame: not a copy.
    let v = check_54("The body loses heat.", "Heat is lost from the body.");
    assert!(!kinds(&v).contains(&"roles"), "{v:?}");
}

/// Physics, refraction: "colors do not" denies the colours the verb of the clause before
/// ("change"); an answer saying the colour changes is rejected.
#[test]
fn a_verb_denied_by_ellipsis_is_compared() {
    let source = "Although wavelengths change while traveling from one medium to another, colors do not, since colors are associated with frequency.";
    let v = check_54(
        "When light travels from one medium to another, its color changes along with its wavelength.",
        source,
    );
    assert!(kinds(&v).contains(&"negation"), "{v:?}");
    let v = check_54(
        "Wavelengths change while traveling from one medium to another, but colors do not.",
        source,
    );
    assert!(!kinds(&v).contains(&"negation"), "{v:?}");
}

/// Biology 2e, vaccines: "year after year" is "every year", and "infrequently" (not
/// frequently) says "rarely".
#[test]
fn year_after_year_is_every_year_and_infrequently_is_rarely() {
    let source =
        "These viruses mutate so infrequently that the same vaccine is used year after year.";
    let v = check(
        "These viruses mutate so infrequently that the same vaccine is used every year.",
        source,
    );
    assert!(!kinds(&v).contains(&"quantifier"), "{v:?}");
    let v = check(
        "These viruses mutate so rarely that the same vaccine is used year after year.",
        source,
    );
    assert!(!kinds(&v).contains(&"quantifier"), "{v:?}");
    let v = check(
        "These viruses mutate so infrequently that the same vaccine is used every day.",
        source,
    );
    assert!(!v.agrees(), "{v:?}");
}

/// Biology 2e, the parasympathetic system: "acetylcholine release on target organs" names
/// what is released, as the passive "acetylcholine is released onto target organs" does;
/// against an active verb the noun says nothing.
#[test]
fn a_relation_noun_after_its_object_reads_as_a_passive() {
    let v = check_54(
        "When acetylcholine is released onto target organs, the heart rate slows.",
        "Effects of acetylcholine release on target organs include slowing of heart rate.",
    );
    assert!(!kinds(&v).contains(&"roles"), "{v:?}");
}

/// Physics p. 96, friction: a value the book gives as usual ("usually between 0 and 1.0, but
/// there is no theoretical upper limit"), said as always so, is a quantifier the book does
/// not support (the 0.5B model's answer to a question it had never seen, graded wrong); a
/// statement without a value ("scientists often call mitochondria powerhouses", a practice
/// that researchers often follow) told without its "often" is not.
#[test]
fn what_is_usually_so_said_as_always_so_is_a_quantifier() {
    let friction = "The coefficient of friction is unitless and is a number usually between 0 and 1.0, but there is no theoretical upper limit to its value.";
    let v = check(
        "The coefficient of friction is a number between 0 and 1.0.",
        friction,
    );
    assert_eq!(kinds(&v), ["quantifier"], "{v:?}");
    assert_kept(
        "The coefficient of friction is unitless and is usually a number between 0 and 1.0.",
        friction,
    );
    let v = check(
        "Mitochondria are called the powerhouses of the cell.",
        "Scientists often call mitochondria the powerhouses of the cell.",
    );
    assert!(!kinds(&v).contains(&"quantifier"), "{v:?}");
    // Biology 2e p. 5: a practice, not a value, said without its "often".
    let v = check(
        "Scientists use inductive and deductive reasoning to advance scientific knowledge.",
        "Researchers often use inductive and deductive reasoning in tandem to advance scientific knowledge.",
    );
    assert!(!kinds(&v).contains(&"quantifier"), "{v:?}");
}
