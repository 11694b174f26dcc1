// ArchiveLibrary: whether libarchive could be loaded. The CArchive shim loads it with dlopen on
// the first archive opened or written (commands that never touch an archive never load it), so a
// machine without it runs every other command; a reader or writer asked for there fails with this
// message, which names the library and the package to install, instead of trapping.

internal import CArchive

enum ArchiveLibrary {
    /// nil once libarchive is loaded; else what is missing and how to install it.
    static var missing: String? {
        if carchive_load() != 0 { return nil }
        let reason = String(cString: carchive_load_error())
        return "cannot load libarchive, needed for archives (\(reason)); install it with `apt-get install libarchive13`"
    }
}
