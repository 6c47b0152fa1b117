//! Unit tests of [`super`]: roles, lockouts, sessions and their limits, device names.

use super::*;

#[test]
fn every_route_is_declared_once() {
    use vidya_core::app::roles::ROUTES;
    let mut seen = HashSet::new();
    for (m, p, _) in ROUTES {
        assert!(seen.insert((m, p)), "{m} {p} declared twice");
    }
    assert_eq!(role_of("PUT", "/api/settings"), Some(Role::Teacher));
    assert_eq!(role_of("POST", "/api/ask"), Some(Role::Student));
    assert_eq!(role_of("POST", "/api/nothing"), None);
}

#[test]
fn wrong_codes_lock_an_address_out_for_a_while() {
    let a = Access::new(true, vec![]);
    let code = a.code().unwrap();
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let ip: IpAddr = "192.168.1.20".parse().unwrap();
    for _ in 0..MAX_TRIES {
        let r = a.join(ip, wrong, "x").unwrap_err();
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
    }
    // Locked: even the right code waits.
    assert_eq!(
        a.join(ip, &code, "Asha").unwrap_err().status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    // Another device is not locked.
    let other: IpAddr = "192.168.1.21".parse().unwrap();
    assert!(a.join(other, &code, "Ravi").is_ok());
}

#[test]
fn pin_guesses_sent_at_once_and_joining_do_not_get_past_the_lockout() {
    let a = std::sync::Arc::new(Access::new(true, vec![]));
    let ip: IpAddr = "192.168.1.30".parse().unwrap();
    // 30 guesses at once, each check slow (PBKDF2): only MAX_TRIES are checked at all.
    let checked = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let guesses: Vec<_> = (0..30)
        .map(|_| {
            let (a, checked) = (a.clone(), checked.clone());
            std::thread::spawn(move || {
                a.teacher_login(ip, || {
                    checked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(50));
                    false
                })
                .unwrap_err()
                .status()
            })
        })
        .collect();
    let statuses: Vec<StatusCode> = guesses.into_iter().map(|g| g.join().unwrap()).collect();
    assert_eq!(
        checked.load(std::sync::atomic::Ordering::SeqCst),
        MAX_TRIES,
        "{statuses:?}"
    );
    assert_eq!(
        statuses
            .iter()
            .filter(|s| **s == StatusCode::TOO_MANY_REQUESTS)
            .count(),
        30 - MAX_TRIES as usize
    );
    // Joining with the class code (once the wait is over) does not reset the count: the
    // next wrong PIN locks the address again at once.
    let code = a.code().unwrap();
    a.lock().failures.get_mut(&ip).unwrap().until = None;
    assert!(a.join(ip, &code, "Asha").is_ok());
    assert_eq!(
        a.teacher_login(ip, || false).unwrap_err().status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        a.teacher_login(ip, || true).unwrap_err().status(),
        StatusCode::TOO_MANY_REQUESTS
    );
}

#[test]
fn ending_the_class_ends_every_session() {
    let a = Access::new(true, vec![]);
    let code = a.code().unwrap();
    let ip: IpAddr = "10.0.0.5".parse().unwrap();
    let t = a.join(ip, &code, " Asha\u{7} ").unwrap();
    assert_eq!(a.name_of(&t).as_deref(), Some("Asha"));
    a.begin_question(&t).unwrap();
    assert_eq!(
        a.begin_question(&t).unwrap_err().status(),
        StatusCode::TOO_MANY_REQUESTS,
        "one question in flight"
    );
    a.end_question(&t, Some(7));
    assert!(a.owns(&t, 7) && !a.owns(&t, 8));
    a.end_class();
    assert!(a.name_of(&t).is_none());
    assert_eq!(
        a.join(ip, &code, "Asha").unwrap_err().status(),
        StatusCode::NOT_FOUND
    );
    let new = a.start_class().unwrap();
    assert!(a.join(ip, &new, "Asha").is_ok());
}

