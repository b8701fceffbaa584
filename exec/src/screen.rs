//! The attach replay: bytes that put a fresh terminal emulator in the pane's state, not only
//! showing its text.
//!
//! A viewer that attaches (or comes back) to a pane gets, in one piece:
//!
//! 1. a full reset (`ESC c`), then the normal screen's history and its visible lines, so the
//!    history lands in the viewer's scrollback;
//! 2. when the program is on the alternate screen (`vim`, `less`, `htop`, an agent's full-screen
//!    UI): the cursor the program saved on the normal screen, a switch to the alternate screen
//!    (`CSI ? 1049 h`, which saves that cursor) and every visible alternate line at its own row —
//!    so the normal screen and its history are intact beneath and come back when the program
//!    leaves;
//! 3. the modes a program set and expects to keep: the scroll region (`DECSTBM`), origin mode,
//!    auto-wrap, insert mode, application cursor keys (`DECCKM`, so arrow keys keep working in
//!    vim) and the application keypad, the mouse reporting modes (X10/normal, button, any-event;
//!    UTF-8 and SGR encodings), bracketed paste and focus reporting;
//! 4. the cursor: its position (relative to the scroll region under origin mode) and whether it
//!    is shown.
//!
//! tmux answers every one of these as a format variable except bracketed paste and focus
//! reporting (tmux 3.3 has no format for them). Those two are read from the pane log instead:
//! the last switch of each mode (`CSI ? 2004 h/l`, `CSI ? 1004 h/l`) within the log's last
//! [`MODE_SCAN_BYTES`] decides, and a full reset (`ESC c`) after it turns the mode off.
//!
//! What is not restored: the pen's current colours (a program redraws with explicit colours),
//! character-set designations, tab stops other than every eighth column, and the window title.
//!
//! Colours are carried as tmux's `capture-pane -e` writes them: a cell's SGR sequence only where
//! its attributes differ from those of the cell written before it, the previous line's last
//! cell included, and the first line of each capture compared with the default cell. A row
//! that goes on in the colours its previous row ended in (a highlighted block of lines, a
//! full-width selection bar) starts with no sequence at all. Every row is drawn on its own
//! here — a cursor move or a line break before it, and no colour left set across a line break,
//! where a viewer's terminal would paint the line it scrolls in with the current background —
//! so [`Pen`] follows each capture line by line, each row starts by setting the attributes
//! the rows before it left, and ends by putting the default pen back.
//!
//! [`compose`] is a pure function of a [`ScreenState`] and the captured lines, so the byte
//! layout is tested on its own and against a terminal emulator.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::tmux::{Tmux, TmuxError};

/// How far back in the pane log bracketed paste and focus reporting are looked for.
pub const MODE_SCAN_BYTES: u64 = 256 * 1024;

/// Most bytes of one replay; the oldest history lines are left out to fit (the answer then
/// fits one 1 MiB frame of the node link in base64).
pub const MAX_REPLAY_BYTES: usize = 600 * 1024;

/// The tmux format that [`ScreenState::parse`] reads (one line, words separated by spaces).
pub const STATE_FORMAT: &str = "#{pane_width},#{pane_height},#{cursor_x},#{cursor_y},\
#{cursor_flag},#{alternate_on},#{alternate_saved_x},#{alternate_saved_y},#{keypad_cursor_flag},\
#{keypad_flag},#{insert_flag},#{origin_flag},#{wrap_flag},#{mouse_standard_flag},\
#{mouse_button_flag},#{mouse_all_flag},#{mouse_utf8_flag},#{mouse_sgr_flag},\
#{scroll_region_upper},#{scroll_region_lower},#{history_size}";

