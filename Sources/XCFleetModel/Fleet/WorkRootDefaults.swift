import Foundation

/// Where hosts keep their work (`workRoot` in the fleet file) when the fleet file does not say.
public enum WorkRootDefaults {
    /// Default work root of SSH hosts: under the login user's home on the host (`~` is expanded
    /// on the host, once per connection, see `SSHShell.connect`).
    public static let remote = "~/.xcfleet/work"

    /// Default work root of the built-in local host: `$XDG_CACHE_HOME/xcfleet`, else `~/.cache/xcfleet`.
    public static func local(environment: [String: String] = ProcessInfo.processInfo.environment,
                                            home: String = NSHomeDirectory()) -> String {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return (xdg as NSString).appendingPathComponent("xcfleet") }
        return (home as NSString).appendingPathComponent(".cache/xcfleet")
    }
}
