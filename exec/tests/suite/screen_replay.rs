//! The attach replay on a real tmux, checked in a headless terminal emulator (`vt100`): a viewer
//! that comes back to a full-screen program finds the same screen, modes and cursor, and every
//! cell in the colours tmux holds for it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::Duration;

use common::{Node, TempDir, tmux_ok, wait_for};
use serde_json::json;

const COLS: u16 = 100;
const ROWS: u16 = 30;

fn launch(n: &Node, id: &str, argv: serde_json::Value, cwd: &str) {
    n.run(json!({
        "type": "launch", "subshellId": id, "argv": argv,
        "resolve": { "binaryName": "bash" }, "cwd": cwd, "harnessId": "shell",
        "cols": COLS, "rows": ROWS,
    }))
    .unwrap();
}

fn screen_text(n: &Node, id: &str) -> String {
    n.run(json!({ "type": "capture", "subshellId": id }))
        .map(|v| v["text"].as_str().unwrap_or("").to_owned())
        .unwrap_or_default()
}

fn wait_shows(n: &Node, id: &str, text: &str) {
    let ok = wait_for(Duration::from_secs(15), || {
        screen_text(n, id).contains(text).then_some(())
    });
    assert!(
        ok.is_some(),
        "never showed {text:?}:\n{}",
        screen_text(n, id)
    );
}

/// Waits until the pane's log holds `text` and answers the log's size then. The log is written by
/// a `cat` of its own and may trail the screen by a moment; the replay reads the modes tmux has no
/// format for from the log's tail, and answers an offset into it.
fn wait_logged(n: &Node, id: &str, text: &str) -> usize {
    let log = n
        .exec
        .log_path(&termplane_proto::SubshellId::parse(id).unwrap());
    wait_for(Duration::from_secs(15), || {
        let bytes = std::fs::read(&log).ok()?;
        String::from_utf8_lossy(&bytes)
            .contains(text)
            .then_some(bytes.len())
    })
    .unwrap_or_else(|| panic!("the pane log never held {text:?}"))
}

/// The replay answer, and the emulator it leaves behind.
fn replay(n: &Node, id: &str) -> (serde_json::Value, Vec<u8>, vt100::Parser) {
    let v = n
        .run(json!({ "type": "capture", "subshellId": id, "lines": 2000, "replay": true }))
        .unwrap();
    let bytes =
        termplane_proto::key::b64url_decode(v["replay_b64"].as_str().expect("replay bytes"))
            .unwrap();
    let mut p = vt100::Parser::new(ROWS, COLS, 5000);
    p.process(&bytes);
    (v, bytes, p)
}

fn type_text(n: &Node, id: &str, data: &str) {
    n.run(json!({ "type": "input", "subshellId": id, "data": data }))
        .unwrap();
}

fn cursor(n: &Node, id: &str) -> (u64, u64) {
    let v = n
        .run(json!({ "type": "pane_cursor", "subshellId": id }))
        .unwrap();
    (v["y"].as_u64().unwrap(), v["x"].as_u64().unwrap())
}

/// The emulator's rows, trailing blanks trimmed, as tmux's plain capture prints them.
fn rows_of(screen: &vt100::Screen) -> Vec<String> {
    screen
        .rows(0, COLS)
        .map(|r| r.trim_end().to_owned())
        .collect()
}

