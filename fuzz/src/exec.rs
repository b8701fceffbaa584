//! The executor's readers of what tmux prints: the control client's framing of answers, and the
//! attach replay's parsers of the pane state line, the pane log and `capture-pane -e` lines.

use termplane_exec::control::{quote_word, read_scripted};
use termplane_exec::screen::{Captured, MAX_REPLAY_BYTES, Pen, ScreenState, compose, split_lines};

use crate::cuts::Cuts;

/// The closing marker the harness's calls expect (the product's is `tpsync <secret> <n>` with a
/// 128-bit secret of the process; this one is fixed so that seeds can hold it).
pub const CONTROL_MARKER: &str = "tpsync 9f3c2a61d4e8b7005a1c3e2f4b6d8a90 7";

/// What the reference reader sees in a stream of lines.
#[derive(Debug)]
enum Tok {
    /// A notification between blocks.
    Note,
    /// A whole block: its body lines and whether it ended in `%end` (not `%error`).
    Block { body: Vec<String>, ok: bool },
    /// A block that never ended.
    Open,
    /// A line that belongs nowhere (a stray line, an end with no begin, `%exit`).
    Stray,
}

/// The stream's lines as the client reads them: split at newlines, bytes outside UTF-8
/// replaced, a last line with no newline kept.
fn reference_lines(stream: &[u8]) -> Vec<String> {
    let mut pieces: Vec<&[u8]> = stream.split(|&b| b == b'\n').collect();
    if pieces.last().is_some_and(|p| p.is_empty()) {
        pieces.pop();
    }
    pieces
        .into_iter()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect()
}

fn is_note(line: &str) -> bool {
    line.starts_with('%')
        && ["%begin ", "%end ", "%error ", "%exit "]
            .iter()
            .all(|p| !line.starts_with(p))
        && line != "%exit"
}

/// Tokens up to the first stray line or unended block.
fn tokens(lines: &[String]) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut it = lines.iter();
    while let Some(line) = it.next() {
        if is_note(line) {
            out.push(Tok::Note);
            continue;
        }
        let Some(guard) = line.strip_prefix("%begin ") else {
            out.push(Tok::Stray);
            return out;
        };
        let (end, error) = (format!("%end {guard}"), format!("%error {guard}"));
        let mut body = Vec::new();
        let mut closed = None;
        for l in it.by_ref() {
            if *l == end || *l == error {
                closed = Some(*l == end);
                break;
            }
            body.push(l.clone());
        }
        match closed {
            Some(ok) => out.push(Tok::Block { body, ok }),
            None => {
                out.push(Tok::Open);
                return out;
            }
        }
    }
    out
}

fn text(body: &[String]) -> String {
    body.iter().map(|l| format!("{l}\n")).collect()
}

type Answer = (Result<String, String>, Vec<Result<(), String>>);

/// The answer a call that sent `skip` commands unanswered must accept, or `None` when it must
/// refuse the stream: exactly `skip` blocks that are empty or errors, the command's block,
/// then a block holding the marker alone; notifications only between blocks.
fn expected_answer(toks: &[Tok], skip: usize) -> Option<Answer> {
    let blocks: Vec<(&Vec<String>, bool)> = toks
        .iter()
        .filter(|t| !matches!(t, Tok::Note))
        .map_while(|t| match t {
            Tok::Block { body, ok } => Some((body, *ok)),
            _ => None,
        })
        .collect();
    if blocks.len() < skip + 2 {
        return None;
    }
    let mut unanswered = Vec::new();
    for (body, ok) in &blocks[..skip] {
        match (ok, body.is_empty()) {
            (true, true) => unanswered.push(Ok(())),
            (true, false) => return None,
            (false, _) => unanswered.push(Err(text(body).trim_end().to_owned())),
        }
    }
    let (answer, answer_ok) = blocks[skip];
    let (marker, marker_ok) = blocks[skip + 1];
    let is_marker = |b: &Vec<String>| b.len() == 1 && b[0] == CONTROL_MARKER;
    if !marker_ok || !is_marker(marker) || (answer_ok && is_marker(answer)) {
        return None;
    }
    let answer = if answer_ok {
        Ok(text(answer))
    } else {
        Err(text(answer))
    };
    Some((answer, unanswered))
}

/// Undoes [`quote_word`] as tmux's parser reads it: single-quoted runs taken as they are,
/// double-quoted runs of three-digit octal escapes; nothing outside quotes.
fn unquote(q: &str) -> Option<Vec<u8>> {
    let b = q.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\'' => {
                let len = b[i + 1..].iter().position(|&c| c == b'\'')?;
                out.extend_from_slice(&b[i + 1..i + 1 + len]);
                i += len + 2;
            }
            b'"' => {
                i += 1;
                while *b.get(i)? != b'"' {
                    let digits = b.get(i..i + 4)?;
                    if digits[0] != b'\\' || !digits[1..].iter().all(|d| (b'0'..=b'7').contains(d))
                    {
                        return None;
                    }
                    let v = digits[1..]
                        .iter()
                        .fold(0_u32, |v, d| v * 8 + u32::from(d - b'0'));
                    out.push(u8::try_from(v).ok()?);
                    i += 4;
                }
                i += 1;
            }
            _ => return None,
        }
    }
    Some(out)
}

