import Foundation

/// What one attempt's push sent, as recorded in events.jsonl (`RunEvent.Body.push`) and report.json.
public struct PushRecord: Equatable, Codable, Sendable {
    public var host: String
    /// Bytes sent: the file list and the contents of the files the host lacked (0: nothing pushed).
    public var bytesSent: Int
    /// Files whose contents were sent (the host held the others).
    public var filesSent: Int
    /// Files and bytes of the whole workspace.
    public var totalFiles: Int
    public var totalBytes: Int

    public init(host: String, bytesSent: Int, filesSent: Int, totalFiles: Int, totalBytes: Int) {
        self.host = host
        self.bytesSent = bytesSent
        self.filesSent = filesSent
        self.totalFiles = totalFiles
        self.totalBytes = totalBytes
    }

    /// `pushed 12.3 kB: 5 of 2,000 files (the host had the rest)`, `pushed 1.2 MB: all 40 files`,
    /// `pushed nothing: the host had all 2,000 files`.
    public var summary: String {
        let total = Self.count(totalFiles)
        if filesSent == 0 { return "pushed nothing: the host had all \(total) files" }
        let sent = "pushed \(Self.bytes(bytesSent)): "
        if filesSent >= totalFiles { return sent + "all \(total) file\(totalFiles == 1 ? "" : "s")" }
        return sent + "\(Self.count(filesSent)) of \(total) files (the host had the rest)"
    }

    /// `950 B`, `12.3 kB`, `4.5 MB`, `1.2 GB` (decimal units).
    public static func bytes(_ n: Int) -> String {
        let v = Double(n)
        if v >= 1e9 { return String(format: "%.1f GB", v / 1e9) }
        if v >= 1e6 { return String(format: "%.1f MB", v / 1e6) }
        if v >= 1e3 { return String(format: "%.1f kB", v / 1e3) }
        return "\(n) B"
    }

    /// `2,000`.
    public static func count(_ n: Int) -> String {
        let digits = Array(String(n.magnitude))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(d)
        }
        return (n < 0 ? "-" : "") + out
    }
}
