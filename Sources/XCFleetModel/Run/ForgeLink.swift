import Foundation

/// The forge a run's commit lives on (GitHub Actions' `GITHUB_SERVER_URL`, `GITHUB_REPOSITORY`,
/// `GITHUB_SHA`), recorded at run start so report.html can link a location to the file at that commit.
public struct ForgeLink: Equatable, Codable, Sendable {
    public var server: String
    public var repository: String
    public var sha: String

    public init(server: String, repository: String, sha: String) {
        self.server = server
        self.repository = repository
        self.sha = sha
    }

    /// From the GitHub Actions variables; nil unless all three are set and plausible (an
    /// `http(s)://` server without query or fragment, `owner/name`, a hex commit).
    public static func fromEnvironment(_ env: [String: String]) -> ForgeLink? {
        guard var server = env["GITHUB_SERVER_URL"], let repo = env["GITHUB_REPOSITORY"], let sha = env["GITHUB_SHA"] else { return nil }
        while server.hasSuffix("/") { server.removeLast() }
        let link = ForgeLink(server: server, repository: repo, sha: sha)
        return link.isPlausible ? link : nil
    }

    /// The checks of `fromEnvironment`, made again wherever a link is rendered: a forge read back
    /// from an edited `events.jsonl` must not put `javascript:` into report.html.
    public var isPlausible: Bool {
        guard Self.webURL(server) != nil, !server.contains(where: { $0 == "?" || $0 == "#" }) else { return false }
        let parts = repository.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return false }
        return (7...64).contains(sha.count) && sha.allSatisfy(\.isHexDigit)
    }

    /// `url` when it is an `http://` or `https://` URL with a host and nothing that could end an
    /// attribute or hide in one (quotes, `<`, `>`, `\\`, spaces, controls, bidi controls, non-ASCII);
    /// nil otherwise. Every link a report renders passes here.
    public static func webURL(_ url: String) -> String? {
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") { rest = url.dropFirst(8) } else if lower.hasPrefix("http://") { rest = url.dropFirst(7) } else { return nil }
        guard let first = rest.first, first != "/", first != "?", first != "#", first != "@" else { return nil }
        guard url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && !"\"'<>\\`{}|^".unicodeScalars.contains($0) }) else { return nil }
        return url
    }

    /// `<server>/<owner>/<name>/blob/<sha>/<path>#L<line>`, every path segment percent-encoded.
    /// A path that could leave the repository (`..`, absolute) gets no link.
    public func url(path: String, line: Int?) -> String? {
        guard isPlausible, !path.hasPrefix("/"), !path.isEmpty else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return nil }
        let encoded = segments.map { Self.encode(String($0)) }.joined(separator: "/")
        let repo = repository.split(separator: "/").map { Self.encode(String($0)) }.joined(separator: "/")
        return Self.webURL("\(server)/\(repo)/blob/\(sha)/\(encoded)" + (line.map { "#L\($0)" } ?? ""))
    }

    private static func encode(_ s: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        allowed.insert(charactersIn: "+@")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
