//! What kind of drive a library lives on, and the SQLite journal settings that suit it.
//!
//! SQLite's write-ahead log (WAL) keeps its index in memory shared between the processes that
//! have the database open, which a network file system cannot provide: "WAL does not work over
//! a network filesystem" (<https://www.sqlite.org/wal.html>, "Disadvantages"). A library a
//! school keeps on a shared folder therefore uses the rollback journal (`journal_mode =
//! DELETE`). A library on a USB stick keeps WAL (several Vidya processes read while one writes)
//! but syncs every commit (`synchronous = FULL`), so that a stick pulled out right after an
//! ingest still holds it; SQLite folds the WAL back into the database file when the last
//! connection closes, so a closed library is one file on the stick.

use std::path::Path;

/// The kind of drive a folder is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriveKind {
    /// A fixed local disk.
    Local,
    /// A removable drive (USB stick, SD card).
    Removable,
    /// A network share (SMB/CIFS, NFS, a mapped drive).
    Network,
}

impl DriveKind {
    /// The journal mode for a library on this kind of drive (`"wal"` or `"delete"`, as
    /// `PRAGMA journal_mode` names them). It is a property of the database file, so
    /// [`crate::store::Library`] switches it only when the file has another.
    pub fn journal_mode(self) -> &'static str {
        match self {
            DriveKind::Local | DriveKind::Removable => "wal",
            DriveKind::Network => "delete",
        }
    }

    /// The SQL that sets the sync level (per connection) for a library on this kind of drive.
    pub fn sync_pragma(self) -> &'static str {
        match self {
            DriveKind::Local => "PRAGMA synchronous = NORMAL;",
            DriveKind::Removable | DriveKind::Network => "PRAGMA synchronous = FULL;",
        }
    }
}

/// The kind of drive `dir` (an existing folder) is on; [`DriveKind::Local`] when it cannot be
/// told. Windows: `GetDriveTypeW` of the folder's volume (`DRIVE_REMOTE`, `DRIVE_REMOVABLE`).
/// Linux: the file system type from `statfs` (NFS, SMB/CIFS, and FUSE file systems such as
/// sshfs count as network shares); removable drives are not told apart there.
pub fn drive_kind(dir: &Path) -> DriveKind {
    imp::drive_kind(dir)
}

#[cfg(windows)]
mod imp {
    use super::DriveKind;
    use std::os::windows::ffi::OsStrExt;
    use std::path::Path;
    use windows_sys::Win32::Storage::FileSystem::{GetDriveTypeW, GetVolumePathNameW};
    use windows_sys::Win32::System::WindowsProgramming::{DRIVE_REMOTE, DRIVE_REMOVABLE};

    pub fn drive_kind(dir: &Path) -> DriveKind {
        let wide: Vec<u16> = dir.as_os_str().encode_wide().chain([0]).collect();
        let mut root = vec![0u16; 32 * 1024];
        // SAFETY: `wide` is NUL-terminated and `root` holds `root.len()` u16s.
        let ok = unsafe { GetVolumePathNameW(wide.as_ptr(), root.as_mut_ptr(), root.len() as u32) };
        if ok == 0 {
            return DriveKind::Local;
        }
        // SAFETY: GetVolumePathNameW wrote a NUL-terminated path into `root`.
        match unsafe { GetDriveTypeW(root.as_ptr()) } {
            DRIVE_REMOTE => DriveKind::Network,
            DRIVE_REMOVABLE => DriveKind::Removable,
            _ => DriveKind::Local,
        }
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use super::DriveKind;
    use std::path::Path;

    /// `statfs` magic numbers (linux/magic.h; CIFS and SMB2 from the kernel's fs/smb).
    const NFS: i64 = 0x6969;
    const SMB: i64 = 0x517B;
    const CIFS: i64 = 0xFF53_4D42;
    const SMB2: i64 = 0xFE53_4D42;
    const FUSE: i64 = 0x6573_5546;

    pub fn drive_kind(dir: &Path) -> DriveKind {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
            return DriveKind::Local;
        };
        // SAFETY: an all-zero statfs is a valid value; `c` is NUL-terminated.
        let mut st: libc::statfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
            return DriveKind::Local;
        }
        match st.f_type as i64 {
            NFS | SMB | CIFS | SMB2 | FUSE => DriveKind::Network,
            _ => DriveKind::Local,
        }
    }
}

#[cfg(not(any(windows, target_os = "linux")))]
mod imp {
    pub fn drive_kind(_dir: &std::path::Path) -> super::DriveKind {
        super::DriveKind::Local
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_network_shares_leave_wal_and_only_local_disks_sync_less() {
        assert_eq!(DriveKind::Local.journal_mode(), "wal");
        assert!(DriveKind::Local.sync_pragma().contains("NORMAL"));
        assert_eq!(DriveKind::Removable.journal_mode(), "wal");
        assert!(DriveKind::Removable.sync_pragma().contains("FULL"));
        assert_eq!(DriveKind::Network.journal_mode(), "delete");
        assert!(DriveKind::Network.sync_pragma().contains("FULL"));
    }

    #[test]
    fn a_temporary_folder_is_on_a_local_disk() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(drive_kind(dir.path()), DriveKind::Local);
    }
}
