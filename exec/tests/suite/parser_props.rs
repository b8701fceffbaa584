//! Catalogue 105, the node's two input validators as properties: a path the policy accepts
//! always resolves under its allowed root (on a real directory tree with symlinks that point
//! out of it, up through `..` and at a magic link), and an accepted tmux id always matches its
//! pattern.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use termplane_exec::paths::Policy;
use termplane_exec::tmux::{is_pane_id, is_session_id, is_window_id};

/// `<tmp>/root` (the allowed directory) beside `<tmp>/outside`:
///
/// ```text
/// root/a/b/            root/a/up -> ..          root/a/away -> ../../outside
/// root/out -> /        root/abs -> <tmp>/outside root/self -> /proc/self/root
/// root/file            outside/secret/
/// ```
fn tree() -> &'static (PathBuf, PathBuf) {
    static TREE: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    TREE.get_or_init(|| {
        let base = std::env::temp_dir().join(format!("tp-pathprops-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let root = base.join("root");
        let outside = base.join("outside");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(outside.join("secret")).unwrap();
        std::fs::write(root.join("file"), b"x").unwrap();
        let link = |target: &Path, at: &str| std::os::unix::fs::symlink(target, root.join(at));
        link(Path::new(".."), "a/up").unwrap();
        link(Path::new("../../outside"), "a/away").unwrap();
        link(Path::new("/"), "out").unwrap();
        link(&outside, "abs").unwrap();
        link(Path::new("/proc/self/root"), "self").unwrap();
        let root = std::fs::canonicalize(&root).unwrap();
        let outside = std::fs::canonicalize(&outside).unwrap();
        (root, outside)
    })
}

/// Path components an attacker would try, with the tree's real names among them.
fn component() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "a", "b", "up", "away", "out", "abs", "self", "file", "secret", "outside", "root",
            "..", ".", "", "...", "%2e%2e", "%2E%2e", "%2f", "\u{FF0E}\u{FF0E}", "\u{2024}\u{2024}",
            "a\u{0}", "a\n", "A", "b ", " b", "a\u{2215}b", "tmp",
        ])
        .prop_map(str::to_owned),
        1 => "[a-z./%\\\\]{0,6}",
    ]
}

fn candidate() -> impl Strategy<Value = String> {
    let prefix = prop::sample::select(vec!["root", "/", "outside", "", "relative/"]);
    (
        prefix,
        prop::collection::vec(component(), 0..7),
        any::<bool>(),
    )
        .prop_map(|(prefix, comps, slash)| {
            let (root, outside) = tree();
            let start = match prefix {
                "root" => root.to_str().unwrap().to_owned(),
                "outside" => outside.to_str().unwrap().to_owned(),
                other => other.trim_end_matches('/').to_owned(),
            };
            let mut p = start;
            for c in comps {
                p.push('/');
                p.push_str(&c);
            }
            if slash {
                p.push('/');
            }
            p
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn j105_an_accepted_path_always_resolves_under_its_root(path in candidate()) {
        let (root, _) = tree();
        let policy = Policy::new(vec![root.clone()]);
        if let Ok(loc) = policy.locate(&path) {
            prop_assert_eq!(&loc.root, root);
            prop_assert!(loc.path().starts_with(root), "{} located at {:?}", path, loc.path());
            prop_assert!(
                loc.rel.iter().all(|c| !c.is_empty() && c != "." && c != ".." && !c.contains('/')),
                "{} kept {:?}", path, loc.rel
            );
        }
        if let Ok(real) = policy.resolve_dir(&path) {
            prop_assert!(real.starts_with(root), "{} resolved to {}", path, real.display());
            prop_assert!(real.is_dir());
        }
        if policy.list_dirs(&path, 10).is_ok() {
            let real = std::fs::canonicalize(&path).unwrap();
            prop_assert!(real.starts_with(root), "{} listed {}", path, real.display());
        }
    }

    #[test]
    fn j105_an_accepted_tmux_id_matches_its_pattern(
        s in prop_oneof![
            "[%@$]?[0-9]{0,12}",
            "[%@$][0-9 ;\\n\\-a#{}()]{0,6}",
            "\\PC{0,8}",
            "[%@$][\u{0660}-\u{0669}\u{FF10}-\u{FF19}0-9]{1,4}",
        ]
    ) {
        let matches = |sigil: char| {
            s.strip_prefix(sigil)
                .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        };
        prop_assert!(!is_pane_id(&s) || matches('%'), "pane id {:?}", s);
        prop_assert!(!is_window_id(&s) || matches('@'), "window id {:?}", s);
        prop_assert!(!is_session_id(&s) || matches('$'), "session id {:?}", s);
    }
}

/// The generators do reach the interesting cases: symlinked and escaping candidates are made,
/// and the policy accepts some of them (else the properties above would hold vacuously).
#[test]
fn j105_the_path_property_sees_accepted_and_refused_paths() {
    let (root, outside) = tree();
    let policy = Policy::new(vec![root.clone()]);
    let r = root.to_str().unwrap();
    assert!(policy.resolve_dir(&format!("{r}/a/b")).is_ok());
    assert!(policy.resolve_dir(&format!("{r}/")).is_ok());
    for escape in [
        "a/up/..",
        "a/away",
        "out",
        "abs/secret",
        "self",
        "a/b/../../..",
        "file",
    ] {
        assert!(
            policy.resolve_dir(&format!("{r}/{escape}")).is_err(),
            "{escape} was accepted"
        );
    }
    assert!(
        policy
            .resolve_dir(outside.join("secret").to_str().unwrap())
            .is_err()
    );
    assert!(is_pane_id("%0") && !is_pane_id("%٣") && !is_pane_id("%１"));
}
