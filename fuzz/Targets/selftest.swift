import Foundation

// Not run in CI: checks that scripts/fuzz.sh notices each kind of failure. Each of these must
// FAIL (exit 1) once the fuzzer finds an input starting with "Q" (within seconds):
//   SELFTEST=invariant scripts/fuzz.sh selftest   (a harness invariant traps)
//   SELFTEST=leak      scripts/fuzz.sh selftest   (LeakSanitizer report)
//   SELFTEST=hang      scripts/fuzz.sh selftest   (-timeout=10)
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSelfTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    guard input.byte() == UInt8(ascii: "Q") else { return 0 }
    switch ProcessInfo.processInfo.environment["SELFTEST"] ?? "invariant" {
    case "leak": leak(64)
    case "hang": while true { usleep(100_000) }
    default: invariant(false, "self-test")
    }
    return 0
}

/// Allocates and forgets 100 blocks (no pointer to them survives this frame).
@inline(never)
func leak(_ size: Int) {
    for _ in 0..<100 {
        let p = malloc(size)!
        _ = write(-1, p, 1) // the pointer escapes (EBADF), so the optimiser keeps the allocation
    }
}
