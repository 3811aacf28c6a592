import Foundation
import XCFleetModel

extension HostProfile {
    /// The profile a passed health check gives.
    public init(host: String, health: HostHealth.Result) {
        self.init(host: host, toolchainIdentity: health.toolchainIdentity, system: health.system, toolchain: health.toolchain, cpu: health.cpu)
    }
}
