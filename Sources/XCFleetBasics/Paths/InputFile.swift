import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way xcfleet reads an input file it was pointed at (plans, fleet files, known_hosts,
/// `--history` files, events.jsonl, template manifests). Symbolic links are followed by `open`
/// itself and the type check is made on the opened descriptor (`fstat`), so a link to a FIFO or
/// device is refused exactly like the FIFO itself; the open is non-blocking (opening a FIFO never
/// waits for a writer), the size is capped, and reading stops at a deadline.
public enum InputFile {
    /// Default cap for configuration-like files.
    public static let defaultLimit = 4 << 20

    /// The bytes of the regular file at `path` (after resolving links), at most `limit` bytes,
    /// read within `deadline` seconds.
    public static func read(_ path: String, limit: Int = defaultLimit, deadline: Double = 30) throws(InputFileError) -> Data {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR: throw InputFileError(path: path, kind: .missing)
            case ELOOP: throw InputFileError(path: path, kind: .notRegular("a symbolic link loop"))
            default: throw InputFileError(path: path, kind: .unreadable(String(cString: strerror(code))))
            }
        }
        defer { _ = close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw InputFileError(path: path, kind: .unreadable(String(cString: strerror(errno)))) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw InputFileError(path: path, kind: .directory)
        case S_IFIFO: throw InputFileError(path: path, kind: .notRegular("a FIFO"))
        case S_IFSOCK: throw InputFileError(path: path, kind: .notRegular("a socket"))
        default: throw InputFileError(path: path, kind: .notRegular("a device"))
        }
        if Int(info.st_size) > limit { throw InputFileError(path: path, kind: .tooLarge(limit)) }
        let end = Date().addingTimeInterval(deadline)
        var data = Data()
        // A regular file's size is known: one read of size + 1 bytes usually reaches its end.
        data.reserveCapacity(Int(info.st_size))
        var buffer = [UInt8](repeating: 0, count: min(64 << 10, max(4096, Int(info.st_size) + 1)))
        while true {
            let n = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN {
                    if Date() > end { throw InputFileError(path: path, kind: .timedOut(deadline)) }
                    usleep(1_000)
                    continue
                }
                throw InputFileError(path: path, kind: .unreadable(String(cString: strerror(errno))))
            }
            data.append(contentsOf: buffer[0..<n])
            if data.count > limit { throw InputFileError(path: path, kind: .tooLarge(limit)) }
            if Date() > end { throw InputFileError(path: path, kind: .timedOut(deadline)) }
        }
        return data
    }
}

/// Why an input file could not be read; `reason` is the part after "cannot read PATH: ".
public struct InputFileError: Error, CustomStringConvertible, LocalizedError, Equatable {
    public enum Kind: Equatable, Sendable {
        case missing, directory
        /// What it is instead ("a FIFO", "a device", "a socket").
        case notRegular(String)
        case tooLarge(Int)
        case timedOut(Double)
        case unreadable(String)
    }

    public var path: String
    public var kind: Kind

    public init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
    }

    public var reason: String {
        switch kind {
        case .missing: return "no such file; check the path"
        case .directory: return "it is a directory; name a file"
        case .notRegular(let what): return "not a regular file (it is \(what), or a link to one); give a regular file"
        case .tooLarge(let limit): return "the file is larger than \(limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit) bytes")"
        case .timedOut(let s): return "reading took longer than \(Int(s)) s"
        case .unreadable(let why): return why
        }
    }

    public var description: String { "\(path): cannot read the file: \(reason)" }
    public var errorDescription: String? { description }
}

private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

extension InputFileError: UserFacingError {
    public var userMessage: String { description }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.usage }
}
