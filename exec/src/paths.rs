//! Path policy for `write_file`, `remove_paths`, `fs_ls`, and `launch`'s `cwd` and MCP
//! registration file.
//!
//! A path is first checked lexically (absolute, UTF-8, no NUL or control characters, no `.` or
//! `..` component, no empty component but a trailing slash, no percent-encoded bytes, no
//! look-alike dots), then matched component-wise against the allowlist (so `/home/app` never
//! admits `/home/app2`). Everything after that is fd-relative: the allowed directory is opened
//! once (`RESOLVE_NO_SYMLINKS`, it is stored as a realpath) and every later step is an `openat2`
//! relative to it with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV`, so a symlink
//! (absolute, relative `../..`, `/proc/self/root`) can never lead out of it, and a directory
//! swapped for a symlink mid-operation is refused by the kernel rather than followed. Removal
//! opens each directory level relative to its parent's fd and unlinks relative to the parent fd.
//!
//! An empty allowlist means unrestricted: paths still pass the lexical check, resolution starts at
//! `/` and follows ordinary symlinks, but never magic links.

use std::collections::HashMap;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rustix::fs::{AtFlags, CWD, FileType, Mode, OFlags};
use rustix::io::Errno;

/// Most directory levels `remove_paths` descends.
const MAX_REMOVE_DEPTH: usize = 128;
/// Most uploads in progress at once.
const MAX_UPLOADS: usize = 64;

/// An upload that received no chunk for this long is abandoned, its temp file removed: the
/// plane gives up on an idle upload after 60 s, and an upload whose plane restarted or whose
/// link dropped never hears more. (Twice the plane's idle limit, so a slow upload the plane
/// still holds is never cut here first.)
pub const UPLOAD_IDLE: std::time::Duration = std::time::Duration::from_secs(120);

/// The node's allowlist and its resolution rules.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Policy {
    allowed: Vec<PathBuf>,
}

fn errno(e: Errno, what: &str) -> String {
    match e {
        Errno::XDEV => format!("{what}: path leaves the allowed directory"),
        Errno::LOOP => format!("{what}: path goes through a symlink"),
        Errno::NOENT => format!("{what}: no such file or directory"),
        Errno::NOTDIR => format!("{what}: not a directory"),
        other => format!("{what}: {other}"),
    }
}

/// Whether this kernel can keep paths inside an allowed directory: every path operation opens
/// through `openat2` (Linux 5.6), which a kernel before it, or a seccomp filter that does not
/// know the call, answers with `ENOSYS` (or `EPERM`). Checked when the node starts, so such a
/// host says why at once instead of refusing each launch and file operation with the bare
/// errno. The `Err` names the call, the errno and what is needed.
pub fn check_kernel() -> Result<(), String> {
    match rustix::fs::openat2(
        CWD,
        "/",
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
        rustix::fs::ResolveFlags::NO_MAGICLINKS,
    ) {
        Ok(_) => Ok(()),
        Err(e) => Err(kernel_unsupported(e)),
    }
}

/// The start-up refusal of [`check_kernel`] for the errno `openat2` gave.
fn kernel_unsupported(e: Errno) -> String {
    let (why, need) = match e {
        Errno::NOSYS => ("this kernel predates it", "Linux 5.6 or later is needed"),
        Errno::PERM | Errno::ACCESS => (
            "a seccomp filter or security policy refuses it",
            "allow `openat2`",
        ),
        _ => (
            "it failed on `/`",
            "Linux 5.6 or later with `openat2` allowed is needed",
        ),
    };
    format!(
        "the `openat2` system call is unavailable ({e}): {why}, and without it pane paths \
         cannot be kept inside their allowed directories; {need}"
    )
}