#[test]
fn only_this_machine_is_the_teacher() {
    let own: IpAddr = "192.168.1.5".parse().unwrap();
    let a = Access::new(true, vec![own]);
    let jar = CookieJar::new();
    for ip in ["127.0.0.1", "::1", "192.168.1.5", "::ffff:127.0.0.1"] {
        assert_eq!(
            a.caller(Some(ip.parse().unwrap()), &jar),
            Caller::Teacher,
            "{ip}"
        );
    }
    for ip in ["127.0.0.2", "192.168.1.6", "10.0.0.1"] {
        assert_eq!(
            a.caller(Some(ip.parse().unwrap()), &jar),
            Caller::Anonymous,
            "{ip}"
        );
    }
}

#[test]
fn an_address_keeps_one_seat_the_class_has_a_cap_and_idle_sessions_end() {
    let a = Access::new(true, vec![]);
    let code = a.code().unwrap();
    let t0 = Instant::now();
    let ip: IpAddr = "10.0.0.9".parse().unwrap();
    let tokens: Vec<String> = (0..SESSIONS_PER_ADDRESS + 2)
        .map(|i| {
            let at = t0 + Duration::from_secs(i as u64);
            a.join_at(ip, &code, "Ravi", at).unwrap()
        })
        .collect();
    let alive: Vec<bool> = tokens.iter().map(|t| a.name_of(t).is_some()).collect();
    assert_eq!(alive.iter().filter(|x| **x).count(), SESSIONS_PER_ADDRESS);
    assert!(
        !alive[0] && !alive[1] && alive[2],
        "the oldest ended: {alive:?}"
    );

    // Other addresses fill the class up to its cap.
    let later = t0 + Duration::from_secs(60);
    let others: Vec<(IpAddr, String)> = (0..MAX_STUDENTS - SESSIONS_PER_ADDRESS)
        .map(|i| {
            let ip = IpAddr::from([10, 1, (i / 250) as u8, (i % 250) as u8]);
            (ip, a.join_at(ip, &code, "x", later).unwrap())
        })
        .collect();
    let full = a
        .join_at("10.9.9.9".parse().unwrap(), &code, "Meena", later)
        .unwrap_err();
    assert_eq!(full.status(), StatusCode::SERVICE_UNAVAILABLE);

    // A session in use stays; one left idle ends, and its place is free again.
    let idle_for = Duration::from_secs(SESSION_IDLE_S + 1);
    let used = &tokens[2];
    let soon = later + idle_for - Duration::from_secs(120);
    assert_eq!(a.caller_at(used, ip, soon), Caller::Student(used.clone()));
    let (gone_ip, gone) = &others[0];
    assert_eq!(
        a.caller_at(gone, *gone_ip, later + idle_for),
        Caller::Anonymous
    );
    assert_eq!(
        a.caller_at(used, ip, later + idle_for),
        Caller::Student(used.clone())
    );
    assert!(a
        .join_at(
            "10.9.9.9".parse().unwrap(),
            &code,
            "Meena",
            later + idle_for
        )
        .is_ok());
    assert_eq!(a.students().len(), 2, "the idle ones were swept");
}

#[test]
fn names_lose_invisible_characters_and_need_a_letter() {
    assert_eq!(
        clean_name("Asha\u{202E}\u{200B}\u{2066} 7").as_deref(),
        Some("Asha 7")
    );
    // The joiners Indic scripts need stay.
    assert_eq!(clean_name("क्\u{200D}ष").as_deref(), Some("क्\u{200D}ष"));
    assert_eq!(
        clean_name("   Asha \u{2028}\u{2028} Ravi  ").as_deref(),
        Some("Asha Ravi")
    );
    assert_eq!(
        clean_name(&format!("{}Bob", " ".repeat(40))).as_deref(),
        Some("Bob")
    );
    for bad in [
        "",
        "  ",
        "\u{200B}\u{202E}",
        "\u{200D}",
        "\u{7}",
        "\u{3164}",
        "\u{FFA0}\u{115F}",
        "\u{E0041}\u{FE0F}",
    ] {
        assert_eq!(clean_name(bad), None, "{bad:?}");
    }
}

