import XCTest
@testable import XCFleetModel
@testable import XCFleetCore

/// Swift backtracer frames with a source location become events; other lines that start with a
/// number do not.
final class BacktraceFrameTests: XCTestCase {
    func testFramesWithALocationAreRead() {
        let log = """
        💣 Program crashed: System trap at 0x00005581a2b3c4d5
        Thread 0 crashed:
        0 0x00005581a2b3c4d5 DictionaryCache.subscript.getter + 120 in CachePackageTests.xctest at /src/Sources/CacheContract/DictionaryCache.swift:35:9
          1  0x00005581a2b3c500 DictionaryCacheTests.testC3() + 80 in CachePackageTests.xctest at /src/Tests/CacheTests/DictionaryCacheTests.swift:31
        2 0x00007f149eee0eec __pthread_kill_implementation + 268 in libc.so.6
          3 [ra]          0x0000555e184608e5 FatalTests.testB() + 68 in SamplePackageTests.xctest at /src/Sample/Tests/LibTests/LibTests.swift:5:44
          4 [ra] [system] 0x0000555e18460ccb implicit closure #4 in static FatalTests.__allTests__FatalTests + 26 in SamplePackageTests.xctest at /src/Sample/.build/debug/LibTests.swift:9
          5 [ra] [thunk]  0x0000555e18460c1c thunk for @escaping @callee_guaranteed () -> () + 11 in SamplePackageTests.xctest at //<compiler-generated>
          6 [ra] [NotATag] 0x0000555e18460c1c f() + 11 in X at /a.swift:1
          7 [ra][ra] 0x1 g() in X at /b.swift:2
        3 tests at 0x12 passed at noon
        12 0x1f main at /weird path/with at inside/main.swift:x
        """
        let frames = OutputParser.parse(log).compactMap { e -> String? in
            if case .backtraceFrame(let i, let symbol, let file, let line) = e { return "\(i) \(symbol) \(file):\(line)" }
            return nil
        }
        XCTAssertEqual(frames, [
            "0 DictionaryCache.subscript.getter /src/Sources/CacheContract/DictionaryCache.swift:35",
            "1 DictionaryCacheTests.testC3() /src/Tests/CacheTests/DictionaryCacheTests.swift:31",
            "3 FatalTests.testB() /src/Sample/Tests/LibTests/LibTests.swift:5",
            "4 implicit closure #4 in static FatalTests.__allTests__FatalTests /src/Sample/.build/debug/LibTests.swift:9",
            "7 g() /b.swift:2",
        ])
    }

    /// The crashed thread's frames are the excerpt; the next thread's (its indexes start again) are not.
    func testTheExcerptIsTheCrashedThreadsFramesOnly() {
        let log = """
        Test Case 'FatalTests.testB' started at 2026-12-01 10:00:00.000
        Swift/ContiguousArrayBuffer.swift:692: Fatal error: Index out of range
        *** Program crashed: Illegal instruction at 0x00007faff996df7f ***
        Thread 0 "xctest" crashed:
          0               0x00007faff996df7f closure #1 in _assertionFailure(_:_:file:line:flags:) + 623 in libswiftCore.so
          3 [ra]          0x0000555e184608e5 FatalTests.testB() + 68 in SamplePackageTests.xctest at /src/Sample/Tests/LibTests/LibTests.swift:5:44
          4 [ra]          0x0000555e184608f0 FatalTests.helper() + 12 in SamplePackageTests.xctest at /src/Sample/Tests/LibTests/LibTests.swift:9:3
        Thread 1 "worker":
          0               0x00007f9cea2dbf16 __futex_abstimed_wait_common + 198 in libc.so.6
          2 [ra]          0x0000555e18460000 Worker.run() + 10 in SamplePackageTests.xctest at /src/Sample/Sources/Lib/Worker.swift:40:1
        """
        let report = Collator.attemptReport(events: OutputParser.parse(log), ended: AttemptEnded(termination: .signaled("SIGILL")),
                                            host: "h", slot: 0, number: 1)
        XCTAssertEqual(report.backtrace?.map { "\($0.message) \($0.file ?? ""):\($0.line ?? 0)" }, [
            "FatalTests.testB() /src/Sample/Tests/LibTests/LibTests.swift:5",
            "FatalTests.helper() /src/Sample/Tests/LibTests/LibTests.swift:9",
        ])
    }
}