/// Everything about a pane's terminal that the replay restores besides its text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScreenState {
    /// Grid width.
    pub cols: u16,
    /// Grid height.
    pub rows: u16,
    /// Cursor column (0-based, viewport).
    pub cursor_x: u16,
    /// Cursor row (0-based, viewport).
    pub cursor_y: u16,
    /// Whether the cursor is shown.
    pub cursor_visible: bool,
    /// Whether the program is on the alternate screen.
    pub alternate_on: bool,
    /// The normal screen's cursor saved when the alternate screen was entered.
    pub saved_x: u16,
    /// See `saved_x`.
    pub saved_y: u16,
    /// Application cursor keys (`DECCKM`).
    pub app_cursor: bool,
    /// Application keypad (`DECKPAM`).
    pub app_keypad: bool,
    /// Insert mode (`IRM`).
    pub insert: bool,
    /// Origin mode (`DECOM`).
    pub origin: bool,
    /// Auto-wrap (`DECAWM`).
    pub wrap: bool,
    /// X10/normal mouse reporting (1000).
    pub mouse_standard: bool,
    /// Button-event mouse reporting (1002).
    pub mouse_button: bool,
    /// Any-event mouse reporting (1003; tmux's `mouse_all_flag`).
    pub mouse_any: bool,
    /// UTF-8 mouse encoding (1005).
    pub mouse_utf8: bool,
    /// SGR mouse encoding (1006).
    pub mouse_sgr: bool,
    /// Top of the scroll region (0-based).
    pub scroll_upper: u16,
    /// Bottom of the scroll region (0-based, inclusive).
    pub scroll_lower: u16,
    /// Lines of history the pane holds.
    pub history: u32,
    /// Bracketed paste (2004), from the pane log.
    pub bracketed_paste: bool,
    /// Focus reporting (1004), from the pane log.
    pub focus_events: bool,
}

impl ScreenState {
    /// Reads the answer to [`STATE_FORMAT`]; `None` when it is not one.
    ///
    /// tmux prints an empty word for a variable that does not apply (the saved cursor while the
    /// normal screen is on): an empty number reads as 0, an empty flag as off.
    #[must_use]
    pub fn parse(line: &str) -> Option<Self> {
        let w: Vec<&str> = line.trim().split(',').collect();
        if w.len() != 21 {
            return None;
        }
        // tmux prints an unset saved cursor as 4294967295: out-of-range numbers read as 0.
        let n = |i: usize| match w[i] {
            "" => Some(0),
            v => v.parse::<u64>().ok().map(|v| u16::try_from(v).unwrap_or(0)),
        };
        let f = |i: usize| match w[i] {
            "1" => Some(true),
            "0" | "" => Some(false),
            _ => None,
        };
        Some(Self {
            cols: n(0)?,
            rows: n(1)?,
            cursor_x: n(2)?,
            cursor_y: n(3)?,
            cursor_visible: f(4)?,
            alternate_on: f(5)?,
            saved_x: n(6)?,
            saved_y: n(7)?,
            app_cursor: f(8)?,
            app_keypad: f(9)?,
            insert: f(10)?,
            origin: f(11)?,
            wrap: f(12)?,
            mouse_standard: f(13)?,
            mouse_button: f(14)?,
            mouse_any: f(15)?,
            mouse_utf8: f(16)?,
            mouse_sgr: f(17)?,
            scroll_upper: n(18)?,
            scroll_lower: n(19)?,
            history: w[20].parse().ok()?,
            bracketed_paste: false,
            focus_events: false,
        })
    }

    /// Sets bracketed paste and focus reporting from the tail of the pane log.
    pub fn read_log_modes(&mut self, log_tail: &[u8]) {
        self.bracketed_paste = last_switch(log_tail, b"2004").unwrap_or(false);
        self.focus_events = last_switch(log_tail, b"1004").unwrap_or(false);
    }
}

/// The last `CSI ? <mode> h` (true) or `l` (false) in `bytes`, or false after a later full reset.
fn last_switch(bytes: &[u8], mode: &[u8]) -> Option<bool> {
    let mut found = None;
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] != 0x1b {
            i += 1;
            continue;
        }
        if bytes[i + 1] == b'c' {
            found = Some(false);
            i += 2;
            continue;
        }
        if bytes[i + 1] == b'[' && bytes.get(i + 2) == Some(&b'?') {
            // Parameters up to the final byte; several modes may be set at once (`?1049;2004h`).
            let start = i + 3;
            let mut end = start;
            while end < bytes.len() && (bytes[end].is_ascii_digit() || bytes[end] == b';') {
                end += 1;
            }
            if let Some(&fin) = bytes.get(end)
                && (fin == b'h' || fin == b'l')
                && bytes[start..end].split(|&c| c == b';').any(|p| p == mode)
            {
                found = Some(fin == b'h');
            }
            i = end;
            continue;
        }
        i += 1;
    }
    found
}

