// swift-tools-version:6.0
// A small app package with its own Combine-based feed types, run under xcfleet's Combine lifetime
// contract (Plans/app-feed-combine-contract.json) through one adapter file (Contract/AppFeedAdapter.swift).
// Combine exists only on Apple platforms: on Linux the module compiles empty.
import PackageDescription

let package = Package(
    name: "AppFeed",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "AppFeed", targets: ["AppFeed"]),
    ],
    targets: [
        .target(name: "AppFeed"),
    ]
)