/// Splits and checks `path` lexically; returns its components.
pub fn lexical_components(path: &str) -> Result<Vec<&str>, String> {
    if path.is_empty() {
        return Err("path is empty".into());
    }
    if !path.starts_with('/') {
        return Err("path must be absolute".into());
    }
    if path.len() > 4096 {
        return Err("path is too long".into());
    }
    if path.chars().any(|c| {
        c.is_control()
            || matches!(
                c,
                '\u{FF0E}' | '\u{2024}' | '\u{FE52}' | '\u{FF0F}' | '\u{2215}' | '\u{2044}'
            )
    }) {
        return Err("path holds control or look-alike characters".into());
    }
    let bytes = path.as_bytes();
    for i in 0..bytes.len() {
        if bytes[i] == b'%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            return Err("path holds percent-encoded bytes".into());
        }
    }
    let trimmed = if path.len() > 1 {
        path.strip_suffix('/').unwrap_or(path)
    } else {
        path
    };
    let mut out = Vec::new();
    for c in trimmed.split('/').skip(1) {
        match c {
            "" if trimmed == "/" => {}
            "" => return Err("path holds an empty component (`//`)".into()),
            "." | ".." => return Err("path holds a `.` or `..` component".into()),
            c if c.len() > 255 => return Err("a path component is too long".into()),
            c => out.push(c),
        }
    }
    Ok(out)
}

/// Where a path landed: the allowed root it is beneath and its components relative to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The allowed directory (`/` when unrestricted).
    pub root: PathBuf,
    /// Components below it (empty = the root itself).
    pub rel: Vec<String>,
    /// Whether an allowlist applies.
    pub restricted: bool,
}

impl Located {
    /// The joined absolute path (lexical).
    #[must_use]
    pub fn path(&self) -> PathBuf {
        let mut p = self.root.clone();
        for c in &self.rel {
            p.push(c);
        }
        p
    }

    fn resolve_flags(&self) -> rustix::fs::ResolveFlags {
        use rustix::fs::ResolveFlags as R;
        if self.restricted {
            R::BENEATH | R::NO_MAGICLINKS | R::NO_XDEV
        } else {
            R::NO_MAGICLINKS
        }
    }

    fn open_root(&self) -> Result<OwnedFd, String> {
        use rustix::fs::ResolveFlags as R;
        rustix::fs::openat2(
            CWD,
            &self.root,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
            R::NO_SYMLINKS | R::NO_MAGICLINKS,
        )
        .map_err(|e| errno(e, "allowed directory"))
    }

    /// Opens `rel[..upto]` as a directory relative to the root fd.
    fn open_dir(&self, root: &OwnedFd, upto: usize, oflags: OFlags) -> Result<OwnedFd, String> {
        let rel = self.rel[..upto].join("/");
        let rel = if rel.is_empty() { ".".to_owned() } else { rel };
        rustix::fs::openat2(
            root,
            rel.as_str(),
            oflags | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
            self.resolve_flags(),
        )
        .map_err(|e| errno(e, &self.path().display().to_string()))
    }
}

impl Policy {
    /// A policy over already-canonical directories.
    #[must_use]
    pub fn new(allowed: Vec<PathBuf>) -> Self {
        Self { allowed }
    }

    /// The allowed directories (empty = unrestricted).
    #[must_use]
    pub fn allowed(&self) -> &[PathBuf] {
        &self.allowed
    }

