import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP port on 127.0.0.1 that nothing listens on right now (bound to 0, read back, closed).
package func freePort() throws -> Int {
    let listener = try SilentListener()
    listener.stop()
    return listener.port
}

/// Accepts TCP connections on 127.0.0.1 and never says a word (for handshake deadlines).
package final class SilentListener: @unchecked Sendable {
    package let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var held: [Int32] = []
    private var count = 0
    private var stopped = false

    package var accepted: Int { lock.lock(); defer { lock.unlock() }; return count }

    package init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bind(fd, sa, len) == 0 && listen(fd, 16) == 0 && getsockname(fd, sa, &len) == 0
            }
        }
        guard ok else { throw NSError(domain: "SilentListener", code: 1) }
        port = Int(UInt16(bigEndian: addr.sin_port))
    }

    package func start() {
        let fd = self.fd
        let thread = Thread { [self] in
            while true {
                let c = accept(fd, nil, nil)
                lock.lock()
                if stopped || c < 0 { lock.unlock(); if c >= 0 { close(c) }; return }
                held.append(c)
                count += 1
                lock.unlock()
            }
        }
        thread.start()
    }

    package func stop() {
        lock.lock()
        stopped = true
        let fds = held
        held = []
        lock.unlock()
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        for c in fds { close(c) }
    }
}
