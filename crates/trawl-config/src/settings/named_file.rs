//! Reading a file a config names (seed lists, includes, class libraries, prefix files, cookies, password
//! files, behaviour scripts, dedup sources): a FIFO, socket or device is refused before it is opened, as its
//! reading would wait on a writer or never end.

use std::io;
use std::path::Path;

/// Opens `path`, a file a config names, for reading: refused, unopened, when it is a FIFO, socket or device
/// ([`refuse_special`]).
pub fn open_named(path: &Path) -> io::Result<std::fs::File> {
    refuse_special(path)?;
    std::fs::File::open(path)
}

/// Refuses `path`, a file a config names, when it is a FIFO, socket or device, whose reading waits on a writer
/// or never ends (xt38a N4: a seed file that was a FIFO held the job's launch until something wrote to it);
/// anything else (a missing file too) is left to whatever reads it. Only its metadata is read, which does not
/// wait.
pub fn refuse_special(path: &Path) -> io::Result<()> {
    if let Ok(meta) = std::fs::metadata(path)
        && let Some(kind) = special_kind(&meta.file_type())
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "not a regular file but {kind}: a config names only regular files, which trawl reads whole \
                 (reading this one would wait on what writes to it)"
            ),
        ));
    }
    Ok(())
}

/// The bytes of `path`, a file a config names ([`open_named`]).
pub fn read_named(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut open_named(path)?, &mut bytes)?;
    Ok(bytes)
}

/// The text of `path`, a file a config names ([`open_named`]); not UTF-8 is an error, as
/// [`std::fs::read_to_string`] has it.
pub fn read_named_to_string(path: &Path) -> io::Result<String> {
    let mut text = String::new();
    io::Read::read_to_string(&mut open_named(path)?, &mut text)?;
    Ok(text)
}

/// What a file that is neither a regular file nor a folder is, said for a refusal.
fn special_kind(kind: &std::fs::FileType) -> Option<&'static str> {
    if kind.is_file() || kind.is_dir() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
        if kind.is_char_device() || kind.is_block_device() {
            return Some("a device");
        }
    }
    Some("a special file")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xt38a N4: a FIFO a config names is refused at once, by its metadata, where reading it would wait on a
    /// writer (a job stayed `launching`); a regular file reads, a missing one fails as the system says.
    #[test]
    fn a_fifo_a_config_names_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("seeds.txt");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let err = read_named_to_string(&fifo).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("a FIFO"), "{err}");
        let err = super::super::SeedsConfig::read_file(dir.path(), Path::new("seeds.txt"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a regular file"), "{err}");
        let plain = dir.path().join("plain.txt");
        std::fs::write(&plain, "http://127.0.0.1/\n").unwrap();
        assert_eq!(read_named(&plain).unwrap(), b"http://127.0.0.1/\n");
        let missing = open_named(&dir.path().join("none")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        assert!(refuse_special(&dir.path().join("none")).is_ok());
        assert!(refuse_special(Path::new("/dev/null")).is_err());
    }
}