    /// Canonicalises and checks a new allowlist: each entry absolute and passing the lexical
    /// check. Answers the realpaths (duplicates removed). An entry that does not exist (yet),
    /// or is not a directory, is kept as written: nothing can be opened under it, so the list
    /// still restricts. Refusing the whole list would leave the old one in force, perhaps
    /// unrestricted, and a list pushed while the node was away would then fail open.
    pub fn canonicalize(dirs: &[String]) -> Result<Vec<PathBuf>, String> {
        let mut out: Vec<PathBuf> = Vec::new();
        for d in dirs {
            lexical_components(d).map_err(|e| format!("{d:?}: {e}"))?;
            let real = match std::fs::canonicalize(d) {
                Ok(real) => real,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    let kept = PathBuf::from(d.trim_end_matches('/'));
                    if !out.contains(&kept) {
                        out.push(kept);
                    }
                    continue;
                }
                Err(e) => return Err(format!("{d:?}: {e}")),
            };
            if !real.is_dir() {
                let kept = PathBuf::from(d.trim_end_matches('/'));
                if !out.contains(&kept) {
                    out.push(kept);
                }
                continue;
            }
            if real.to_str().is_none() {
                return Err(format!("{d:?}: not UTF-8"));
            }
            if !out.contains(&real) {
                out.push(real);
            }
        }
        Ok(out)
    }

    /// Places `path` under an allowed directory (the deepest that matches).
    pub fn locate(&self, path: &str) -> Result<Located, String> {
        let comps = lexical_components(path)?;
        if self.allowed.is_empty() {
            return Ok(Located {
                root: PathBuf::from("/"),
                rel: comps.iter().map(|s| (*s).to_owned()).collect(),
                restricted: false,
            });
        }
        let mut best: Option<(&PathBuf, usize)> = None;
        for a in &self.allowed {
            let Some(astr) = a.to_str() else { continue };
            let Ok(acomps) = lexical_components(astr) else {
                continue;
            };
            if comps.len() >= acomps.len()
                && comps[..acomps.len()] == acomps[..]
                && best.is_none_or(|(_, n)| acomps.len() > n)
            {
                best = Some((a, acomps.len()));
            }
        }
        let (root, n) = best.ok_or_else(|| format!("{path}: outside the allowed directories"))?;
        Ok(Located {
            root: root.clone(),
            rel: comps[n..].iter().map(|s| (*s).to_owned()).collect(),
            restricted: true,
        })
    }

    /// Checks that `path` is a directory reachable under the policy; answers its realpath.
    pub fn resolve_dir(&self, path: &str) -> Result<PathBuf, String> {
        let loc = self.locate(path)?;
        let root = loc.open_root()?;
        let _dir = loc.open_dir(&root, loc.rel.len(), OFlags::PATH)?;
        let real = std::fs::canonicalize(loc.path()).map_err(|e| format!("{path}: {e}"))?;
        if loc.restricted && !real.starts_with(&loc.root) {
            return Err(format!("{path}: path leaves the allowed directory"));
        }
        Ok(real)
    }

    /// Lists the subdirectories of `path` (dotfiles hidden, sorted, at most `cap`). Answers the
    /// names and whether the listing was cut.
    pub fn list_dirs(&self, path: &str, cap: usize) -> Result<(Vec<String>, bool), String> {
        let loc = self.locate(path)?;
        let root = loc.open_root()?;
        let dir = loc.open_dir(&root, loc.rel.len(), OFlags::RDONLY)?;
        let mut names = Vec::new();
        let mut truncated = false;
        let d = rustix::fs::Dir::read_from(&dir).map_err(|e| errno(e, path))?;
        for entry in d {
            let entry = entry.map_err(|e| errno(e, path))?;
            let Ok(name) = entry.file_name().to_str() else {
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let is_dir = match entry.file_type() {
                FileType::Directory => true,
                FileType::Unknown => rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW)
                    .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Directory),
                _ => false,
            };
            if is_dir {
                names.push(name.to_owned());
            }
        }
        names.sort();
        if names.len() > cap {
            names.truncate(cap);
            truncated = true;
        }
        Ok((names, truncated))
    }

    /// Removes `path` (a file, a symlink itself, or a directory tree) without ever leaving the
    /// allowed directory. The allowed directory itself and `/` are refused.
    pub fn remove(&self, path: &str) -> Result<(), String> {
        let loc = self.locate(path)?;
        let Some(name) = loc.rel.last().cloned() else {
            return Err(format!(
                "{path}: refusing to remove an allowed directory itself"
            ));
        };
        let root = loc.open_root()?;
        let parent = loc.open_dir(&root, loc.rel.len() - 1, OFlags::RDONLY)?;
        let st = rustix::fs::statat(&parent, name.as_str(), AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|e| errno(e, path))?;
        if FileType::from_raw_mode(st.st_mode) == FileType::Directory {
            remove_tree(&parent, &name, loc.restricted, 0).map_err(|e| errno(e, path))
        } else {
            rustix::fs::unlinkat(&parent, name.as_str(), AtFlags::empty())
                .map_err(|e| errno(e, path))
        }
    }
}