/// `text` without its CSI sequences (tmux's capture carries colours).
fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut it = text.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\x1b' && it.peek() == Some(&'[') {
            it.next();
            for d in it.by_ref() {
                if ('@'..='~').contains(&d) {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

fn tmux_rows(n: &Node, id: &str) -> Vec<String> {
    let mut v: Vec<String> = plain(&screen_text(n, id))
        .split('\n')
        .map(|l| l.trim_end().to_owned())
        .collect();
    v.resize(usize::from(ROWS), String::new());
    v
}

#[test]
fn a_program_on_the_alternate_screen_comes_back_with_its_modes_cursor_and_the_history_beneath() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("replay-modes");
    n.exec.start().unwrap();
    let cwd = TempDir::new("replay-modes-cwd");
    let id = "a1b2";
    launch(
        &n,
        id,
        json!(["bash", "--norc", "--noprofile"]),
        &cwd.path().to_string_lossy(),
    );
    wait_shows(&n, id, "bash");
    // History: more lines than the grid holds.
    type_text(
        &n,
        id,
        "for i in $(seq 1 60); do echo history-line-$i; done\r",
    );
    wait_shows(&n, id, "history-line-60");
    // A program that enters the alternate screen and sets every mode the replay restores.
    let script = "printf '\\033[?1049h\\033[?1h\\033=\\033[?2004h\\033[?1002h\\033[?1006h\\033[?1004h\
\\033[2J\\033[5;1HALT-SCREEN-''TEXT\\033[3;20r\\033[10;7H\\033[?25l'; sleep 600\r";
    type_text(&n, id, script);
    wait_shows(&n, id, "ALT-SCREEN-TEXT");
    wait_logged(&n, id, "ALT-SCREEN-TEXT");
    let (answer, bytes, mut p) = replay(&n, id);
    assert_eq!(answer["alternate"], true);
    assert_eq!(
        (answer["cols"].as_u64(), answer["rows"].as_u64()),
        (Some(100), Some(30))
    );
    let s = p.screen();
    assert!(s.alternate_screen(), "not on the alternate screen");
    assert!(s.application_cursor(), "application cursor keys lost");
    assert!(s.application_keypad(), "application keypad lost");
    assert!(s.bracketed_paste(), "bracketed paste lost");
    assert!(s.hide_cursor(), "the hidden cursor shows");
    assert_eq!(
        s.mouse_protocol_mode(),
        vt100::MouseProtocolMode::ButtonMotion
    );
    assert_eq!(
        s.mouse_protocol_encoding(),
        vt100::MouseProtocolEncoding::Sgr
    );
    assert_eq!(s.cursor_position(), (9, 6), "cursor");
    assert_eq!(
        rows_of(s),
        tmux_rows(&n, id),
        "the alternate screen differs"
    );
    // vt100 keeps the scroll region private: the bytes carry it (rows 3 to 20), and a line feed
    // at its bottom row scrolls inside it only.
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("\x1b[3;20r"), "scroll region not restored");
    assert!(text.contains("\x1b[?1004h"), "focus reporting not restored");
    // Leaving the program gives back the normal screen and its history, untouched.
    p.process(b"\x1b[?1049l");
    let normal = p.screen().contents();
    assert!(normal.contains("history-line-60"), "{normal}");
    p.screen_mut().set_scrollback(40);
    assert!(
        p.screen().contents().contains("history-line-25"),
        "history lost"
    );
}

#[test]
fn arrow_keys_still_move_vim_after_a_reattach() {
    if !tmux_ok() {
        return;
    }
    let Some(vim) = ["vim", "vim.tiny"].into_iter().find(|v| {
        std::process::Command::new(v)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    }) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "vim is missing (apt-get install vim-tiny)"
        );
        eprintln!("note: vim is not installed; this test checked nothing");
        return;
    };
    let n = Node::new("replay-vim");
    n.exec.start().unwrap();
    let cwd = TempDir::new("replay-vim-cwd");
    let file = cwd.path().join("notes.txt");
    let body: String = (1..=100).map(|i| format!("line number {i}\n")).collect();
    std::fs::write(&file, body).unwrap();
    let id = "b1c2";
    launch(
        &n,
        id,
        json!([
            vim,
            "-u",
            "NONE",
            "-i",
            "NONE",
            "-N",
            "-n",
            file.to_string_lossy()
        ]),
        &cwd.path().to_string_lossy(),
    );
    wait_shows(&n, id, "line number 20");
    let (answer, _, p) = replay(&n, id);
    assert_eq!(
        answer["alternate"], true,
        "vim runs on the alternate screen"
    );
    let s = p.screen();
    assert!(s.alternate_screen());
    assert_eq!(rows_of(s), tmux_rows(&n, id), "the screen differs");
    let (y, x) = cursor(&n, id);
    assert_eq!(
        s.cursor_position(),
        (u16::try_from(y).unwrap(), u16::try_from(x).unwrap())
    );
    // The viewer's terminal is in the mode vim asked for, so its Down key is what vim reads.
    assert!(
        s.application_cursor(),
        "vim's application cursor mode was not restored"
    );
    let down = if s.application_cursor() {
        "\x1bOB"
    } else {
        "\x1b[B"
    };
    type_text(&n, id, &down.repeat(3));
    let moved = wait_for(Duration::from_secs(5), || {
        (cursor(&n, id).0 == y + 3).then_some(())
    });
    assert!(
        moved.is_some(),
        "the cursor did not move down three rows: {:?}",
        cursor(&n, id)
    );
    type_text(&n, id, "\x1b:q!\r");
}

