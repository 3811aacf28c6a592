import Foundation

/// Work roots must be private to the login user: another local user who can write
/// into a work root could plant a push-cache entry or a build (their `Package.swift` would run as
/// ours and the run could be reported green). Every host-side script that reuses a directory under
/// the work root first checks it with `xcf_private` (POSIX sh, Linux and macOS).
public enum WorkRootSafety {
    /// `xcf_private DIR`: creates DIR (mode 700) when missing; succeeds when DIR is a directory
    /// owned by the login user and not group/world-writable; otherwise prints one line
    /// `xcfleet: refusing …` naming the path and the fix on stderr and fails. A symlink (e.g. a
    /// work root on another volume) is followed only when the link itself is ours: another user
    /// cannot repoint it, and its target must pass the same checks.
    public static let shellFunctions = HostScriptSource.workRoot + "\n"
}