/// Removes directory `name` under `parent`: opened relative to `parent` without following any
/// symlink, emptied through that fd, then unlinked relative to `parent`.
fn remove_tree(parent: &OwnedFd, name: &str, restricted: bool, depth: usize) -> Result<(), Errno> {
    use rustix::fs::ResolveFlags as R;
    if depth > MAX_REMOVE_DEPTH {
        return Err(Errno::LOOP);
    }
    let mut flags = R::BENEATH | R::NO_SYMLINKS | R::NO_MAGICLINKS;
    if restricted {
        flags |= R::NO_XDEV;
    }
    let dir = rustix::fs::openat2(
        parent,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
        flags,
    )?;
    let mut children = Vec::new();
    for entry in rustix::fs::Dir::read_from(&dir)? {
        let entry = entry?;
        let n = entry.file_name().to_bytes();
        if n == b"." || n == b".." {
            continue;
        }
        children.push(entry.file_name().to_owned());
    }
    for child in children {
        let st = rustix::fs::statat(&dir, child.as_c_str(), AtFlags::SYMLINK_NOFOLLOW)?;
        if FileType::from_raw_mode(st.st_mode) == FileType::Directory {
            let Ok(c) = child.to_str() else {
                return Err(Errno::ILSEQ);
            };
            remove_tree(&dir, c, restricted, depth + 1)?;
        } else {
            rustix::fs::unlinkat(&dir, child.as_c_str(), AtFlags::empty())?;
        }
    }
    rustix::fs::unlinkat(parent, name, AtFlags::REMOVEDIR)
}

/// Checks an existing destination: only a regular file with one link may be replaced.
fn check_destination(parent: &OwnedFd, name: &str, path: &str) -> Result<(), String> {
    match rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW) {
        Err(Errno::NOENT) => Ok(()),
        Err(e) => Err(errno(e, path)),
        Ok(st) => {
            let ft = FileType::from_raw_mode(st.st_mode);
            if ft == FileType::Symlink {
                return Err(format!("{path}: destination is a symlink"));
            }
            if ft != FileType::RegularFile {
                return Err(format!(
                    "{path}: destination is not a regular file ({ft:?})"
                ));
            }
            // Open without following and without blocking, then check the open file itself.
            let fd = rustix::fs::openat(
                parent,
                name,
                OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|e| errno(e, path))?;
            let st = rustix::fs::fstat(&fd).map_err(|e| errno(e, path))?;
            if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
                return Err(format!("{path}: destination is not a regular file"));
            }
            if st.st_nlink > 1 {
                return Err(format!("{path}: destination has other hard links"));
            }
            Ok(())
        }
    }
}

impl Policy {
    /// Writes a small private file (mode 0600) at `path` under the policy: the same lexical
    /// check and `openat2` beneath-resolution of the parent as `write_file`, a final symlink,
    /// a non-regular file or a hard-linked one refused, and the content written to a fresh
    /// temporary file beside it that is renamed into place relative to the parent's fd. So no
    /// symlink, absolute or relative, ever leads the write out of the allowed directories, and
    /// no file outside them is ever created or overwritten.
    pub fn write_private_file(&self, path: &str, content: &[u8]) -> Result<(), String> {
        use std::io::Write as _;
        let loc = self.locate(path)?;
        let Some(name) = loc.rel.last().cloned() else {
            return Err(format!("{path}: cannot write over a directory"));
        };
        let root = loc.open_root()?;
        let parent = loc.open_dir(&root, loc.rel.len() - 1, OFlags::RDONLY)?;
        check_destination(&parent, &name, path)?;
        let tag = crate::util::hex(&crate::util::random_bytes::<6>().map_err(|e| e.to_string())?);
        let tmp = format!(".tp-write-{tag}.part");
        let fd = rustix::fs::openat(
            &parent,
            tmp.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )
        .map_err(|e| errno(e, path))?;
        let mut file = std::fs::File::from(fd);
        let written = (|| {
            file.write_all(content)
                .map_err(|e| format!("{path}: {e}"))?;
            file.sync_all().map_err(|e| format!("{path}: {e}"))?;
            check_destination(&parent, &name, path)?;
            rustix::fs::renameat(&parent, tmp.as_str(), &parent, name.as_str())
                .map_err(|e| errno(e, path))
        })();
        if written.is_err() {
            let _ = rustix::fs::unlinkat(&parent, tmp.as_str(), AtFlags::empty());
        }
        written
    }
}