#[test]
fn many_addresses_do_not_get_many_pin_guesses() {
    let a = Access::new(true, vec![]);
    let mut checked = 0u32;
    // Each address sends two wrong PINs, fewer than MAX_TRIES, so none is locked on its own
    // until MAX_PIN_TRIES_ALL wrong ones were typed in all: from then on each address gets
    // one guess before it waits.
    let mut last = StatusCode::OK;
    for i in 0..(MAX_PIN_TRIES_ALL + 10) {
        let ip = IpAddr::from([10, 2, (i / 2 / 250) as u8, (i / 2 % 250) as u8]);
        last = a
            .teacher_login(ip, || {
                checked += 1;
                false
            })
            .unwrap_err()
            .status();
    }
    assert_eq!(
        checked,
        MAX_PIN_TRIES_ALL + 5,
        "one check per address after the limit"
    );
    assert_eq!(last, StatusCode::TOO_MANY_REQUESTS);
    // The right PIN from a device that typed no wrong one is not kept out.
    let fresh: IpAddr = "10.3.0.1".parse().unwrap();
    assert!(a.teacher_login(fresh, || true).is_ok());
}

#[test]
fn one_question_in_flight_and_the_minutes_limit_are_per_address() {
    let a = Access::new(true, vec![]);
    let code = a.code().unwrap();
    let ip: IpAddr = "10.0.0.77".parse().unwrap();
    let first = a.join(ip, &code, "Asha").unwrap();
    a.begin_question(&first).unwrap();
    // Joining again ends the first session (one seat per device), but its question is still
    // in flight: no second one.
    let second = a.join(ip, &code, "Asha again").unwrap();
    assert!(a.name_of(&first).is_none());
    assert_eq!(
        a.begin_question(&second).unwrap_err().status(),
        StatusCode::TOO_MANY_REQUESTS,
        "joining again is no second question in flight"
    );
    a.end_question(&first, None);
    for _ in 1..QUESTIONS_PER_MINUTE {
        a.begin_question(&second).unwrap();
        a.end_question(&second, None);
    }
    // Joining once more does not start the count again.
    let third = a.join(ip, &code, "Asha a third time").unwrap();
    assert_eq!(
        a.begin_question(&third).unwrap_err().status(),
        StatusCode::TOO_MANY_REQUESTS
    );
}

#[test]
fn an_address_the_laptop_gave_up_is_no_longer_the_teacher() {
    // The laptop holds 192.168.1.5; then DHCP gives it .9 and .5 goes to a student's phone.
    let held = std::sync::Arc::new(std::sync::Mutex::new(vec![IpAddr::from([192, 168, 1, 5])]));
    let read = {
        let held = held.clone();
        move || held.lock().unwrap().clone()
    };
    let a = Access::reading(true, read);
    let t0 = Instant::now();
    let old: IpAddr = "192.168.1.5".parse().unwrap();
    let new: IpAddr = "192.168.1.9".parse().unwrap();
    assert!(a.is_local_at(old, t0));
    assert!(!a.is_local_at(new, t0));
    *held.lock().unwrap() = vec![new];
    let later = t0 + Duration::from_secs(OWN_ADDRESSES_S + 1);
    assert!(
        !a.is_local_at(old, later),
        "an address the laptop gave up still counts as the laptop"
    );
    assert!(a.is_local_at(new, later), "the laptop's new address");
    // Loopback is always this machine.
    assert!(a.is_local_at("127.0.0.1".parse().unwrap(), later));
}

