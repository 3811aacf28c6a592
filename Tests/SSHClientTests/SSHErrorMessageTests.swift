import XCTest
import XCFleetKit
import XCFleetTestSupport
@testable import SSHClient

/// SSHClient's error through the executable's mapper: one line naming the host, exit 3.
final class SSHErrorMessageTests: XCTestCase {
    func testSSHErrorIsOneInfrastructureLine() {
        for kind in [SSHError.Kind.connect, .hostKeyChanged, .authentication, .timeout] {
            let (message, code) = UserFacingErrors.report(SSHError(kind, host: "mac1:22", "connection refused; is sshd running?"))
            XCTAssertEqual(code, Verdict.ExitCode.infrastructure, "\(kind)")
            XCTAssertEqual(message, "xcfleet: mac1:22: connection refused; is sshd running?")
        }
    }
}