struct Upload {
    parent: OwnedFd,
    tmp: String,
    name: String,
    file: std::fs::File,
    next_chunk: u32,
    bytes: u64,
    /// When the last chunk was written.
    last: std::time::Instant,
    /// Its journal entry, removed when the upload is dropped (finished or abandoned).
    entry: Option<PathBuf>,
}

impl Drop for Upload {
    fn drop(&mut self) {
        if let Some(entry) = &self.entry {
            let _ = std::fs::remove_file(entry);
        }
    }
}

impl Upload {
    /// Removes the temp file (the upload is abandoned).
    fn discard(&self) {
        let _ = rustix::fs::unlinkat(&self.parent, self.tmp.as_str(), AtFlags::empty());
    }
}

/// Chunked uploads in progress, keyed by destination path. Each upload writes a fresh temp file
/// (`O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0600) beside the destination and renames it into place
/// on the last chunk, relative to the parent directory's fd.
///
/// With a journal ([`Uploads::with_journal`]), each temp file's path is written to a file of
/// its own in the journal directory before the temp file is created, and removed once the
/// upload is finished or abandoned; a daemon killed outright (SIGKILL, power loss) leaves its
/// entries behind, and the next start removes the temp files they name.
#[derive(Default)]
pub struct Uploads {
    active: Mutex<HashMap<String, Upload>>,
    journal: Option<PathBuf>,
}

/// Progress of one upload after a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkWritten {
    /// Bytes written so far.
    pub bytes: u64,
    /// Whether the file was moved into place.
    pub done: bool,
}

impl Drop for Uploads {
    /// A table that goes away leaves no partial file of the uploads it had under way.
    fn drop(&mut self) {
        self.abandon_all();
    }
}

