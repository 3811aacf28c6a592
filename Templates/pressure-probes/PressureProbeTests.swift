import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import XCTest

/// C8/C9 probes: fill a cost-limited cache of the subject (through the cache contract's surface:
/// xcfleet's SessionMemoryCache by default, a team's cache through its adapter), read back, and
/// print hit rate and process memory change as `XCFLEET-METRIC` lines. Diagnostics only: nothing
/// here asserts eviction and a probe never fails.
final class PressureProbeTests: XCTestCase {
    @MainActor
    func testC8_hitRatePerObjectSize() async {
        let settings = ProbeSettings()
        for size in settings.objectSizes {
            let outcome = fillAndReadBack(size: size, settings: settings)
            emit(String(format: "hit_rate=%.4f", outcome.hitRate)
                 + " unit=ratio object_bytes=\(size) objects=\(outcome.objects) cost_limit=\(settings.costLimitBytes) rep=\(settings.repetition)")
        }
    }

    @MainActor
    func testC9_memoryDeltaPerObjectSize() async {
        let settings = ProbeSettings()
        for size in settings.objectSizes {
            let outcome = fillAndReadBack(size: size, settings: settings)
            if let delta = outcome.memoryDelta {
                emit("memory_delta=\(delta) unit=bytes source=\(ProcessMemory.source) object_bytes=\(size) objects=\(outcome.objects) rep=\(settings.repetition)")
            }
        }
    }

    @MainActor
    func testC9_memoryDeltaAfterClear() async {
        let settings = ProbeSettings()
        guard let size = settings.objectSizes.max() else { return }
        let before = ProcessMemory.currentBytes()
        let cache = ContractSubject.makeCache(totalCostLimit: settings.costLimitBytes, countLimit: settings.countLimit)
        let count = settings.objectCount(forSize: size)
        for index in 0..<count {
            cache.store(payload(size: size, index: index), for: ContractSubject.makeKey("probe", "item-\(index)", "v1"))
        }
        cache.clear()
        if let before, let after = ProcessMemory.currentBytes() {
            emit("memory_delta=\(after - before) unit=bytes source=\(ProcessMemory.source) object_bytes=\(size) phase=cleared rep=\(settings.repetition)")
        }
    }

    private struct Outcome {
        let objects: Int
        let hitRate: Double
        let memoryDelta: Int64?
    }

    /// Writes `objectCount` values of `size` bytes, reads each back with a fresh key, measures
    /// memory while the cache still holds them, then clears.
    @MainActor
    private func fillAndReadBack(size: Int, settings: ProbeSettings) -> Outcome {
        let count = settings.objectCount(forSize: size)
        let before = ProcessMemory.currentBytes()
        let cache = ContractSubject.makeCache(totalCostLimit: settings.costLimitBytes, countLimit: settings.countLimit)
        for index in 0..<count {
            cache.store(payload(size: size, index: index), for: ContractSubject.makeKey("probe", "item-\(index)", "v1"))
        }
        var hits = 0
        for index in 0..<count {
            if let value = cache.read(ContractSubject.makeKey("probe", "item-\(index)", "v1")), value.count == size {
                hits += 1
            }
        }
        let after = ProcessMemory.currentBytes()
        cache.clear()
        let delta: Int64? = if let before, let after { after - before } else { nil }
        return Outcome(objects: count, hitRate: count > 0 ? Double(hits) / Double(count) : 0, memoryDelta: delta)
    }

    private func payload(size: Int, index: Int) -> Data {
        Data(repeating: UInt8(truncatingIfNeeded: index), count: size)
    }

    /// One metric line per METRIC.md, flushed at once so it stays in order with XCTest's output.
    private func emit(_ metric: String) {
        print("XCFLEET-METRIC \(metric)")
        fflush(nil)
    }
}
