import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C and SIGTERM: the first one asks the run to stop cleanly (partial report, exit 130);
/// a second one exits at once.
enum Signals {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    private static let queue = DispatchQueue(label: "xcfleet.signals")

    /// `say` prints xcfleet's message (default: a line on stderr); the console passes its own so the
    /// message lands above the live view instead of inside it.
    static func install(onFirst: @escaping @Sendable () -> Void,
                        say: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data("\($0)\n".utf8)) }) {
        let count = Counter()
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler {
                if count.increment() == 1 {
                    say("\nxcfleet: stopping: cancelling running jobs and cleaning up (again to quit at once)")
                    onFirst()
                } else {
                    say("xcfleet: quit")
                    exit(130)
                }
            }
            source.resume()
            queue.sync { sources.append(source) }
        }
    }

    private final class Counter: @unchecked Sendable {
        private var n = 0
        private let lock = NSLock()
        func increment() -> Int { lock.lock(); defer { lock.unlock() }; n += 1; return n }
    }
}