impl Uploads {
    /// A table that journals its temp files in `dir` (created, mode 0700), after removing the
    /// temp files a previous run's journal still names; answers it and how many it removed.
    pub fn with_journal(dir: PathBuf) -> (Self, usize) {
        use std::os::unix::fs::DirBuilderExt as _;
        let _ = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir);
        let mut removed = 0;
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let tmp = std::fs::read_to_string(entry.path()).unwrap_or_default();
            let tmp = Path::new(tmp.trim_end_matches('\n'));
            // Only a temp file of ours, and only a regular file (never through a symlink).
            let ours = tmp.is_absolute()
                && tmp
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.contains(".tp-upload-") && n.ends_with(".part"));
            let file = std::fs::symlink_metadata(tmp).is_ok_and(|m| m.file_type().is_file());
            if ours && file && std::fs::remove_file(tmp).is_ok() {
                removed += 1;
            }
            let _ = std::fs::remove_file(entry.path());
        }
        let uploads = Self {
            active: Mutex::default(),
            journal: Some(dir),
        };
        (uploads, removed)
    }

    /// Writes the journal entry of the temp file `tmp` (absolute), named `tag`.
    fn journal_entry(&self, tag: &str, tmp: &Path) -> Result<Option<PathBuf>, String> {
        use std::io::Write as _;
        use std::os::unix::fs::OpenOptionsExt as _;
        let Some(dir) = &self.journal else {
            return Ok(None);
        };
        let entry = dir.join(tag);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&entry)
            .map_err(|e| format!("cannot record the upload: {e}"))?;
        let line = format!("{}\n", tmp.to_str().ok_or("the path is not UTF-8")?);
        if let Err(e) = f.write_all(line.as_bytes()) {
            let _ = std::fs::remove_file(&entry);
            return Err(format!("cannot record the upload: {e}"));
        }
        Ok(Some(entry))
    }

    /// Abandons every upload under way, removing their temp files (the daemon stops).
    pub fn abandon_all(&self) {
        if let Ok(mut active) = self.active.lock() {
            for (_, up) in active.drain() {
                up.discard();
            }
        }
    }

    /// Abandons the uploads idle for [`UPLOAD_IDLE`] at `now`, removing their temp files;
    /// answers how many.
    pub fn sweep(&self, now: std::time::Instant) -> usize {
        let Ok(mut active) = self.active.lock() else {
            return 0;
        };
        let before = active.len();
        active.retain(|_, up| {
            let keep = now.saturating_duration_since(up.last) < UPLOAD_IDLE;
            if !keep {
                up.discard();
            }
            keep
        });
        before - active.len()
    }

    /// Writes one chunk of `path`.
    pub fn write_chunk(
        &self,
        policy: &Policy,
        path: &str,
        chunk: u32,
        data: &[u8],
        eof: bool,
    ) -> Result<ChunkWritten, String> {
        use std::io::Write as _;
        let now = std::time::Instant::now();
        self.sweep(now);
        let mut active = self.active.lock().map_err(|_| "upload table poisoned")?;
        if chunk == 0 {
            if let Some(old) = active.remove(path) {
                old.discard();
            }
            if active.len() >= MAX_UPLOADS {
                return Err("too many uploads in progress".into());
            }
            let loc = policy.locate(path)?;
            let Some(name) = loc.rel.last().cloned() else {
                return Err(format!("{path}: cannot write over a directory"));
            };
            let root = loc.open_root()?;
            let parent = loc.open_dir(&root, loc.rel.len() - 1, OFlags::RDONLY)?;
            check_destination(&parent, &name, path)?;
            let tag =
                crate::util::hex(&crate::util::random_bytes::<6>().map_err(|e| e.to_string())?);
            let tmp = if name.len() > 200 {
                format!(".tp-upload-{tag}.part")
            } else {
                format!(".{name}.tp-upload-{tag}.part")
            };
            let mut at = loc.root.clone();
            at.extend(&loc.rel[..loc.rel.len() - 1]);
            let entry = self.journal_entry(&tag, &at.join(&tmp))?;
            let fd = rustix::fs::openat(
                &parent,
                tmp.as_str(),
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_raw_mode(0o600),
            )
            .map_err(|e| {
                if let Some(entry) = &entry {
                    let _ = std::fs::remove_file(entry);
                }
                errno(e, path)
            })?;
            active.insert(
                path.to_owned(),
                Upload {
                    parent,
                    tmp,
                    name,
                    file: std::fs::File::from(fd),
                    next_chunk: 0,
                    bytes: 0,
                    last: now,
                    entry,
                },
            );
        }
        let up = active
            .get_mut(path)
            .ok_or_else(|| format!("{path}: no upload in progress (chunks start at 0)"))?;
        if up.next_chunk != chunk {
            let expected = up.next_chunk;
            if let Some(old) = active.remove(path) {
                old.discard();
            }
            return Err(format!(
                "{path}: chunk {chunk} out of order (expected {expected}); upload abandoned"
            ));
        }
        let wrote = up.file.write_all(data);
        if let Err(e) = wrote {
            if let Some(old) = active.remove(path) {
                old.discard();
            }
            return Err(format!("{path}: {e}"));
        }
        up.bytes += data.len() as u64;
        up.next_chunk += 1;
        up.last = now;
        let bytes = up.bytes;
        if !eof {
            return Ok(ChunkWritten { bytes, done: false });
        }
        let Some(up) = active.remove(path) else {
            return Err("upload vanished".into());
        };
        let finish = (|| {
            up.file.sync_all().map_err(|e| format!("{path}: {e}"))?;
            rustix::fs::fchmod(up.file.as_fd(), Mode::from_raw_mode(0o644))
                .map_err(|e| errno(e, path))?;
            check_destination(&up.parent, &up.name, path)?;
            rustix::fs::renameat(&up.parent, up.tmp.as_str(), &up.parent, up.name.as_str())
                .map_err(|e| errno(e, path))
        })();
        if finish.is_err() {
            up.discard();
        }
        finish.map(|()| ChunkWritten { bytes, done: true })
    }
}