#[test]
fn a_shell_pane_replays_its_text_colours_and_cursor() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("replay-shell");
    n.exec.start().unwrap();
    let cwd = TempDir::new("replay-shell-cwd");
    let id = "c1d2";
    launch(
        &n,
        id,
        json!(["bash", "--norc", "--noprofile"]),
        &cwd.path().to_string_lossy(),
    );
    wait_shows(&n, id, "bash");
    type_text(
        &n,
        id,
        "printf '\\033[31mred\\033[0m plain\\n'; echo done-$((40+2))-marker\r",
    );
    wait_shows(&n, id, "done-42-marker\nbash");
    let logged = wait_logged(&n, id, "done-42-marker");
    let (answer, _, p) = replay(&n, id);
    assert_eq!(answer["alternate"], false);
    let s = p.screen();
    assert!(!s.alternate_screen() && !s.application_cursor() && !s.hide_cursor());
    assert_eq!(rows_of(s), tmux_rows(&n, id));
    let (y, x) = cursor(&n, id);
    assert_eq!(
        s.cursor_position(),
        (u16::try_from(y).unwrap(), u16::try_from(x).unwrap())
    );
    // The colour survives: the "r" of "red" is red in the emulator.
    let row = (0..ROWS)
        .find(|r| s.contents_between(*r, 0, *r, COLS).starts_with("red plain"))
        .expect("the red line");
    assert_eq!(s.cell(row, 0).unwrap().fgcolor(), vt100::Color::Idx(1));
    // A log offset comes with the replay: output after it is what follows the replay, so it is
    // past everything the log held before the replay was taken.
    assert!(answer["logOffset"].as_u64().unwrap() >= u64::try_from(logged).unwrap());
    // A pane that is gone answers null.
    assert_eq!(
        n.run(json!({ "type": "capture", "subshellId": "dead", "replay": true }))
            .unwrap(),
        serde_json::Value::Null
    );
}

/// tmux's own view of the pane: its capture from `from` (a `-S` value) to the bottom, written
/// into a fresh emulator as one stream, so that every cell's attributes are read relative to
/// the cell before it exactly as tmux writes them.
fn tmux_screen(n: &Node, id: &str, from: &str) -> vt100::Parser {
    let target = format!("=tp-{id}:");
    let text = n
        .exec
        .tmux()
        .run(&[
            "capture-pane",
            "-p",
            "-e",
            "-N",
            "-S",
            from,
            "-t",
            target.as_str(),
        ])
        .unwrap();
    let lines = termplane_exec::screen::split_lines(&text);
    let mut p = vt100::Parser::new(ROWS, COLS, 5000);
    p.process(lines.join("\r\n").as_bytes());
    p
}

/// The cells whose text or attributes differ between two screens of the same size.
fn differing_cells(got: &vt100::Screen, want: &vt100::Screen) -> Vec<String> {
    let show = |c: &vt100::Cell| {
        format!(
            "{:?} fg={:?} bg={:?}{}{}{}{}{}",
            c.contents(),
            c.fgcolor(),
            c.bgcolor(),
            if c.bold() { " bold" } else { "" },
            if c.dim() { " dim" } else { "" },
            if c.italic() { " italic" } else { "" },
            if c.underline() { " underline" } else { "" },
            if c.inverse() { " inverse" } else { "" },
        )
    };
    let mut out = Vec::new();
    for row in 0..ROWS {
        for col in 0..COLS {
            let (g, w) = (got.cell(row, col).unwrap(), want.cell(row, col).unwrap());
            let (g, w) = (show(g), show(w));
            if g != w {
                out.push(format!("row {row} col {col}: replayed {g}, tmux {w}"));
            }
        }
    }
    out
}

fn assert_same_cells(got: &vt100::Screen, want: &vt100::Screen, what: &str) {
    let diff = differing_cells(got, want);
    assert!(
        diff.is_empty(),
        "{} cells of {what} differ from tmux's screen, first: {:#?}",
        diff.len(),
        &diff[..diff.len().min(8)]
    );
}