/// The control client's readers on arbitrary tmux output, cut at seed-chosen places: the
/// answer is accepted exactly when the stream is `skip` unanswered blocks, the command's block
/// and the marker's block (so an answer is never taken without its marker), and then it is the
/// command's block; the settling reader and the attach agree with the same reference; every
/// word quoted for tmux reads back as exactly itself and holds no line break.
pub fn tmux_control(data: &[u8]) {
    let [flags, seed, stream @ ..] = data else {
        return;
    };
    let skip = usize::from(flags & 3);
    let chunks = Cuts::for_stream(*seed, stream.len()).split(stream);
    let got = read_scripted(&chunks, skip, CONTROL_MARKER);
    let lines = reference_lines(stream);
    let toks = tokens(&lines);

    match (expected_answer(&toks, skip), &got.answer) {
        (Some((answer, unanswered)), Ok(a)) => {
            assert_eq!(a, &answer, "the accepted answer is not the command's block");
            assert_eq!(got.unanswered, unanswered);
        }
        (None, Err(_)) => {}
        (want, got) => panic!("answer {got:?}, the reference says {want:?}"),
    }
    if got.answer.is_ok() {
        assert!(
            lines.iter().any(|l| l == CONTROL_MARKER),
            "an answer accepted without its marker"
        );
    }

    let mut blocks = Vec::new();
    let mut end = Err(());
    for t in &toks {
        match t {
            Tok::Note => {}
            Tok::Block { body, ok } => {
                blocks.push(if *ok { Ok(text(body)) } else { Err(text(body)) });
            }
            Tok::Open => end = Ok(()),
            Tok::Stray => end = Err(()),
        }
    }
    assert_eq!(got.blocks, (blocks, end), "the settling reader disagrees");

    let attached = toks
        .iter()
        .find(|t| !matches!(t, Tok::Note))
        .is_some_and(|t| matches!(t, Tok::Block { ok: true, .. }));
    assert_eq!(got.attached.is_ok(), attached, "{:?}", got.attached);

    // Quoting goes character by character: a word's first 4 KiB show all it does.
    let word = String::from_utf8_lossy(&stream[..stream.len().min(4096)]);
    let quoted = quote_word(&word);
    assert!(!quoted.is_empty() && !quoted.contains(['\n', '\r']));
    assert_eq!(
        unquote(&quoted).as_deref(),
        Some(word.as_bytes()),
        "{quoted:?}"
    );
}