/// Whether `p` exists (without following a final symlink).
#[must_use]
pub fn exists(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_kernel_without_openat2_is_told_apart_from_a_policy_that_refuses_it() {
        check_kernel().unwrap();
        let old = kernel_unsupported(Errno::NOSYS);
        assert!(
            old.contains("openat2") && old.contains("Linux 5.6"),
            "{old}"
        );
        let filtered = kernel_unsupported(Errno::PERM);
        assert!(filtered.contains("seccomp"), "{filtered}");
    }

    #[test]
    fn lexical_rules() {
        assert_eq!(lexical_components("/a/b/").unwrap(), vec!["a", "b"]);
        assert_eq!(lexical_components("/").unwrap(), Vec::<&str>::new());
        for bad in [
            "",
            "a/b",
            "/a/../b",
            "/a/./b",
            "//etc",
            "/a//b",
            "/a/%2e%2e/b",
            "/a\0b",
            "/a/\u{FF0E}\u{FF0E}/b",
        ] {
            assert!(lexical_components(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn allowlist_matching_is_by_component() {
        let p = Policy::new(vec![PathBuf::from("/home/app")]);
        assert!(p.locate("/home/app2/x").is_err());
        assert_eq!(p.locate("/home/app/x").unwrap().rel, vec!["x".to_owned()]);
        assert!(p.locate("/home/app").unwrap().rel.is_empty());
        assert!(p.locate("/home/app/").unwrap().rel.is_empty());
    }
    /// The temp files in `dir` (an upload's partial file).
    fn parts(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".part"))
            .collect()
    }

    #[test]
    fn an_idle_upload_is_abandoned_and_its_partial_file_removed() {
        let dir = std::env::temp_dir().join(format!("tp-upload-idle-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let policy = Policy::new(vec![dir.clone()]);
        let up = Uploads::default();
        let started = std::time::Instant::now();
        for i in 0..MAX_UPLOADS {
            let path = format!("{}/f{i}", dir.display());
            up.write_chunk(&policy, &path, 0, b"part", false).unwrap();
        }
        assert_eq!(parts(&dir).len(), MAX_UPLOADS);
        // The table is full: a new upload waits for one of these to end or go idle.
        let extra = format!("{}/extra", dir.display());
        assert!(up.write_chunk(&policy, &extra, 0, b"x", false).is_err());
        assert_eq!(up.sweep(started + UPLOAD_IDLE / 2), 0);
        assert_eq!(parts(&dir).len(), MAX_UPLOADS);
        assert_eq!(
            up.sweep(started + UPLOAD_IDLE + std::time::Duration::from_secs(1)),
            MAX_UPLOADS
        );
        assert!(parts(&dir).is_empty(), "{:?}", parts(&dir));
        // A chunk of a swept upload is refused by name; a new upload starts.
        let path = format!("{}/f0", dir.display());
        assert!(up.write_chunk(&policy, &path, 1, b"more", true).is_err());
        up.write_chunk(&policy, &extra, 0, b"x", false).unwrap();
        assert_eq!(parts(&dir).len(), 1);
        // A table that goes away (the daemon stops) leaves no partial file.
        drop(up);
        assert!(parts(&dir).is_empty(), "{:?}", parts(&dir));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn partial_files_a_killed_run_left_are_removed_by_the_next_and_nothing_else_is() {
        let base = std::env::temp_dir().join(format!("tp-upload-journal-{}", std::process::id()));
        let (dir, journal) = (base.join("work"), base.join("journal"));
        std::fs::create_dir_all(&dir).unwrap();
        let policy = Policy::new(vec![dir.clone()]);
        let entries = || std::fs::read_dir(&journal).unwrap().count();
        let (up, removed) = Uploads::with_journal(journal.clone());
        assert_eq!(removed, 0);
        // A finished upload and an abandoned one leave no entry.
        let done = format!("{}/done.txt", dir.display());
        up.write_chunk(&policy, &done, 0, b"all", true).unwrap();
        let broken = format!("{}/broken.txt", dir.display());
        up.write_chunk(&policy, &broken, 0, b"a", false).unwrap();
        assert_eq!(entries(), 1);
        assert!(up.write_chunk(&policy, &broken, 5, b"b", false).is_err());
        assert_eq!(entries(), 0);
        // Two uploads under way when the daemon is killed outright (no destructor runs).
        for name in ["a.bin", "b.bin"] {
            let path = format!("{}/{name}", dir.display());
            up.write_chunk(&policy, &path, 0, b"half", false).unwrap();
        }
        std::mem::forget(up);
        assert_eq!(parts(&dir).len(), 2);
        assert_eq!(entries(), 2);
        // An entry naming a file that is not a temp file of ours, and one naming a symlink to
        // one, are dropped without touching either.
        std::fs::write(dir.join("keep.txt"), b"mine").unwrap();
        std::fs::write(
            journal.join("forged"),
            format!("{}\n", dir.join("keep.txt").display()),
        )
        .unwrap();
        let target = dir.join(".x.tp-upload-000000000000.part");
        std::fs::write(&target, b"not through a link").unwrap();
        let link = base.join("l.tp-upload-111111111111.part");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        std::fs::write(journal.join("linked"), format!("{}\n", link.display())).unwrap();
        let (_up, removed) = Uploads::with_journal(journal.clone());
        assert_eq!(removed, 2);
        assert_eq!(parts(&dir), [".x.tp-upload-000000000000.part"]);
        assert_eq!(entries(), 0);
        assert_eq!(std::fs::read(dir.join("keep.txt")).unwrap(), b"mine");
        assert_eq!(std::fs::read(dir.join("done.txt")).unwrap(), b"all");
        assert!(link.exists());
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn an_allowlist_naming_a_missing_directory_is_kept_and_still_restricts() {
        let base = std::env::temp_dir().join(format!("tp-allow-missing-{}", std::process::id()));
        std::fs::create_dir_all(base.join("here")).unwrap();
        let missing = base.join("not-yet");
        let dirs = vec![
            missing.display().to_string(),
            base.join("here").display().to_string(),
        ];
        let list = Policy::canonicalize(&dirs).unwrap();
        assert_eq!(list.len(), 2, "{list:?}");
        assert_eq!(list[0], missing);
        let policy = Policy::new(list);
        // Nothing outside the list, nothing under the missing directory while it is missing.
        assert!(
            policy
                .locate(&format!("{}/x", base.join("elsewhere").display()))
                .is_err()
        );
        let under = policy.locate(&format!("{}/x", missing.display()));
        assert!(under.is_err() || under.unwrap().open_root().is_err());
        // A file where a directory is named is kept too, and opens nothing; a relative path is
        // refused.
        std::fs::write(base.join("file"), b"").unwrap();
        let file = base.join("file").display().to_string();
        let with_file = Policy::new(Policy::canonicalize(std::slice::from_ref(&file)).unwrap());
        let under = with_file.locate(&format!("{file}/x"));
        assert!(under.is_err() || under.unwrap().open_root().is_err());
        assert!(Policy::canonicalize(&["relative/dir".to_owned()]).is_err());
        let _ = std::fs::remove_dir_all(&base);
    }
}
