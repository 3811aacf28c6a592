import Foundation

/// A file a test left behind for the reader (a screenshot, a log, a recording), fetched from the
/// host into the run directory (docs/attachments.md). Everything named here came from the host:
/// `name` is shown only escaped; `path` is xcfleet's own, made from it by `AttachmentNames`.
public struct AttachmentFile: Equatable, Codable, Sendable {
    /// The name as the host gave it, relative to the attachments folder (or Swift Testing's /
    /// the result bundle's name for it).
    public var name: String
    /// Where it is, relative to the run directory: `attachments/<job>/<attempt>/<safe name>`.
    public var path: String
    public var bytes: Int
    public var kind: AttachmentKind
    /// The test it belongs to (`Class/test`, `Suite/test()`), when the host said so; nil: the attempt's.
    public var test: String?

    public init(name: String, path: String, bytes: Int, kind: AttachmentKind, test: String? = nil) {
        self.name = name
        self.path = path
        self.bytes = bytes
        self.kind = kind
        self.test = test
    }
}

/// How a report shows an attachment: images inline, the rest as links.
public enum AttachmentKind: String, Codable, Sendable, CaseIterable {
    case image, video, text, other
}

/// A file that was not fetched, and why (over a cap, a link, not a regular file, …).
public struct AttachmentLeftOut: Equatable, Codable, Sendable {
    public var name: String
    /// Its size on the host, when known.
    public var bytes: Int?
    public var reason: String
    public var test: String?

    public init(name: String, bytes: Int? = nil, reason: String, test: String? = nil) {
        self.name = name
        self.bytes = bytes
        self.reason = reason
        self.test = test
    }
}

/// What one attempt's collect step fetched (one `attachments` event of `events.jsonl`).
public struct AttachmentsCollected: Equatable, Codable, Sendable {
    public var files: [AttachmentFile]
    public var leftOut: [AttachmentLeftOut]

    public init(files: [AttachmentFile] = [], leftOut: [AttachmentLeftOut] = []) {
        self.files = files
        self.leftOut = leftOut
    }

    public var isEmpty: Bool { files.isEmpty && leftOut.isEmpty }
}

/// The caps on what is fetched (docs/attachments.md): per file, per run, and files per attempt.
public struct AttachmentLimits: Equatable, Codable, Sendable {
    public var fileBytes: Int
    public var runBytes: Int
    public var filesPerAttempt: Int

    public init(fileBytes: Int = 20 << 20, runBytes: Int = 200 << 20, filesPerAttempt: Int = 100) {
        self.fileBytes = fileBytes
        self.runBytes = runBytes
        self.filesPerAttempt = filesPerAttempt
    }

    public static let defaults = AttachmentLimits()
}