#[test]
fn a_session_stays_with_the_address_it_was_made_on() {
    let a = Access::new(true, vec![]);
    let code = a.code().unwrap();
    let now = Instant::now();
    let phone: IpAddr = "10.0.0.21".parse().unwrap();
    let other: IpAddr = "10.0.0.22".parse().unwrap();
    let student = a.join_at(phone, &code, "Asha", now).unwrap();
    assert_eq!(
        a.caller_at(&student, phone, now),
        Caller::Student(student.clone())
    );
    assert_eq!(
        a.caller_at(&student, other, now),
        Caller::Anonymous,
        "a student's cookie from another device"
    );
    let tablet: IpAddr = "10.0.0.30".parse().unwrap();
    let teacher = a.teacher_login(tablet, || true).unwrap();
    assert_eq!(a.caller_at(&teacher, tablet, now), Caller::Teacher);
    assert_eq!(
        a.caller_at(&teacher, other, now),
        Caller::Anonymous,
        "a PIN session's cookie from another device"
    );
    // The session was not ended by the attempt: the tablet still holds it.
    assert_eq!(a.caller_at(&teacher, tablet, now), Caller::Teacher);
}

#[test]
fn wrong_pins_from_a_few_devices_do_not_keep_the_teacher_out() {
    let a = Access::new(true, vec![]);
    // Five wrong PINs from each of four devices (20 in all): each is locked out.
    for d in 0..4u8 {
        let ip = IpAddr::from([10, 4, 0, d]);
        for _ in 0..MAX_TRIES {
            assert_eq!(
                a.teacher_login(ip, || false).unwrap_err().status(),
                StatusCode::FORBIDDEN
            );
        }
        assert_eq!(
            a.teacher_login(ip, || true).unwrap_err().status(),
            StatusCode::TOO_MANY_REQUESTS,
            "the guessing device waits, even with the right PIN"
        );
    }
    // The teacher's tablet still signs in with the right PIN.
    let tablet: IpAddr = "10.4.1.1".parse().unwrap();
    assert!(a.teacher_login(tablet, || true).is_ok());
    // While so many wrong PINs are about, a device waits after its first wrong one.
    let another: IpAddr = "10.4.1.2".parse().unwrap();
    assert_eq!(
        a.teacher_login(another, || false).unwrap_err().status(),
        StatusCode::FORBIDDEN
    );
    let refused = a.teacher_login(another, || true).unwrap_err();
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
}

#[test]
fn a_few_devices_cannot_take_every_seat_of_the_class() {
    let a = Access::new(true, vec![]);
    let code = a.code().unwrap();
    let now = Instant::now();
    // 125 devices joining twice each (the probe filled the class of 250 this way).
    for i in 0..125u32 {
        let ip = IpAddr::from([10, 5, (i / 250) as u8, (i % 250) as u8]);
        for n in 0..2u64 {
            a.join_at(ip, &code, "x", now + Duration::from_secs(n))
                .unwrap();
        }
    }
    assert_eq!(a.students().len(), 125, "one seat per device");
    assert!(
        a.join_at("10.6.0.1".parse().unwrap(), &code, "Meena", now)
            .is_ok(),
        "the class is not full"
    );
}

#[test]
fn a_students_name_device_and_class_are_known_for_the_class_report() {
    let a = Access::new(true, vec![]);
    let code = a.code().unwrap();
    let first = a
        .class_started()
        .expect("a class started with classroom mode");
    let ip: IpAddr = "::ffff:192.168.1.21".parse().unwrap();
    let token = a.join(ip, &code, "  Asha\u{202E} K  ").unwrap();
    let who = a.asker_of(&token).unwrap();
    assert_eq!(who.student, "Asha K");
    assert_eq!(who.device, "192.168.1.21");
    assert_eq!(who.class_started, Some(first));
    assert_eq!(a.asker_of("no such session"), None);
    // A new class: its own start; ending it keeps the start for "since the class started".
    a.start_class();
    assert!(a.class_started().unwrap() >= first);
    a.end_class();
    assert!(a.class_started().is_some());
    assert_eq!(Access::new(false, vec![]).class_started(), None);
}
