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
        let lower = server.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), server.count > 8,
              !server.contains(where: { $0 == "?" || $0 == "#" || $0 == "\"" || $0 == "<" || $0 == ">" || $0 == " " || $0 == "\\" || $0.isNewline }) else { return nil }
        let parts = repo.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return nil }
        guard (7...64).contains(sha.count), sha.allSatisfy(\.isHexDigit) else { return nil }
        return ForgeLink(server: server, repository: repo, sha: sha)
    }

    /// `<server>/<owner>/<name>/blob/<sha>/<path>#L<line>`, every path segment percent-encoded.
    /// A path that could leave the repository (`..`, absolute) gets no link.
    public func url(path: String, line: Int?) -> String? {
        guard !path.hasPrefix("/"), !path.isEmpty else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return nil }
        let encoded = segments.map { Self.encode(String($0)) }.joined(separator: "/")
        let repo = repository.split(separator: "/").map { Self.encode(String($0)) }.joined(separator: "/")
        return "\(server)/\(repo)/blob/\(sha)/\(encoded)" + (line.map { "#L\($0)" } ?? "")
    }

    private static func encode(_ s: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        allowed.insert(charactersIn: "+@")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