/// A captured line reduced to what `capture-pane -e` can print: text, whole SGR sequences and
/// the shifts to and from line drawing (other controls and escapes dropped).
fn tmux_shaped(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => {
                if chars.peek() != Some(&'[') {
                    continue;
                }
                let mut seq = String::from("\x1b[");
                chars.next();
                while let Some(&p) = chars.peek() {
                    if !(p.is_ascii_digit() || p == ';' || p == ':') {
                        break;
                    }
                    seq.push(p);
                    chars.next();
                }
                if chars.peek() == Some(&'m') {
                    chars.next();
                    seq.push('m');
                    out.push_str(&seq);
                } else {
                    out.push_str(&seq[1..]);
                }
            }
            '\x0e' | '\x0f' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

fn print_state(s: &ScreenState) -> String {
    let f = |b: bool| if b { "1" } else { "0" };
    format!(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        s.cols,
        s.rows,
        s.cursor_x,
        s.cursor_y,
        f(s.cursor_visible),
        f(s.alternate_on),
        s.saved_x,
        s.saved_y,
        f(s.app_cursor),
        f(s.app_keypad),
        f(s.insert),
        f(s.origin),
        f(s.wrap),
        f(s.mouse_standard),
        f(s.mouse_button),
        f(s.mouse_any),
        f(s.mouse_utf8),
        f(s.mouse_sgr),
        s.scroll_upper,
        s.scroll_lower,
        s.history
    )
}

/// The attach replay's parsers and composer: a state line that parses prints back to itself;
/// the last mode switch in the pane log wins, and a full reset turns both modes off; a
/// replay keeps the newest history that fits under its cap, draws every row on its own with
/// the default pen restored at its end, and carries each captured line's text.
///
/// Input: 19 bytes of state (modes, width, height, cursor, saved cursor, scroll region), then
/// NUL-separated sections: a state line, a pane log, history, the normal screen, the alternate
/// screen (present when the section is), and text given to the composer unchanged.
pub fn pane_screen(data: &[u8]) {
    let Some((head, rest)) = data.split_first_chunk::<19>() else {
        return;
    };
    let word = |i: usize| u16::from_be_bytes([head[i], head[i + 1]]);
    let mut sections = rest.split(|&b| b == 0);
    let mut section = || sections.next();
    let state_line = String::from_utf8_lossy(section().unwrap_or_default());
    let log = section().unwrap_or_default();
    let history = String::from_utf8_lossy(section().unwrap_or_default()).into_owned();
    let normal = String::from_utf8_lossy(section().unwrap_or_default()).into_owned();
    let alternate = section().map(|a| String::from_utf8_lossy(a).into_owned());
    let raw = String::from_utf8_lossy(section().unwrap_or_default()).into_owned();

    if let Some(s) = ScreenState::parse(&state_line) {
        assert_eq!(ScreenState::parse(&print_state(&s)), Some(s));
    }

    let modes = |tail: &[u8]| {
        let mut log = log.to_vec();
        log.extend_from_slice(tail);
        let mut s = ScreenState::default();
        s.read_log_modes(&log);
        (s.bracketed_paste, s.focus_events)
    };
    let (paste, focus) = modes(b"");
    assert_eq!(modes(b"\x1b[?2004h"), (true, focus));
    assert_eq!(modes(b"\x1b[?2004l"), (false, focus));
    assert_eq!(modes(b"\x1b[?1004;2004h"), (true, true));
    assert_eq!(modes(b"\x1b[?1049;1004h"), (paste, true));
    assert_eq!(modes(b"\x1bc"), (false, false));

    let mut pen = Pen::default();
    pen.follow(&raw);

    let m = u32::from_be_bytes([head[0], head[1], head[2], head[3]]);
    let bit = |i: u32| m >> i & 1 == 1;
    let state = ScreenState {
        cols: word(4),
        rows: u16::from(head[6]),
        cursor_x: word(7),
        cursor_y: word(9),
        cursor_visible: bit(0),
        alternate_on: alternate.is_some(),
        saved_x: word(11),
        saved_y: word(13),
        app_cursor: bit(1),
        app_keypad: bit(2),
        insert: bit(3),
        origin: bit(4),
        wrap: bit(5),
        mouse_standard: bit(6),
        mouse_button: bit(7),
        mouse_any: bit(8),
        mouse_utf8: bit(9),
        mouse_sgr: bit(10),
        scroll_upper: word(15),
        scroll_lower: word(17),
        history: 0,
        bracketed_paste: bit(11),
        focus_events: bit(12),
    };
    // Mostly tmux-shaped lines; sometimes the text as it came, which must only not panic.
    let raw_text = bit(13);
    let lines = |text: &str| -> Vec<String> {
        let lines = split_lines(text);
        if raw_text {
            lines
        } else {
            lines.iter().map(|l| tmux_shaped(l)).collect()
        }
    };
    let text = Captured {
        history: lines(&history),
        normal: lines(&normal),
        alternate: alternate.as_deref().map(lines),
    };
    let out = compose(&state, &text);
    assert!(out.starts_with(b"\x1bc"));
    let without_history = compose(
        &state,
        &Captured {
            history: Vec::new(),
            ..text.clone()
        },
    );
    assert!(
        out.len() <= MAX_REPLAY_BYTES.max(without_history.len()),
        "a replay of {} bytes kept history past the cap",
        out.len()
    );
    if raw_text {
        return;
    }

    // The same text in a state that sets no mode: the replay is then the rows joined by line
    // breaks and the cursor's move, so each row can be looked at alone.
    let plain = ScreenState {
        cols: state.cols,
        rows: state.rows,
        cursor_visible: true,
        wrap: true,
        scroll_lower: u16::MAX,
        ..ScreenState::default()
    };
    let plain_text = Captured {
        alternate: None,
        ..text.clone()
    };
    let out = compose(&plain, &plain_text);
    let body = out
        .strip_prefix(b"\x1bc")
        .and_then(|b| b.strip_suffix(b"\x1b[1;1H"))
        .expect("a replay with no modes is a reset, rows and the cursor");
    let mut rows: Vec<&[u8]> = Vec::new();
    let mut rest = body;
    while let Some(i) = rest.windows(2).position(|w| w == b"\r\n") {
        rows.push(&rest[..i]);
        rest = &rest[i + 2..];
    }
    rows.push(rest);
    let visible = usize::from(plain.rows.max(1));
    assert!(rows.len() >= visible, "{} rows for {visible}", rows.len());
    let kept = rows.len() - visible;
    assert!(kept <= plain_text.history.len());
    let expected: Vec<&String> = plain_text.history[plain_text.history.len() - kept..]
        .iter()
        .chain(plain_text.normal.iter().take(visible))
        .collect();
    for (row, line) in rows.iter().zip(&expected) {
        let row = std::str::from_utf8(row).expect("rows of UTF-8 lines are UTF-8");
        assert!(row.contains(line.as_str()), "{row:?} lost {line:?}");
        let mut pen = Pen::default();
        pen.follow(row);
        assert!(pen.is_default(), "{row:?} leaves {pen:?} set");
    }
    for row in &rows[kept + plain_text.normal.len().min(visible)..] {
        assert!(row.is_empty(), "a padding row holds {row:?}");
    }
}
