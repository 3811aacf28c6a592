// Throughput of OutputParser over the recorded logs, side by side with `grep -c -E` over the
// same bytes. Usage: bench-parser [LOGS_DIR]   (default: ../shared/fixtures/logs, searched
// upwards from the current directory). `bench-parser --dump FILE` prints the events of one file.
import Foundation
import XCFleetKit

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("bench-parser: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "--dump" {
    guard arguments.count == 2, let data = FileManager.default.contents(atPath: arguments[1]) else {
        fail("usage: bench-parser --dump FILE (file must be readable)")
    }
    for event in OutputParser.parse(data) { print(event) }
    exit(0)
}

/// The logs folder: the argument, or `../shared/fixtures/logs` from here or any parent.
func logsDirectory() -> URL {
    if let path = arguments.first { return URL(fileURLWithPath: path) }
    var dir = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    for _ in 0..<6 {
        let candidate = dir.appendingPathComponent("../shared/fixtures/logs").standardizedFileURL
        if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    fail("no logs folder: pass it as the first argument (e.g. /work/shared/fixtures/logs), or run from the package root next to ../shared")
}

let dir = logsDirectory()
let buildLogName = "clean_build_xcode_15_1.txt"
guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(),
      let buildLog = FileManager.default.contents(atPath: dir.appendingPathComponent(buildLogName).path) else {
    fail("\(dir.path) does not hold \(buildLogName); pass the fixtures/logs folder as the first argument")
}
var testLogs = Data()
for name in names where name.hasSuffix(".txt") && name != buildLogName {
    if let data = FileManager.default.contents(atPath: dir.appendingPathComponent(name).path) { testLogs.append(data) }
}
guard !testLogs.isEmpty else { fail("\(dir.path) holds no test logs (*.txt besides \(buildLogName))") }

/// `data` repeated until it is at least `minimum` bytes.
func repeated(_ data: Data, toAtLeast minimum: Int) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(minimum + data.count)
    while out.count < minimum { out.append(contentsOf: data) }
    return out
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Runs `grep -c -E PATTERN FILE`, returns (matching lines, seconds).
func grepCount(_ file: URL) throws -> (Int, Double) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["grep", "-c", "-E", "Test Case|error:|passed|failed", file.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    var output = Data()
    let time = try seconds {
        try process.run()
        output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
    }
    let count = Int(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    return (count, time)
}

let minimumBytes = 50 * 1024 * 1024
let chunk = 64 * 1024
print("bench-parser: logs from \(dir.path)")
/// Right-aligns (or left-aligns, for the first column) to a fixed width.
func cell(_ text: String, _ width: Int, left: Bool = false) -> String {
    let pad = String(repeating: " ", count: max(0, width - text.count))
    return left ? text + pad : pad + text
}
let widths = [12, 8, 10, 12, 12, 12, 10, 8]
func row(_ cells: [String]) -> String {
    zip(cells, widths).enumerated().map { cell($1.0, $1.1, left: $0 == 0) }.joined(separator: " ")
}
print(row(["corpus", "MB", "events", "parser MB/s", "events/s", "grep lines", "grep MB/s", "ratio"]))
for (label, source) in [("build-log", buildLog), ("test-logs", testLogs)] {
    let bytes = repeated(source, toAtLeast: minimumBytes)
    let megabytes = Double(bytes.count) / 1e6
    var best = Double.infinity
    var eventCount = 0
    for _ in 0..<3 {
        var count = 0
        let time = bytes.withUnsafeBufferPointer { buffer in
            seconds {
                var parser = OutputParser()
                var offset = 0
                while offset < buffer.count {
                    let end = min(offset + chunk, buffer.count)
                    count += parser.consume(UnsafeBufferPointer(rebasing: buffer[offset..<end])).count
                    offset = end
                }
                count += parser.finish().count
            }
        }
        best = min(best, time)
        eventCount = count
    }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("bench-parser-\(label)-\(getpid()).txt")
    defer { try? FileManager.default.removeItem(at: file) }
    var grepLines = -1
    var grepBest = Double.infinity
    do {
        try Data(bytes).write(to: file)
        for _ in 0..<3 {
            let (lines, time) = try grepCount(file)
            grepLines = lines
            grepBest = min(grepBest, time)
        }
    } catch {
        fail("could not run grep over \(file.path): \(error)")
    }
    let parserRate = megabytes / best
    let grepRate = megabytes / grepBest
    print(row([label, String(format: "%.1f", megabytes), "\(eventCount)", String(format: "%.0f", parserRate),
               String(format: "%.0f", Double(eventCount) / best), "\(grepLines)", String(format: "%.0f", grepRate),
               String(format: "%.2f", parserRate / grepRate)]))
}
print("ratio = parser MB/s ÷ grep MB/s (best of 3, 64 KiB chunks, release build expected)")