/// The captured text of a pane, one entry per line, colours as SGR sequences.
#[derive(Clone, Debug, Default)]
pub struct Captured {
    /// History lines of the normal screen, oldest first.
    pub history: Vec<String>,
    /// The normal screen's visible lines (saved beneath the alternate screen when it is on).
    pub normal: Vec<String>,
    /// The alternate screen's visible lines, when it is on.
    pub alternate: Option<Vec<String>>,
}

fn csi(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(b"\x1b[");
    out.extend_from_slice(s.as_bytes());
}

fn flag(out: &mut Vec<u8>, on: bool, mode: &str) {
    if on {
        csi(out, &format!("?{mode}h"));
    }
}

/// The replay bytes for `state` and `text` (see the module documentation for the layout).
/// History is dropped from its oldest end to keep the result under [`MAX_REPLAY_BYTES`].
#[must_use]
pub fn compose(state: &ScreenState, text: &Captured) -> Vec<u8> {
    let rows = usize::from(state.rows.max(1));
    // Each capture is its own stream of attribute changes: its pen starts at the default.
    let history = drawn_rows(text.history.iter().map(String::as_str));
    let visible = drawn_rows(pad(&text.normal, rows));
    let alternate = text.alternate.as_ref().map(|a| drawn_rows(pad(a, rows)));
    let fixed: usize = visible.iter().map(|l| l.len() + 2).sum::<usize>()
        + alternate
            .as_ref()
            .map_or(0, |a| a.iter().map(|l| l.len() + 12).sum())
        + 256;
    let mut budget = MAX_REPLAY_BYTES.saturating_sub(fixed);
    let mut first = history.len();
    while first > 0 && history[first - 1].len() + 2 <= budget {
        budget -= history[first - 1].len() + 2;
        first -= 1;
    }

    let mut out = Vec::with_capacity(MAX_REPLAY_BYTES.min(fixed + 4096));
    // A full reset: every mode off, the default pen, the normal screen, the whole grid as the
    // scroll region.
    out.extend_from_slice(b"\x1bc");
    // The normal screen: history, then the visible lines; the line breaks push the history
    // into the viewer's scrollback.
    for (i, line) in history[first..].iter().chain(visible.iter()).enumerate() {
        if i > 0 {
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(line);
    }
    if let Some(alt) = &alternate {
        // The cursor the program left on the normal screen, saved by the switch.
        csi(
            &mut out,
            &format!(
                "{};{}H",
                u32::from(state.saved_y) + 1,
                u32::from(state.saved_x) + 1
            ),
        );
        csi(&mut out, "?1049h");
        for (row, line) in alt.iter().enumerate() {
            csi(&mut out, &format!("{};1H", row + 1));
            out.extend_from_slice(line);
        }
    }
    // Modes.
    let full_region = state.scroll_upper == 0 && usize::from(state.scroll_lower) + 1 >= rows;
    if !full_region && state.scroll_upper < state.scroll_lower {
        csi(
            &mut out,
            &format!(
                "{};{}r",
                u32::from(state.scroll_upper) + 1,
                u32::from(state.scroll_lower) + 1
            ),
        );
    }
    if !state.wrap {
        csi(&mut out, "?7l");
    }
    if state.insert {
        csi(&mut out, "4h");
    }
    flag(&mut out, state.app_cursor, "1");
    if state.app_keypad {
        out.extend_from_slice(b"\x1b=");
    }
    flag(&mut out, state.mouse_standard, "1000");
    flag(&mut out, state.mouse_button, "1002");
    flag(&mut out, state.mouse_any, "1003");
    flag(&mut out, state.focus_events, "1004");
    flag(&mut out, state.mouse_utf8, "1005");
    flag(&mut out, state.mouse_sgr, "1006");
    flag(&mut out, state.bracketed_paste, "2004");
    // The cursor last: origin mode makes the move relative to the scroll region.
    let y = if state.origin {
        csi(&mut out, "?6h");
        state.cursor_y.saturating_sub(state.scroll_upper)
    } else {
        state.cursor_y
    };
    csi(
        &mut out,
        &format!("{};{}H", u32::from(y) + 1, u32::from(state.cursor_x) + 1),
    );
    if !state.cursor_visible {
        csi(&mut out, "?25l");
    }
    out
}

/// Exactly `rows` lines: missing ones empty, extra ones (never expected) dropped.
fn pad(lines: &[String], rows: usize) -> impl Iterator<Item = &str> {
    lines
        .iter()
        .map(String::as_str)
        .chain(std::iter::repeat(""))
        .take(rows)
}

/// The lines of one capture, each as bytes that draw it on its own: the pen the lines before
/// it left, its text, and the default pen again when it ends with another.
fn drawn_rows<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<Vec<u8>> {
    let mut pen = Pen::default();
    lines
        .map(|line| {
            let mut row = Vec::with_capacity(line.len() + 8);
            if !line.is_empty() {
                pen.set(&mut row);
                row.extend_from_slice(line.as_bytes());
                pen.follow(line);
                pen.reset(&mut row);
            }
            row
        })
        .collect()
}

/// The attributes that tmux's `capture-pane -e` output has set at some point of a capture: what
/// the next cell is drawn with unless a sequence changes it (see the module documentation).
///
/// Parameters are kept as tmux wrote them, so a terminal reads them back as it would have read
/// tmux's own: the attributes in the order they were set, and the last foreground, background and
/// underline colour.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pen {
    /// Attribute parameters (`1`, `4`, `4:3`, `7`, …), each once, in the order they were set.
    attrs: Vec<String>,
    /// The foreground colour's parameters (`31`, `38;5;208`, `38;2;1;2;3`, `93`).
    fg: Option<String>,
    /// The background colour's parameters.
    bg: Option<String>,
    /// The underline colour's parameters (`58;5;n`, `58;2;r;g;b`).
    underline_colour: Option<String>,
    /// Shifted out (`SO`) to the G1 character set (tmux's line-drawing cells).
    shifted: bool,
}

