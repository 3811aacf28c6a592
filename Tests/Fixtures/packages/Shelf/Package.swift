// swift-tools-version:5.9
// A small package of our own for package suites (README "A team's own package"): two test
// targets, XCTest and Swift Testing, one disabled test. Never edited by xcfleet.
import PackageDescription

let package = Package(
    name: "Shelf",
    targets: [
        .target(name: "Shelf"),
        .testTarget(name: "ShelfTests", dependencies: ["Shelf"]),
        .testTarget(name: "ShelfSwiftTests", dependencies: ["Shelf"]),
    ]
)