#[test]
fn colours_that_run_from_one_row_into_the_next_come_back_on_the_alternate_screen() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("replay-rows");
    n.exec.start().unwrap();
    let cwd = TempDir::new("replay-rows-cwd");
    let id = "d1e2";
    launch(
        &n,
        id,
        json!(["bash", "--norc", "--noprofile"]),
        &cwd.path().to_string_lossy(),
    );
    wait_shows(&n, id, "bash");
    // A full-screen program's drawing: a highlighted block over two rows, a full-width bar
    // (erased to the end of the row in its background) whose colours go on into the next row,
    // palette and direct colours with italics and underline over three rows, and reverse video
    // that ends mid-row.
    let script = "printf '\\033[?1049h\\033[2J\
\\033[2;1Hplain \\033[1;33;44mbold yellow on blue to the end\
\\033[3;1Hand on into row three\\033[0m plain again\
\\033[5;1H\\033[30;46m a selection bar \\033[K\
\\033[6;1Hthe bar colours go on\\033[0m\
\\033[8;1H\\033[3;4;38;5;208mitalic underlined orange\
\\033[9;1Hstill orange\\033[48;2;10;20;30m on a direct colour\
\\033[10;1Hboth carried\\033[0m\
\\033[12;1H\\033[7mreverse\\033[27m ends here\
\\033[14;1HEND-OF-''SCENE'; sleep 600\r";
    type_text(&n, id, script);
    wait_shows(&n, id, "END-OF-SCENE");
    let (answer, _, p) = replay(&n, id);
    assert_eq!(answer["alternate"], true);
    let got = p.screen();
    assert!(got.alternate_screen());
    let want = tmux_screen(&n, id, "0");
    assert_same_cells(got, want.screen(), "the alternate screen");
    // The cells that carry colours from the row above have them.
    let carried = got.cell(2, 0).unwrap();
    assert_eq!(carried.contents(), "a");
    assert_eq!(
        (carried.fgcolor(), carried.bgcolor(), carried.bold()),
        (vt100::Color::Idx(3), vt100::Color::Idx(4), true)
    );
    let bar = got.cell(5, 0).unwrap();
    assert_eq!(
        (bar.contents(), bar.fgcolor(), bar.bgcolor()),
        ("t", vt100::Color::Idx(0), vt100::Color::Idx(6))
    );
    let both = got.cell(9, 0).unwrap();
    assert_eq!(
        (
            both.fgcolor(),
            both.bgcolor(),
            both.italic(),
            both.underline()
        ),
        (
            vt100::Color::Idx(208),
            vt100::Color::Rgb(10, 20, 30),
            true,
            true
        )
    );
}

#[test]
fn colours_that_carry_across_lines_come_back_on_the_normal_screen_and_in_its_history() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("replay-lines");
    n.exec.start().unwrap();
    let cwd = TempDir::new("replay-lines-cwd");
    let id = "e1f2";
    launch(
        &n,
        id,
        json!(["bash", "--norc", "--noprofile"]),
        &cwd.path().to_string_lossy(),
    );
    wait_shows(&n, id, "bash");
    // More lines than the grid holds, each starting plain and ending blue, then a block of
    // lines in one colour: wherever the history ends and the visible lines begin, a line
    // starts in other colours than the one before it ended in.
    type_text(
        &n,
        id,
        "for i in $(seq 1 80); do printf 'plain-%d \\033[44mblue-%d\\033[0m\\n' $i $i; done; \
printf '\\033[1;35mmagenta\\nbold\\nlines\\033[0m\\n'; echo END-OF-$((40+2))-LINES\r",
    );
    wait_shows(&n, id, "END-OF-42-LINES\nbash");
    let (answer, _, mut p) = replay(&n, id);
    assert_eq!(answer["alternate"], false);
    let mut want = tmux_screen(&n, id, "-2000");
    assert_same_cells(p.screen(), want.screen(), "the visible screen");
    // The history beneath, page by page.
    for back in [10, usize::from(ROWS), 2 * usize::from(ROWS), 70] {
        p.screen_mut().set_scrollback(back);
        want.screen_mut().set_scrollback(back);
        assert_eq!(p.screen().scrollback(), want.screen().scrollback());
        assert_same_cells(
            p.screen(),
            want.screen(),
            &format!("the history {back} lines up"),
        );
    }
}