impl Pen {
    /// Whether nothing but the default is set.
    #[must_use]
    pub fn is_default(&self) -> bool {
        self.attrs.is_empty()
            && self.fg.is_none()
            && self.bg.is_none()
            && self.underline_colour.is_none()
            && !self.shifted
    }

    /// Follows the SGR sequences and shifts in one captured line.
    pub fn follow(&mut self, line: &str) {
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                0x0e => self.shifted = true,
                0x0f => self.shifted = false,
                0x1b if b.get(i + 1) == Some(&b'[') => {
                    // Parameter bytes, intermediate bytes, then the final byte.
                    let start = i + 2;
                    let mut end = start;
                    while end < b.len() && (0x20..=0x3f).contains(&b[end]) {
                        end += 1;
                    }
                    if b.get(end) == Some(&b'm') {
                        self.apply(line.get(start..end).unwrap_or(""));
                    }
                    i = end;
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// Applies the parameters of one SGR sequence.
    fn apply(&mut self, params: &str) {
        let p: Vec<&str> = params.split(';').collect();
        let mut i = 0;
        while i < p.len() {
            let word = p[i];
            match word {
                "" | "0" => {
                    self.attrs.clear();
                    self.fg = None;
                    self.bg = None;
                    self.underline_colour = None;
                }
                "38" | "48" | "58" => {
                    // A colour in semicolon form takes the words after it: `5;n` or `2;r;g;b`.
                    let take = match p.get(i + 1).copied() {
                        Some("5") => 3,
                        Some("2") => 5,
                        _ => 1,
                    };
                    let end = (i + take).min(p.len());
                    let colour = p[i..end].join(";");
                    i = end - 1;
                    if take > 1 {
                        self.set_colour(word, colour);
                    }
                }
                w if w.starts_with("38:") || w.starts_with("48:") || w.starts_with("58:") => {
                    self.set_colour(&w[..2], w.to_owned());
                }
                "39" => self.fg = None,
                "49" => self.bg = None,
                "59" => self.underline_colour = None,
                w => match w.parse::<u16>() {
                    Ok(30..=37 | 90..=97) => self.fg = Some(w.to_owned()),
                    Ok(40..=47 | 100..=107) => self.bg = Some(w.to_owned()),
                    Ok(22) => self.unset(&["1", "2"]),
                    Ok(23) => self.unset(&["3"]),
                    Ok(24) => self.unset(&["4"]),
                    Ok(25) => self.unset(&["5", "6"]),
                    Ok(27) => self.unset(&["7"]),
                    Ok(28) => self.unset(&["8"]),
                    Ok(29) => self.unset(&["9"]),
                    Ok(55) => self.unset(&["53"]),
                    _ if w == "4:0" => self.unset(&["4"]),
                    _ => {
                        if !self.attrs.iter().any(|a| a == w) {
                            self.attrs.push(w.to_owned());
                        }
                    }
                },
            }
            i += 1;
        }
    }

    fn set_colour(&mut self, kind: &str, colour: String) {
        match kind {
            "38" => self.fg = Some(colour),
            "48" => self.bg = Some(colour),
            _ => self.underline_colour = Some(colour),
        }
    }

    /// Removes the attributes `codes` (and their `code:style` forms).
    fn unset(&mut self, codes: &[&str]) {
        self.attrs.retain(|a| {
            let head = a.split(':').next().unwrap_or(a);
            !codes.contains(&head)
        });
    }

    /// Writes what sets this pen on a terminal whose pen is the default.
    pub fn set(&self, out: &mut Vec<u8>) {
        if !self.attrs.is_empty() {
            csi(out, &format!("{}m", self.attrs.join(";")));
        }
        for colour in [&self.fg, &self.bg, &self.underline_colour]
            .into_iter()
            .flatten()
        {
            csi(out, &format!("{colour}m"));
        }
        if self.shifted {
            out.push(0x0e);
        }
    }

    /// Writes what puts the default pen back after this one.
    pub fn reset(&self, out: &mut Vec<u8>) {
        if !self.attrs.is_empty()
            || self.fg.is_some()
            || self.bg.is_some()
            || self.underline_colour.is_some()
        {
            out.extend_from_slice(b"\x1b[0m");
        }
        if self.shifted {
            out.push(0x0f);
        }
    }
}

/// Splits tmux's capture output into lines (the final line break ends the last line).
#[must_use]
pub fn split_lines(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text.split('\n').map(str::to_owned).collect();
    if text.ends_with('\n') {
        v.pop();
    }
    v
}

/// Attempts at a capture the pane log did not grow during (see [`replay`]).
const STEADY_ATTEMPTS: usize = 4;

fn capture(tmux: &Tmux, target: &str, extra: &[&str]) -> Result<Vec<String>, TmuxError> {
    let mut args = vec!["capture-pane", "-p", "-e", "-t", target];
    args.extend_from_slice(extra);
    Ok(split_lines(&tmux.run(&args)?))
}

fn log_size(log: &Path) -> u64 {
    std::fs::metadata(log).map_or(0, |m| m.len())
}

fn log_tail(log: &Path, end: u64) -> Vec<u8> {
    let start = end.saturating_sub(MODE_SCAN_BYTES);
    let mut buf = Vec::new();
    if let Ok(mut f) = std::fs::File::open(log)
        && f.seek(SeekFrom::Start(start)).is_ok()
    {
        let _ = f.take(end - start).read_to_end(&mut buf);
    }
    buf
}

/// The replay of pane `target` with up to `lines` lines of history, and the pane-log offset it
/// stands for: output from that offset on follows the replay exactly. `Ok(None)` when the
/// pane is gone.
///
/// The offset is the log's size around a capture during which the log did not grow (tried
/// [`STEADY_ATTEMPTS`] times; a pane that never stops printing gets the size after the last
/// capture, and its viewer may see a few bytes twice). The log is written by the pane's own
/// `cat`, which may trail tmux's screen by a scheduling moment; a replay taken in that moment
/// answers an offset a few bytes early, with the same effect (bytes seen twice, never lost), and
/// reads bracketed paste and focus reporting as they were before those bytes.
///
/// # Errors
/// A tmux failure other than the pane being gone.
pub fn replay(
    tmux: &Tmux,
    target: &str,
    log: &Path,
    lines: u32,
) -> Result<Option<Replay>, TmuxError> {
    let mut last = None;
    for _ in 0..STEADY_ATTEMPTS {
        let before = log_size(log);
        let state = match tmux.query(target, STATE_FORMAT) {
            Ok(line) => match ScreenState::parse(&line) {
                Some(s) => s,
                None => return Ok(None),
            },
            Err(e) if e.is_authoritative_gone() => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut text = Captured::default();
        let history = lines.min(state.history);
        if history > 0 {
            let from = format!("-{history}");
            text.history = capture(tmux, target, &["-S", &from, "-E", "-1"])?;
        }
        if state.alternate_on {
            text.normal = capture(tmux, target, &["-a", "-N", "-q"])?;
            text.alternate = Some(capture(tmux, target, &["-N"])?);
        } else {
            text.normal = capture(tmux, target, &["-N"])?;
        }
        let after = log_size(log);
        last = Some((state, text, after));
        if before == after {
            break;
        }
    }
    let Some((mut state, text, offset)) = last else {
        return Ok(None);
    };
    state.read_log_modes(&log_tail(log, offset));
    Ok(Some(Replay {
        bytes: compose(&state, &text),
        log_offset: offset,
        cols: state.cols,
        rows: state.rows,
        alternate: state.alternate_on,
    }))
}

/// A composed replay.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The bytes to write to a fresh terminal.
    pub bytes: Vec<u8>,
    /// The pane-log offset the replay stands for.
    pub log_offset: u64,
    /// The pane's grid.
    pub cols: u16,
    /// See `cols`.
    pub rows: u16,
    /// Whether the program was on the alternate screen.
    pub alternate: bool,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_state_line_is_read_word_by_word() {
        let s = ScreenState::parse("80,24,3,4,1,1,5,6,1,0,0,0,1,1,0,0,0,1,2,20,99\n").unwrap();
        assert_eq!((s.cols, s.rows, s.cursor_x, s.cursor_y), (80, 24, 3, 4));
        assert!(s.cursor_visible && s.alternate_on && s.app_cursor && !s.app_keypad);
        assert_eq!((s.saved_x, s.saved_y), (5, 6));
        assert!(s.wrap && s.mouse_standard && s.mouse_sgr && !s.mouse_any);
        assert_eq!((s.scroll_upper, s.scroll_lower, s.history), (2, 20, 99));
        // A missing word or a flag that is not 0/1 is no answer.
        assert!(ScreenState::parse("80,24,3,4,1,1,5,6,1,0,0,0,1,1,0,0,0,1,2,20").is_none());
        assert!(ScreenState::parse("80,24,3,4,x,1,5,6,1,0,0,0,1,1,0,0,0,1,2,20,9").is_none());
        assert!(ScreenState::parse("").is_none());
        // The saved cursor is empty on the normal screen.
        let s = ScreenState::parse("80,24,3,4,1,0,,,0,0,0,0,1,0,0,0,0,0,0,23,0").unwrap();
        assert_eq!((s.saved_x, s.saved_y, s.alternate_on), (0, 0, false));
        let s =
            ScreenState::parse("80,24,3,4,1,0,4294967295,4294967295,0,0,0,0,1,0,0,0,0,0,0,23,0")
                .unwrap();
        assert_eq!((s.saved_x, s.saved_y, s.alternate_on), (0, 0, false));
    }

    #[test]
    fn the_last_mode_switch_in_the_log_decides() {
        assert_eq!(last_switch(b"ab\x1b[?2004hcd", b"2004"), Some(true));
        assert_eq!(
            last_switch(b"\x1b[?2004h..\x1b[?2004l", b"2004"),
            Some(false)
        );
        assert_eq!(last_switch(b"\x1b[?1049;2004h", b"2004"), Some(true));
        assert_eq!(last_switch(b"\x1b[?20041h", b"2004"), None);
        assert_eq!(last_switch(b"\x1b[?2004h\x1bc", b"2004"), Some(false));
        assert_eq!(last_switch(b"\x1b[?2004", b"2004"), None);
        assert_eq!(last_switch(b"", b"2004"), None);
    }

    #[test]
    fn history_is_dropped_oldest_first_to_fit() {
        let line = "x".repeat(1000);
        let text = Captured {
            history: (0..2000).map(|i| format!("{i:05}{line}")).collect(),
            normal: vec!["$ ".into()],
            alternate: None,
        };
        let state = ScreenState {
            cols: 80,
            rows: 24,
            wrap: true,
            scroll_lower: 23,
            cursor_visible: true,
            ..ScreenState::default()
        };
        let out = compose(&state, &text);
        assert!(out.len() <= MAX_REPLAY_BYTES, "{}", out.len());
        let s = String::from_utf8(out).unwrap();
        assert!(s.contains("01999x") && !s.contains("00000x"));
    }

    fn shell_state() -> ScreenState {
        ScreenState {
            cols: 20,
            rows: 3,
            wrap: true,
            scroll_lower: 2,
            cursor_visible: true,
            ..ScreenState::default()
        }
    }

    #[test]
    fn the_pen_follows_tmux_sequences_and_resets() {
        let mut pen = Pen::default();
        pen.follow("a\x1b[1;4:3m\x1b[38;5;0m\x1b[48;2;0;0;0mb");
        assert_eq!(pen.attrs, ["1", "4:3"]);
        // A colour's `0` is not a reset.
        assert_eq!(pen.fg.as_deref(), Some("38;5;0"));
        assert_eq!(pen.bg.as_deref(), Some("48;2;0;0;0"));
        let mut out = Vec::new();
        pen.set(&mut out);
        assert_eq!(out, b"\x1b[1;4:3m\x1b[38;5;0m\x1b[48;2;0;0;0m");
        pen.follow("\x1b[0m\x1b[7m\x0ex\x1b[95m");
        assert_eq!(pen.attrs, ["7"]);
        assert_eq!(pen.fg.as_deref(), Some("95"));
        assert!(pen.bg.is_none() && pen.shifted);
        let mut out = Vec::new();
        pen.reset(&mut out);
        assert_eq!(out, b"\x1b[0m\x0f");
        pen.follow("\x0f\x1b[39m\x1b[27m");
        assert!(pen.is_default(), "{pen:?}");
    }

    #[test]
    fn a_row_that_goes_on_in_the_previous_rows_colours_starts_with_them() {
        let text = Captured {
            history: vec![],
            normal: vec!["$ top".into()],
            alternate: Some(vec![
                "a\x1b[1m\x1b[33m\x1b[44mbc".into(),
                "de\x1b[0mf".into(),
                "g".into(),
            ]),
        };
        let state = ScreenState {
            alternate_on: true,
            ..shell_state()
        };
        let s = String::from_utf8(compose(&state, &text)).unwrap();
        assert!(
            s.contains("\x1b[1;1Ha\x1b[1m\x1b[33m\x1b[44mbc\x1b[0m\x1b[2;1H\x1b[1m\x1b[33m\x1b[44mde\x1b[0mf\x1b[3;1Hg"),
            "{s:?}"
        );
    }

    #[test]
    fn no_line_break_is_written_with_a_colour_set() {
        let text = Captured {
            history: vec!["x \x1b[44mblue".into(), "more".into()],
            normal: vec!["\x1b[49mplain \x1b[41mred".into(), "\x1b[7mrev".into()],
            alternate: None,
        };
        let state = ScreenState {
            rows: 2,
            scroll_lower: 1,
            ..shell_state()
        };
        let s = String::from_utf8(compose(&state, &text)).unwrap();
        let segments: Vec<&str> = s.split("\r\n").collect();
        assert_eq!(segments.len(), 4, "{s:?}");
        for seg in &segments[..3] {
            let mut pen = Pen::default();
            pen.follow(seg);
            assert!(pen.is_default(), "{seg:?} leaves {pen:?}");
        }
        // The history goes on blue; the visible lines are a capture of their own, which starts
        // from the default pen.
        assert_eq!(segments[1], "\x1b[44mmore\x1b[0m");
        assert_eq!(segments[2], "\x1b[49mplain \x1b[41mred\x1b[0m");
        assert!(
            segments[3].starts_with("\x1b[41m\x1b[7mrev\x1b[0m"),
            "{s:?}"
        );
    }

    #[test]
    fn history_left_out_to_fit_still_sets_the_colours_of_what_follows() {
        let line = "x".repeat(1000);
        let mut history: Vec<String> = (0..2000).map(|i| format!("{i:05}{line}")).collect();
        history[0] = format!("\x1b[41m{}", history[0]);
        let text = Captured {
            history,
            normal: vec!["$ ".into()],
            alternate: None,
        };
        let out = compose(&shell_state(), &text);
        let s = String::from_utf8(out).unwrap();
        assert!(!s.contains("00000x"));
        let first = s.strip_prefix("\x1bc").unwrap();
        assert!(first.starts_with("\x1b[41m0"), "{:?}", &first[..20]);
        // The visible lines are a capture of their own: nothing carries into them.
        assert!(s.contains("x\x1b[0m\r\n$ \r\n"), "{:?}", &s[s.len() - 40..]);
    }
}
