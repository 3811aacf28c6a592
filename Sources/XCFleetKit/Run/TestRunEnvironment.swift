import Foundation
import XCFleetModel

/// What only steers one test run reaches the test process at run time, as environment variables,
/// never compiled into the package: so repetitions (and shards) of a suite render byte-identical
/// build inputs and share one build.
///
/// - `XCFLEET_REPETITION`: the job's repetition, 0-based (the pressure probes' `rep=` label).
///
/// `swift test` passes its environment to the test process. `xcodebuild test-without-building`
/// does not: it passes variables named `TEST_RUNNER_<NAME>` to the test runner as `<NAME>`
/// (`xcodebuild(_:)`), so Apple hosts get the prefixed form.
public enum TestRunEnvironment {
    public static let repetitionVariable = "XCFLEET_REPETITION"

    /// The variables of one job's test run.
    public static func variables(for planned: JobPlanned) -> [String: String] {
        [repetitionVariable: String(planned.repetition)]
    }

    /// The same variables in the form `xcodebuild` forwards to the test runner.
    public static func xcodebuild(_ variables: [String: String]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: variables.map { ("TEST_RUNNER_" + $0.key, $0.value) })
    }
}
