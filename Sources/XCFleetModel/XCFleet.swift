import Foundation

public enum XCFleet {
    public static let version = "0.1.0"
}
